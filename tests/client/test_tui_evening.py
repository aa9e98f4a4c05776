"""A first evening without a traceback (issue 47), the TUI's rows: Enter on
the Wild Draw Four prompt accepts, Enter on the final standings plays again,
the create form at 40x12, no moves offered once the connection is lost, the
rematch votes shown to a spectator, the arena's games apart in the lobby.

No sleeps as synchronisation: every wait polls a condition under a timeout.
"""

from __future__ import annotations

import asyncio

import pytest
from helpers import c
from tui_helpers import (
    WAIT,
    CraftedApp,
    ada_goes_out,
    house_game,
    screen_lines,
    table_screen,
    wait_until,
)

from unoplay import wire
from unoplay.client.sdk import Connection, run_bot
from unoplay.client.tui.app import PlayOptions, UnoApp
from unoplay.client.tui.screens import FinalScreen, LobbyScreen
from unoplay.client.tui.screens.game import Seating
from unoplay.client.tui.screens.prompts import PenaltyPrompt
from unoplay.game.actions import ActionKind, play
from unoplay.game.bots import make_bot
from unoplay.game.messages import TableState
from unoplay.game.rules import RuleSet

pytestmark = pytest.mark.usefixtures("data_dir")


def _footer(app) -> str:
    """The footer's row: the last one of the terminal ("" before the first frame)."""
    lines = screen_lines(app)
    return lines[-1] if lines else ""


# ---------------------------------------------------------------- the Wild Draw Four prompt


@pytest.mark.parametrize(
    ("key", "kind"), [("enter", ActionKind.ACCEPT), ("c", ActionKind.CHALLENGE)]
)
async def test_enter_accepts_a_wild_draw_four_and_c_challenges_it(key, kind):
    """bot-3 plays a Wild Draw Four on Ada: the prompt's footer offers Enter
    (accept) and c (challenge), not the table's Play; Enter sends the
    acceptance (it sent the challenge, the first button's), c the challenge."""
    game = house_game(["R1 Y3", "G1 G3", "B1 B2", "W+4 R5 G6"], "R7", current=3, stacking="off")
    played = game.apply(3, play(c("W+4"), colour=3))
    app = CraftedApp(game, events=played)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.screen.handle(app.update)
        await wait_until(pilot, lambda: isinstance(app.screen, PenaltyPrompt), "the prompt")
        await wait_until(pilot, lambda: "Accept" in _footer(app), "the prompt's footer")
        footer = _footer(app)
        assert "⏎ Accept" in footer and "c Challenge" in footer
        assert "Play" not in footer and "Catch" not in footer
        assert "Enter accepts · c challenges" in " ".join(screen_lines(app))
        await pilot.press(key)
        await wait_until(pilot, lambda: app.session.sent, "the answer")
        (answer,) = [a for a in game.legal_actions(0) if a.kind is kind]
        assert app.session.sent == [wire.action_id(answer)]


# ---------------------------------------------------------------- the final standings


async def test_enter_on_the_final_standings_plays_again(server):
    """Ada goes out with her one card at a table of her and a bot: on the
    final standings Enter votes to play again (the footer says so); the bot
    agrees at once and the next game opens."""
    rules = RuleSet(target_score=0)  # one round is the game
    async with Connection(server.address) as conn:
        table = await conn.create_table(seats=2, rules=rules, bot_delay=0.0)
        ada = await conn.join_table(table.table_id, "Ada")
        await conn.add_bot(table.table_id, "greedy")
    live = server.lobby.get(table.table_id)
    app = UnoApp(PlayOptions(server=server.address, name="Ada"))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        app.show_table(Seating(server.address, table.table_id, ada.seat_token, "Ada"))
        await wait_until(
            pilot, lambda: table_screen(app) is not None and table_screen(app).session, "the table"
        )
        live.start(game=ada_goes_out(2, rules))
        await wait_until(pilot, lambda: app.screen.ready, "Ada's turn")
        await pilot.press("enter")  # the red 7: out, and the game is over
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, FinalScreen) and "Play again" in _footer(app),
            "the final standings",
        )
        assert "⏎ Play again" in _footer(app)
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: (
                table_screen(app) is not None
                and table_screen(app).state.view is not None
                and not table_screen(app).state.game_over
            ),
            "the next game",
        )
        assert live.games_started == 2 and live.state is TableState.PLAYING
        await pilot.press("ctrl+q")


# ---------------------------------------------------------------- a spectator's rematch votes


async def test_a_spectator_sees_who_voted_to_play_again_and_enter_goes_back_to_the_lobby(server):
    """Eve watches Ada's and Bob's one-round game to its end; Ada votes to
    play again: Eve's final standings say Ada agreed and Bob is still to
    vote; Enter takes her back to the lobby."""
    rules = RuleSet(target_score=0)
    async with Connection(server.address) as conn:
        table = await conn.create_table(seats=3, rules=rules, bot_delay=0.0, title="Votes")
        ada, _bob = [await conn.join_table(table.table_id, name) for name in ("Ada", "Bob")]
        await conn.add_bot(table.table_id, "greedy")
        live = server.lobby.get(table.table_id)
        app = UnoApp(PlayOptions(server=server.address, name="Eve"))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            app.show_watch(server.address, table.table_id)
            await wait_until(pilot, lambda: live.spectators == 1, "the spectator stream")
            live.start(game=ada_goes_out(3, rules))
            await asyncio.wait_for(
                run_bot(make_bot("greedy"), conn.session(table.table_id, ada.seat_token)), WAIT
            )
            await wait_until(
                pilot,
                lambda: isinstance(app.screen, FinalScreen) and app.screen.is_mounted,
                "the final standings",
            )
            final = app.screen
            await conn.rematch(table.table_id, ada.seat_token)
            await wait_until(
                pilot, lambda: "Ada ✓" in str(final.votes.content), "Ada's vote shown to Eve"
            )
            votes = str(final.votes.content)
            assert "Bob …" in votes and "1/2" in votes and "you" not in votes
            assert "⏎" not in _footer(app) and "Play again" not in _footer(app)
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("ctrl+q")
