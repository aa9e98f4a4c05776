"""The create-table form: table settings, a rules preset and every rule option.

The option fields are made from ``unoplay.game.rules`` (see :mod:`.ruleinfo`): an
enum is a Select, a bool a Checkbox, an int an Input checked against its
range. The server has the last word: the form sends CreateTable itself and
stays open until the server accepts, showing a refusal (which names the
option) in the form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.validation import Number
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from unoplay.game.messages import TableInfo
from unoplay.game.rules import OPTION_NAMES, PRESETS, preset

from ...address import error_words
from ...sdk import ServerError
from ..ruleinfo import OPTIONS, OptionInfo, in_form_words, option_label
from ..seats import Prefs
from .host import host
from .prompts import Modal


@dataclass
class NewTable:
    """A table the server created from the form, and what to do next."""

    table: TableInfo
    seats: int
    bots: int  #: bots to seat now


class FormSelect(Select):
    """A Select of the form. Its list opens inside the form, moving the fields
    below it down (``uno.tcss``), and is scrolled into view: it cannot spill
    over the buttons or the dialog's border as an overlay would."""

    def watch_expanded(self, expanded: bool) -> None:
        if expanded:
            self.call_after_refresh(self.scroll_visible, animate=False)


class FormCheckbox(Checkbox, inherit_bindings=False):
    """A Checkbox of the form: Space ticks it, Enter creates the table (as the
    form's hint says) instead of ticking it."""

    BINDINGS = [Binding("space", "toggle_button", "Tick", show=False)]


def _option_widget(info: OptionInfo, value: Any) -> Widget:
    """The field for one option, showing ``value``."""
    wid = f"opt-{info.name}"
    if info.kind is bool:
        return FormCheckbox(_yes_no(value), value, id=wid, compact=True)
    if info.kind is int:
        return Input(
            str(value),
            id=wid,
            restrict=r"[0-9]*",
            max_length=len(str(info.high)),
            validators=[Number(info.low, info.high)],
            compact=True,
        )
    return FormSelect(
        [(v.replace("_", " "), v) for v in info.choices],
        value=value,
        allow_blank=False,
        id=wid,
        compact=True,
    )


def _yes_no(value: bool) -> str:
    return "yes" if value else "no"


class CreateTableScreen(Modal[NewTable]):
    """A form for a new table on server ``target``. Dismisses with a
    :class:`NewTable` once the server created it, or None when cancelled."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("enter", "create", "Create", show=False),  # where a field keeps no Enter
    ]

    # A narrow or short terminal gets a form that fits (uno.tcss: -narrow, -short).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (70, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (22, "-tall")]

    #: The key of the last table's fields in :class:`~..seats.Prefs`.
    LAST = "last_table"
    #: The table settings' fields by id, as their labels name them.
    _SETTINGS = {"seats": "Seats", "turn": "Turn time", "bots": "Bots to seat now"}

    def __init__(self, target: str, bot_delay: float = 0.0, prefs: Prefs | None = None) -> None:
        super().__init__()
        self.target = target
        self.bot_delay = bot_delay
        self.prefs = prefs
        self.busy = False
        last = prefs.get(self.LAST) if prefs is not None else None
        self.last: dict[str, Any] = last if isinstance(last, dict) else {}
        preset_name = self.last.get("preset")
        self.preset_shown = preset_name if preset_name in PRESETS else "official"

    def _last(self, key: str, default: str) -> str:
        """The last table's field ``key`` as text, or ``default``."""
        value = self.last.get(key)
        return str(value) if isinstance(value, (int, str)) else default

    def compose(self) -> ComposeResult:
        presets = [(name, name) for name in PRESETS]
        rules = preset(self.preset_shown).to_dict()
        options = self.last.get("options")
        if isinstance(options, dict):  # the last table's options, where still valid
            rules.update((k, v) for k, v in options.items() if k in rules)
        with Vertical(id="dialog", classes="form"):
            yield Static(Text("New table", style="bold"), classes="title")
            with VerticalScroll(id="form-scroll"), Grid(id="form-grid"):
                yield Label("Title")
                yield Input(placeholder="(Table N)", id="title", max_length=40, compact=True)
                yield Label("Seats (2-10)")
                yield Input(
                    self._last("seats", "4"), id="seats", type="integer", max_length=2, compact=True
                )
                yield Label("Turn time, s (0: none)")
                yield Input(
                    self._last("turn", "30"), id="turn", type="integer", max_length=4, compact=True
                )
                yield Label("Bots to seat now")
                yield Input(
                    self._last("bots", "0"), id="bots", type="integer", max_length=1, compact=True
                )
                yield Static(
                    Text("Rules: pick a preset, then change any option", style="bold"),
                    classes="section",
                )
                yield Label("Preset")
                yield FormSelect(
                    presets, value=self.preset_shown, allow_blank=False, id="preset", compact=True
                )
                for info in OPTIONS:
                    yield Label(info.label)
                    yield _option_widget(info, rules[info.name])
            yield Static(id="form-error")
            with Horizontal(classes="buttons"):
                yield Button("Create and sit", name="create", variant="primary", compact=True)
                yield Button("Cancel", name="cancel", compact=True)
            remembered = " (the last table's settings)" if self.last else ""
            yield Static(
                f"Tab/Shift+Tab move · Space ticks · Enter creates · Esc cancels{remembered}",
                classes="hint long",
            )
            yield Static("Tab moves · Enter creates · Esc cancels", classes="hint short")

    def on_mount(self) -> None:
        self.query_one("#form-error").display = False
        self.query_one("#title").focus()

    # ------------------------------------------------------------- values

    @on(Select.Changed, "#preset")
    def _preset_changed(self, event: Select.Changed) -> None:
        if str(event.value) != self.preset_shown:  # not the preset shown (with its edits)
            self.fill(str(event.value))

    @on(Checkbox.Changed)
    def _ticked(self, event: Checkbox.Changed) -> None:
        event.checkbox.label = _yes_no(event.value)

    @on(Input.Changed)
    @on(Select.Changed)
    @on(Checkbox.Changed)
    def _edited(self) -> None:
        """An edit: the message about the last try no longer applies."""
        self.query_one("#form-error").display = False

    def fill(self, name: str) -> None:
        """Set every option field to preset ``name``'s value."""
        self.preset_shown = name
        values = preset(name).to_dict()
        for info in OPTIONS:
            widget = self.query_one(f"#opt-{info.name}")
            value = values[info.name]
            if isinstance(widget, Input):
                widget.value = str(value)
            elif isinstance(widget, (Checkbox, Select)):
                widget.value = value

    def option_values(self) -> dict[str, Any] | None:
        """Option name -> the value in its field (ints unchecked against their
        range: the server judges). None, with a message, if a number is missing."""
        values: dict[str, Any] = {}
        for info in OPTIONS:
            widget = self.query_one(f"#opt-{info.name}")
            if isinstance(widget, Input):
                if not widget.value.isdigit():
                    self.show_error(
                        f"{option_label(info.name)}: type a whole number {info.low}..{info.high}",
                        widget,
                    )
                    return None
                values[info.name] = int(widget.value)
            elif isinstance(widget, (Checkbox, Select)):
                values[info.name] = widget.value
        return values

    def show_error(self, message: str, widget: Widget | None = None) -> None:
        """Show ``message`` above the buttons, the options it names in the
        form's words, and focus ``widget``, or the option the message starts
        with ("uno_penalty: 11 is outside 0..10": UNO penalty's field)."""
        self._say(Text(in_form_words(message), style="bold #ef5350"))
        if widget is None:
            name = message.split(":", 1)[0].strip()
            if name in OPTION_NAMES:
                widget = self.query_one(f"#opt-{name}")
        if widget is not None:
            widget.focus()

    def _say(self, text: Text) -> None:
        """Show ``text`` above the buttons (until the form is edited)."""
        message = self.query_one("#form-error", Static)
        message.update(text)
        message.display = True

    # ------------------------------------------------------------- actions

    def action_cancel(self) -> None:
        """Close the form; not while the server creates the table (the table
        would be left there without you): its answer seats you as usual."""
        if self.busy:
            self._say(
                Text(
                    "The server is creating the table: you sit there once it answers", style="bold"
                )
            )
            return
        self.answer(None)

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.create()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.name == "create":
            self.create()
        else:
            self.action_cancel()

    def action_create(self) -> None:
        """Enter on a field that keeps no Enter of its own (a checkbox): create."""
        self.create()

    def create(self) -> None:
        """Check the table settings and ask the server for the table."""
        if self.busy:
            return

        def number(widget_id: str, low: int, high: int) -> int | None:
            widget = self.query_one(f"#{widget_id}", Input)
            try:
                value = int(widget.value.strip())
            except ValueError:
                value = None
            if value is None or not low <= value <= high:
                label = self._SETTINGS[widget_id]
                self.show_error(f"{label}: a whole number {low}..{high}", widget)
                return None
            return value

        seats = number("seats", 2, 10)
        turn = number("turn", 0, 3600) if seats is not None else None
        bots = number("bots", 0, 9) if turn is not None else None
        if seats is None or turn is None or bots is None:
            return
        if bots >= seats:
            self.show_error(
                "Leave a seat for yourself: fewer bots than seats", self.query_one("#bots")
            )
            return
        values = self.option_values()
        if values is None:
            return
        self.busy = True
        self._send(
            self.query_one("#title", Input).value.strip(),
            seats,
            turn,
            bots,
            str(self.query_one("#preset", Select).value),
            values,
        )

    @work(exclusive=True, group="create")
    async def _send(
        self,
        title: str,
        seats: int,
        turn: int,
        bots: int,
        preset_name: str,
        options: dict[str, Any],
    ) -> None:
        try:
            conn = host(self).connection(self.target)
            table = await conn.create_table(
                seats=seats,
                preset=preset_name,
                options=options,
                title=title,
                turn_seconds=turn,
                bot_delay=self.bot_delay,
            )
        except ServerError as err:
            self.busy = False
            self.show_error(error_words(err, self.target))
            return
        if self.prefs is not None:
            self.prefs.put(
                self.LAST,
                {
                    "seats": seats,
                    "turn": turn,
                    "bots": bots,
                    "preset": preset_name,
                    "options": options,
                },
            )
        self.answer(NewTable(table, seats, bots))
