"""The replay viewer: a stored game stepped through on the table board, and
the list of stored games."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable

from helpers import bots_on_their_turns

from unoplay.client.replay import Frames, write_game_list
from unoplay.client.sdk import Connection, run_bot
from unoplay.client.tui.replay import ReplayApp
from unoplay.client.tui.screens.replay import GameListScreen, ReplayScreen
from unoplay.game import RuleSet, make_bot
from unoplay.game.engine import GameState
from unoplay.record import GameRecord
from unoplay.server.service import start_server
from unoplay.server.storage import GameStore

WAIT = 60.0  # seconds: upper bound of any single wait


async def wait_until(pilot, predicate: Callable[[], object], what: str) -> None:
    """Let the app run until ``predicate()`` is true; fail after :data:`WAIT` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while not predicate():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await pilot.pause(0.01)


async def _stored_game(tmp_path) -> GameStore:
    """A game of three bots (Ada, Bob, Cy), played to its end and stored."""
    path = tmp_path / "games.sqlite3"
    server = await start_server("127.0.0.1", 0, store=str(path))
    try:
        async with Connection(server.address) as conn:
            table = await conn.create_table(seats=3, rules=RuleSet(target_score=0), seed=7)
            joins = [await conn.join_table(table.table_id, n) for n in ("Ada", "Bob", "Cy")]
            plays = [
                asyncio.ensure_future(
                    run_bot(make_bot("greedy"), conn.session(table.table_id, j.seat_token))
                )
                for j in joins
            ]
            await conn.start_game(table.table_id, joins[0].seat_token)
            await asyncio.wait_for(asyncio.gather(*plays), WAIT)
        await asyncio.wait_for(server.recorder.drain(), WAIT)
    finally:
        await server.stop(None)
    return GameStore(str(path))


def _text(app) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def test_stepping_to_the_end_reproduces_the_stored_scores(tmp_path):
    store = await _stored_game(tmp_path)
    record = store.load("last")
    frames = Frames.of(record)
    app = ReplayApp(frames)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
        screen = app.screen
        assert screen.at == 0 and "move 0/" in _text(app) and "the deal" in _text(app)
        for name in ("Ada", "Bob", "Cy"):  # every hand is shown
            assert f"{name}: " in str(screen.hands.content)
        await pilot.press("right")
        assert screen.at == 1 and "move 1/" in _text(app)
        logged = len(screen.board.game_log.lines)
        await pilot.press("right", "right", "left")
        assert screen.at == 2
        await pilot.press("end")
        assert screen.at == len(record.actions)
        view = screen.model.view
        assert view is not None and tuple(view.scores) == tuple(record.scores)
        assert "final scores" in _text(app)
        assert len(screen.board.game_log.lines) > logged  # the log is in step
        await pilot.press("home")
        assert screen.at == 0
        await pilot.press("tab")  # Ada's own view: her hand, no one else's
        assert screen.seat == 0 and screen.board.hand.display and not screen.hands.display
        assert screen.board.hand.cards == frames.frames[0].views[0].hand
        await pilot.press("q")
    store.close()


async def test_the_list_of_games_has_a_header_date_and_winner_and_opens_one(tmp_path):
    store = await _stored_game(tmp_path)
    games = store.games()
    buffer = io.StringIO()
    write_game_list(games, buffer)
    listing = buffer.getvalue().splitlines()
    assert listing[0].split()[:3] == ["Game", "Date", "Table"] and "Winner" in listing[0]
    winner = games[0]["players"][games[0]["winners"][0]]["name"]
    assert winner in listing[1] and games[0]["table_id"] in listing[1]

    def load(game_id: int) -> Frames:
        return Frames.of(store.load(game_id))

    app = ReplayApp(games=games, load=load)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, GameListScreen), "the list")
        assert "Winner" in _text(app) and winner in _text(app)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, GameListScreen), "the list again")
    store.close()


async def test_a_game_of_a_match_opens_from_its_results_file_and_ends_as_it_did(tmp_path):
    from unoplay.client.cli.replay import _MatchGames
    from unoplay.client.match import MatchConfig, parse_entrants, run_match

    out = tmp_path / "match.sqlite3"
    await asyncio.wait_for(
        run_match(
            MatchConfig(
                parse_entrants("greedy,random"),
                2,
                5,
                RuleSet(target_score=0),
                workers="inline",
                out=out,
            )
        ),
        WAIT,
    )
    games = _MatchGames(str(out), None)  # what `uno replay --match FILE` reads
    listed = games.games(50)
    assert [g["id"] for g in listed] == [0, 1]

    def load(index: int) -> Frames:
        return Frames.of(games.load(index))

    app = ReplayApp(games=listed, load=load)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, GameListScreen), "the list")
        await pilot.press("enter")  # the first row: game 0
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
        await pilot.press("end")
        view = app.screen.model.view
        assert view is not None and list(view.scores) == listed[0]["scores"]
        assert "final scores" in _text(app)
        await pilot.press("q")
    games.close()


def _crafted_record() -> GameRecord:
    """A one-round game of three seeded greedy bots (each acting on its own
    turn only), recorded as the server would, with nothing that changes
    from run to run: the same record, so the same screens, every time."""
    rules = RuleSet(target_score=0)
    game, _ = GameState.new(3, rules, "7")
    bots = [make_bot("greedy", seed=seat) for seat in range(3)]
    actions = bots_on_their_turns(game, bots)
    return GameRecord(
        table_id="t4-snap",
        title="Friday night",
        seed="7",
        rules=rules.to_dict(),
        players=[
            {"seat": 0, "name": "Ada", "bot": ""},
            {"seat": 1, "name": "greedy-1", "bot": "greedy"},
            {"seat": 2, "name": "Cy", "bot": ""},
        ],
        actions=actions,
        scores=game.scores,
        winners=tuple(game.game_winners),
        game_id=12,
    )


async def test_a_person_who_left_is_shown_as_a_bot_only_after_their_last_own_move():
    """Cy played their first two moves, left, and a bot played on (the record
    names it): the replay shows Cy as a person until then, the bot after."""
    record = _crafted_record()
    record.players[2]["bot"] = "greedy"
    cy_moves = [i for i, (seat, _) in enumerate(record.actions) if seat == 2]
    left_after = cy_moves[1]
    record.sources = [
        "bot" if seat == 1 or (seat == 2 and i > left_after) else "player"
        for i, (seat, _) in enumerate(record.actions)
    ]
    app = ReplayApp(Frames.of(record))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
        screen = app.screen
        for step in (0, left_after + 1):  # (a frame's step counts the actions applied)
            screen.action_go(step)
            assert [s.bot for s in screen.model.state.seats] == [False, True, False], step
        screen.action_go(left_after + 2)
        assert [s.bot for s in screen.model.state.seats] == [False, True, True]
        await pilot.press("q")


def test_replay_of_the_deal_snapshot(snap_compare):
    """The deal of a stored game: every hand shown under the board."""
    assert snap_compare(ReplayApp(Frames.of(_crafted_record())), terminal_size=(100, 32))


def test_replay_of_the_end_in_one_seats_view_snapshot(snap_compare):
    """The end of a stored game from seat 0's view: her hand, the final scores."""
    app = ReplayApp(Frames.of(_crafted_record()))
    assert snap_compare(app, press=["end", "tab"], terminal_size=(100, 32))


#: Titles and names that Rich would read as markup: shown as typed, never parsed.
MARKUP_LIKE = ("[/]", "[bold]x", "[link=x]y[/link]")


async def test_markup_like_titles_and_names_show_literally_in_the_list_and_the_replay(tmp_path):
    store = GameStore(str(tmp_path / "games.sqlite3"))
    for odd in MARKUP_LIKE:
        record = _crafted_record()
        record.title = odd
        record.players[0]["name"], record.players[2]["name"] = odd, f"{odd}!"
        store.save(record)
    games = store.games()

    def load(game_id: int) -> Frames:
        return Frames.of(store.load(game_id))

    app = ReplayApp(games=games, load=load)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, GameListScreen), "the list")
        listing = _text(app)
        for odd in MARKUP_LIKE:  # the title, and the players: odd, greedy-1, odd!
            row = next(line for line in listing.splitlines() if f" {odd} " in line)
            assert f"{odd}, greedy-1, {odd}!" in row, row
        for row, odd in enumerate(reversed(MARKUP_LIKE)):  # newest first
            app.screen.grid.move_cursor(row=row)
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
            await pilot.press("end")
            shown = _text(app)
            assert f"replay of game {games[row]['id']}: {odd} " in shown
            assert f"final scores: {odd} 0" in shown and f"{odd}!:" in shown
            await pilot.press("q")
            await wait_until(pilot, lambda: isinstance(app.screen, GameListScreen), "the list")
    assert app.return_code in (None, 0)
    store.close()


def test_a_crash_of_the_replay_app_is_a_non_zero_exit(monkeypatch, capsys):
    """`uno replay` returns the app's status: a game list it cannot draw (here
    a game without its columns) ends the process with 1, not 0."""
    from textual.app import App

    from unoplay.client.cli.replay import _run_app

    monkeypatch.setattr(ReplayApp, "run", lambda self: App.run(self, headless=True))
    assert _run_app(ReplayApp(games=[{"id": 1}], load=None)) == 1
    assert "KeyError" in capsys.readouterr().err
