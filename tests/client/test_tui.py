"""The Textual TUI: a whole round by key presses against bots, the lobby and
taking a seat back, snapshots of a crafted table, LAN discovery on loopback.

No sleeps as synchronisation: every wait polls a condition under a timeout.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import typing

import pytest
from helpers import c, cs
from rich.console import Console
from textual.widgets import Checkbox, Input, Select, Static
from tui_helpers import (
    COLOUR_KEYS,
    WAIT,
    CraftedApp,
    ada_goes_out,
    house_game,
    open_form,
    press_for_card,
    reach_table,
    screen_lines,
    select_card,
    shown_in,
    table_screen,
    wait_until,
)

from unoplay import wire
from unoplay.client.discovery import Browser
from unoplay.client.sdk import Connection, Received, ServerUnavailable, run_bot
from unoplay.client.tui import app as tui_app
from unoplay.client.tui.app import PlayOptions, UnoApp, setup_logging
from unoplay.client.tui.demo import DemoApp, crafted_state
from unoplay.client.tui.render import event_line
from unoplay.client.tui.ruleinfo import differences, meaning, short_text
from unoplay.client.tui.screens import (
    ConnectScreen,
    CreateTableScreen,
    FinalScreen,
    GameScreen,
    LobbyScreen,
    WatchHelpScreen,
    WatchScreen,
)
from unoplay.client.tui.screens.game import Seating
from unoplay.client.tui.screens.lobby import players_text, state_text
from unoplay.client.tui.screens.prompts import (
    ColourPrompt,
    DrawnPrompt,
    HelpScreen,
    PenaltyPrompt,
    QuitPrompt,
    RoundResultScreen,
    rules_help,
)
from unoplay.client.tui.seats import Prefs, SeatStore
from unoplay.client.tui.widgets import (
    GameLog,
    HandView,
    PileView,
    PlayersPanel,
    RulesLine,
    TableBoard,
)
from unoplay.client.tui.widgets.board import BoardLayout
from unoplay.client.tui.words import error_words
from unoplay.game.actions import play
from unoplay.game.engine import GameState
from unoplay.game.events import Event, EventKind
from unoplay.game.messages import SeatInfo, TableInfo, TableState, Update
from unoplay.game.registry import make_bot
from unoplay.game.rules import OPTION_NAMES, PRESETS, RuleSet
from unoplay.server.service import start_server
from unoplay.v1 import game_pb2 as pb

pytestmark = pytest.mark.usefixtures("data_dir")


def _my_move(app) -> bool:
    """True when the app waits for the player: a prompt, a result, or their turn."""
    screen = app.screen
    if isinstance(
        screen, (ColourPrompt, PenaltyPrompt, DrawnPrompt, RoundResultScreen, FinalScreen)
    ):
        return True
    return isinstance(screen, GameScreen) and screen.ready


# ---------------------------------------------------------------- a whole round


async def test_a_complete_round_by_key_presses_against_bots():
    """`uno play` with no server: embedded server, three greedy bots; play the
    first playable card, draw when there is none, answer every prompt."""
    options = PlayOptions(name="Ada", bots=3, target=0, bot_delay=0.0, seed=2024)
    app = UnoApp(options)
    presses = {"play": 0, "draw": 0, "prompt": 0}
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, GameScreen) and app.screen.state.view is not None,
            "the table",
        )
        table = app.screen
        assert app.server is not None and table.seating.embedded
        for _ in range(3000):
            await wait_until(pilot, lambda: _my_move(app), "a decision")
            screen = app.screen
            if isinstance(screen, FinalScreen):
                break
            if isinstance(screen, ColourPrompt):
                presses["prompt"] += 1
                await pilot.press(COLOUR_KEYS[screen.colours[0]])
            elif isinstance(screen, PenaltyPrompt):
                presses["prompt"] += 1
                await pilot.press("a")
            elif isinstance(screen, DrawnPrompt):
                presses["prompt"] += 1
                await pilot.press("p")
            elif isinstance(screen, RoundResultScreen):
                await pilot.press("enter")
            else:
                hand = screen.query_one(HandView)
                playable = [i for i, card in enumerate(hand.cards) if card in hand.playable]
                if playable:
                    if len(hand.cards) == 2 and not screen.uno_armed:
                        await pilot.press("u")
                    await press_for_card(pilot, playable[0])
                    assert hand.selected == playable[0]
                    await pilot.press("enter")
                    presses["play"] += 1
                else:
                    await pilot.press("d")
                    presses["draw"] += 1
            if isinstance(screen, GameScreen):
                await wait_until(pilot, lambda: not screen.sending, "the server's answer")
            else:
                await wait_until(pilot, lambda: app.screen is not screen, "the prompt to close")
        else:
            raise AssertionError("the round did not end")
        final = app.screen
        assert isinstance(final, FinalScreen)
        game = app.server.lobby.get(app.embedded_table).game
        assert game.is_game_over
        names = [s.name for s in app.server.lobby.get(app.embedded_table).seats]
        expected = {
            ("You" if name == "Ada" else name): score for name, score in zip(names, game.scores)
        }
        assert final.standings() == expected
        assert presses["play"] > 0
        # The seed came at the end, and every card Ada saw was checked against it.
        await wait_until(pilot, lambda: table.state.reveal is not None, "the seed's reveal")
        logged = [t.plain for t in table.query_one(GameLog)._texts]
        assert any(t.startswith("✓ Deals verified: the ") for t in logged), logged[-5:]
        await pilot.press("q")
    assert app.server is None  # the embedded server was stopped on the way out


# ---------------------------------------------------------------- lobby and rejoin


async def test_lobby_create_table_with_bots_leave_and_take_the_seat_back(data_dir):
    server = await start_server("127.0.0.1", 0)
    try:
        app = UnoApp(PlayOptions(server=server.address, name="Ada", bot_delay=0.0))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("n")
            await wait_until(pilot, lambda: isinstance(app.screen, CreateTableScreen), "the form")
            form = app.screen
            form.query_one("#bots").value = "3"
            form.query_one("#title").value = "Test table"
            await pilot.click("#title")
            await pilot.press("enter")
            table = await reach_table(pilot, "the game", settle=True)
            seat, table_id = table.state.seat, table.seating.table_id
            token = table.seating.token
            store = SeatStore()
            assert store.get(server.address, table_id, "Ada") == token
            mode = stat.S_IMODE(os.stat(data_dir / "seats.json").st_mode)
            assert mode == 0o600
            await pilot.press("i")  # the table's id, at the table too
            await wait_until(
                pilot,
                lambda: any(
                    str(n.message) == f"uno bot --server {server.address} --table {table_id}"
                    for n in app._notifications
                ),
                "the table id at the table",
            )
            # Leave for the lobby: the seat stays ours.
            await pilot.press("q")
            await wait_until(pilot, lambda: isinstance(app.screen, QuitPrompt), "the quit prompt")
            await pilot.press("l")
            await wait_until(
                pilot,
                lambda: isinstance(app.screen, LobbyScreen) and app.screen.tables,
                "the lobby again",
            )
            listed = app.screen.tables[0]
            assert listed.state is TableState.PLAYING
            assert listed.seats[seat].name == "Ada" and not listed.seats[seat].bot
            await pilot.press("i")  # the table's id, for `uno bot --table`
            await wait_until(
                pilot,
                lambda: any(f"--table {table_id}" in str(n.message) for n in app._notifications),
                "the table id",
            )
            lobby = app.screen
            # Enter on the table takes the seat back with the stored token.
            await pilot.press("enter")
            again = await reach_table(pilot, "the table again", settle=True)
            lobby.show(lobby.tables)  # a list refresh ending after the lobby was left: no crash
            assert again is not table
            assert again.seating.token == token and again.state.seat == seat
            assert server.lobby.get(table_id).seats[seat].connections == 1
            await pilot.press("ctrl+q")
    finally:
        await server.stop(None)


async def test_the_lobby_names_the_players_in_full_where_they_fit_and_counts_bots(server):
    from unoplay.client.sdk import Connection

    async with Connection(server.address) as conn:
        friday = await conn.create_table(seats=4, title="Friday night at Margaret's")
        for name in ("Margaret Hamilton", "Bob"):
            await conn.join_table(friday.table_id, name)
        await conn.add_bot(friday.table_id)
        quick = await conn.create_table(seats=6, title="Quick")
        for _ in range(3):
            await conn.add_bot(quick.table_id, "random")
    app = UnoApp(PlayOptions(server=server.address, name="Ada"))
    async with app.run_test(size=(140, 24)) as pilot:
        await wait_until(
            pilot, lambda: isinstance(app.screen, LobbyScreen) and app.screen.tables, "the tables"
        )
        lobby = app.screen.query_one("#tables")

        def cut(cell: str, full: str) -> bool:
            """True if ``cell`` is ``full`` cut short with "…" (False: in full)."""
            assert cell == full or (cell.endswith("…") and full.startswith(cell[:-1])), cell
            return cell != full

        for width, title_cut, players_cut in (
            (140, False, False),
            (112, True, False),
            (80, True, True),
        ):
            await pilot.resize_terminal(width, 24)
            await pilot.pause()
            shown = shown_in(app, lobby)
            rows = [re.split(r"\s{2,}", line.strip()) for line in shown[:3]]
            assert rows[0] == ["Table", "Seats", "Players", "Rules", "Turn", "State"], width
            title, players = rows[1][0], rows[1][2]
            assert cut(title, "Friday night at Margaret's") is title_cut, width
            # joined, but no stream open: both are away
            full = "Margaret Hamilton (away), Bob (away) + 1 bot"
            assert cut(players, full) is players_cut, width
            assert players.startswith("Margaret Hamilton"), width  # the players first
            assert rows[2][:3] == ["Quick", "3/6", "3 bots"], width
            assert not any("*" in line for line in screen_lines(app)), width
            assert lobby.virtual_size.width <= lobby.size.width, width  # no sideways scroll
        await pilot.resize_terminal(40, 12)  # narrow: the rules and turn columns go
        await pilot.pause()
        header = re.split(r"\s{2,}", shown_in(app, lobby)[0].strip())
        assert header == ["Table", "Seats", "Players", "State"]
        assert lobby.virtual_size.width <= lobby.size.width
        await pilot.press("q")


# ---------------------------------------------------------------- snapshots


def test_table_snapshot_80x24(snap_compare):
    assert snap_compare(DemoApp(), terminal_size=(80, 24))


@pytest.mark.parametrize(
    "size", [(40, 12), (60, 20), (120, 40), (200, 60)], ids=lambda s: "x".join(map(str, s))
)
def test_table_snapshot_at(snap_compare, size):
    # The same position in every layout: compact, normal (80x24 above), large, huge.
    assert snap_compare(DemoApp(), terminal_size=size)


def test_a_terminal_below_the_minimum_says_so_snapshot(snap_compare):
    assert snap_compare(DemoApp(), terminal_size=(39, 12))


async def test_the_table_layout_follows_the_terminal():
    app = DemoApp()
    async with app.run_test(size=(80, 24)) as pilot:
        board = app.screen.query_one(TableBoard)
        hand = board.hand
        for size, layout, card in (
            ((40, 12), BoardLayout.COMPACT, 7),
            ((80, 24), BoardLayout.NORMAL, 8),
            ((120, 40), BoardLayout.LARGE, 12),
            ((200, 60), BoardLayout.HUGE, 16),
            ((30, 10), BoardLayout.TOO_SMALL, 16),
        ):
            await pilot.resize_terminal(*size)
            await wait_until(pilot, lambda: board.arrangement is layout, f"the {layout} layout")
            await pilot.pause()
            text = "\n".join(screen_lines(app))
            if layout is BoardLayout.TOO_SMALL:
                assert "at least 40x12" in text and "(it is 30x10 now)" in text
                assert "Players" not in text and "Draw pile" not in text
                continue
            assert hand.card_size.width == card
            assert "Make the terminal" not in text
            for name in ("Ada (you)", "Bob away"):  # every player shows, with the marks
                assert name in text, (size, name)
            assert text.count(" bot ") == 2, size
            assert board.pile.region.height >= board.pile.card_size.height


def test_wild_colour_prompt_snapshot(snap_compare):
    # Card 5 of the crafted hand is a Wild: Enter asks for its colour.
    assert snap_compare(DemoApp(), press=["5", "enter"], terminal_size=(80, 24))


async def test_a_wild_on_the_pile_shows_the_colour_its_player_named():
    game = GameState.from_position([cs("R1 B2"), cs("G1 G3")], c("W"), colour=1)
    app = CraftedApp(game)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        pile = app.screen.query_one(PileView)
        lines = shown_in(app, pile)
        assert any("Wild" in line for line in lines)
        assert any("yellow" in line for line in lines)  # under the rank, in the card
        assert not any(" wild " in line for line in lines)


async def test_crafted_table_marks_only_the_cards_the_server_lists():
    app = DemoApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        hand = app.screen.query_one(HandView)
        state = crafted_state()
        assert hand.cards == state.view.hand
        assert hand.playable == {a.card for a in state.legal if a.card >= 0}
        assert hand.selected == 0  # the red 7, the first playable card
        await pilot.press("right", "right")
        assert hand.selected == 2
        # The mouse: a click selects a card, a second click on it plays it.
        left = 1 + 4 * 8  # padding, then four cards of 8 cells: card 5 is the Wild
        await pilot.click(HandView, offset=(left + 7, 1))  # its right edge
        assert hand.selected == 4
        await pilot.click(HandView, offset=(left, 2))  # its left edge
        assert isinstance(app.screen, ColourPrompt) and app.screen.card == hand.cards[4]
        await pilot.press("escape")
        assert app.screen.query_one(HandView) is hand
        await pilot.resize_terminal(60, 24)
        await pilot.pause()
        text = app.export_screenshot()
        assert "◀" in text or "▶" in text  # the hand scrolls in a narrow terminal


async def test_the_log_is_laid_out_again_when_the_terminal_is_resized():
    """Wider, a line wrapped at the old width is one row again; narrower, no line
    is cut off; either way the newest line stays in view."""
    app = DemoApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        log = app.screen.query_one("#log", GameLog)
        for size in ((140, 40), (70, 30)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            width = log.scrollable_content_region.width
            assert max(strip.cell_length for strip in log.lines) <= width, size
            rows = [row[2 : 2 + width].rstrip() for row in shown_in(app, log)[1:-1]]
            assert [row for row in rows if row][-1] == "Your turn", size
        assert "Direction: ↺" in rows and "counter-clockwise" in rows  # wrapped at 70
        await pilot.resize_terminal(140, 40)
        await pilot.pause()
        rows = [row.strip(" │") for row in shown_in(app, log)]
        assert "── Round 3 ── Bob deals 7 each" in rows  # one row again


async def test_a_refused_intent_is_shown():
    from unoplay.client.sdk import Received
    from unoplay.game.messages import Refusal

    app = DemoApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.screen
        refusal = Refusal("does_not_match", "the yellow 3 does not match", 300)
        table.state.errors.append(refusal)
        table.handle(Received(99, refusal))
        await pilot.pause()
        shown = " ".join(" ".join(line.text for line in table.query_one("#log").lines).split())
        assert "Refused: the yellow 3 does not match (does_not_match)" in shown
        assert any("does not match" in str(n.message) for n in app._notifications)


def test_seat_tokens_are_kept_per_server_table_and_name(data_dir):
    store = SeatStore()
    store.put("10.0.0.2:50051", "t1-abc", "Ada", "secret", 2)
    assert store.get("10.0.0.2:50051", "t1-abc", "Ada") == "secret"
    assert store.get("10.0.0.2:50051", "t1-abc", "Bob") is None
    assert store.get("10.0.0.3:50051", "t1-abc", "Ada") is None
    store.forget("10.0.0.2:50051", "t1-abc", "Ada")
    assert store.get("10.0.0.2:50051", "t1-abc", "Ada") is None


def test_event_lines_name_you_and_the_others():
    state = crafted_state()
    lines = [event_line(e, state.seats, 0) for e in state.events]
    plain = [line.plain for line in lines if line is not None]
    assert "You drew blue 5" in plain
    assert "greedy-2 called UNO!" in plain
    assert "greedy-2 played Wild (blue)" in plain


def test_event_lines_show_every_card_of_a_multi_play_and_a_player_out():
    from helpers import cs

    from unoplay.game.events import Event, EventKind

    seats = crafted_state().seats
    multi = Event(EventKind.PLAYED, 1, cards=tuple(cs("R7 G7 B7")), colour=3)
    assert event_line(multi, seats, 0).plain == "greedy-1 played red 7 + green 7 + blue 7"
    out = Event(EventKind.PLAYER_OUT, 0, value=2)
    assert event_line(out, seats, 0).plain == "You are out (place 2)"


def test_logging_goes_to_a_file_not_the_terminal(data_dir):
    root = logging.getLogger()
    saved = list(root.handlers), root.level
    try:
        path = setup_logging()
        assert path.startswith(str(data_dir))
        assert not any(type(h) is logging.StreamHandler for h in root.handlers)
        logging.getLogger("unoplay.test").warning("hello")
        for handler in root.handlers:
            handler.flush()
        with open(path, encoding="utf-8") as written:
            assert "hello" in written.read()
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
            handler.close()
        for handler in saved[0]:
            root.addHandler(handler)
        root.setLevel(saved[1])
        logging.captureWarnings(False)


# ---------------------------------------------------------------- LAN discovery


async def test_uno_serve_is_found_by_the_lan_browser_on_loopback():
    browser = Browser(interfaces=["127.0.0.1"])
    try:
        await browser.start()
    except OSError as err:
        pytest.skip(f"multicast DNS is not possible in this sandbox: {err}")
    with socket.socket() as probe:  # a free port, so we know which server is ours
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = dict(os.environ, UNOPLAY_MDNS="1")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "unoplay.client.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--advertise",  # on loopback only when asked: nobody else can reach it
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )

    def ours(servers) -> list:
        return [s for s in servers.values() if s.port == port]

    try:
        try:
            servers = await browser.wait_for(lambda found: bool(ours(found)), WAIT)
        except TimeoutError:
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=WAIT)
            pytest.fail(f"the server was not found over mDNS; its log:\n{err}")
        (found,) = ours(servers)
        assert found.host == "127.0.0.1"
        assert found.name.startswith("uno on ")
        from unoplay.client.sdk import Connection

        async with Connection(found.target) as conn:
            assert await conn.list_tables() == []
    finally:
        await browser.close()
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=WAIT)
    assert proc.returncode == 0, err
    assert "advertised on the LAN" in err


async def test_mashing_keys_never_loses_the_table():
    """Keys pressed while the server moves on (prompts closing under them, a
    result screen appearing) never pop the table screen or break a worker."""
    import random

    rng = random.Random(7)
    keys = [
        "enter",
        "enter",
        "enter",
        "d",
        "r",
        "a",
        "p",
        "k",
        "u",
        "c",
        "right",
        "1",
        "escape",
        "h",
    ]
    app = UnoApp(PlayOptions(name="Ada", bots=3, target=100, bot_delay=0.0, seed=99))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, GameScreen), "the table")
        table = app.screen
        for _ in range(100):
            if isinstance(app.screen, FinalScreen):
                break
            assert table in app.screen_stack
            await pilot.press(rng.choice(keys))
        assert table in app.screen_stack
        await app.action_quit_now()


async def test_the_connect_screen_lists_a_lan_server_and_opens_its_lobby():
    from unoplay.client.discovery import Advertiser
    from unoplay.client.tui.screens import ConnectScreen

    server = await start_server("127.0.0.1", 0)
    advertiser = Advertiser(
        server.port, name="uno test table", addresses=["127.0.0.1"], interfaces=["127.0.0.1"]
    )
    try:
        try:
            await advertiser.start()
        except OSError as err:
            pytest.skip(f"multicast DNS is not possible in this sandbox: {err}")
        app = UnoApp(PlayOptions(lan=True, name="Ada"))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, ConnectScreen), "connect")
            screen = app.screen
            await wait_until(
                pilot,
                lambda: any(s.port == server.port for s in screen.found),
                "the server in the LAN list",
            )
            index = next(i for i, s in enumerate(screen.found) if s.port == server.port)
            servers = screen.query_one("#servers")
            servers.focus()
            servers.highlighted = index
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            assert app.screen.target == f"127.0.0.1:{server.port}", screen.found
            await pilot.press("q")
    finally:
        await advertiser.close()
        await server.stop(None)


# ---------------------------------------------------------------- the create-table form


async def test_the_create_form_offers_every_rule_option_and_fills_a_preset(server):
    """Every option of the rule set has a field of its kind; picking house with
    the keys fills them with its values; a changed option reaches the server."""
    app = UnoApp(PlayOptions(server=server.address, name="Ada", bot_delay=0.0))
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(app, pilot)
        official = PRESETS["official"].to_dict()
        hints = typing.get_type_hints(RuleSet)
        for name in OPTION_NAMES:
            widget = form.query_one(f"#opt-{name}")
            kind = hints[name]
            if kind is bool:
                assert isinstance(widget, Checkbox) and widget.value is official[name], name
            elif kind is int:
                assert isinstance(widget, Input) and widget.value == str(official[name]), name
            else:
                assert isinstance(widget, Select) and widget.value == official[name], name
        # Keyboard only: Tab to the preset, open it, pick house.
        preset = form.query_one("#preset", Select)
        for _ in range(10):
            if preset.has_focus:
                break
            await pilot.press("tab")
        assert preset.has_focus
        await pilot.press("enter", "down", "enter")
        house = PRESETS["house"].to_dict()
        await wait_until(pilot, lambda: form.option_values() == house, "the house values")
        # Then change one option: tick seven_zero with the keys.
        box = form.query_one("#opt-seven_zero", Checkbox)
        box.focus()
        await pilot.press("space")
        assert box.value is True and str(box.label) == "yes"
        bots = form.query_one("#bots", Input)
        bots.value = "3"
        bots.focus()
        await pilot.press("enter")
        await reach_table(pilot)
        (table,) = server.lobby.tables.values()
        assert table.rules == PRESETS["house"].replace(seven_zero=True)
        await pilot.press("ctrl+q")


async def test_a_value_the_server_refuses_is_shown_in_the_form(server):
    app = UnoApp(PlayOptions(server=server.address, name="Ada", bot_delay=0.0))
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(app, pilot)
        field = form.query_one("#opt-uno_penalty", Input)
        field.focus()
        await pilot.press("end", "backspace", "1", "1")
        assert field.value == "11" and not field.is_valid  # marked, but the server judges
        await pilot.press("enter")
        error = form.query_one("#form-error", Static)
        await wait_until(
            pilot,
            lambda: error.display and "UNO penalty" in str(error.content),
            "the server's message",
        )
        assert "UNO penalty: 11 is outside 0..10" in str(error.content)
        assert app.screen is form and field.has_focus  # the form stays, on that option
        assert not server.lobby.tables
        # Editing the form takes the message away: a key in the field...
        await pilot.press("backspace")
        await wait_until(pilot, lambda: not error.display, "the message to go")
        await pilot.pause()
        assert not any("UNO penalty:" in line for line in screen_lines(app))
        # ... or a tick (refused once more first).
        await pilot.press("1", "enter")
        await wait_until(pilot, lambda: error.display, "the message again")
        await pilot.pause()
        assert "UNO penalty: 11 is outside" in "".join(shown_in(app, error))
        form.query_one("#opt-jump_in", Checkbox).focus()
        await pilot.press("space")
        await wait_until(pilot, lambda: not error.display, "the message to go again")
        # Fixed, it goes through.
        field.value = "4"
        field.focus()
        await pilot.press("enter")
        await reach_table(pilot)
        (table,) = server.lobby.tables.values()
        assert table.rules == PRESETS["official"].replace(uno_penalty=4, jump_in=True)
        await pilot.press("ctrl+q")


async def test_the_format_list_opens_inside_the_create_form(server):
    """The last field's list (Format) fits in the form, above the buttons and
    the dialog's border, and picks with the keys."""
    app = UnoApp(PlayOptions(server=server.address, name="Ada", bot_delay=0.0))
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(app, pilot)
        select = form.query_one("#opt-format", Select)
        select.focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: select.expanded, "the list")
        scroll = form.query_one("#form-scroll")
        options = select.query_one("SelectOverlay")
        # The form scrolls the list into view once laid out (later under load).
        await wait_until(
            pilot, lambda: scroll.region.contains_region(options.region), "the list in the form"
        )
        assert [line.strip() for line in shown_in(app, options)] == [
            "standard",
            "elimination",
            "teams",
            "tournament",
        ]
        await pilot.press("down", "down", "enter")
        await wait_until(pilot, lambda: not select.expanded, "the list to close")
        assert select.value == "teams"
        await pilot.press("ctrl+q")


async def test_escape_cancels_the_create_form(server):
    app = UnoApp(PlayOptions(server=server.address, name="Ada", bot_delay=0.0))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_form(app, pilot)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        assert not server.lobby.tables
        await pilot.press("q")


async def test_escape_while_the_table_is_created_waits_and_seats_you(server, monkeypatch):
    """Esc after Enter: the server has made the table but not yet answered. The
    form waits for the answer and you sit there; no table is left without you."""
    from unoplay.client.sdk import Connection

    answer = asyncio.Event()
    create_table = Connection.create_table

    async def slow_answer(self, *args, **kwargs):
        table = await create_table(self, *args, **kwargs)
        await answer.wait()
        return table

    monkeypatch.setattr(Connection, "create_table", slow_answer)
    app = UnoApp(PlayOptions(server=server.address, name="Ada", bot_delay=0.0))
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_form(app, pilot)
        await pilot.press("enter")
        await wait_until(pilot, lambda: server.lobby.tables, "the table on the server")
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is form
        assert "you sit there once it answers" in " ".join(
            shown_in(app, form.query_one("#form-error"))
        )
        answer.set()
        await reach_table(pilot)
        (table,) = server.lobby.tables.values()
        assert [s.name for s in table.seats if s.occupied] == ["Ada"]
        await pilot.press("ctrl+q")


# ---------------------------------------------------------------- house rules at the table


async def test_an_open_out_of_turn_window_counts_down_and_a_move_sent_in_it_says_so():
    game = GameState.from_position([cs("R7 B5 G2"), cs("R1 R2"), cs("G1 G3")], c("R4"))
    now = [1000.0]
    app = CraftedApp(game, window_closes_ms=1_001_200, clock=lambda: now[0])
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        status = app.screen.query_one("#status", Static)
        await wait_until(pilot, lambda: "⏳ 1.2s" in str(status.content), "the window's countdown")
        now[0] += 0.5
        await wait_until(
            pilot, lambda: "⏳ 0.7s" in str(status.content), "the countdown to move on"
        )
        await select_card(pilot, c("R7"))
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.session.sent, "the play")
        assert "judged when the out-of-turn window closes" in str(status.content)
        now[0] += 1
        await wait_until(pilot, lambda: "⏳" not in str(status.content), "the window to close")


async def _penalty_prompt_text(app: CraftedApp) -> str:
    """Run ``app`` until its penalty prompt is up (decisions come with updates,
    as from the stream); the prompt's text."""
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.screen.handle(app.update)
        await wait_until(pilot, lambda: isinstance(app.screen, PenaltyPrompt), "the prompt")
        await pilot.pause()
        return " ".join(str(w.content) for w in app.screen.query(Static))


async def test_the_penalty_prompt_names_who_played_the_draw_card_and_a_colour_only_for_a_wild():
    game = house_game(["R1 Y3", "G1 G3", "B1 B2", "R+2 R5 R6"], "R7", current=3)
    played = game.apply(3, play(c("R+2")))  # on seat 0 (Ada), who may stack or accept
    # With the play in the history, and with no history of the round (a fallback).
    for history in (played, []):
        text = await _penalty_prompt_text(CraftedApp(game, events=history))
        assert "bot-3 played" in text and "They named" not in text
    # A Draw Two turned up as the starter: nobody played it.
    started = [Event(EventKind.ROUND_STARTED, 0, count=7, value=1)]
    assert "The starter card" in await _penalty_prompt_text(CraftedApp(game, events=started))


def test_a_turn_timer_running_out_is_said_in_the_log():
    seats = [pb.SeatInfo(seat=0, name="Ada"), pb.SeatInfo(seat=1, name="Bob")]
    assert event_line(Event(EventKind.TIMED_OUT, 0), seats, 0).plain.startswith("Your time ran out")
    assert "Bob's time ran out" in event_line(Event(EventKind.TIMED_OUT, 1), seats, 0).plain


def test_a_challenge_of_your_wild_draw_four_reads_your():
    seats = [pb.SeatInfo(seat=0, name="Ada"), pb.SeatInfo(seat=1, name="Bob")]
    line = event_line(Event(EventKind.CHALLENGED, 1, target=0, value=1), seats, 0)
    assert "challenged your Wild Draw Four: guilty" in line.plain


async def test_the_rules_line_and_the_help_name_the_house_rules():
    game = house_game(["R7 B5", "R1 R2", "B1 B2", "G1 G3"], "R4", current=0)
    app = CraftedApp(game)
    async with app.run_test(size=(120, 24)) as pilot:  # wide enough for every option
        await pilot.pause()
        table = app.screen
        (line,) = shown_in(app, table.query_one("#rules"))
        changed = differences(PRESETS["house"])
        assert {name for name, _ in changed} == {
            "stacking",
            "jump_in",
            "multi_play",
            "false_uno_penalty",
            "reverse_deflects_draw",
        }
        assert line.strip().startswith("Rules house: ") and "…" not in line
        for name, value in changed:
            assert short_text(name, value) in line, name
        assert "stacking +4/+2" in line and "multi-play same rank" in line
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        assert app.screen.rules == PRESETS["house"]
        console = Console(file=io.StringIO(), width=100, color_system=None)
        console.print(rules_help(app.screen.rules))
        shown = " ".join(console.file.getvalue().split())
        for name, value in changed:
            assert f"{short_text(name, value)} {meaning(name, value)}" in shown, name
        await pilot.press("escape")
    # An official table shows no rules line.
    demo = DemoApp()
    async with demo.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not demo.screen.query_one("#rules").display


async def test_the_round_results_show_the_cards_and_the_points_left_in_hand():
    """Ada goes out; the others' cards are counted: the columns say which is which."""
    game = GameState.from_position([cs("R7"), cs("R1 R2 W"), cs("B1 B2")], c("R4"))
    events = game.apply(0, play(c("R7")))
    app = CraftedApp(game, events=events)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.screen.handle(app.update)
        await wait_until(pilot, lambda: isinstance(app.screen, RoundResultScreen), "the results")
        await pilot.pause()
        rows = [line.split() for line in shown_in(app, app.screen.query_one("#round-table"))]
        assert ["Player", "Cards", "left", "Points", "in", "hand", "Score"] in rows
        assert ["You", "0", "0", "56"] in rows
        assert ["bot-1", "3", "53", "0"] in rows
        assert ["bot-2", "2", "3", "0"] in rows


def _help_text(app) -> str:
    """The whole help body (scrolled or not), as plain text on one line."""
    console = Console(file=io.StringIO(), width=78, color_system=None)
    console.print(app.screen.query_one("#help-body", Static).content)
    return " ".join(console.file.getvalue().split())


async def test_the_help_mentions_marking_cards_only_where_multi_play_is_on():
    tables = {
        "official": (DemoApp(), False),
        "house": (CraftedApp(house_game(["R7 B7", "R1", "B1", "G1"], "R4", 0)), True),
        "house without multi-play": (
            CraftedApp(house_game(["R7 B7", "R1", "B1", "G1"], "R4", 0, multi_play="off")),
            False,
        ),
    }
    for what, (app, multi) in tables.items():
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("question_mark")
            await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
            shown = _help_text(app)
            assert "Enter play it" in shown and "c catch a player without UNO" in shown
            assert ("Space mark the selected card" in shown) is multi, what
            assert ("✓ marked to be played together" in shown) is multi, what


async def test_the_rules_line_fits_on_one_line_leaving_out_what_does_not_fit():
    """At 80-100 columns the house rules do not fit: whole options are shown, in
    order, then "…"; "? explains" (the help lists them all) stays."""
    game = house_game(["R7 B5", "R1 R2", "B1 B2", "G1 G3"], "R4", current=0)
    changes = [short_text(name, value) for name, value in differences(PRESETS["house"])]
    app = CraftedApp(game)
    async with app.run_test(size=(80, 24)) as pilot:
        for width in (80, 90, 100, 110):
            await pilot.resize_terminal(width, 24)
            await pilot.pause()
            (line,) = shown_in(app, app.screen.query_one("#rules"))
            line = line.strip()
            assert line.startswith("Rules house: ") and line.endswith(" · ? explains"), width
            shown = line.removeprefix("Rules house: ").removesuffix(" · ? explains").split(", ")
            if width < 110:
                assert shown.pop() == "…" and 0 < len(shown) < len(changes), width
            assert shown == changes[: len(shown)], width
        assert shown == changes  # at 110 columns, every option


async def test_a_jump_in_out_of_turn_is_sent_as_its_action_id():
    """Bot 1 is to play on a red 7; Ada holds the other red 7 and may jump in."""
    game = house_game(["B5 R7#1 G2 Y9", "R1 R2 R3", "B1 B2", "G1 G3"], "R7", current=1)
    app = CraftedApp(game)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.screen
        hand = table.query_one(HandView)
        assert not table.my_turn
        assert hand.jump and hand.playable == {c("R7#1")}
        assert "jump!" in app.export_screenshot()
        await select_card(pilot, c("B5"))
        await pilot.press("enter")  # not a jump-in card: nothing is sent
        assert app.session.sent == []
        # The mouse, as on your turn: a click selects the card, a second plays it.
        left = 1 + 8 * hand.cards.index(c("R7#1"))  # padding, then cards of 8 cells
        await pilot.click(HandView, offset=(left + 2, 1))
        assert hand.cards[hand.selected] == c("R7#1") and app.session.sent == []
        await pilot.click(HandView, offset=(left + 2, 1))
        await wait_until(pilot, lambda: app.session.sent, "the intent")
        assert app.session.sent == [wire.action_id(play(c("R7#1")))]
        events = game.apply(0, wire.action_from_id(app.session.sent[0]))
        played = [e for e in events if e.kind is EventKind.PLAYED]
        assert played[0].player == 0 and played[0].value == 1  # a jump-in
        assert game.top_card == c("R7#1") and game.current == 1


async def test_two_cards_and_a_jump_in_card_remind_you_to_call_uno():
    game = house_game(["B5 R7#1", "R1 R2 R3", "B1 B2", "G1 G3"], "R7", current=1)
    app = CraftedApp(game)
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        status = app.screen.query_one("#status", Static)
        assert not app.screen.my_turn
        assert "press u so your play calls UNO" in str(status.content)


async def test_a_multi_play_of_marked_cards_is_sent_as_its_action_id():
    """Ada marks a red 7 and a blue 7 (Space), Enter, names blue: one play of both."""
    game = house_game(["R7 G2 B7 Y9 W B2", "R1 R2 R3", "B1 B3", "G1 G3"], "R4", current=0)
    app = CraftedApp(game)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.screen
        hand = table.query_one(HandView)
        assert table.ready and c("B7") in hand.partners  # playable only with the red 7
        for card in ("R7", "B7", "G2"):
            await select_card(pilot, c(card))
            await pilot.press("space")
        assert hand.marked == {c("R7"), c("B7"), c("G2")}
        await pilot.press("enter")  # no play lays these three
        assert app.session.sent == [] and isinstance(app.screen, GameScreen)
        assert any(
            "Cannot play red 7 + green 2 + blue 7" in str(n.message) for n in app._notifications
        )
        await pilot.press("space")  # unmark the green 2
        assert hand.marked == {c("R7"), c("B7")}
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ColourPrompt), "the colour")
        assert app.screen.colours == [0, 3] and app.screen.extra == (c("B7"),)
        await pilot.press("b")
        await wait_until(pilot, lambda: app.session.sent, "the intent")
        expected = play(c("R7"), colour=3, extra=(c("B7"),))
        assert app.session.sent == [wire.action_id(expected)]
        assert app.session.sent[0] >= 20000  # a multi-card play id
        game.apply(0, wire.action_from_id(app.session.sent[0]))
        assert game.top_card == c("B7") and game.colour == 3
        assert sorted(game.hand(0)) == sorted(cs("G2 Y9 W B2"))


async def test_identical_cards_marked_go_down_with_the_uno_call():
    """Two identical red 7s out of three cards: no colour to name, and u arms UNO."""
    game = house_game(
        ["R7 G2 R7#1", "R1 R2 R3", "B1 B3", "G1 G3"], "R4", current=0, multi_play="identical"
    )
    app = CraftedApp(game)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.screen
        for card in ("R7", "R7#1"):
            await select_card(pilot, c(card))
            await pilot.press("space")
        await pilot.press("u")
        assert table.uno_armed
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.session.sent, "the intent")
        expected = play(c("R7"), uno=True, extra=(c("R7#1"),))
        assert app.session.sent == [wire.action_id(expected)]
        game.apply(0, wire.action_from_id(app.session.sent[0]))
        assert game.hand(0) == (c("G2"),)


def test_house_table_with_marked_cards_snapshot(snap_compare):
    # The rules line, a red 7 and a blue 7 marked (✓), the green 7 playable with them.
    game = house_game(["R7 B7 G7 Y9 W B2", "R1 R2 R3", "B1 B3", "G1 G3"], "R4", current=0)
    assert snap_compare(
        CraftedApp(game), press=["1", "space", "2", "space"], terminal_size=(80, 24)
    )


def test_uno_play_takes_rule_options_over_the_preset():
    from unoplay.client.cli import build_parser

    args = build_parser().parse_args(
        [
            "play",
            "--rules",
            "house",
            "--rule",
            "seven_zero=yes",
            "--rule",
            "multi_play=identical",
            "--target",
            "0",
        ]
    )
    options = PlayOptions.from_args(args)
    assert options.rules_name == "house"
    assert PRESETS["house"].replace(**options.rule_changes()) == PRESETS["house"].replace(
        seven_zero=True, multi_play="identical", target_score=0
    )
    for bad, named in (
        (["--rule", "uno_penalty=11"], "uno_penalty: 11 is outside 0..10"),
        (["--rule", "jump_in=maybe"], "jump_in: expected true or false"),
        (["--rule", "stacking=lots"], "stacking: 'lots' is not one of"),
        (["--rule", "no_such=1"], "unknown rule option .no_such."),
        (["--rule", "seven_zero"], "expected NAME=VALUE"),
    ):
        with pytest.raises(SystemExit, match=named):
            PlayOptions.from_args(build_parser().parse_args(["play", *bad]))


async def test_the_embedded_game_plays_the_rule_options_given():
    options = PlayOptions(
        name="Ada",
        bots=1,
        bot_delay=0.0,
        seed=5,
        rules_name="house",
        rule_options={"seven_zero": True},
        target=0,
    )
    app = UnoApp(options)
    async with app.run_test(size=(80, 24)) as pilot:
        # the table screen, under a prompt if the deal asks one at once (a Wild starter)
        await wait_until(
            pilot,
            lambda: table_screen(app) is not None and table_screen(app).table is not None,
            "the table",
        )
        table = app.server.lobby.get(app.embedded_table)
        assert table.rules == PRESETS["house"].replace(seven_zero=True, target_score=0)
        assert table.seed == "5"  # uno play --seed: a seeded table of its own server
        line = table_screen(app).query_one("#rules", RulesLine)
        assert line.preset == "custom" and {"7-0", "jump-in"} <= set(line.changes)
        assert line.changes[0] == "seeded: deals known to its creator"  # every seat is told
        await pilot.press("ctrl+q")


async def test_an_embedded_table_the_server_refuses_ends_with_its_reason():
    # Three seats cannot play teams: the server refuses the table; no hang.
    options = PlayOptions(name="Ada", bots=2, bot_delay=0.0, rule_options={"format": "teams"})
    app = UnoApp(options)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.return_code is not None, "the exit")
    assert app.return_code == 1  # (its message goes to the terminal on exit)


def test_uno_play_refuses_a_format_its_bots_cannot_seat():
    from unoplay.client.cli import build_parser

    with pytest.raises(SystemExit, match="4, 6 or 8 players"):
        PlayOptions.from_args(
            build_parser().parse_args(["play", "--rule", "format=teams", "--bots", "2"])
        )


async def test_a_teams_table_marks_your_partner_opposite():
    options = PlayOptions(
        name="Ada", bots=3, bot_delay=0.0, seed=5, rule_options={"format": "teams"}, target=0
    )
    app = UnoApp(options)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, GameScreen) and app.screen.state.view is not None,
            "the table",
        )
        panel = app.screen.query_one(PlayersPanel)
        await wait_until(pilot, lambda: panel.teams, "the rules")
        me = app.screen.me
        assert panel.teams
        rows = [str(r) for r in panel.table_at(panel.size.width).columns[1].cells]
        assert "partner" in rows[1 + (me + 2) % 4]  # after the header row
        await pilot.press("ctrl+q")


# ---------------------------------------------------------------- watching a table

#: Event kinds only their own player may see.
PRIVATE_KINDS = {
    EventKind.HAND_DEALT,
    EventKind.DREW_CARDS,
    EventKind.HAND_SHOWN,
    EventKind.HAND_RECEIVED,
}


async def _bots_table(conn, bot_delay: float, target: int) -> tuple[str, str]:
    """A table of four: Bob (an SDK bot, joined here) and three server bots,
    not started yet. Returns (table id, Bob's seat token)."""
    table = await conn.create_table(
        seats=4, title="Bots", bot_delay=bot_delay, rules=RuleSet(target_score=target)
    )
    bob = await conn.join_table(table.table_id, "Bob")
    for _ in range(3):
        await conn.add_bot(table.table_id, "greedy")
    return table.table_id, bob.seat_token


def _log_text(screen) -> str:
    return " ".join(" ".join(line.text for line in screen.query_one("#log").lines).split())


def _assert_nothing_private(screen) -> None:
    state = screen.state
    assert state.seat == -1 and state.view.seat == -1 and state.view.hand == ()
    assert state.legal == ()
    for event in state.events:
        assert event.kind not in PRIVATE_KINDS, event
        assert event.kind is not EventKind.DREW or not event.cards, event
    text = _log_text(screen)
    for private in ("You drew", "You were dealt", "hand was", "You now hold"):
        assert private not in text


async def _watch_first_table(app, pilot) -> WatchScreen:
    await wait_until(
        pilot,
        lambda: isinstance(app.screen, LobbyScreen) and app.screen.tables,
        "the table in the lobby",
    )
    await pilot.press("w")
    await wait_until(pilot, lambda: isinstance(app.screen, WatchScreen), "the spectator view")
    return app.screen


async def test_watching_a_game_of_bots_from_the_lobby():
    """w on a table being played: its events arrive, the players panel shows
    hand sizes, no hand is shown, the game keys do nothing, q returns."""
    server = await start_server("127.0.0.1", 0)
    try:
        async with Connection(server.address) as conn:
            table_id, token = await _bots_table(conn, bot_delay=0.3, target=500)
            await conn.start_game(table_id, token)
            bob = asyncio.create_task(run_bot(make_bot("greedy"), conn.session(table_id, token)))
            app = UnoApp(PlayOptions(server=server.address, name="Eve"))
            async with app.run_test(size=(100, 30)) as pilot:
                screen = await _watch_first_table(app, pilot)
                table = server.lobby.get(table_id)
                await wait_until(pilot, lambda: screen.state.view is not None, "the view")
                seen = len(screen.state.events)
                await wait_until(
                    pilot,
                    lambda: len(screen.state.events) > seen + 2,
                    "new events as the bots play",
                )
                assert table.spectators == 1 and table.state is TableState.PLAYING
                assert "played" in _log_text(screen)
                # The players panel: every seat with its number of cards, nobody is "you".
                panel = screen.query_one(PlayersPanel)
                await wait_until(pilot, lambda: panel.view is screen.state.view, "the panel")
                columns = panel.table_at(panel.size.width).columns
                names = [str(cell) for cell in columns[1].cells][1:]  # after the header row
                sizes = [int(str(cell)) for cell in list(columns[2].cells)[1:]]
                assert len(names) == 4 and names[0].startswith("Bob")
                assert not any("(you)" in name for name in names)
                assert sizes == list(panel.view.hand_sizes) and sum(sizes) > 0
                # No hand, no game keys; a status line saying we watch.
                assert not screen.query_one(HandView).display
                status = str(screen.query_one("#status", Static).content)
                assert "WATCHING" in status and "q or Esc back to the lobby" in status
                actions = {b.binding.action for b in screen.active_bindings.values()}
                assert not actions & {"play", "draw", "uno", "catch", "mark", "move(1)"}
                assert "leave" in actions
                await pilot.press("question_mark")  # the help names the watching keys
                await wait_until(
                    pilot,
                    lambda: isinstance(app.screen, WatchHelpScreen) and app.screen.is_mounted,
                    "the help",
                )
                console = Console(file=io.StringIO(), width=100, color_system=None)
                console.print(app.screen.query_one("#help-body", Static).content)
                assert "q or Esc  back to the lobby" in console.file.getvalue()
                await pilot.press("escape")
                await wait_until(pilot, lambda: app.screen is screen, "the help to close")
                sent = []

                async def send(action) -> bool:
                    sent.append(action)
                    return False

                screen.session.send = send
                await pilot.press("enter", "d", "u", "c", "1", "right", "space", "s", "b")
                await pilot.click("#pile")
                await pilot.pause()
                assert app.screen is screen and sent == [] and not screen.sending
                assert not any("turn" in str(n.message) for n in app._notifications)
                _assert_nothing_private(screen)
                # q: back to the lobby, and the spectator stream ends.
                await pilot.press("q")
                await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
                await wait_until(pilot, lambda: table.spectators == 0, "the stream to close")
                await pilot.press("ctrl+q")
            bob.cancel()
    finally:
        await server.stop(None)


async def test_watching_a_waiting_table_to_the_end_of_its_game_shows_nothing_private():
    """Watch a table before its game starts; the whole one-round game then
    reaches the spectator, private events never; the final standings come up."""
    server = await start_server("127.0.0.1", 0)
    try:
        async with Connection(server.address) as conn:
            table_id, token = await _bots_table(conn, bot_delay=0.0, target=0)
            app = UnoApp(PlayOptions(server=server.address, name="Eve"))
            async with app.run_test(size=(100, 30)) as pilot:
                screen = await _watch_first_table(app, pilot)
                status = screen.query_one("#status", Static)
                await wait_until(
                    pilot,
                    lambda: "Waiting for the game to start: 4/4" in str(status.content),
                    "the waiting status",
                )
                assert screen.state.view is None
                table = server.lobby.get(table_id)
                await wait_until(pilot, lambda: table.spectators == 1, "the spectator stream")
                await conn.start_game(table_id, token)
                await asyncio.wait_for(
                    run_bot(make_bot("greedy"), conn.session(table_id, token)), WAIT
                )
                scores = dict(zip((s.name for s in table.seats), table.game.scores))
                await wait_until(
                    pilot,
                    lambda: isinstance(app.screen, FinalScreen) and app.screen.is_mounted,
                    "the final standings",
                )
                assert app.screen.standings() == scores
                assert screen.finished and screen.state.game_over
                kinds = {e.kind for e in screen.state.events}
                assert {EventKind.PLAYED, EventKind.DREW, EventKind.GAME_OVER} <= kinds
                _assert_nothing_private(screen)
                await pilot.press("l")
                await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
                await pilot.press("ctrl+q")
    finally:
        await server.stop(None)


# ---------------------------------------------------------------- issue 17's faults


async def test_no_playable_card_says_draw_and_never_asks_for_an_uno_call():
    # Your turn, two cards, neither fits the red 4: the prompt says what you can do.
    game = GameState.from_position([cs("B5 G2"), cs("R1 R2"), cs("G1 G3")], c("R4"))
    app = CraftedApp(game)
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        status = str(app.screen.query_one("#status", Static).content)
        assert "no card fits: d draws" in status
        assert "marked “play”" not in status and "press u" not in status


async def test_the_leave_dialog_after_the_connection_is_lost_promises_no_seat():
    game = GameState.from_position([cs("R7 B5 G2"), cs("R1 R2"), cs("G1 G3")], c("R4"))
    app = CraftedApp(game)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        screen.seating = Seating("127.0.0.1:1", "t1-test", "token", "Ada")  # a LAN seat
        screen.model.failed = "Connection lost: the server is shutting down"
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, QuitPrompt), "the leave dialog")
        text = " ".join(screen_lines(app))
        assert "stays yours" not in text and "Bot takes seat" not in text
        assert "the server is shutting down" in text


async def test_a_list_arriving_while_the_lobby_is_taken_apart_does_not_fail(server):
    # The race of "No nodes match 'DataTable' on LobbyScreen()": the lobby's
    # widgets go before the screen does, and a refresh lands in between.
    async with Connection(server.address) as conn:
        await conn.create_table(seats=2, title="Race")
    app = UnoApp(PlayOptions(server=server.address, name="Ada"))
    async with app.run_test(size=(100, 24)) as pilot:
        await wait_until(
            pilot, lambda: isinstance(app.screen, LobbyScreen) and app.screen.tables, "the tables"
        )
        lobby = app.screen
        await lobby.query_one("#tables").remove()
        lobby.show(lobby.tables)  # raised NoMatches when the lobby looked its widgets up
        lobby.show_status()
        assert lobby._current() is not None
        await pilot.press("ctrl+q")


async def test_lan_servers_changing_while_the_connect_screen_is_taken_apart_do_not_fail():
    app = UnoApp(PlayOptions(lan=True, name="Ada"))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ConnectScreen), "the connect screen")
        screen = app.screen
        await screen.query_one("#servers").remove()
        screen._servers_changed()  # raised NoMatches: No nodes match '#servers'
        await pilot.press("ctrl+q")


async def test_a_server_found_on_the_lan_takes_the_focus_until_an_address_is_typed():
    """Found servers get the keys at once (Enter connects), unless an address is being typed."""
    from unoplay.client.discovery import FoundServer

    app = UnoApp(PlayOptions(lan=True, name="Ada"))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ConnectScreen), "the connect screen")
        screen = app.screen
        assert screen.focused is screen.address_input
        await wait_until(
            pilot,
            lambda: screen.browser is not None or "unavailable" in str(screen.lan_status.content),
            "the LAN browser",
        )

        class Found:
            servers = {"a": FoundServer("uno on vm", "192.0.2.2", 50051)}

        real, screen.browser = screen.browser, Found()
        screen._servers_changed()
        await pilot.pause()
        assert screen.focused is screen.servers and screen.servers.highlighted == 0
        screen.address_input.focus()
        await pilot.press(*"10.0.0.7")
        screen._servers_changed()
        await pilot.pause()
        assert screen.focused is screen.address_input  # typing is not interrupted
        screen.browser = real
        await pilot.press("ctrl+q")


async def test_what_you_type_on_the_connect_screen_is_the_address_not_your_name():
    app = UnoApp(PlayOptions(lan=True, name="Ada"))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ConnectScreen), "the connect screen")
        await pilot.press(*"10.0.0.7")
        screen = app.screen
        assert screen.address_input.value == "10.0.0.7"
        assert screen.name_input.value == "Ada"
        await pilot.press("ctrl+q")


async def test_the_lobby_never_says_0_tables_before_the_server_answers_and_names_a_wrong_port():
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    target = f"127.0.0.1:{port}"
    app = UnoApp(PlayOptions(server=target, name="Ada"))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        lobby = app.screen
        assert "0 tables" not in str(lobby.status.content)
        await wait_until(pilot, lambda: lobby.problem, "the failed refresh")
        status = str(lobby.status.content)
        assert "0 tables" not in status
        assert f"nothing answers at {target}" in status
        assert "failed to connect" not in status and "last error" not in status
        # the whole sentence on an 80-column screen (it used to be cut before "running there?")
        assert any("is uno serve running there?" in line for line in screen_lines(app))
        form = await open_form(app, pilot)  # a table asked of that server: the same words
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: not form.busy and "nothing answers" in " ".join(screen_lines(app)),
            "the form's error",
        )
        assert "failed to connect" not in " ".join(screen_lines(app))
        await pilot.press("ctrl+q")


def test_a_server_error_reads_as_a_sentence(monkeypatch):
    raw = "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:9: refused"
    said = error_words(ServerUnavailable("UNAVAILABLE", raw), "127.0.0.1:9")
    assert said == "nothing answers at 127.0.0.1:9: is uno serve running there?"
    gone = ServerUnavailable("UNAVAILABLE", "the server is shutting down")
    assert error_words(gone, "h:1") == "the server at h:1 is shutting down"
    # a plain client at a TLS server: grpc says only that the socket closed
    monkeypatch.delenv("UNOPLAY_TLS_CA", raising=False)
    closed = "failed to connect to all addresses; last error: UNAVAILABLE: ipv4:h:1: Socket closed"
    said = error_words(ServerUnavailable("UNAVAILABLE", closed), "h:1")
    assert said.startswith("h:1 answered and closed the connection") and "--tls-ca" in said


def test_the_lobby_marks_away_players_and_votes_to_play_again():
    seats = (
        SeatInfo(seat=0, name="Ada", bot=False, occupied=True, connected=True),
        SeatInfo(seat=1, name="Bob", bot=False, occupied=True, connected=False),
        SeatInfo(seat=2, name="greedy", bot=True, occupied=True, connected=True),
    )
    table = TableInfo(
        table_id="t1",
        title="T",
        seats=seats,
        rules=RuleSet(),
        turn_seconds=0,
        state=TableState.FINISHED,
        scores=(),
        away_grace=30.0,
        rematch_votes=(0,),
    )
    assert players_text(table) == "Ada, Bob (away) + 1 bot"
    assert state_text(table) == "finished, again 1/2"


@pytest.mark.parametrize("remote", [False, True])
async def test_ctrl_c_asks_once_in_a_game_says_what_quitting_does_and_quits_on_the_second(
    server, remote
):
    """The question says what quitting does: uno play's own game, its local
    server stops with it; uno play --server --new-table's table goes on at
    that server (the question used to say a local server would stop there
    too). A second Ctrl+C quits, exit 0."""
    options = PlayOptions(name="Ada", bots=1, bot_delay=0.0, seed=3)
    if remote:
        options = PlayOptions(
            name="Ada", bots=1, bot_delay=0.0, server=server.address, new_table=True
        )
    app = UnoApp(options)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(
            pilot,
            lambda: table_screen(app) is not None and table_screen(app).state.view is not None,
            "the game",
        )
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: isinstance(app.screen, QuitPrompt), "the question")
        said = " ".join(str(w.render()) for w in app.screen.query(Static))
        await pilot.press("ctrl+c")  # (its servers and streams closed)
        await wait_until(pilot, lambda: app._exit_renderables or not app.is_running, "the exit")
    assert app.return_code == 0
    assert ("goes on at the server" in said) is remote
    assert ("local server and its bots stop" in said) is not remote


async def test_ctrl_c_in_the_lobby_quits(server):
    app = UnoApp(PlayOptions(server=server.address, name="Ada"))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not app.is_running or app._exit, "the exit")
    assert app.return_code == 0


async def test_the_app_quits_once_nobody_can_see_it(server):
    """``uno play`` whose terminal (or web server) is gone quits, keeping its
    seat, instead of playing on unseen (Textual's input thread spun on a dead
    terminal at most of a core, under ``make play`` in a closed window)."""
    app = UnoApp(PlayOptions(server=server.address, name="Ada"))
    terminal = {"there": True}
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        tui_app._quit_when(app, lambda: not terminal["there"], "the terminal is gone")
        assert app.is_running
        terminal["there"] = False
        await wait_until(pilot, lambda: not app.is_running or app._exit, "the exit")
    assert app.return_code == 0


async def test_enter_on_a_checkbox_creates_and_the_form_remembers_the_last_table(server):
    app = UnoApp(PlayOptions(server=server.address, name="Ada", bot_delay=0.0))
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        form = await open_form(app, pilot)
        form.query_one("#seats", Input).value = "3"
        box = form.query_one("#opt-uno_call_strict", Checkbox)
        ticked = box.value
        box.focus()
        await pilot.press("enter")
        await reach_table(pilot)  # seats left free: no game starts, no prompt
        assert box.value == ticked  # Enter created the table; it did not tick the box
        created = list(server.lobby.tables.values())[-1]
        assert len(created.seats) == 3
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, QuitPrompt), "the leave dialog")
        await pilot.press("l")
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby again")
        form = await open_form(app, pilot)
        assert form.query_one("#seats", Input).value == "3"
        await pilot.press("ctrl+q")


# ---------------------------------------------------------------- rematch


async def test_a_rematch_with_two_tui_players_and_a_bot(server, tmp_path):
    rules = RuleSet(target_score=0)  # one round is the game
    async with Connection(server.address) as conn:
        table = await conn.create_table(seats=3, rules=rules, bot_delay=0.0)
        seated = [await conn.join_table(table.table_id, name) for name in ("Ada", "Bob")]
        await conn.add_bot(table.table_id, "greedy")
    apps = [
        UnoApp(
            PlayOptions(server=server.address, name=s.table.seats[s.seat].name),
            SeatStore(tmp_path / f"seats-{s.seat}.json"),
        )
        for s in seated
    ]
    async with apps[0].run_test(size=(100, 30)) as ada, apps[1].run_test(size=(100, 30)) as bob:
        for app, s, pilot in zip(apps, seated, (ada, bob)):
            await wait_until(pilot, lambda app=app: isinstance(app.screen, LobbyScreen), "lobby")
            name = s.table.seats[s.seat].name
            app.show_table(Seating(server.address, table.table_id, s.seat_token, name))
            await wait_until(
                pilot,
                lambda app=app: table_screen(app) is not None and table_screen(app).session,
                "the table",
            )
        live = server.lobby.get(table.table_id)
        live.start(game=ada_goes_out(3, rules))
        await wait_until(ada, lambda: apps[0].screen.ready, "Ada's turn")
        await ada.press("enter")  # the red 7: out, and the game is over
        for app, pilot in zip(apps, (ada, bob)):
            await wait_until(
                pilot, lambda app=app: isinstance(app.screen, FinalScreen), "the final standings"
            )
        await ada.press("a")
        final = apps[1].screen
        await wait_until(bob, lambda: "Ada ✓" in str(final.votes.content), "Ada's vote shown")
        assert "you …" in str(final.votes.content)
        assert live.state is TableState.FINISHED
        await bob.press("a")
        for app, pilot in zip(apps, (ada, bob)):
            await wait_until(
                pilot,
                lambda app=app: (
                    table_screen(app) is not None
                    and table_screen(app).state.view is not None
                    and not table_screen(app).state.game_over
                ),
                "the next game",  # under a colour prompt if its starter is a Wild for this seat
            )
        assert live.games_started == 2 and live.state is TableState.PLAYING
        for app in apps:
            assert table_screen(app).seating.last_seq > 0  # the stream went on after the first
        await bob.press("ctrl+q")
        await ada.press("ctrl+q")


async def test_the_challenge_names_the_colour_it_judges():
    # bot-3 plays a Wild Draw Four naming blue on a red 7: a challenge judges red.
    game = house_game(["R1 Y3", "G1 G3", "B1 B2", "W+4 R5 G6"], "R7", current=3, stacking="off")
    started = [
        Event(EventKind.ROUND_STARTED, 0, count=7, value=1),
        Event(EventKind.STARTER_FLIPPED, -1, cards=(c("R7"),)),
    ]
    played = game.apply(3, play(c("W+4"), colour=3))
    text = await _penalty_prompt_text(CraftedApp(game, events=started + played))
    assert "They named blue" in text
    assert "held a red card (the colour in force before their Wild Draw Four)" in text
    assert "Enter accepts · c challenges · Esc does not close this" in text  # it needs an answer


async def test_o_sorts_the_hand_and_the_order_is_remembered(data_dir):
    game = GameState.from_position([cs("B5 R7 W R2"), cs("R1 R3"), cs("G1 G3")], c("R4"))
    app = CraftedApp(game)
    app.prefs = Prefs()  # as UnoApp keeps them (prefs.json in the data directory)
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        hand = app.screen.query_one(HandView)
        await pilot.press("o")
        assert hand.cards == tuple(cs("R2 R7 B5 W"))
        await pilot.press("o")
        assert hand.cards == tuple(cs("R2 B5 R7 W"))
    assert Prefs().get("hand_order") == "rank"


def _next_round_without_a_move(game: GameState) -> None:
    """Deal the next round and play until seat 0 has nothing to do."""
    game.next_round()
    while game.legal_actions(0):
        game.apply(game.current, game.legal_actions(game.current)[0])


async def _round_results_then_the_next_round(app, pilot, game: GameState) -> None:
    board = app.screen
    board.handle(app.update)
    await wait_until(pilot, lambda: isinstance(app.screen, RoundResultScreen), "the results")
    _next_round_without_a_move(game)
    update = Update(game.view(0), (), 0.0, board.state.seats)
    board.state.take_update(update)
    board.handle(Received(2, update))
    await pilot.pause()


async def test_the_round_results_step_aside_once_the_next_round_is_under_way(monkeypatch):
    """Nobody has to press anything: the next round (which wants no move of
    this player yet) moves the results aside once they have been up
    READING_SECONDS (0 here), so the bots' moves are not hidden behind them."""
    monkeypatch.setattr(RoundResultScreen, "READING_SECONDS", 0.0)
    game = GameState.from_position([cs("R7"), cs("R1 R2 W"), cs("B1 B2")], c("R4"))
    app = CraftedApp(game, events=game.apply(0, play(c("R7"))))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        board = app.screen
        await _round_results_then_the_next_round(app, pilot, game)
        await wait_until(pilot, lambda: app.screen is board, "the board again")


async def test_q_on_the_round_results_goes_on_to_leave():
    """The results box does not swallow q: it closes and the table's q (leave) follows."""
    game = GameState.from_position([cs("R7"), cs("R1 R2 W"), cs("B1 B2")], c("R4"))
    app = CraftedApp(game, events=game.apply(0, play(c("R7"))))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await _round_results_then_the_next_round(app, pilot, game)
        assert isinstance(app.screen, RoundResultScreen)  # still being read (3 s)
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, QuitPrompt), "the leave dialog")


async def test_the_round_results_step_aside_when_the_next_round_wants_a_move():
    """The next round starts by itself; once it is the player's move, the
    results of the last one no longer hide the board."""
    game = GameState.from_position([cs("R7"), cs("R1 R2 W"), cs("B1 B2")], c("R4"))
    events = game.apply(0, play(c("R7")))
    app = CraftedApp(game, events=events)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        board = app.screen
        board.handle(app.update)
        await wait_until(pilot, lambda: isinstance(app.screen, RoundResultScreen), "the results")
        game.next_round()
        while not game.legal_actions(0):  # the bots play until seat 0 has a move
            game.apply(game.current, game.legal_actions(game.current)[0])
        update = Update(game.view(0), tuple(game.legal_actions(0)), 0.0, board.state.seats)
        board.state.take_update(update)
        board.handle(Received(2, update))
        await wait_until(pilot, lambda: app.screen is board, "the board again")


async def test_only_the_pile_as_drawn_draws_a_card():
    """A click on the pile draws; a click on the empty rest of its row (the
    Table panel's blank space) does nothing."""
    from textual.app import App

    from unoplay.client.tui.widgets.pile import PileView

    clicked = []

    class PileApp(App[None]):
        CSS = "PileView { height: 12; }"

        def compose(self):
            yield PileView(id="pile")

        def on_pile_view_clicked(self, message) -> None:
            clicked.append(message)

    state = crafted_state()
    app = PileApp()
    async with app.run_test(size=(100, 14)) as pilot:
        pile = app.query_one(PileView)
        pile.show(state.view, state.seats, state.view.seat)
        await pilot.pause()
        width, height = pile.drawn
        assert 0 < width < 90 and height > 0
        await pilot.click("#pile", offset=(width + 5, 1))
        await pilot.click("#pile", offset=(2, height))
        await pilot.pause()
        assert clicked == []
        await pilot.click("#pile", offset=(2, 1))
        await pilot.pause()
        assert len(clicked) == 1


async def test_a_stray_enter_on_the_colour_prompt_names_no_colour():
    """Enter pressed twice to play a Wild: the second lands on the colour
    prompt, which has no button focused until the player moves to one, so it
    names no colour; Enter on a button the player moved to (Tab) names it."""
    game = GameState.from_position([cs("W R1 B2"), cs("G1 G3")], c("R4"), current=0)
    app = CraftedApp(game)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.screen.query_one(HandView).cards[0] == c("W")
        await pilot.press("1", "enter")  # the Wild, played
        await wait_until(pilot, lambda: isinstance(app.screen, ColourPrompt), "the colour prompt")
        prompt = app.screen
        await pilot.press("enter")  # the stray one
        await pilot.pause()
        assert app.screen is prompt and prompt.focused is None
        assert app.session.sent == []
        await pilot.press("tab", "tab", "enter")  # moved to the second colour
        await wait_until(pilot, lambda: app.session.sent, "the intent")
        assert wire.action_from_id(app.session.sent[0]).colour == prompt.colours[1]


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="a POSIX terminal")
@pytest.mark.parametrize("stop", ["SIGTERM", "SIGHUP"])
def test_uno_play_killed_or_hung_up_gives_the_terminal_back(stop):
    """``uno play`` in a terminal (a pty) ended by SIGTERM (a kill) or SIGHUP
    (its terminal closed) quits as ctrl+q does: it leaves the alternate
    screen and mouse tracking, and exits 128 + the signal, where it used to
    die at once and leave the terminal in the game's modes."""
    import fcntl
    import pty
    import select
    import struct
    import termios
    import time

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "UNOPLAY_MDNS": "0"}
    argv = [sys.executable, "-m", "unoplay.client.cli", "play", "--bots", "1"]
    child = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True
    )
    os.close(slave)
    out = bytearray()

    def read_until(done: typing.Callable[[], bool]) -> None:
        deadline = time.monotonic() + 60
        while not done() and time.monotonic() < deadline:
            if select.select([master], [], [], 0.2)[0]:
                try:
                    out.extend(os.read(master, 65536))
                except OSError:  # (EIO: the child closed the terminal)
                    return

    try:
        read_until(lambda: b"Draw pile" in out)  # the table is on the screen
        assert b"Draw pile" in out, out[-500:]
        child.send_signal(getattr(signal, stop))
        read_until(lambda: child.poll() is not None)
        assert child.wait(WAIT) == 128 + getattr(signal, stop)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(WAIT)
        os.close(master)
    after = out[out.index(b"Draw pile") :]
    assert b"\x1b[?1049l" in after  # the alternate screen left
    assert b"\x1b[?1000l" in after  # mouse tracking off
