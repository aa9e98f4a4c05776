"""Modal screens: the decisions the server asks for, help, results, quitting."""

from __future__ import annotations

import time
from collections.abc import Sequence
from enum import StrEnum
from typing import Any, TypeVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from unoplay.game.cards import IS_WILD
from unoplay.game.rules import MultiPlay, RuleSet

from ..model import RoundResult
from ..render import card_lines, card_text, colour_text, colour_word
from ..ruleinfo import differences, meaning, preset_name, short_text

_KEYS = "rygb"

R = TypeVar("R")


class PenaltyChoice(StrEnum):
    """The answers of :class:`PenaltyPrompt`."""

    CHALLENGE = "challenge"
    ACCEPT = "accept"
    CARDS = "cards"  #: answer with a card of the hand (house rules)


class DrawnChoice(StrEnum):
    """The answers of :class:`DrawnPrompt`."""

    PLAY = "play"
    UNO = "uno"  #: play it and call UNO
    KEEP = "keep"


class QuitChoice(StrEnum):
    """The answers of :class:`QuitPrompt`."""

    LOBBY = "lobby"
    QUIT = "quit"
    BOT = "bot"  #: give the seat to a bot for good


class Modal(ModalScreen[R]):
    """A modal screen that only ever closes itself, with a result of type ``R``
    (None when cancelled).

    ``Screen.dismiss`` pops whatever screen is on top; a key or button message
    still queued for a modal that has already been closed (the server moved on
    and closed it) must not pop the screen below, so :meth:`answer` checks.
    """

    def answer(self, result: R | None = None) -> None:
        """Dismiss with ``result`` if this screen is still the active one."""
        if self.is_attached and self.app.screen is self:
            self.dismiss(result)


class Prompt(Modal[R]):
    """Base of the decision prompts: a titled box with buttons; Escape cancels
    when ``cancellable``. ``kind`` names the decision (the table screen closes
    a prompt the server no longer asks for) and ``card`` the card it is about."""

    kind = ""
    cancellable = True
    card: int | None = None

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_class("prompt")

    def action_cancel(self) -> None:
        """Esc: close without an answer, where that is allowed."""
        if self.cancellable:
            self.answer(None)

    def choice(self, name: str) -> R | None:
        """The result a button named ``name`` stands for."""
        raise NotImplementedError

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.answer(self.choice(event.button.name or ""))


def _cards_text(card: int, extra: Sequence[int] = ()) -> Text:
    """ "red 7" or, for several cards played together, "red 7 + blue 7"."""
    text = card_text(card)
    for other in extra:
        text.append(" + ")
        text.append_text(card_text(other))
    return text


class ColourPrompt(Prompt[int]):
    """Name a colour: for a wild you play (cancellable), for several cards of
    different colours played together (the colour left in force), or for a
    Wild starter card. Dismisses with the colour 0..3, or None when cancelled."""

    BINDINGS = [
        Binding("r,1", "pick(0)", "red", show=False),
        Binding("y,2", "pick(1)", "yellow", show=False),
        Binding("g,3", "pick(2)", "green", show=False),
        Binding("b,4", "pick(3)", "blue", show=False),
        Binding("escape", "cancel", "cancel", show=False),
    ]
    kind = "colour"
    #: No button has the focus until the player moves to one (Tab, the arrows,
    #: the mouse): an Enter pressed twice to play a Wild names no colour.
    AUTO_FOCUS = ""

    def __init__(
        self,
        colours: Sequence[int],
        card: int | None = None,
        starter: bool = False,
        extra: Sequence[int] = (),
    ) -> None:
        super().__init__()
        self.colours = sorted(set(c for c in colours if 0 <= c <= 3))
        self.card = card
        self.extra = tuple(extra)
        self.starter = starter
        self.cancellable = not starter
        self.kind = "starter" if starter else "wild"

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            if self.starter:
                yield Static(
                    Text("The starter card is a Wild: name its colour", style="bold"),
                    classes="title",
                )
            elif self.extra and self.card is not None:
                title = Text("Which colour stays in force? You play ", style="bold")
                title.append_text(_cards_text(self.card, self.extra))
                yield Static(title, classes="title")
            else:
                title = Text("Name the colour for your ", style="bold")
                title.append_text(card_text(self.card) if self.card is not None else Text("wild"))
                yield Static(title, classes="title")
            with Horizontal(classes="buttons"):
                for c in self.colours:
                    yield Button(
                        f"{_KEYS[c]}  {colour_word(c)}", name=str(c), classes=f"colour-{c}"
                    )
            keys = " ".join(f"{_KEYS[c]}/{c + 1}" for c in self.colours)  # only those offered
            yield Static(
                f"{keys} to choose" + ("" if self.starter else " · Esc cancels"), classes="hint"
            )

    def action_pick(self, colour: int) -> None:
        """A colour key."""
        if colour in self.colours:
            self.answer(colour)

    def choice(self, name: str) -> int | None:
        """A colour button: its colour."""
        return int(name)


class PenaltyPrompt(Prompt[PenaltyChoice]):
    """A draw card was played on you: accept (Enter: the safe answer, whatever
    has the focus), challenge (c, a Wild Draw Four), or answer with a card
    when the house rules allow it (h: stacking, deflecting). Its footer names
    the keys. Dismisses with a :class:`PenaltyChoice` (CARDS: pick a card from
    your hand)."""

    card: int

    BINDINGS = [
        # Enter is the safe answer, whatever has the focus: accept.
        Binding("enter", "choose('accept')", "Accept", priority=True),
        Binding("a", "choose('accept')", "Accept", show=False),
        Binding("c", "choose('challenge')", "Challenge"),
        Binding("h", "choose('cards')", "Answer from hand"),
        Binding("escape", "choose('cards')", "Answer from hand", show=False),
    ]
    kind = "penalty"
    cancellable = False

    def __init__(
        self,
        by: str | None,
        card: int,
        penalty: int,
        colour: int,
        can_challenge: bool,
        can_answer: bool,
        judged: int = -1,
    ) -> None:
        """``by``: who played ``card`` on you, None for the round's starter card;
        ``judged``: the colour in force before it (-1 unknown), which a challenge judges."""
        super().__init__()
        self.by, self.card, self.penalty, self.colour = by, card, penalty, colour
        self.can_challenge, self.can_answer = can_challenge, can_answer
        self.judged = judged

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            if self.by is None:
                title = Text("The starter card, ", style="bold")
                title.append_text(card_text(self.card))
                title.append(", is on you", style="bold")
            else:
                title = Text(f"{self.by} played ", style="bold")
                title.append_text(card_text(self.card))
                title.append(" on you", style="bold")
            yield Static(title, classes="title")
            body = Text()
            if IS_WILD[self.card]:
                body.append("They named ")
                body.append_text(colour_text(self.colour))
                body.append("\n\n")
            body.append("Accept: draw ")
            body.append(str(self.penalty), style="bold")
            body.append(" and lose your turn.")
            if self.can_challenge:
                body.append("\nChallenge: if they held a ")
                if 0 <= self.judged <= 3:
                    body.append_text(colour_text(self.judged))
                    body.append(" card (the colour in force before their Wild Draw Four)")
                else:
                    body.append("card of the colour in force before their Wild Draw Four")
                body.append(", it was a bluff: they draw instead; if not, you draw 2 more.")
            if self.can_answer:
                body.append("\nOr answer with a card marked “play” in your hand (house rules).")
            yield Static(body, classes="body")
            with Horizontal(classes="buttons"):
                buttons = [Button(f"⏎  Accept +{self.penalty}", name="accept", variant="primary")]
                if self.can_challenge:
                    buttons.append(Button("c  Challenge", name="challenge", variant="warning"))
                if self.can_answer:
                    buttons.append(Button("h  Answer from hand", name="cards"))
                for button in buttons:
                    button.can_focus = False  # Enter accepts: no button takes it
                    yield button
            hint = ["Enter accepts"]
            if self.can_challenge:
                hint.append("c challenges")
            if self.can_answer:
                hint.append("h or Esc: a card from your hand")
            else:
                hint.append("Esc does not close this")
            yield Static(" · ".join(hint), classes="hint")
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Challenge and the hand only where they are allowed (so the footer
        offers no other)."""
        if action == "choose" and parameters:
            if parameters[0] == "challenge":
                return self.can_challenge
            if parameters[0] == "cards":
                return self.can_answer
        return True

    def action_choose(self, choice: str) -> None:
        """A key: accept, challenge or answer from the hand (:meth:`check_action`
        lets only the allowed ones through)."""
        self.answer(PenaltyChoice(choice))

    def choice(self, name: str) -> PenaltyChoice | None:
        """A button: its answer."""
        return PenaltyChoice(name)


class TargetPrompt(Prompt[int]):
    """Pick the player to swap hands with (house rules: a 7 or a 5).
    Dismisses with the seat, or None when cancelled."""

    card: int

    BINDINGS = [
        *[Binding(str(k), f"pick({k - 1})", show=False) for k in range(1, 10)],
        Binding("escape", "cancel", "cancel", show=False),
    ]
    kind = "target"

    def __init__(
        self, card: int, choices: Sequence[tuple[int, str, int]], extra: Sequence[int] = ()
    ) -> None:
        super().__init__()
        self.card = card
        self.extra = tuple(extra)
        self.choices = list(choices)  # (seat, name, cards held)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            title = Text("Swap hands with whom? You play ", style="bold")
            title.append_text(_cards_text(self.card, self.extra))
            yield Static(title, classes="title")
            with Horizontal(classes="buttons"):
                for i, (seat, name, held) in enumerate(self.choices):
                    yield Button(Text(f"{i + 1}  {name} ({held})"), name=str(seat))
            yield Static("1-9 to choose · Esc cancels", classes="hint")

    def action_pick(self, index: int) -> None:
        """A number key: the player listed there."""
        if index < len(self.choices):
            self.answer(self.choices[index][0])

    def choice(self, name: str) -> int | None:
        """A player's button: the seat."""
        return int(name)


class DrawnPrompt(Prompt[DrawnChoice]):
    """You drew a card that can be played: play it or keep it.
    Dismisses with a :class:`DrawnChoice`."""

    card: int

    BINDINGS = [
        Binding("p,enter", "choose('play')", "play", show=False),
        Binding("k,d", "choose('keep')", "keep", show=False),
        Binding("u", "choose('uno')", "play + UNO", show=False),
    ]
    kind = "drawn"
    cancellable = False

    def __init__(self, card: int, with_uno: bool) -> None:
        super().__init__()
        self.card, self.with_uno = card, with_uno

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            title = Text("You drew ", style="bold")
            title.append_text(card_text(self.card))
            title.append(": it can be played", style="bold")
            yield Static(title, classes="title")
            yield Static(Text("\n").join(card_lines(self.card, playable=True)), classes="card")
            with Horizontal(classes="buttons"):
                yield Button("p  Play it", name="play", variant="primary")
                if self.with_uno:
                    yield Button("u  Play + UNO", name="uno", variant="warning")
                yield Button("k  Keep it", name="keep")

    def action_choose(self, choice: str) -> None:
        """A key: play, play with UNO (where it is listed) or keep."""
        answer = DrawnChoice(choice)
        if answer is DrawnChoice.UNO and not self.with_uno:
            return
        self.answer(answer)

    def choice(self, name: str) -> DrawnChoice | None:
        """A button: its answer."""
        return DrawnChoice(name)


HELP = """\
[b]Keys[/b]
 ←/→ 1-9 0  select a card        Enter   play it
 d  draw (or click the pile)     u       call UNO
 c  catch a player without UNO   ?       this help
 o  sort the hand: as dealt, by colour, by rank (remembered)
 q  leave the table              ctrl+q  quit at once (Ctrl+C asks)
 i  the table's id (uno bot --table ID seats a bot of yours here)
{marking} Mouse: click a card to select it, click it again to play it.
[b]UNO[/b]
 Playing your second-to-last card? Press u first: the call rides on
 the play ("UNO armed"). Or press u right after, before you are caught.
[b]Marks[/b]
 "play" under a card: the server lists it as playable now; on your
 turn the others are greyed. "jump!": you may play it out of your turn
 (jump-in).{marked} ▶ whose turn it is.
 "UNO!" called, "no UNO": that player can be caught.
 ⏳ 1.2s: an out-of-turn window is open (after a play someone may be
 caught for, or jump in on): every move sent now, yours and the bots',
 is judged together when it closes.
[b]Prompts[/b]
 A wild asks its colour (r y g b). A Wild Draw Four played on you:
 accept (Enter) or challenge (c); it was a bluff if its player held a
 card of the colour in force before it (the prompt names that colour).
 A drawn card that fits: play it (p) or keep it (k).
[b]Time[/b]
 With a turn timer ("23s left"), a decision not made in time is made
 for you: a draw, then keeping the card drawn; a penalty accepted;
 a Wild starter given the colour you hold most.
[b]Leaving[/b]
 At a LAN server your seat stays yours: the turn timer plays for you,
 and uno play --server HOST:PORT with the same name on this machine
 takes it back.\
"""


#: The keys and the mark of multi-play, in :data:`HELP` only where it is on.
_MARKING = (
    " Space  mark the selected card to play several together (multi-play);\n"
    "        Enter then plays the marked cards, Esc clears the marks.\n"
)
_MARKED = " ✓ marked to be played together."


def keys_help(multi_play: bool) -> Text:
    """The keys, marks and prompts part of the help; Space and ✓ (marking cards
    to play together) only when ``multi_play`` is on at the table."""
    return Text.from_markup(
        HELP.format(marking=_MARKING if multi_play else "", marked=_MARKED if multi_play else "")
    )


def rules_help(rules: RuleSet) -> Group:
    """The "rules at this table" part of the help: the preset, then each option
    that differs from official with a one-line meaning."""
    target = f"first to {rules.target_score}" if rules.target_score else "one round"
    head = Text.from_markup("[b]Rules at this table[/b]\n")
    head.append(f" {preset_name(rules)}, {target}")
    changed = differences(rules)
    if not changed:
        head.append(": the official rules, no house rules")
        return Group(head)
    table = Table.grid(padding=(0, 1))
    table.add_column(width=2, justify="right")
    table.add_column(no_wrap=True, style="bold")
    table.add_column(ratio=1)
    for name, value in changed:
        table.add_row("•", short_text(name, value), meaning(name, value))
    return Group(head, table)


class HelpScreen(Modal[None]):
    """The keys, the marks and the rules in force at the table (``rules``).
    ``body`` replaces the player's keys (the lobby's, the spectator's help),
    ``title`` the title."""

    BINDINGS = [Binding("escape,question_mark,q,enter", "close", "close", show=False)]

    def __init__(
        self,
        rules: RuleSet | None = None,
        *,
        body: Text | None = None,
        title: str = "UNO — rules, keys and marks",
    ) -> None:
        super().__init__()
        self.rules, self.body, self.title_text = rules, body, title

    def compose(self) -> ComposeResult:
        multi = self.rules is not None and self.rules.multi_play is not MultiPlay.OFF
        body: Group | Text = self.body if self.body is not None else keys_help(multi)
        if self.rules is not None:
            body = Group(rules_help(self.rules), body)
        with Vertical(id="dialog", classes="help"):
            yield Static(Text(self.title_text, style="bold"), classes="title")
            with VerticalScroll(classes="scroll"):
                yield Static(body, classes="body", id="help-body")
            yield Static("↑/↓ scroll · Esc or ? closes", classes="hint")

    def action_close(self) -> None:
        """Esc or ?: close."""
        self.answer(None)


class QuitPrompt(Prompt[QuitChoice]):
    """Leaving a table. Dismisses with a :class:`QuitChoice`, or None to stay."""

    BINDINGS = [
        Binding("l", "choose('lobby')", show=False),
        Binding("q,y", "choose('quit')", show=False),
        Binding("b", "choose('bot')", show=False),
        Binding("escape,n", "cancel", show=False),
    ]
    kind = "quit"

    def __init__(self, embedded: bool, playing: bool, lost: str = "", remote: bool = False) -> None:
        super().__init__()
        self.embedded, self.playing, self.lost, self.remote = embedded, playing, lost, remote

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            if self.embedded:
                yield Static(Text("Quit the game?", style="bold"), classes="title")
                body = (
                    "The table goes on at the server: a stand-in plays your seat while you are away."
                    if self.remote
                    else "The local server and its bots stop with it."
                )
                yield Static(body, classes="body")
                with Horizontal(classes="buttons"):
                    yield Button("y  Quit", name="quit", variant="error")
                    yield Button("Esc  Stay", name="", variant="primary")
            elif self.lost:
                yield Static(Text("Leave the table?", style="bold"), classes="title")
                yield Static(
                    Text(
                        f"{self.lost}. Whether your seat is kept is the server's to say: "
                        "if it runs again with this table, Enter on it in the lobby (same "
                        "name, this machine) tries to take it back."
                    ),
                    classes="body",
                )
                with Horizontal(classes="buttons"):
                    yield Button("l  Lobby", name="lobby", variant="primary")
                    yield Button("q  Quit uno", name="quit", variant="error")
            elif self.playing:
                yield Static(Text("Leave the table?", style="bold"), classes="title")
                yield Static(
                    "Your seat stays yours: the turn timer (then a stand-in bot) "
                    "plays it until you come back (same server, table and name, from "
                    "this machine). Or give it to a bot for good.",
                    classes="body",
                )
                with Horizontal(classes="buttons"):
                    yield Button("l  Lobby", name="lobby")
                    yield Button("q  Quit uno", name="quit", variant="error")
                    yield Button("b  Bot takes seat", name="bot", variant="warning")
            else:
                yield Static(Text("Leave the table?", style="bold"), classes="title")
                with Horizontal(classes="buttons"):
                    yield Button("l  Lobby", name="lobby", variant="primary")
                    yield Button("q  Quit uno", name="quit", variant="error")
            yield Static("Esc stays at the table", classes="hint")

    def action_choose(self, choice: str) -> None:
        """A key: lobby, quit, or a bot takes the seat, where offered."""
        answer = QuitChoice(choice)
        if answer is QuitChoice.BOT and (self.embedded or not self.playing or self.lost):
            return
        if answer is QuitChoice.LOBBY and self.embedded:
            return
        self.answer(answer)

    def choice(self, name: str) -> QuitChoice | None:
        """A button: its answer (the Stay button has none)."""
        return QuitChoice(name) if name else None


class RoundResultScreen(Modal[bool]):
    """The end of a round: who went out, the cards each player was left holding
    and what they count, the game score. It steps aside by itself once the
    next round is under way (:meth:`step_aside`; it dismisses with True then,
    and the table holds Enter and Space for :data:`KEY_HOLD_SECONDS`: the
    key meant for the box is not a play); ``q`` closes it and goes on
    to the screen below's ``q`` (leave, or quit)."""

    BINDINGS = [
        Binding("enter,escape,space", "close", "continue", show=False),
        Binding("q", "close_and_leave", "leave", show=False),
    ]
    #: Seconds the box stays, at least, before the next round moves it aside.
    READING_SECONDS = 3.0
    #: Seconds Enter and Space do nothing at the table after the box stepped aside.
    KEY_HOLD_SECONDS = 1.0

    def __init__(self, result: RoundResult) -> None:
        super().__init__()
        self.result = result
        self._opened = time.monotonic()
        self._leaving = False  # a step aside is timed

    def step_aside(self, at_once: bool = False) -> None:
        """The next round is under way: close now (``at_once``: it wants your
        move) or once the box has been up :data:`READING_SECONDS`."""
        left = self._opened + self.READING_SECONDS - time.monotonic()
        if at_once or left <= 0:
            self.answer(True)
        elif not self._leaving:
            self._leaving = True
            self.set_timer(left, lambda: self.answer(True))

    def compose(self) -> ComposeResult:
        r = self.result
        with Vertical(id="dialog", classes="results"):
            title = Text(
                f"Round {r.round_number}: {r.winner} went out, +{r.points} points", style="bold"
            )
            yield Static(title, classes="title")
            table = Table(expand=True, box=None, header_style="bold")
            table.add_column("Player")
            table.add_column("Cards left", justify="right")
            table.add_column("Points in hand", justify="right")
            table.add_column("Score", justify="right")
            for row in zip(r.names, r.hand_cards, r.hand_points, r.scores):
                table.add_row(*(Text(str(cell)) for cell in row))  # a name is never markup
            yield Static(table, classes="body", id="round-table")
            target = f"first to {r.target} wins" if r.target else ""
            yield Static(
                f"{target} · the next round starts by itself · Enter continues", classes="hint"
            )

    def action_close(self) -> None:
        """Enter, Esc or Space: continue."""
        self.answer(None)

    def action_close_and_leave(self) -> None:
        """q: continue, and press q on the screen below."""
        if self.is_attached and self.app.screen is self:
            self.dismiss(None)
            self.app.simulate_key("q")
