"""A crafted table position, for snapshot tests and the README screenshot.

No server: the table screen is built from a fixed view, seat list, legal
actions and event log, exactly as the game stream would have delivered them.

    python -m unoplay.client.tui.demo client/tui/screenshot.svg --size 100x30
"""

from __future__ import annotations

import argparse
import asyncio

from textual.app import App

from unoplay.game.actions import DRAW, play
from unoplay.game.cards import Colour, parse_card
from unoplay.game.events import Event
from unoplay.game.events import EventKind as E
from unoplay.game.messages import SeatInfo, TableInfo, TableState
from unoplay.game.rules import OFFICIAL
from unoplay.game.view import Phase, PlayerView

from ..sdk import SessionState
from .screens import GameScreen

#: The demo's clock (Unix seconds): the turn deadline is 23 s after it.
NOW = 1_800_000_000.0


def crafted_state() -> SessionState:
    """Round 3, your turn, a red 4 on the pile, one opponent on UNO."""
    c = parse_card
    hand = [c("R7"), c("Y3"), c("GS"), c("B+2"), c("W"), c("W+4"), c("RR"), c("B5"), c("Y9")]
    top = c("R4")
    names = [
        ("Ada", False, True),
        ("greedy-1", True, True),
        ("Bob", False, False),
        ("greedy-2", True, True),
    ]
    seats = tuple(
        SeatInfo(seat=i, name=n, bot=b, occupied=True, connected=on)
        for i, (n, b, on) in enumerate(names)
    )
    view = PlayerView(
        seat=0,
        hand=tuple(hand),
        hand_sizes=(9, 4, 6, 1),
        top_card=top,
        colour=Colour.RED,
        direction=-1,
        current=0,
        phase=Phase.PLAY,
        pending_penalty=0,
        drawn_card=-1,
        uno_called=(False, False, False, True),
        catchable=-1,
        draw_pile_size=61,
        discard_pile_size=14,
        scores=(120, 45, 0, 210),
        dealer=2,
        round_number=3,
        round_winner=-1,
        game_winners=(),
    )
    legal = [play(c("R7")), play(c("RR"))]
    legal += [play(c("W"), colour) for colour in range(4)]
    legal += [play(c("W+4"), colour) for colour in range(4)]
    legal.append(DRAW)
    table = TableInfo(
        table_id="t3-demo",
        title="Friday night",
        seats=seats,
        rules=OFFICIAL,
        turn_seconds=30,
        state=TableState.PLAYING,
        scores=(120, 45, 0, 210),
        away_grace=30.0,
    )
    events = [
        Event(E.ROUND_STARTED, 2, value=3, count=7),
        Event(E.HAND_DEALT, 0, audience=0, cards=tuple(hand[:7])),
        Event(E.STARTER_FLIPPED, -1, cards=(c("G4"),)),
        Event(E.PLAYED, 1, cards=(c("G8"),), colour=2),
        Event(E.PLAYED, 0, cards=(c("GR"),), colour=2),
        Event(E.DIRECTION_CHANGED, -1, value=-1),
        Event(E.PLAYED, 1, cards=(c("Y8"),), colour=1),
        Event(E.DREW, 2, count=1),
        Event(E.KEPT, 2),
        Event(E.PLAYED, 3, cards=(c("W"),), colour=3),
        Event(E.DREW, 0, count=1),
        Event(E.DREW_CARDS, 0, audience=0, cards=(c("B5"),)),
        Event(E.PLAYED, 0, cards=(c("B+2"),), colour=3),
        Event(E.DREW, 1, count=2),
        Event(E.SKIPPED, 1),
        Event(E.PLAYED, 2, cards=(c("B9"),), colour=3),
        Event(E.PLAYED, 3, cards=(c("Y9"),), colour=1),
        Event(E.UNO_CALLED, 3),
        Event(E.PLAYED, 2, cards=(c("Y4"),), colour=1),
        Event(E.DREW, 1, count=1),
        Event(E.DREW, 2, count=1),
        Event(E.PLAYED, 1, cards=(c("R4"),), colour=0),
        Event(E.TURN, 0),
    ]
    return SessionState(
        seat=0,
        table=table,
        view=view,
        seats=seats,
        legal=tuple(legal),
        deadline_ms=int((NOW + 23) * 1000),
        events=events,
    )


class DemoApp(App):
    """The table screen on :func:`crafted_state`, with a frozen clock."""

    CSS_PATH = "uno.tcss"
    TITLE = "UNO"
    ENABLE_COMMAND_PALETTE = False

    def on_mount(self) -> None:
        self.push_screen(GameScreen(state=crafted_state(), clock=lambda: NOW))


async def save_screenshot(path: str, size: tuple[int, int]) -> None:
    """Run the demo headless and save an SVG screenshot of the table screen."""
    app = DemoApp()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        svg = app.export_screenshot(title="uno play")
    with open(path, "w", encoding="utf-8") as out:
        out.write(svg)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", default="screenshot.svg")
    parser.add_argument("--size", default="100x30", help="WIDTHxHEIGHT")
    args = parser.parse_args()
    width, height = (int(x) for x in args.size.lower().split("x"))
    asyncio.run(save_screenshot(args.path, (width, height)))


if __name__ == "__main__":
    main()
