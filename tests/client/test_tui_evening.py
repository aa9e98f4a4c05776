"""A first evening without a traceback (issue 47), the TUI's rows: Enter on
the Wild Draw Four prompt accepts, Enter on the final standings plays again,
the create form at 40x12, no moves offered once the connection is lost, the
rematch votes shown to a spectator, the arena's games apart in the lobby.

No sleeps as synchronisation: every wait polls a condition under a timeout.
"""

from __future__ import annotations

import asyncio
from itertools import pairwise

import pytest
from helpers import c, cs
from textual.widgets import Button, Label, Static
from tui_helpers import (
    WAIT,
    CraftedApp,
    ada_goes_out,
    house_game,
    open_form,
    screen_lines,
    table_screen,
    wait_until,
)

from unoplay import wire
from unoplay.client.sdk import Connection, run_bot
from unoplay.client.tui.app import PlayOptions, UnoApp
from unoplay.client.tui.screens import FinalScreen, GameScreen, LobbyScreen, WatchScreen
from unoplay.client.tui.screens.game import Seating
from unoplay.client.tui.screens.prompts import PenaltyPrompt
from unoplay.client.tui.widgets import HandView
from unoplay.game.actions import ActionKind, play
from unoplay.game.engine import GameState
from unoplay.game.messages import TableState
from unoplay.game.registry import make_bot
from unoplay.game.rules import RuleSet
from unoplay.server.arena import ArenaSettings
from unoplay.server.service import start_server

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


# ---------------------------------------------------------------- a lost connection


def _moves_offered(screen) -> set[str]:
    """The game keys among the screen's active bindings."""
    actions = {b.binding.action for b in screen.active_bindings.values()}
    return actions & {"play", "draw", "uno", "catch", "mark"}


async def test_no_move_is_offered_while_reconnecting_nor_once_the_server_stopped():
    """Ada's turn: the footer offers Play and Draw. While the stream is being
    reopened the status says so and no move is offered; once it is back they
    are; when the server stops, the game keys go for good (only Leave, Help)."""
    server = await start_server("127.0.0.1", 0)
    try:
        async with Connection(server.address) as conn:
            table = await conn.create_table(seats=2, bot_delay=0.0, title="Offline")
            ada = await conn.join_table(table.table_id, "Ada")
            await conn.add_bot(table.table_id, "greedy")
        live = server.lobby.get(table.table_id)
        app = UnoApp(PlayOptions(server=server.address, name="Ada"))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            app.show_table(Seating(server.address, table.table_id, ada.seat_token, "Ada"))
            await wait_until(
                pilot,
                lambda: table_screen(app) is not None and table_screen(app).session,
                "the table",
            )
            live.start(game=GameState.from_position([cs("R7 B5 G2"), cs("R1 R2")], c("R4")))
            await wait_until(pilot, lambda: app.screen.ready, "Ada's turn")
            board = app.screen
            status, hand = board.query_one("#status", Static), board.query_one(HandView)
            await wait_until(pilot, lambda: "⏎ Play" in _footer(app), "the game keys")
            assert hand.playable
            assert "d Draw" in _footer(app)
            board.session.on_status("reconnecting")  # as the session says it, the stream down
            await wait_until(pilot, lambda: "Play" not in _footer(app), "the keys to go")
            assert not _moves_offered(board) and "Draw" not in _footer(app)
            assert "Connection lost: reconnecting…" in str(status.content)
            assert not hand.playable  # no card marked "play"
            board.session.on_status("live")
            await wait_until(pilot, lambda: "⏎ Play" in _footer(app), "the keys back")
            assert "reconnecting" not in str(status.content) and hand.playable
            await server.stop(None)
            await wait_until(pilot, lambda: board.failed, "the stream to end")
            # the footer is drawn again after the change (blank for a moment): wait
            # for what it then offers, not for what it lost
            await wait_until(
                pilot,
                lambda: "q Leave" in (f := _footer(app)) and "Play" not in f and "Draw" not in f,
                "a footer offering Leave and no move",
            )
            assert not _moves_offered(board)
            assert GameScreen.INTERRUPTED in str(status.content)
            await pilot.press("ctrl+q")
    finally:
        await server.stop(None)


# ---------------------------------------------------------------- the create form at 40x12


async def test_the_create_form_at_40x12_shows_its_fields_and_creates_a_table(server):
    """At 40x12 every row of the form's scrolling part is a field beside its
    label (or the rules' heading), none lost to a label that wrapped; Tab
    brings each field into view beside its label; typed values create the
    table, and Enter seats you there."""
    app = UnoApp(PlayOptions(server=server.address, name="Ada", bot_delay=0.0))
    async with app.run_test(size=(40, 12)) as pilot:
        form = await open_form(app, pilot)
        await pilot.pause()
        view = form.query_one("#form-scroll").region
        grid = list(form.query_one("#form-grid").children)
        labels = {field: label for label, field in pairwise(grid) if isinstance(label, Label)}
        fields = list(labels)

        def in_view(widget) -> bool:
            return widget.region.height == 1 and view.contains_region(widget.region)

        shown = [f for f in fields if in_view(f)]
        heading = form.query_one("#form-grid .section")
        assert len(shown) + in_view(heading) == view.height  # no row without a field
        assert len(shown) >= 8
        assert all(labels[f].region.y == f.region.y and labels[f].region.width for f in shown)
        hint = form.query_one(".hint.short")
        assert hint.region.height == 1 and hint.region.bottom <= 12
        create = next(b for b in form.query(Button) if b.name == "create")
        assert create.region.height and create.region.bottom <= 12
        for field in fields:  # Tab from the title through every field
            assert app.focused is field
            await wait_until(pilot, lambda field=field: in_view(field), f"{field.id} in view")
            assert in_view(labels[field]) and labels[field].region.y == field.region.y
            await pilot.press("tab")
        for field_id, value in (("#title", "Tiny"), ("#seats", "2"), ("#bots", "1")):
            form.query_one(field_id).focus()
            await wait_until(pilot, lambda: in_view(form.query_one(field_id)), field_id)
            await pilot.press("home", "ctrl+k", *value)
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: table_screen(app) is not None and table_screen(app).state.view is not None,
            "the game at the new table",
        )
        (made,) = [t for t in server.lobby.tables.values() if t.title == "Tiny"]
        assert len(made.seats) == 2 and made.state is TableState.PLAYING
        await pilot.press("ctrl+q")


# ---------------------------------------------------------------- the arena's games in the lobby


async def test_the_lobby_hides_the_arena_s_games_until_g_and_w_watches_one():
    """An arena seats zoe with a bot ("arena game 1", zoe away: no stream):
    the lobby lists only Friends' table and counts the arena's game; g lists
    it after the others, and w on it watches it."""
    arena = ArenaSettings(seats=2, turn_seconds=600, fill_after=0.0)
    server = await start_server("127.0.0.1", 0, arena=arena)
    try:
        async with Connection(server.address) as conn:
            await conn.create_table(seats=3, title="Friends")
            entry = conn.enter_arena("zoe")
            await anext(entry)  # in the queue, and seated at once with a bot
            app = UnoApp(PlayOptions(server=server.address, name="Eve"))
            async with app.run_test(size=(80, 24)) as pilot:
                await wait_until(
                    pilot,
                    lambda: isinstance(app.screen, LobbyScreen) and app.screen.arena_games == 1,
                    "the arena's game counted",
                )
                lobby = app.screen
                await wait_until(pilot, lambda: "g Arena games" in _footer(app), "the key")
                assert [t.title for t in lobby.tables] == ["Friends"]
                assert lobby.grid.row_count == 1
                status = str(lobby.status.content)
                assert "1 table, 1 waiting · 1 arena game hidden (g)" in status
                await pilot.press("g")
                await wait_until(pilot, lambda: lobby.grid.row_count == 2, "the arena's game")
                assert [t.title for t in lobby.tables] == ["Friends", "arena game 1"]
                assert "1 arena game listed last (g)" in str(lobby.status.content)
                await pilot.press("down", "w")
                await wait_until(pilot, lambda: isinstance(app.screen, WatchScreen), "watching")
                (arena_table,) = [t for t in server.lobby.tables.values() if t.title != "Friends"]
                assert app.screen.table_id == arena_table.table_id
                await pilot.press("ctrl+q")
            await entry.aclose()
    finally:
        await server.stop(None)
