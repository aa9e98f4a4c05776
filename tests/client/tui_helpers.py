"""What the TUI's pilot tests share: waiting on a condition, finding the
table screen, reading the terminal, and :class:`CraftedApp`, the table
screen of one seat on an engine position with a fake game stream.

No sleeps as synchronisation: every wait polls a condition under a timeout.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

from helpers import c, cs
from textual.app import App

from unoplay import wire
from unoplay.client.sdk import Received, SessionState
from unoplay.client.tui import app as tui_app
from unoplay.client.tui.screens import CreateTableScreen, GameScreen, LobbyScreen
from unoplay.client.tui.screens.prompts import ColourPrompt, DrawnPrompt, PenaltyPrompt
from unoplay.client.tui.widgets import HandView
from unoplay.game.engine import GameState
from unoplay.game.messages import SeatInfo, TableInfo, TableState, Update
from unoplay.game.rules import PRESETS, RuleSet

WAIT = 30.0  # seconds: upper bound of any single wait
COLOUR_KEYS = "rygb"


async def wait_until(
    pilot, predicate: Callable[[], object], what: str, timeout: float = WAIT
) -> None:
    """Let the app run until ``predicate()`` is true; fail after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(
                f"timed out after {timeout:.0f}s waiting for {what}; screen is {pilot.app.screen!r}"
            )
        await pilot.pause(0.01)


def table_screen(app) -> GameScreen | None:
    """The app's table screen, on top or under a prompt it opened, or None."""
    return next((s for s in reversed(app.screen_stack) if isinstance(s, GameScreen)), None)


async def reach_table(pilot, what: str = "the table", *, settle: bool = False) -> GameScreen:
    """Wait for the table screen and return it; ``settle``: until it is this
    player's turn to play from the hand, the table on top.

    On an unseeded table the deal may ask this seat at once (a Wild starter to
    name, a Draw Two or Wild Draw Four played on it before its first turn): the
    prompt opens over the table, and ``settle`` answers it (the first colour,
    accept, play the drawn card) so that the keys that follow reach the table."""
    app = pilot.app
    await wait_until(pilot, lambda: table_screen(app) is not None, what)
    if not settle:
        return table_screen(app)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while not (app.screen is table_screen(app) and app.screen.ready):
        assert loop.time() < deadline, f"timed out waiting for {what}; screen is {app.screen!r}"
        screen = app.screen
        if isinstance(screen, ColourPrompt):
            await pilot.press(COLOUR_KEYS[screen.colours[0]])
        elif isinstance(screen, PenaltyPrompt):
            await pilot.press("a")
        elif isinstance(screen, DrawnPrompt):
            await pilot.press("p")
        await pilot.pause(0.01)
    return table_screen(app)


def screen_lines(app) -> list[str]:
    """What the terminal shows, as plain text: one line per row."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def shown_in(app, widget) -> list[str]:
    """The rows of the terminal inside ``widget``'s region, as plain text."""
    region = widget.region
    return [line[region.x : region.right] for line in screen_lines(app)[region.y : region.bottom]]


async def open_form(app, pilot) -> CreateTableScreen:
    """From the lobby, n: the create-table form, returned once it is up."""
    await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
    await pilot.press("n")
    await wait_until(pilot, lambda: isinstance(app.screen, CreateTableScreen), "the form")
    return app.screen


async def press_for_card(pilot, index: int) -> None:
    """Select the card at ``index`` of the hand by its number key (Home and
    → beyond the tenth)."""
    if index < 10:
        await pilot.press(str((index + 1) % 10))
    else:
        await pilot.press("home", *["right"] * index)


async def select_card(pilot, card: int) -> None:
    """Select ``card`` in the hand shown on the app's screen."""
    hand = pilot.app.screen.query_one(HandView)
    await press_for_card(pilot, hand.cards.index(card))
    assert hand.cards[hand.selected] == card


def house_game(hands: list[str], top: str, current: int, **rules) -> GameState:
    """A position at a house-rules table (``rules`` changed over the preset)."""
    return GameState.from_position(
        [cs(h) for h in hands], c(top), rules=PRESETS["house"].replace(**rules), current=current
    )


def ada_goes_out(players: int, rules: RuleSet) -> GameState:
    """Ada (seat 0) holds one red 7 on a red 4 and plays first: one key ends the game."""
    hands = ["R7", "B1 B2 G3 Y4 B5", "B1#1 B2#1 G3#1 Y4#1 B5#1"][:players]
    return GameState.from_position([cs(h) for h in hands], c("R4"), rules=rules, current=0)


class FakeSession:
    """Stands in for the game stream: records the wire ids the table sends."""

    def __init__(self) -> None:
        self.sent: list[int] = []

    async def send(self, action) -> bool:
        """Record ``action``'s wire id; always sent."""
        self.sent.append(wire.action_id(action))
        return True

    async def close(self) -> None:
        """Nothing to close."""


class CraftedApp(App):
    """The table screen of seat 0 on an engine position, as the stream would
    deliver it (view and legal actions through the wire), with a fake session.
    ``names`` replaces the players' names (seat order), ``title`` the table's."""

    CSS_PATH = str(Path(tui_app.__file__).with_name("uno.tcss"))
    TITLE = "UNO"
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        game: GameState,
        seat: int = 0,
        window_closes_ms: int = 0,
        clock: Callable[[], float] | None = None,
        events: list | None = None,
        names: Sequence[str] = (),
        title: str = "House",
    ) -> None:
        super().__init__()
        self.game, self.seat, self.events = game, seat, events or []
        self.window_closes_ms, self.clock = window_closes_ms, clock
        self.names, self.title_text = list(names), title
        self.session = FakeSession()

    def seat_name(self, seat: int) -> str:
        """The name at ``seat``: from ``names``, else Ada for this seat, bot-N for the others."""
        if seat < len(self.names):
            return self.names[seat]
        return "Ada" if seat == self.seat else f"bot-{seat}"

    def state(self) -> SessionState:
        """The session state a stream would have built for this position."""
        seats = tuple(
            SeatInfo(
                seat=i,
                name=self.seat_name(i),
                bot=i != self.seat,
                occupied=True,
                connected=True,
            )
            for i in range(self.game.players)
        )
        table = TableInfo(
            table_id="t1-test",
            title=self.title_text,
            seats=seats,
            rules=self.game.rules,
            turn_seconds=0,
            state=TableState.PLAYING,
            scores=(),
            away_grace=30.0,
        )
        update = wire.update_from_pb(
            wire.message_pb(
                1,
                Update(
                    self.game.view(self.seat), tuple(self.game.legal_actions(self.seat)), 0.0, seats
                ),
            ).update
        )  # through the wire and back, as a stream delivers it
        self.update = Received(1, update)  # handle() it as the stream's message
        return SessionState(
            seat=self.seat,
            table=table,
            commitment="c" * 64,
            view=update.view,
            seats=seats,
            legal=update.legal,
            window_closes_ms=self.window_closes_ms,
            events=list(self.events),
        )

    def on_mount(self) -> None:
        screen = GameScreen(state=self.state(), **({"clock": self.clock} if self.clock else {}))
        screen.session = self.session
        self.push_screen(screen)
