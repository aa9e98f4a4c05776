"""Issue 48: the arena's games and queue, and the finished tables awaiting a
rematch, outlive a restart of the server on its file (in process: the
server stopped cleanly, as a restart, and started again on the same file).
"""

from __future__ import annotations

import asyncio
import sqlite3

from unoplay.audit import verify
from unoplay.client.sdk import Connection, run_bot
from unoplay.game.messages import TableState
from unoplay.game.registry import make_bot
from unoplay.game.rules import RuleSet
from unoplay.record import final_state
from unoplay.server.arena import ArenaSettings, Assignment
from unoplay.server.service import start_server
from unoplay.server.storage import GameStore

WAIT = 60.0
ARENA = ArenaSettings(seats=2, turn_seconds=30)


def live_rows(path) -> dict[str, int]:
    with sqlite3.connect(path) as db:
        return {
            rows: db.execute(f"SELECT count(*) FROM {rows}").fetchone()[0]
            for rows in ("live_tables", "live_actions", "live_arena", "live_entrants")
        }


async def seat_two(
    server, names: tuple[str, str] = ("alice", "bob")
) -> tuple[Assignment, Assignment]:
    """Two entrants (new ``names``) of two addresses, seated at one arena
    game; they leave the queue (the game goes on)."""
    arena = server.arena
    alice, to_alice, _ = arena.enter(names[0], "", "ipv4:10.0.0.1")
    bob, to_bob, _ = arena.enter(names[1], "", "ipv4:10.0.0.2")
    a, b = to_alice.get_nowait(), to_bob.get_nowait()
    arena.left(alice, to_alice)
    arena.left(bob, to_bob)
    assert isinstance(a, Assignment) and isinstance(b, Assignment) and a.table_id == b.table_id
    return a, b


async def play_out(server, *seats: Assignment) -> None:
    async with Connection(server.address) as conn:
        states = await asyncio.wait_for(
            asyncio.gather(
                *(
                    run_bot(make_bot("greedy"), conn.session(s.table_id, s.seat_token))
                    for s in seats
                )
            ),
            WAIT,
        )
    assert all(state.game_over for state in states)


async def test_an_arena_game_and_its_entrants_come_back_and_it_is_rated_once(tmp_path):
    path = tmp_path / "games.sqlite3"
    server = await start_server("127.0.0.1", 0, store=str(path), arena=ARENA)
    try:
        a, b = await seat_two(server)
        before = server.lobby.get(a.table_id)
        commitment = before.deal.commitment
        await play_some(server, a, b)
    finally:
        await server.stop(2.0)  # a restart: the game and its entrants stay in the file
    assert live_rows(path)["live_arena"] == 1 and live_rows(path)["live_entrants"] == 2
    server = await start_server("127.0.0.1", 0, store=str(path), arena=ARENA)
    try:
        arena = server.arena
        table = server.lobby.get(a.table_id)
        assert table.state is TableState.PLAYING and table.strict and not table.rematch.allowed
        assert table.deal.commitment == commitment
        assert arena.games[a.table_id].seated == {a.seat: "alice", b.seat: "bob"}
        assert arena.entrants["alice"].assignment.table_id == a.table_id
        await play_out(server, a, b)  # the seat tokens still play
        assert a.table_id not in arena.games
        standings = {s.name: s for s in arena.book.standings()}
        assert standings["alice"].games == standings["bob"].games == 1
        await server.recorder.drain()
    finally:
        await server.stop(2.0)
    assert live_rows(path) == dict.fromkeys(live_rows(path), 0)  # (no stream: they left)
    store = GameStore(path)
    try:
        record = store.load(a.table_id)
        assert verify(record).fair and final_state(record).scores == record.scores
    finally:
        store.close()


async def play_some(server, *seats: Assignment) -> None:
    """Let the game go on a little: the first decision of a seat played."""
    async with Connection(server.address) as conn:

        async def one(seat: Assignment) -> None:
            session = conn.session(seat.table_id, seat.seat_token)
            bot = make_bot("greedy")
            try:
                async for received in session:
                    state = session.state
                    if session.is_decision(received) and state.legal and state.view is not None:
                        await session.send(bot.decide(state.view, state.legal))
                        return
            finally:
                await session.close()

        tasks = [asyncio.create_task(one(s)) for s in seats]
        await asyncio.wait_for(asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED), WAIT)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def test_an_arena_game_rated_before_a_crash_is_not_rated_again(tmp_path):
    """The server dies after the book rated a game and before its end was
    kept (the journal's last change lost): restarted, the game ends again at
    its last action, is stored once and not rated a second time."""
    path = tmp_path / "games.sqlite3"
    server = await start_server("127.0.0.1", 0, store=str(path), arena=ARENA)
    try:
        a, b = await seat_two(server)
        journal = server.journal
        finish = journal.finish
        journal.finish = lambda table, record: None  # the change the crash loses
        await play_out(server, a, b)
        journal.finish = finish
        games = {s.name: s.games for s in server.arena.book.standings()}
        assert games == {"alice": 1, "bob": 1}
    finally:
        await server.stop(2.0)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT rated FROM live_arena").fetchall() == [(1,)]
        assert db.execute("SELECT count(*) FROM games").fetchone()[0] == 0
    server = await start_server("127.0.0.1", 0, store=str(path), arena=ARENA)
    try:
        table = server.lobby.get(a.table_id)
        assert table.state is TableState.FINISHED
        await server.recorder.drain()
        games = {s.name: s.games for s in server.arena.book.standings()}
        assert games == {"alice": 1, "bob": 1}
    finally:
        await server.stop(2.0)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM games").fetchone()[0] == 1
    assert live_rows(path)["live_tables"] == 0


async def test_the_queue_comes_back_in_its_order(tmp_path):
    """An entrant waiting at the restart waits on in its place: entered
    again it keeps when it joined; with a newcomer it is seated."""
    path = tmp_path / "games.sqlite3"
    server = await start_server("127.0.0.1", 0, store=str(path), arena=ARENA)
    try:
        first, outbox, secret = server.arena.enter("alice", "", "ipv4:10.0.0.1")
        waited = asyncio.get_running_loop().time() - first.since
        await asyncio.sleep(0.2)
    finally:
        await server.stop(2.0)
    server = await start_server("127.0.0.1", 0, store=str(path), arena=ARENA)
    try:
        arena = server.arena
        alice = arena.entrants["alice"]
        assert not alice.waiting  # (no stream yet)
        assert asyncio.get_running_loop().time() - alice.since >= waited + 0.2
        since = alice.since
        again, outbox, _ = arena.enter("alice", secret, "ipv4:10.0.0.1")
        assert again is alice and alice.since == since and alice.waiting
        _, bob, _ = arena.enter("bob", "", "ipv4:10.0.0.2")
        seat = bob.get_nowait()
        assert isinstance(seat, Assignment) and outbox.get_nowait().table_id == seat.table_id
    finally:
        await server.stop(None, final=True)
    assert live_rows(path)["live_entrants"] == 0  # a final stop forgets the queue


async def test_a_finished_table_awaiting_its_rematch_comes_back_with_its_votes(tmp_path):
    path = tmp_path / "games.sqlite3"
    server = await start_server("127.0.0.1", 0, store=str(path))
    try:
        async with Connection(server.address) as conn:
            info = await conn.create_table(seats=2, rules=RuleSet(target_score=0), window_ms=0)
            me = await conn.join_table(info.table_id, "me")
            you = await conn.join_table(info.table_id, "you")
            await conn.start_game(info.table_id, me.seat_token)
            states = await asyncio.wait_for(
                asyncio.gather(
                    *(
                        run_bot(make_bot("greedy"), conn.session(info.table_id, s.seat_token))
                        for s in (me, you)
                    )
                ),
                WAIT,
            )
            await conn.rematch(info.table_id, me.seat_token)
        before = server.lobby.get(info.table_id)
        assert before.state is TableState.FINISHED
        history = list(before.history)
        seen = len(before.seats[0].log)
    finally:
        await server.stop(2.0)
    server = await start_server("127.0.0.1", 0, store=str(path))
    try:
        table = server.lobby.get(info.table_id)
        assert table.state is TableState.FINISHED
        assert list(table.history) == history and table.rematch.seats() == (me.seat,)
        assert table.game.scores == states[0].view.scores
        async with Connection(server.address) as conn:
            session = conn.session(info.table_id, me.seat_token, last_seq=seen)
            first = await asyncio.wait_for(anext(aiter(session)), WAIT)
            assert first.seq == seen + 1 and session.state.game_over
            await session.close()
            await conn.rematch(info.table_id, you.seat_token)  # agreed: game 2
        assert table.state is TableState.PLAYING and table.games_started == 2
        await server.recorder.drain()
    finally:
        await server.stop(2.0)
    store = GameStore(path)
    try:
        assert len(store.games()) == 1  # game 1 stored once, not again at the restart
    finally:
        store.close()
    with sqlite3.connect(path) as db:  # game 2 goes on in the file
        assert db.execute("SELECT count(*) FROM live_tables").fetchone()[0] == 1


async def finish_a_game_against_greedy(server) -> str:
    """A one-round game of two seats, ours (greedy too) and a server bot's,
    played out: its table's id."""
    async with Connection(server.address) as conn:
        info = await conn.create_table(seats=2, rules=RuleSet(target_score=0), window_ms=0)
        me = await conn.join_table(info.table_id, "me")
        await conn.add_bot(info.table_id, "greedy")
        await conn.start_game(info.table_id, me.seat_token)
        await asyncio.wait_for(
            run_bot(make_bot("greedy"), conn.session(info.table_id, me.seat_token)), WAIT
        )
    return info.table_id


async def test_a_finished_table_past_the_lobby_limit_is_not_restored(tmp_path):
    import dataclasses
    import json

    from unoplay.server.limits import Limits

    path = tmp_path / "games.sqlite3"
    server = await start_server("127.0.0.1", 0, store=str(path))
    try:
        table_id = await finish_a_game_against_greedy(server)
    finally:
        await server.stop(2.0)
    with sqlite3.connect(path) as db:  # it finished an hour ago
        (row,) = db.execute("SELECT game FROM live_tables").fetchone()
        game = json.loads(row)
        game["finished_at"] -= 3600
        db.execute("UPDATE live_tables SET game = ?", (json.dumps(game),))
    limits = dataclasses.replace(Limits(), finished_ttl=600.0)
    server = await start_server("127.0.0.1", 0, store=str(path), limits=limits)
    try:
        assert table_id not in server.lobby.tables
        await server.recorder.drain()
    finally:
        await server.stop(2.0)
    assert live_rows(path)["live_tables"] == live_rows(path)["live_actions"] == 0


async def test_an_arena_game_whose_replay_fails_is_closed_its_entrants_left_waiting(tmp_path):
    import json

    path = tmp_path / "games.sqlite3"
    server = await start_server("127.0.0.1", 0, store=str(path), arena=ARENA)
    try:
        a, _ = await seat_two(server)
    finally:
        await server.stop(2.0)
    with sqlite3.connect(path) as db:
        (row,) = db.execute("SELECT game FROM live_tables").fetchone()
        game = json.loads(row)
        game["seed"] = "not the seed"
        db.execute("UPDATE live_tables SET game = ?", (json.dumps(game),))
    server = await start_server("127.0.0.1", 0, store=str(path), arena=ARENA)
    try:
        assert a.table_id not in server.lobby.tables and a.table_id not in server.arena.games
        # its entrants keep a place in the queue (until they enter again), no game
        assert all(e.assignment is None for e in server.arena.entrants.values())
        assert sorted(server.arena.entrants) == ["alice", "bob"]
        await server.recorder.drain()
    finally:
        await server.stop(2.0)
    rows = live_rows(path)
    assert rows["live_tables"] == rows["live_actions"] == rows["live_arena"] == 0


async def test_a_stop_for_good_brings_no_finished_or_waiting_table_back(tmp_path):
    path = tmp_path / "games.sqlite3"
    server = await start_server("127.0.0.1", 0, store=str(path))
    try:
        await finish_a_game_against_greedy(server)
        async with Connection(server.address) as conn:  # and one waiting for players
            waiting = await conn.create_table(seats=2, rules=RuleSet(target_score=0))
            await conn.join_table(waiting.table_id, "me")
        await server.recorder.drain()
        assert live_rows(path)["live_tables"] == 2  # (one awaits a rematch, one players)
    finally:
        await server.stop(2.0, final=True)
    assert live_rows(path)["live_tables"] == live_rows(path)["live_actions"] == 0


async def test_arena_games_after_a_restart_are_numbered_on_even_with_none_in_play(tmp_path):
    """No game in play at the restart (the only one finished before it): the
    next game is still numbered 2, its table titled so, never 1 again."""
    path = tmp_path / "games.sqlite3"
    server = await start_server("127.0.0.1", 0, store=str(path), arena=ARENA)
    try:
        a, b = await seat_two(server)
        assert a.game == 1
        await play_out(server, a, b)
        await server.recorder.drain()
    finally:
        await server.stop(2.0)
    assert live_rows(path)["live_arena"] == 0  # nothing in play kept the number
    server = await start_server("127.0.0.1", 0, store=str(path), arena=ARENA)
    try:
        a, b = await seat_two(server, ("carol", "dave"))
        assert a.game == b.game == 2
        assert server.lobby.get(a.table_id).title == "arena game 2"
    finally:
        await server.stop(2.0)
