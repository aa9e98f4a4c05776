"""Issue 48: a person at a table in the TUI while the server restarts on its
file (stopped cleanly, started again on the same file and port): the screen
says the server is restarting, and the same game comes back, the hand intact.

No sleeps as synchronisation: every wait polls a condition under a timeout.
"""

from __future__ import annotations

import pytest
from textual.widgets import Static
from tui_helpers import reach_table, screen_lines, wait_until

from unoplay.client.sdk import Connection
from unoplay.client.tui.app import PlayOptions, UnoApp
from unoplay.client.tui.screens import LobbyScreen
from unoplay.client.tui.screens.game import Seating
from unoplay.client.tui.widgets import HandView
from unoplay.game.rules import RuleSet
from unoplay.server.service import start_server

pytestmark = pytest.mark.usefixtures("data_dir")


def footer(app) -> str:
    """The footer's row: the last one of the terminal ("" before the first frame)."""
    lines = screen_lines(app)
    return lines[-1] if lines else ""


async def test_the_same_game_is_on_screen_after_a_server_restart(tmp_path):
    path = str(tmp_path / "games.sqlite3")
    server = await start_server("127.0.0.1", 0, store=path)
    try:
        async with Connection(server.address) as conn:
            table = await conn.create_table(
                seats=2, rules=RuleSet(target_score=500), bot_delay=0.0, title="Restart"
            )
            ada = await conn.join_table(table.table_id, "Ada")
            await conn.add_bot(table.table_id, "greedy")
            await conn.start_game(table.table_id, ada.seat_token)
        app = UnoApp(PlayOptions(server=server.address, name="Ada"))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            app.show_table(Seating(server.address, table.table_id, ada.seat_token, "Ada"))
            board = await reach_table(pilot, settle=True)  # Ada's turn
            hand = board.query_one(HandView)
            status = board.query_one("#status", Static)
            before = board.session.state
            cards, view, commitment = list(hand.cards), before.view, before.commitment
            actions = len(server.lobby.get(table.table_id).history)
            await server.stop(2.0)  # a restart: the game stays in the file
            await wait_until(
                pilot, lambda: "Server restarting" in str(status.content), "the restart said"
            )
            await wait_until(pilot, lambda: "Play" not in footer(app), "no move offered")
            server = await start_server("127.0.0.1", server.port, store=path)
            await wait_until(
                pilot,
                lambda: "reconnecting" not in str(status.content) and "⏎ Play" in footer(app),
                "the same game back, Ada to play",
            )
            after = board.session.state
            assert list(hand.cards) == cards  # the hand intact, on screen
            assert after.commitment == commitment and after.gap_at == -1
            assert after.view.hand == view.hand and after.view.scores == view.scores
            assert len(server.lobby.get(table.table_id).history) == actions
            await pilot.press("ctrl+q")
    finally:
        await server.stop(None)
