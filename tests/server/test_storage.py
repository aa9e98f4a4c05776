"""Finished games in SQLite: stored whole, replayed exactly, exported, and a
server stopped with SIGTERM that finishes its writes and exits cleanly."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys

import grpc
import pytest

from unoplay.client.sdk import Connection, run_bot
from unoplay.game.actions import DRAW, Action, ActionKind
from unoplay.game.deals import DealReveal, game_seed
from unoplay.game.events import EVERYONE
from unoplay.game.messages import Refusal, SeatsChanged, Update, Welcome
from unoplay.game.registry import make_bot
from unoplay.game.rules import RuleSet
from unoplay.record import GameRecord, final_state, replay
from unoplay.server.service import start_server
from unoplay.server.storage import GameStore, default_db_path
from unoplay.v1 import game_service_pb2 as gs

WAIT = 60


def record(**kw) -> GameRecord:
    base = dict(
        table_id="t1-abc",
        title="Table 1",
        seed="f" * 64,
        rules=RuleSet().to_dict(),
        players=[{"seat": 0, "name": "a", "bot": ""}, {"seat": 1, "name": "b", "bot": "greedy"}],
        actions=[(0, DRAW), (1, Action(ActionKind.PLAY, 5, -1, False, -1))],
        sources=["player", "bot"],
        times_ms=[10, 20],
        scores=(0, 0),
        winners=(),
        status="finished",
        started_at=1.0,
        finished_at=2.0,
    )
    base.update(kw)
    return GameRecord(**base)


def test_store_round_trip_and_lookups(tmp_path):
    store = GameStore(tmp_path / "sub" / "games.sqlite3")
    first = store.save(record())
    second = store.save(record(table_id="t2-def", status="interrupted"))
    loaded = store.load(first)
    assert loaded.seed == "f" * 64 and loaded.actions == record().actions
    assert loaded.actions[0][1] is not None and loaded.actions[0][1].kind is ActionKind.DRAW
    assert (loaded.sources, loaded.times_ms, loaded.rules) == (
        ["player", "bot"],
        [10, 20],
        RuleSet().to_dict(),
    )
    assert store.load("t2-def").game_id == second == store.load("last").game_id
    assert store.load(str(first)).table_id == "t1-abc"
    assert [g["id"] for g in store.games()] == [second, first]
    with pytest.raises(KeyError):
        store.load(99)
    store.close()


def test_a_record_as_plain_values_comes_back_whole():
    # uno match keeps its games' records in this form (client/match/store.py)
    multi = Action(ActionKind.PLAY, 5, -1, False, -1, (30,))
    original = record(
        actions=[(0, DRAW), (1, multi)], received=[(0, 1, 0, (1, 2)), (1, 9, 1, (3,))]
    )
    data = json.loads(json.dumps(original.to_dict()))
    assert data["moves"][1] == [1, [int(ActionKind.PLAY), 5, -1, False, -1, [30]], "bot", 20]
    assert GameRecord.from_dict(data) == original
    data["moves"].pop()
    with pytest.raises(ValueError, match="1 of 2 actions"):
        GameRecord.from_dict(data)


def test_a_failed_write_leaves_no_half_record(tmp_path, monkeypatch):
    store = GameStore(tmp_path / "games.sqlite3")
    store.save(record())
    import unoplay.server.storage as storage

    calls = 0
    real = storage.action_json

    def failing(action):
        nonlocal calls
        calls += 1
        if calls == 2:
            raise OSError("disk full")
        return real(action)

    monkeypatch.setattr(storage, "action_json", failing)
    with pytest.raises(OSError):
        store.save(record(table_id="broken"))
    with sqlite3.connect(tmp_path / "games.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM games").fetchone()[0] == 1
        assert db.execute("SELECT count(*) FROM actions").fetchone()[0] == 2
    store.close()


def test_a_store_that_keeps_n_games_deletes_the_oldest_with_their_actions(tmp_path):
    with pytest.raises(ValueError):
        GameStore(tmp_path / "x.sqlite3", keep=-1)
    store = GameStore(tmp_path / "games.sqlite3", keep=3)
    ids = [store.save(record(table_id=f"t{i}")) for i in range(5)]
    assert [g["id"] for g in store.games()] == ids[:1:-1]  # the newest 3
    with pytest.raises(KeyError):
        store.load(ids[1])
    assert store.load("t2").actions == record().actions
    store.close()
    with sqlite3.connect(tmp_path / "games.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM actions").fetchone()[0] == 3 * 2
    everything = GameStore(tmp_path / "games.sqlite3")  # keep=0: all, from now on
    more = [everything.save(record()) for _ in range(4)]
    assert [g["id"] for g in everything.games()] == more[::-1] + ids[:1:-1]
    everything.close()


async def test_a_server_keeps_its_newest_games_as_games_end_at_its_tables(tmp_path):
    # the server's games are stored by its journal, in its own transaction
    path = tmp_path / "games.sqlite3"
    srv = await start_server("127.0.0.1", 0, store=GameStore(path, keep=2))
    try:
        async with Connection(srv.address) as conn:
            tables = [
                await play(conn, ["greedy", "greedy"], RuleSet(target_score=0), seed)
                for seed in (1, 2, 3)
            ]
        await asyncio.wait_for(srv.recorder.drain(), WAIT)
    finally:
        await srv.stop(None)
    store = GameStore(path)
    assert [g["table_id"] for g in store.games()] == tables[:0:-1]
    store.close()


def test_default_path_is_in_the_users_data_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    if sys.platform.startswith("linux"):
        assert default_db_path() == tmp_path / "unoplay" / "games.sqlite3"
    assert default_db_path().name == "games.sqlite3"


async def play(conn, kinds, rules, seed, turn_seconds=0):
    table = await conn.create_table(
        seats=len(kinds), rules=rules, turn_seconds=turn_seconds, seed=seed
    )
    joins = [await conn.join_table(table.table_id, f"p{i}") for i in range(len(kinds))]
    tasks = [
        asyncio.create_task(
            run_bot(make_bot(kind, seed=seed + i), conn.session(table.table_id, j.seat_token))
        )
        for i, (kind, j) in enumerate(zip(kinds, joins))
    ]
    await conn.start_game(table.table_id, joins[0].seat_token)
    await asyncio.wait_for(asyncio.gather(*tasks), WAIT)
    return table.table_id


def events_of(log_):
    return [
        m for m in log_ if not isinstance(m, (Welcome, Update, Refusal, SeatsChanged, DealReveal))
    ]


@pytest.mark.parametrize(
    "rules,seed",
    [
        (RuleSet(target_score=300), 11),
        (
            RuleSet(
                target_score=0,
                false_uno_penalty=2,
                uno_call_strict=True,
                scoring="penalty",
                point_values="classic",
            ),
            12,
        ),
    ],
)
async def test_a_stored_game_replays_every_event_and_the_scores_exactly(tmp_path, rules, seed):
    path = tmp_path / "games.sqlite3"
    srv = await start_server("127.0.0.1", 0, store=str(path))
    try:
        async with Connection(srv.address) as conn:
            table_id = await play(conn, ["greedy", "random", "random", "greedy"], rules, seed)
        table = srv.lobby.get(table_id)
        await asyncio.wait_for(srv.recorder.drain(), WAIT)
    finally:
        await srv.stop(None)
    store = GameStore(path)
    stored = store.load(table_id)
    store.close()
    assert stored.status == "finished" and stored.seed == game_seed(str(seed), 1)
    assert stored.rule_set() == rules
    assert [p["name"] for p in stored.players] == ["p0", "p1", "p2", "p3"]
    assert len(stored.actions) == len(table.history) > 20
    replayed = [e for step in replay(stored) for e in step.events]
    # Every event each seat and the spectators received, in order, and nothing else.
    for seat in range(4):
        assert [e for e in replayed if e.audience in (EVERYONE, seat)] == events_of(
            table.log_for(seat)
        )
    assert [e for e in replayed if e.audience == EVERYONE] == events_of(table.log_for(-1))
    final = final_state(stored)
    assert final.scores == table.game.scores == stored.scores
    assert final.game_winners == table.game.game_winners == stored.winners
    assert final.is_game_over


async def test_stopping_stores_games_in_progress_as_interrupted(tmp_path):
    path = tmp_path / "games.sqlite3"
    srv = await start_server("127.0.0.1", 0, store=str(path))
    async with Connection(srv.address) as conn:
        table = await conn.create_table(seats=2, rules=RuleSet(target_score=500), seed=3)
        me = await conn.join_table(table.table_id, "me")
        await conn.add_bot(table.table_id, "greedy")
        await conn.start_game(table.table_id, me.seat_token)
        session = conn.session(table.table_id, me.seat_token)
        bot = make_bot("greedy")
        live = srv.lobby.get(table.table_id)
        async for message in session:  # play a few moves, then the server stops
            if session.is_decision(message) and session.state.legal:
                await session.send(bot.decide(session.state.view, session.state.legal))
            if len(live.history) >= 10:
                break
        await session.close()
        await srv.stop(2.0, final=True)  # for good (a restart keeps the game: test_durable)
    store = GameStore(path)
    stored = store.load(table.table_id)
    store.close()
    assert stored.status == "interrupted" and len(stored.actions) == len(live.history)
    assert final_state(stored).view(0) == live.game.view(0)


async def test_uno_replay_exports_json_lines_and_a_move_list(tmp_path):
    path = tmp_path / "games.sqlite3"
    srv = await start_server("127.0.0.1", 0, store=str(path))
    try:
        async with Connection(srv.address) as conn:
            table_id = await play(conn, ["greedy", "greedy", "random"], RuleSet(target_score=0), 5)
        await asyncio.wait_for(srv.recorder.drain(), WAIT)
        table = srv.lobby.get(table_id)
    finally:
        await srv.stop(None)
    uno = [sys.executable, "-m", "unoplay.client.cli", "replay", "--db", str(path)]
    listing = subprocess.run(uno, capture_output=True, text=True, timeout=WAIT, check=True)
    assert table_id in listing.stdout
    out = subprocess.run(
        uno + [table_id, "--jsonl"], capture_output=True, text=True, timeout=WAIT, check=True
    )
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert lines[0]["type"] == "game" and lines[0]["table_id"] == table_id
    actions = [x for x in lines if x["type"] == "action"]
    events = [x for x in lines if x["type"] == "event"]
    assert len(actions) == len(table.history)
    assert len([e for e in events if e["audience"] == "everyone"]) == len(
        events_of(table.log_for(-1))
    )
    assert lines[-1]["type"] == "result" and lines[-1]["matches"]
    assert lines[-1]["scores"] == list(table.game.scores)
    text = subprocess.run(
        uno + ["last"], capture_output=True, text=True, timeout=WAIT, check=True
    ).stdout
    assert "p0" in text and "(as stored)" in text and text.count("\n") > len(table.history)
    missing = subprocess.run(uno + ["999"], capture_output=True, text=True, timeout=WAIT)
    assert missing.returncode != 0 and "no stored game" in missing.stderr


async def test_sigterm_finishes_writes_tells_clients_and_exits_cleanly(tmp_path):
    """``uno serve --final`` with TLS and a game store, stopped with SIGTERM
    mid-game (for good: without --final the game would stay for a restart,
    tests/server/test_durable.py)."""
    from helpers import make_certificate

    cert, key = make_certificate(tmp_path)
    db = tmp_path / "games.sqlite3"
    env = dict(os.environ, UNOPLAY_MDNS="0")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "unoplay.client.cli",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--db",
        str(db),
        "--final",
        "--tls-cert",
        str(cert),
        "--tls-key",
        str(key),
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    try:
        address = None
        while address is None:
            line = await asyncio.wait_for(process.stderr.readline(), WAIT)
            assert line, "uno serve exited before listening"
            found = re.search(rb"listening on ([\d.]+):(\d+) with TLS", line)
            if found:
                address = f"localhost:{found[2].decode()}"
        async with Connection(address, root_certificates=cert.read_bytes()) as conn:
            # One game the bots finish: join, add bots, start, leave (a bot takes over).
            done = await conn.create_table(seats=3, rules=RuleSet(target_score=0), seed=1)
            me = await conn.join_table(done.table_id, "me")
            await conn.add_bot(done.table_id, "greedy")
            await conn.add_bot(done.table_id, "random")
            watcher = conn.games.Spectate(gs.SpectateRequest(table_id=done.table_id))
            await conn.start_game(done.table_id, me.seat_token)
            await conn.leave_table(done.table_id, me.seat_token)
            async for _ in watcher:  # ends when the game is over
                pass
            # One game in progress, with a player connected.
            busy = await conn.create_table(seats=2, rules=RuleSet(target_score=500), seed=2)
            you = await conn.join_table(busy.table_id, "you")
            await conn.add_bot(busy.table_id, "greedy")
            await conn.start_game(busy.table_id, you.seat_token)
            call = conn.games.Play()
            await call.write(
                gs.PlayRequest(join=gs.JoinGame(table_id=busy.table_id, seat_token=you.seat_token))
            )
            first = await asyncio.wait_for(call.read(), WAIT)
            assert first.HasField("snapshot")
            process.send_signal(signal.SIGTERM)
            with pytest.raises(grpc.aio.AioRpcError) as err:
                while (await asyncio.wait_for(call.read(), WAIT)) is not grpc.aio.EOF:
                    pass
            assert err.value.code() == grpc.StatusCode.UNAVAILABLE
            assert "shutting down" in err.value.details()
        assert await asyncio.wait_for(process.wait(), WAIT) == 0
        log_ = (await process.stderr.read()).decode()
        assert "stored 2 games (0 failed)" in log_ and "Traceback" not in log_
        assert "shutting down for good" in log_ and "stopping to restart" not in log_
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    with sqlite3.connect(db) as conn_db:
        assert conn_db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = conn_db.execute(
            "SELECT table_id, status, n_actions FROM games ORDER BY id"
        ).fetchall()
        counts = {
            t: conn_db.execute(
                "SELECT count(*) FROM actions a JOIN games g ON a.game_id = g.id"
                " WHERE g.table_id = ?",
                (t,),
            ).fetchone()[0]
            for t, _, _ in rows
        }
    assert {(t, s) for t, s, _ in rows} == {
        (done.table_id, "finished"),
        (busy.table_id, "interrupted"),
    }
    assert all(counts[t] == n for t, _, n in rows)
    store = GameStore(db)
    assert final_state(store.load(done.table_id)).is_game_over
    store.close()


def test_a_new_store_file_is_made_only_with_the_first_game(tmp_path):
    path = tmp_path / "not" / "yet.sqlite3"
    store = GameStore(path, lazy=True)
    assert not path.exists() and store.games() == [] and path.exists()  # reading makes it
    store.close()
    other = tmp_path / "never" / "games.sqlite3"
    GameStore(other, lazy=True).close()
    assert not other.parent.exists()


async def test_a_refused_play_that_costs_cards_is_stored_and_replayed():
    """wrong_play_penalty: the engine refuses the play but deals the penalty, so
    the refused action is part of the game and must replay the same way."""
    from unoplay.game.cards import COLOUR, RANK
    from unoplay.server.lobby import Lobby

    lobby = Lobby()
    rules = RuleSet(target_score=0, wrong_play_penalty=2)
    for seed in range(1, 50):
        table = lobby.create("wrong plays", 2, rules, seed=str(seed))
        table.join("a")
        table.join("b")
        table.start()
        game = table.game
        top = game.top_card
        wrong = [
            c
            for c in game.hand(game.current)
            if COLOUR[c] not in (COLOUR[top], 4) and RANK[c] != RANK[top]
        ]
        if wrong and game.colour == COLOUR[top]:
            break
    mover, before = game.current, len(game.hand(game.current))
    assert not table.act(mover, Action(ActionKind.PLAY, wrong[0]))
    assert len(game.hand(mover)) == before + 2 and len(table.history) == 1
    while not game.is_game_over:  # play it out: plays first, else draw/keep/accept
        seat = game.current
        legal = game.legal_actions(seat)
        plays = [a for a in legal if a.kind is ActionKind.PLAY]
        assert table.act(seat, (plays or legal)[0])
    stored = table.record()
    replayed = [e for step in replay(stored) for e in step.events]
    for seat in range(2):
        assert [e for e in replayed if e.audience in (EVERYONE, seat)] == events_of(
            table.log_for(seat)
        )
    assert final_state(stored).scores == game.scores
    table.close()
