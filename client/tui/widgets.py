"""Widgets of the table screen. Each draws from the last state the server sent."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from rich.table import Table
from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import RichLog

from unoplay.game.view import Phase, PlayerView

from .render import CARD_H, CARD_W, card_lines, colour_text, rules_line, seat_name


class HandView(Widget):
    """Your cards in one row of coloured boxes.

    The number keys' labels are in each card's top edge, "play" in the bottom
    edge of a card the server lists as playable ("jump!" when that play is out
    of turn: a jump-in), the selected card has a heavy edge and a ▲ under it,
    a card marked to be played with others a ✓. Cards that do not fit are
    scrolled, with ◀ n / n ▶ counts of the hidden ones. Click a card to select
    it, click it again to play it.
    """

    DEFAULT_CSS = """
    HandView { height: 5; }
    """

    class Clicked(Message):
        """A card was clicked: ``index`` into the hand."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    cards: reactive[tuple[int, ...]] = reactive((), layout=False)
    playable: reactive[frozenset[int]] = reactive(frozenset())
    selected: reactive[int] = reactive(0)
    my_turn: reactive[bool] = reactive(False)
    jump: reactive[bool] = reactive(False)  #: the plays listed are jump-ins (out of turn)
    partners: reactive[frozenset[int]] = reactive(frozenset())  #: playable only with others
    marked: reactive[frozenset[int]] = reactive(frozenset())  #: marked to play together

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._start = 0  # first card shown
        self._layout: tuple[int, int, int] = (0, 0, 0)  # left pad, first, count

    def _window(self, width: int) -> tuple[int, int, int]:
        """(left pad, first card, cards shown) for ``width`` cells."""
        n = len(self.cards)
        fit = max(1, width // CARD_W)
        if n <= fit:
            self._start = 0
            return 0, 0, n
        fit = max(1, (width - 8) // CARD_W)  # room for the ◀ n / n ▶ marks
        sel = min(max(self.selected, 0), n - 1)
        start = min(self._start, n - fit)
        if sel < start:
            start = sel
        elif sel >= start + fit:
            start = sel - fit + 1
        self._start = start
        return 4, start, fit

    def render(self) -> Text:
        width = self.size.width or 80
        pad, first, count = self._layout = self._window(width)
        n = len(self.cards)
        if not n:
            return Text("\n  (no cards)", style="dim")
        rows = [Text() for _ in range(CARD_H + 1)]
        if pad:
            left = f"◀{first}" if first else ""
            for i, row in enumerate(rows):
                row.append((left if i == 1 else "").ljust(pad), style="bold")
        for i in range(first, first + count):
            card = self.cards[i]
            playable = card in self.playable
            label = str(i + 1) if i < 9 else ("0" if i == 9 else "")
            marked = card in self.marked
            dim = self.my_turn and not playable and card not in self.partners
            lines = card_lines(
                card,
                label=label,
                selected=i == self.selected,
                playable=playable,
                dim=dim,
                jump=self.jump,
                marked=marked,
            )
            for row, line in zip(rows, lines):
                row.append_text(line)
            under = ("▲" if i == self.selected else "") + ("✓" if marked else "")
            rows[CARD_H].append(under.center(CARD_W), style="bold")
        hidden = n - first - count
        if pad and hidden:
            rows[1].append(f" {hidden}▶", style="bold")
        return Text("\n").join(rows)

    def on_click(self, event: events.Click) -> None:
        pad, first, count = self._layout
        at = event.get_content_offset(self)
        if at is None or at.x < pad or at.y >= CARD_H:
            return
        index = first + (at.x - pad) // CARD_W
        if first <= index < first + count:
            self.post_message(self.Clicked(index))


class PlayersPanel(Widget):
    """Every seat: whose turn, cards held, UNO state, score, bot / offline."""

    DEFAULT_CSS = """
    PlayersPanel { height: auto; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.view: PlayerView | None = None
        self.seats: Sequence = ()
        self.me = -1
        self.teams = False

    def show(
        self, view: PlayerView | None, seats: Sequence, me: int = -1, teams: bool = False
    ) -> None:
        """Draw ``view`` (None: seats only); ``teams``: mark partners (section 9)."""
        self.view, self.seats, self.me, self.teams = view, seats, me, teams
        self.refresh(layout=True)

    def render(self) -> Table:
        view, seats = self.view, self.seats
        table = Table.grid(padding=(0, 1), expand=True)
        table.add_column(width=1)
        table.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
        table.add_column(justify="right", no_wrap=True, width=5)
        table.add_column(no_wrap=True, width=6)
        table.add_column(justify="right", no_wrap=True, width=5)
        n = len(view.hand_sizes) if view else len(seats)
        me = view.seat if view else self.me
        if view is not None:
            table.add_row(
                "",
                Text("Player", style="dim"),
                Text("Cards", style="dim"),
                "",
                Text("Score", style="dim"),
            )
        for i in range(n):
            info = seats[i] if i < len(seats) else None
            name = Text(seat_name(seats, i, -1) if info and info.name else "(empty)")
            if i == me:
                name = Text(f"{name.plain} (you)", style="bold")
            elif self.teams and me >= 0 and n % 2 == 0 and i == (me + n // 2) % n:
                name.append(" partner", style="bold #43a047")  # partners sit opposite
            if info is not None and info.occupied and not info.connected:
                name.append(" away", style="italic #ef5350")
            elif info is not None and info.bot:
                name.append(" bot", style="dim")
            if view is None:
                table.add_row("", name, "", "", "")
                continue
            turn = i == view.current and view.phase < Phase.ROUND_OVER
            marker = Text("▶", style="bold #f4c20d") if turn else Text(" ")
            size = view.hand_sizes[i]
            uno = Text("")
            if i < len(view.uno_called) and view.uno_called[i] and size == 1:
                uno = Text("UNO!", style="bold #1a1a1a on #f4c20d")
            elif view.catchable == i:
                uno = Text("no UNO", style="bold #ef5350")
            if i in view.out_seats:  # out of play (elimination, tournament)
                uno = Text("out", style="dim")
            score = Text(str(view.scores[i]) if i < len(view.scores) else "0")
            if turn:
                name.stylize("bold")
            table.add_row(
                marker, name, Text(str(size), style="bold" if size <= 2 else ""), uno, score
            )
        return table


class PileView(Widget):
    """The top card, the colour in force, the draw pile, the direction and any
    pending penalty. Click it to draw."""

    DEFAULT_CSS = """
    PileView { height: 4; }
    """

    class Clicked(Message):
        """The draw pile was clicked."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.view: PlayerView | None = None
        self.seats: Sequence = ()
        self.me = -1

    def show(self, view: PlayerView | None, seats: Sequence, me: int = -1) -> None:
        self.view, self.seats, self.me = view, seats, me
        self.refresh()

    def render(self) -> Text:
        view = self.view
        if view is None:
            return Text("\n  Waiting for the game to start…", style="italic")
        me = view.seat
        card = card_lines(view.top_card)
        info = [Text(), Text(), Text(), Text()]
        info[0].append("Colour ")
        info[0].append_text(
            colour_text(view.colour, upper=True)
            if 0 <= view.colour <= 3
            else Text("(to be named)", style="italic")
        )
        info[1].append(f"Draw pile {view.draw_pile_size}", style="bold")
        info[1].append(f" · discards {view.discard_pile_size}", style="dim")
        info[2].append("↻ clockwise" if view.direction == 1 else "↺ counter-clockwise")
        if view.pending_penalty:
            who = seat_name(self.seats, view.current, me)
            info[3].append(
                f"+{view.pending_penalty} pending on {who}", style="bold #ffffff on #c62828"
            )
        elif view.phase >= Phase.ROUND_OVER:
            info[3].append(
                "Game over" if view.phase is Phase.GAME_OVER else "Round over", style="bold"
            )
        else:
            info[3].append(f"Round {view.round_number}", style="dim")
        lines = []
        for left, right in zip(card, info):
            lines.append(Text.assemble(left, "  ", right))
        return Text("\n").join(lines)

    def on_click(self) -> None:
        self.post_message(self.Clicked())


class RulesLine(Widget):
    """The rules at a house-rules table on one line: the preset and the options
    that differ from official, as many as the width holds (see
    :func:`.render.rules_line`)."""

    DEFAULT_CSS = """
    RulesLine { height: 1; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.preset = ""
        self.changes: list[str] = []  #: a few words for each option that differs

    def show(self, preset: str, changes: Sequence[str]) -> None:
        self.preset, self.changes = preset, list(changes)
        self.refresh()

    def render(self) -> Text:
        return rules_line(self.preset, self.changes, self.size.width)


class GameLog(RichLog):
    """The "What happened" log. A RichLog lays each line out once, at the width
    it has then; this one keeps the lines it was given and lays them all out
    again when its width changes, so a resize never leaves them cut off or
    wrapped at the old width."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._texts: deque[Text] = deque(maxlen=self.max_lines)
        self._width = 0  # the content width the lines were laid out for

    def add(self, text: Text) -> None:
        """Write ``text`` as the last line."""
        self._texts.append(text)
        self.write(text)

    def on_mount(self) -> None:
        self.anchor()  # kept at the newest line, unless the player scrolls up

    def on_resize(self, event: events.Resize) -> None:
        width = self.scrollable_content_region.width
        if width == self._width:
            return
        known, self._width = self._size_known, width
        if known:  # (the first time, RichLog writes the lines that waited for a size)
            self.clear()
            for text in self._texts:
                self.write(text, scroll_end=False)
