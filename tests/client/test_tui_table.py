"""The table's keys at the wrong moment, as a new user met them (issue 36):
a round-end box that closed by itself, a spectator after a rematch, a lost
connection under an open prompt, a small terminal, literal names and titles.

No sleeps as synchronisation: every wait polls a condition under a timeout;
time that must pass is a fake clock moved forward.
"""

from __future__ import annotations

import argparse
import asyncio

import pytest
from helpers import c, cs
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import Input, Select, Static
from tui_helpers import (
    WAIT,
    CraftedApp,
    ada_goes_out,
    house_game,
    open_form,
    screen_lines,
    select_card,
    shown_in,
    table_screen,
    wait_until,
)

from unoplay.client.sdk import Connection, Received, SessionState, run_bot
from unoplay.client.tui.app import PlayOptions, UnoApp
from unoplay.client.tui.demo import DemoApp
from unoplay.client.tui.model import Role, TableModel
from unoplay.client.tui.screens import (
    ConnectScreen,
    FinalScreen,
    GameScreen,
    LobbyScreen,
    WatchScreen,
)
from unoplay.client.tui.screens.game import Seating
from unoplay.client.tui.screens.prompts import (
    PenaltyPrompt,
    QuitPrompt,
    RoundResultScreen,
    TargetPrompt,
)
from unoplay.client.tui.seats import SeatStore
from unoplay.client.tui.widgets import PileView, TableBoard
from unoplay.game.actions import ActionKind, play
from unoplay.game.cards import IS_WILD
from unoplay.game.engine import GameState
from unoplay.game.events import Event, EventKind
from unoplay.game.messages import SeatInfo, Update
from unoplay.game.registry import make_bot
from unoplay.game.rules import PRESETS, RuleSet
from unoplay.server.service import start_server

pytestmark = pytest.mark.usefixtures("data_dir")


def _play_until_a_card_of_seat_0(game: GameState) -> int:
    """Deal the next round; the others play until seat 0 may play a card that
    is not a wild. Returns that card."""
    game.next_round()
    for _ in range(500):
        if game.current == 0:
            plays = [
                a
                for a in game.legal_actions(0)
                if a.kind is ActionKind.PLAY and not a.extra and not IS_WILD[a.card]
            ]
            if plays:
                return plays[0].card
        game.apply(game.current, game.legal_actions(game.current)[0])
    raise AssertionError("seat 0 never had a card to play")


@pytest.mark.parametrize("read", ["stepped aside at once", "stepped aside after reading"])
async def test_an_enter_meant_for_the_round_results_does_not_play_in_the_next_round(
    monkeypatch, read
):
    """The box steps aside by itself once the next round is under way; an
    Enter pressed just then (meant for the box) plays nothing. Once the
    moment has passed, Enter plays again."""
    if read == "stepped aside after reading":
        monkeypatch.setattr(RoundResultScreen, "READING_SECONDS", 0.0)
    now = [1000.0]
    game = GameState.from_position([cs("R7"), cs("R1 R2 W"), cs("B1 B2")], c("R4"))
    app = CraftedApp(game, events=game.apply(0, play(c("R7"))), clock=lambda: now[0])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        board = app.screen
        board.handle(app.update)
        await wait_until(pilot, lambda: isinstance(app.screen, RoundResultScreen), "the results")
        card = _play_until_a_card_of_seat_0(game)
        legal = () if read == "stepped aside after reading" else tuple(game.legal_actions(0))
        update = Update(game.view(0), legal, 0.0, board.state.seats)
        board.state.take_update(update)
        board.handle(Received(2, update))  # the next round: the box steps aside by itself
        await wait_until(pilot, lambda: app.screen is board, "the board again")
        if not legal:  # the move comes with the next update
            update = Update(game.view(0), tuple(game.legal_actions(0)), 0.0, board.state.seats)
            board.state.take_update(update)
            board.handle(Received(3, update))
        await wait_until(pilot, lambda: board.ready, "seat 0's move")
        await select_card(pilot, card)
        await pilot.press("enter", "space")
        await pilot.pause()
        assert app.session.sent == [] and app.screen is board and not board.model.marked
        now[0] += RoundResultScreen.KEY_HOLD_SECONDS
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.session.sent, "the play")


async def test_a_spectator_follows_the_table_into_its_rematch(server):
    """Eve watches a one-round game to its end; Ada votes to play again (the
    bot agrees at once): Eve's view goes on into game 2, not "Game over"."""
    rules = RuleSet(target_score=0)
    async with Connection(server.address) as conn:
        table = await conn.create_table(seats=2, rules=rules, bot_delay=0.0, title="Rematch")
        ada = await conn.join_table(table.table_id, "Ada")
        await conn.add_bot(table.table_id, "greedy")
        live = server.lobby.get(table.table_id)
        app = UnoApp(PlayOptions(server=server.address, name="Eve"))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            app.show_watch(server.address, table.table_id)
            await wait_until(pilot, lambda: live.spectators == 1, "the spectator stream")
            live.start(game=ada_goes_out(2, rules))
            await asyncio.wait_for(
                run_bot(make_bot("greedy"), conn.session(table.table_id, ada.seat_token)), WAIT
            )
            await wait_until(pilot, lambda: isinstance(app.screen, FinalScreen), "the standings")
            await conn.rematch(table.table_id, ada.seat_token)
            await wait_until(
                pilot,
                lambda: (
                    isinstance(app.screen, WatchScreen)
                    and app.screen.state.view is not None
                    and not app.screen.state.game_over
                ),
                "the next game watched",
            )
            screen = app.screen
            assert live.games_started == 2 and screen.model.table.games == 2
            status = str(screen.query_one("#status", Static).content)
            assert "WATCHING" in status and "Game over" not in status
            await pilot.press("ctrl+q")


async def test_a_lost_connection_closes_the_open_prompt_and_q_leaves():
    """bot-1 plays a Draw Two on Ada: the "+2 on you" prompt is open when the
    server stops. The prompt closes, the status says the game was
    interrupted, and q opens the leave dialog at once."""
    server = await start_server("127.0.0.1", 0)
    try:
        async with Connection(server.address) as conn:
            table = await conn.create_table(
                seats=2, bot_delay=0.0, title="Lost", rules=PRESETS["house"]
            )
            ada = await conn.join_table(table.table_id, "Ada")
            await conn.add_bot(table.table_id, "greedy")
        live = server.lobby.get(table.table_id)
        app = UnoApp(PlayOptions(server=server.address, name="Ada"))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            app.show_table(Seating(server.address, table.table_id, ada.seat_token, "Ada"))
            await wait_until(pilot, lambda: table_screen(app) is not None, "the table")
            await wait_until(
                pilot,
                lambda: table_screen(app).session and table_screen(app).session.status == "live",
                "the stream",
            )
            # bot-1's only play is the Draw Two, on Ada, who may stack or accept
            live.start(game=house_game(["R1 B2 G3", "R+2 G5"], "R4", current=1))
            await wait_until(pilot, lambda: isinstance(app.screen, PenaltyPrompt), "the prompt")
            board = table_screen(app)
            await server.stop(None)
            await wait_until(pilot, lambda: board.failed, "the stream to end")
            await wait_until(pilot, lambda: app.screen is board, "the prompt to close")
            assert "q leave" in str(board.query_one("#status", Static).content)
            await pilot.press("q")
            await wait_until(pilot, lambda: isinstance(app.screen, QuitPrompt), "the leave dialog")
            assert app.screen.lost == board.failed == GameScreen.INTERRUPTED
            await pilot.press("ctrl+q")
    finally:
        await server.stop(None)


async def test_a_short_terminal_keeps_a_line_of_what_happened():
    """At 40x12 there is no room for the framed log: its latest line shows
    alone (the others' moves, not "Your turn", which the status line says);
    a taller terminal has the framed log again."""
    app = DemoApp()
    async with app.run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        board = app.screen.query_one(TableBoard)
        assert board.short and not board.game_log.display
        (line,) = shown_in(app, board.latest)
        assert line.strip() == "greedy-1 played red 4"
        board.game_log.add(Text("Bob played a blue 5 and a blue 5 again, a long line"))
        await pilot.pause()
        (line,) = shown_in(app, board.latest)
        assert line.strip().startswith("Bob played a blue 5") and line.strip().endswith("…")
        assert "Your turn" not in line and "YOUR TURN" in " ".join(screen_lines(app))
        await pilot.resize_terminal(40, 15)
        await wait_until(pilot, lambda: not board.short, "the framed log")
        await pilot.pause()
        assert board.game_log.display and not board.latest.display
        assert "What happened" in " ".join(screen_lines(app))


@pytest.mark.parametrize("width", [104, 110, 112, 114, 116])
async def test_the_pile_s_words_never_wrap_into_the_card(width):
    """Beside the top card, a line too long for the panel ends in …; it
    used to wrap, its end drawn on a line of its own through the card (at
    110-113 columns: "Draw pile 79 · discards" then "5")."""
    app = DemoApp()
    async with app.run_test(size=(width, 32)) as pilot:
        await pilot.pause()
        lines = shown_in(app, app.screen.query_one(PileView))
        inside = [line[1:-1] for line in lines[1:-1]]  # (within the Table panel's frame)
        card = [line for line in inside if line.strip()]
        assert all(line.lstrip().startswith(("╭", "│", "╰")) for line in card), lines
        assert any("Draw pile" in line for line in card)


class _BoardApp(App):
    """A table board alone, drawn from ``model``."""

    def __init__(self, model: TableModel) -> None:
        super().__init__()
        self.model = model

    def compose(self) -> ComposeResult:
        yield TableBoard(hand=False)

    def on_mount(self) -> None:
        self.query_one(TableBoard).draw(self.model)


async def test_a_view_seen_by_nobody_at_the_table_names_whom_a_penalty_is_on():
    """The replay's every-hand view draws seat 0's view for a receiver who is
    none of the players: the pending +2 is on Ada, not on "you"."""
    game = house_game(["R1 B2 G3", "R+2 G5"], "R4", current=1)  # stacking: +2 pends
    game.apply(1, play(c("R+2")))
    seats = tuple(
        SeatInfo(seat=i, name=n, bot=False, occupied=True, connected=True)
        for i, n in enumerate(("Ada", "Bob"))
    )
    state = SessionState(seat=-1, view=game.view(0), seats=seats)
    app = _BoardApp(TableModel(state, role=Role.SPECTATOR))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        pile = " ".join(shown_in(app, app.query_one(TableBoard).pile))
        assert "+2 pending on Ada" in pile and "you" not in pile


async def test_u_with_uno_already_called_says_so_and_arms_nothing():
    game = GameState.from_position([cs("R7 R8"), cs("B1 B2"), cs("G1 G3")], c("R4"))
    game.apply(0, play(c("R7"), uno=True))  # Ada calls UNO with her play: one card left
    app = CraftedApp(game)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("u")
        await wait_until(pilot, lambda: app._notifications, "the notice")
        said = [str(n.message) for n in app._notifications]
        assert any("UNO already called" in m for m in said) and not app.screen.uno_armed
        assert not any("armed" in m for m in said)


async def test_notifications_never_cover_the_hand_or_the_status():
    """At 120x40 a notification (c with nobody to catch) shows at the top
    right, not over the cards and their "play" marks."""
    app = DemoApp()
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await wait_until(pilot, lambda: app.screen.query("Toast"), "the notification")
        await pilot.pause()
        board = app.screen.query_one(TableBoard)
        for toast in app.screen.query("Toast"):
            assert toast.region.height
            for part in (board.hand, board.status):
                assert not toast.region.overlaps(part.region), part


def test_uno_play_refuses_a_port_out_of_range():
    args = argparse.Namespace(server="127.0.0.1:99999", name="Ada")
    with pytest.raises(SystemExit, match=r"invalid port '99999' in 127\.0\.0\.1:99999"):
        PlayOptions.from_args(args)


async def test_an_address_with_a_port_out_of_range_is_named_invalid_not_unanswered():
    """The lobby of such a target (the connect screen's typing, too) says the
    port is invalid, not that nothing answers."""
    app = UnoApp(PlayOptions(server="127.0.0.1:99999", name="Ada"))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        lobby = app.screen
        await wait_until(pilot, lambda: lobby.problem, "the failed refresh")
        status = str(lobby.status.content)
        assert "invalid port '99999'" in status and "nothing answers" not in status
        app.show_connect("127.0.0.1:70000")
        await wait_until(pilot, lambda: isinstance(app.screen, ConnectScreen), "the connect screen")
        await pilot.pause()
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: any("invalid port '70000'" in str(n.message) for n in app._notifications),
            "the refusal",
        )
        assert isinstance(app.screen, ConnectScreen)
        await pilot.press("ctrl+q")


async def test_a_returned_starter_reshuffles_the_draw_pile_not_discards():
    game = GameState.from_position([cs("R7 B5"), cs("R1 R2"), cs("G1 G3")], c("R4"))
    events = [
        Event(EventKind.ROUND_STARTED, 0, count=7, value=1),
        Event(EventKind.STARTER_RETURNED, -1, cards=(c("W+4"),)),
        Event(EventKind.DECK_RESHUFFLED, -1, count=87),
        Event(EventKind.STARTER_FLIPPED, -1, cards=(c("R4"),)),
    ]
    app = CraftedApp(game, events=events)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        log = " ".join(line.text for line in app.screen.query_one("#log").lines)
        assert "Wild Draw Four went back into the pile" in log
        assert "The draw pile is reshuffled with it: 87 cards" in log
        assert "Discards" not in log


async def test_the_form_says_what_the_server_refuses_in_its_labels(server):
    """An elimination game with a target: the server's "set target_score=0"
    reads as the form's field is labelled, "set Target score to 0"."""
    app = UnoApp(PlayOptions(server=server.address, name="Ada", bot_delay=0.0))
    async with app.run_test(size=(100, 30)) as pilot:
        form = await open_form(app, pilot)
        form.query_one("#opt-format", Select).value = "elimination"
        form.query_one("#opt-target_score", Input).value = "500"
        form.create()
        error = form.query_one("#form-error", Static)
        await wait_until(pilot, lambda: error.display, "the server's refusal")
        said = str(error.content)
        assert "Format elimination" in said and "set Target score to 0" in said
        assert "target_score" not in said and "format=" not in said
        await pilot.press("ctrl+q")


async def test_the_game_over_view_offers_no_game_keys():
    """A multi-play table after its last round: no Mark (nor Play, Draw...)
    in the footer; q shows the final standings."""
    game = house_game(["R7", "R1 R2", "B1 B2"], "R4", current=0, target_score=0)
    game.apply(0, play(c("R7")))
    app = CraftedApp(game)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.screen.model.game_over and app.screen.model.multi_play
        actions = {b.binding.action for b in app.screen.active_bindings.values()}
        assert not actions & {"mark", "play", "draw", "uno", "catch"}
        assert "leave" in actions


async def test_a_sent_move_shows_at_once_that_it_is_on_its_way():
    """Two marked cards, Enter: before any answer of the server the status
    says the move is being sent, and the marks are spent on it."""
    game = house_game(["R7 R7#1 Y9 B2", "R1 R2 R3", "B1 B3", "G1 G3"], "R4", current=0)
    app = CraftedApp(game)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        board = app.screen
        for card in ("R7", "R7#1"):
            await select_card(pilot, c(card))
            await pilot.press("space")
        assert board.model.marked == {c("R7"), c("R7#1")}
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.session.sent, "the play")
        status = str(board.query_one("#status", Static).content)
        assert "SENDING" in status and "play red 7 + red 7…" in status
        assert not board.model.marked and "✓" not in " ".join(shown_in(app, board.board.hand))


# ---------------------------------------------------------------- literal strings

#: A table title and names that read as markup (Rich's, Textual's) if parsed.
TITLE, ADA, BOB, EVE = "[/] [b]t", "[bold]x", "[link=x]y[/link]", "[/]"


def _shows(app, *texts: str) -> bool:
    """True when the app's screen shows every one of ``texts`` as it is."""
    shown = "\n".join(screen_lines(app))
    return all(text in shown for text in texts)


async def test_titles_and_names_show_literally_in_the_lobby_table_watch_and_final(server, tmp_path):
    rules = RuleSet(target_score=0)
    async with Connection(server.address) as conn:
        table = await conn.create_table(seats=2, rules=rules, bot_delay=0.0, title=TITLE)
        ada = await conn.join_table(table.table_id, ADA)
        await conn.join_table(table.table_id, BOB)
    live = server.lobby.get(table.table_id)
    player = UnoApp(PlayOptions(server=server.address, name=ADA), SeatStore(tmp_path / "s.json"))
    watcher = UnoApp(PlayOptions(server=server.address, name=EVE))
    async with (
        player.run_test(size=(160, 40), notifications=True) as pa,
        watcher.run_test(size=(160, 40), notifications=True) as pw,
    ):
        for app, pilot in ((player, pa), (watcher, pw)):
            await wait_until(
                pilot,
                lambda app=app: isinstance(app.screen, LobbyScreen) and app.screen.tables,
                "lobby",
            )
            await wait_until(
                pilot, lambda app=app: _shows(app, TITLE, f"{ADA} (away), {BOB}"), "the list"
            )
        player.show_table(Seating(server.address, table.table_id, ada.seat_token, ADA))
        await wait_until(
            pa,
            lambda: table_screen(player) and table_screen(player).session.status == "live",
            "the table",
        )
        watcher.show_watch(server.address, table.table_id)
        await wait_until(pw, lambda: live.spectators == 1, "the spectator stream")
        live.start(game=ada_goes_out(2, rules))
        await wait_until(pa, lambda: player.screen.ready, "Ada's turn")
        # (the players panel cuts a long name in the middle, "[link=x]y[/l…k]")
        await wait_until(pa, lambda: _shows(player, TITLE, BOB[:12]), "the table's title, names")
        await wait_until(pw, lambda: _shows(watcher, TITLE, ADA, BOB[:12]), "the watched table")
        player.notify(f"{BOB} says {TITLE}")  # a notification says it as it is, too
        await wait_until(pa, lambda: _shows(player, f"{BOB} says {TITLE}"), "the notification")
        await pa.press("enter")  # Ada's red 7: out, the game is over
        await wait_until(pa, lambda: isinstance(player.screen, FinalScreen), "Ada's standings")
        await wait_until(pw, lambda: isinstance(watcher.screen, FinalScreen), "Eve's standings")
        await wait_until(pa, lambda: _shows(player, BOB), "the names in Ada's standings")
        await wait_until(pw, lambda: _shows(watcher, ADA, BOB), "the names in Eve's standings")
        assert watcher.screen.standings() == {ADA: 0 + watcher.screen.scores[0], BOB: 0}
        await pw.press("ctrl+q")
        await pa.press("ctrl+q")


async def test_names_show_literally_in_the_round_results_and_the_swap_prompt():
    names = (ADA, BOB, EVE)
    game = house_game(["R7", "R1 R2 W", "B1 B2"], "R4", current=0)
    app = CraftedApp(game, events=game.apply(0, play(c("R7"))), names=names, title=TITLE)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.screen.handle(app.update)
        await wait_until(pilot, lambda: isinstance(app.screen, RoundResultScreen), "the results")
        await wait_until(pilot, lambda: _shows(app, BOB, EVE), "the names in the results")
    game = house_game(["R7 B5", "R1 R2", "B1 B2"], "R4", current=0, seven_zero=True)
    app = CraftedApp(game, names=names, title=TITLE)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert _shows(app, TITLE, EVE)
        await select_card(pilot, c("R7"))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TargetPrompt), "the swap prompt")
        await wait_until(pilot, lambda: _shows(app, f"1  {BOB} (2)", f"2  {EVE} (2)"), "names")


async def test_an_address_typed_as_markup_is_said_as_it_is():
    app = UnoApp(PlayOptions(lan=True, name="Ada"))
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ConnectScreen), "the connect screen")
        app.show_connect("[/]:1")
        await wait_until(
            pilot, lambda: isinstance(app.screen, ConnectScreen) and app.screen.is_mounted, "again"
        )
        await pilot.pause()
        await pilot.press("enter")
        # refused before any connection (client/address.py), the address said as typed
        said = "[/]:1: '/' is not an IPv6 address"
        await wait_until(pilot, lambda: _shows(app, said), "the notice")
        await pilot.press("ctrl+q")


def _standings_rows():
    from unoplay.client.sdk import ArenaStanding

    return [
        ArenaStanding("greedy-zoe", 42, 19, 31.2, 1.9, 25.5, playing=True),
        ArenaStanding("[b]bob[/b]", 40, 15, 29.0, 2.1, 22.7, waiting=True),
        ArenaStanding("rando", 41, 4, 19.8, 2.0, 13.8),
    ]


def test_arena_standings_snapshot(snap_compare):
    """The arena's standings screen: best first, names literal, who plays now."""
    from textual.app import App

    from unoplay.client.tui.screens.standings import StandingsScreen

    class Server:
        async def standings(self):
            return _standings_rows()

    class StandingsApp(App[None]):
        CSS_PATH = "../../client/tui/uno.tcss"
        ENABLE_COMMAND_PALETTE = False  # as UnoApp

        def connection(self, target):
            return Server()

        def on_mount(self) -> None:
            self.push_screen(StandingsScreen("192.168.1.20:50051", _standings_rows()))

    assert snap_compare(StandingsApp(), terminal_size=(80, 16))


async def test_the_lobby_opens_the_arena_standings(server):
    """`a` in the lobby: the standings of the server's arena, a name that
    entered listed (waiting); Esc goes back to the lobby."""
    from unoplay.client.tui.screens.standings import StandingsScreen

    async with Connection(server.address) as conn:
        entry = conn.enter_arena("[i]zoe")
        await anext(entry)  # in the queue
        app = UnoApp(PlayOptions(server=server.address, name="Eve"))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("a")
            await wait_until(pilot, lambda: isinstance(app.screen, StandingsScreen), "standings")
            await wait_until(
                pilot, lambda: any("[i]zoe" in line for line in screen_lines(app)), "zoe's row"
            )
            assert any("waiting" in line for line in screen_lines(app))
            await pilot.press("escape")
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby again")
        await entry.aclose()
