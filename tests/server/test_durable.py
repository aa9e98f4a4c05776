"""Issue 48: a server restart loses no game.

A real ``uno serve --db FILE`` process is killed (SIGKILL) or stopped
(SIGTERM) at seeded moments mid-game and started again on the same file,
while four networked SDK bots play at each of several tables (official rules,
house rules, a turn timer, one watched by a spectator, one in the arena).
Every game must finish; every stream's seqs must go up by one with no gap or repeat across the
restarts; the stored record must verify FAIR and its scores be the engine's
replay of it.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import sqlite3
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from unoplay.audit import verify
from unoplay.client.sdk import ArenaSeat, Connection, GameSession, Refusal, SpectatorSession
from unoplay.game.registry import make_bot
from unoplay.game.rules import RuleSet, Stacking
from unoplay.record import final_state
from unoplay.server.storage import GameStore

WAIT = 60.0  # generous bound of every wait (a loaded 2-core machine)
#: the arena's games as long as the tables' (500 points: they span the
#: stops), and a turn timer that a client reconnecting after a restart beats
#: (an arena's seat the clock plays twice in a row is given up)
ARENA_ARGS = ("--arena-target", "500", "--arena-turn-seconds", "30")
LISTENING = re.compile(rb"listening on [\d.]+:(\d+)")


class Serve:
    """``uno serve --db FILE`` in a process of its own, started again on the
    same file and port after each stop."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.port = 0
        self.process: asyncio.subprocess.Process | None = None
        self.lines: list[str] = []
        self._reader: asyncio.Task[None] | None = None

    async def start(self) -> None:
        env = dict(os.environ, UNOPLAY_MDNS="0")
        self.process = process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "unoplay.client.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--db",
            str(self.db),
            *ARENA_ARGS,
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )
        assert process.stderr is not None
        while True:
            line = await asyncio.wait_for(process.stderr.readline(), WAIT)
            assert line, "uno serve exited before listening:\n" + "".join(self.lines)
            self.lines.append(line.decode(errors="replace"))
            found = LISTENING.search(line)
            if found:
                self.port = int(found[1])
                break
        self._reader = asyncio.create_task(self._read(process))

    async def _read(self, process: asyncio.subprocess.Process) -> None:
        assert process.stderr is not None
        async for line in process.stderr:  # keep the pipe drained
            self.lines.append(line.decode(errors="replace"))

    async def stop(self, sig: signal.Signals) -> int:
        process = self.process
        assert process is not None
        process.send_signal(sig)
        code = await asyncio.wait_for(process.wait(), WAIT)
        if self._reader is not None:
            await asyncio.wait_for(self._reader, WAIT)
        return code

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"


@dataclass
class Seen:
    """One stream's seqs and statuses, as the test saw them."""

    seqs: list[int] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)

    def take(self, seq: int) -> None:
        assert not self.seqs or seq == self.seqs[-1] + 1, (self.seqs[-5:], seq)
        self.seqs.append(seq)


async def play_seat(session: GameSession, seen: Seen, progress: asyncio.Event, count: list[int]):
    """Play ``session`` with a greedy bot until the game is over (as
    ``sdk.run_bot``, recording every seq)."""
    bot = make_bot("greedy")
    waiting = False
    async for received in session:
        seen.take(received.seq)
        if isinstance(received.message, Refusal):
            if not waiting:
                continue
        elif not session.is_decision(received):
            continue
        waiting = False
        state = session.state
        if state.legal and state.view is not None and not state.game_over:
            action = bot.decide(state.view, state.legal)
            if action is not None:
                await asyncio.sleep(0.002)  # pacing (not a wait for anything): games span restarts
                await session.send(action)
                waiting = True
                count[0] += 1
                progress.set()
    return session.state


async def arena_seat(conn: Connection, name: str) -> ArenaSeat:
    """Enter the arena as ``name`` and wait for a seat; then leave the queue
    (the game goes on)."""
    stream = conn.enter_arena(name)
    try:
        async for message in stream:
            if isinstance(message, ArenaSeat):
                return message
    finally:
        await stream.aclose()
    raise AssertionError(f"{name} left the arena unseated")


async def watch(session: SpectatorSession, seen: Seen):
    async for received in session:
        seen.take(received.seq)
    return session.state


TABLES = [
    # (settings, spectator?): games to 500, so that every game spans the stops
    # (to 200 a game of one lucky round, 22 actions, ended before the third)
    ({"rules": RuleSet(target_score=500)}, False),
    (
        {"rules": RuleSet(target_score=500, stacking=Stacking.ANY, seven_zero=True, uno_penalty=4)},
        True,
    ),
    ({"rules": RuleSet(target_score=500), "turn_seconds": 5}, False),
]


async def run_restarts(tmp_path: Path, sig: signal.Signals, restarts: int, seed: int) -> None:
    rng = random.Random(seed)
    db = tmp_path / "games.sqlite3"
    server = Serve(db)
    await server.start()
    progress = asyncio.Event()
    count = [0]
    tasks: list[asyncio.Task] = []
    seen: list[Seen] = []
    sessions: list[GameSession] = []
    table_ids = []
    live: set[int] = set()  # streams whose game was not over at a stop
    players: list[list[int]] = []  # each table's seats' task indices
    conns = []
    try:
        for settings, spectated in TABLES:
            conn = Connection(server.address)
            conns.append(conn)
            table = await conn.create_table(seats=4, **settings)
            table_ids.append(table.table_id)
            seats = [await conn.join_table(table.table_id, f"p{i}") for i in range(4)]
            await conn.start_game(table.table_id, seats[0].seat_token)
            players.append([])
            for seated in seats:
                players[-1].append(len(tasks))
                s = Seen()
                session = conn.session(table.table_id, seated.seat_token)
                session.on_status = s.statuses.append
                seen.append(s)
                sessions.append(session)
                tasks.append(asyncio.create_task(play_seat(session, s, progress, count)))
            if spectated:
                s = Seen()
                watcher = conn.spectate(table.table_id)
                watcher.on_status = s.statuses.append
                seen.append(s)
                sessions.append(watcher)
                tasks.append(asyncio.create_task(watch(watcher, s)))
        # four bots in the arena, seated together at one of its games
        conn = Connection(server.address)
        conns.append(conn)
        arena_seats = await asyncio.wait_for(
            asyncio.gather(*(arena_seat(conn, f"a{i}") for i in range(4))), WAIT
        )
        (arena_id,) = {a.table_id for a in arena_seats}
        table_ids.append(arena_id)
        players.append([])
        for seated in arena_seats:
            players[-1].append(len(tasks))
            s = Seen()
            session = conn.session(arena_id, seated.seat_token)
            session.on_status = s.statuses.append
            seen.append(s)
            sessions.append(session)
            tasks.append(asyncio.create_task(play_seat(session, s, progress, count)))
        # the stops: after a seeded number of decisions each
        mark = 0
        for _ in range(restarts):
            mark = count[0] + rng.randint(20, 120)
            while count[0] < mark:
                assert not all(t.done() for t in tasks), "every game ended before the stop"
                progress.clear()
                try:
                    await asyncio.wait_for(progress.wait(), WAIT)
                except TimeoutError:
                    report = [(s.statuses, s.seqs[-1:]) for s in seen]
                    raise AssertionError(
                        f"no progress: {report}\n{''.join(server.lines)}"
                    ) from None
            live.update(i for i, x in enumerate(sessions) if not x.state.game_over)
            code = await server.stop(sig)
            assert code == (-signal.SIGKILL if sig is signal.SIGKILL else 0)
            await server.start()
        try:
            states = await asyncio.wait_for(asyncio.gather(*tasks), WAIT * 2)
        except TimeoutError:
            report = [(s.statuses, s.seqs[-1:]) for s in seen]
            raise AssertionError(f"games did not end: {report}\n{''.join(server.lines)}") from None
    finally:
        for session in sessions:
            await session.close()
        for conn in conns:
            await conn.close()
        if server.process is not None and server.process.returncode is None:
            await server.stop(signal.SIGTERM)
    assert stat.S_IMODE(db.stat().st_mode) == 0o600  # it holds the hidden cards of games in play
    log_text = "".join(server.lines)
    assert "Traceback" not in log_text, log_text
    for table_id in table_ids:  # the arena's game too
        assert f"table {table_id} restored (playing" in log_text, log_text
    assert "given up" not in log_text, log_text  # the arena's seats played on
    for s, state in zip(seen, states):
        assert state.game_over, "a game did not finish"
        assert state.gap_at == -1
        assert s.seqs == list(range(s.seqs[0], s.seqs[0] + len(s.seqs)))
    if sig is signal.SIGTERM:  # the clients were told the server restarts
        assert "stopping to restart" in log_text and "for good" not in log_text, log_text
        told = [i for i in live if "restarting" in seen[i].statuses]
        assert len(told) >= len(live) / 2, [seen[i].statuses for i in live]
        # (a stream may also reconnect for other reasons: a write in flight
        # as its game ended, a stream cut while the server stopped)
    store = GameStore(db)
    try:
        for i, table_id in enumerate(table_ids):
            record = store.load(table_id)
            assert record.status in ("finished", "capped")
            verdict = verify(record)
            assert verdict.fair, verdict.problems
            assert final_state(record).scores == record.scores
            for k in players[i]:
                state = states[k]
                assert state.view is not None and tuple(state.view.scores) == record.scores
    finally:
        store.close()
    with sqlite3.connect(db) as check:  # every table awaits its rematch, its game stored
        games = [json.loads(g) for (g,) in check.execute("SELECT game FROM live_tables")]
        assert len(games) == len(TABLES) and all("finished_at" in g for g in games)
        assert check.execute("SELECT count(*) FROM live_arena").fetchone()[0] == 0  # one game


async def test_sigkill_restarts_lose_no_game(tmp_path):
    await run_restarts(tmp_path, signal.SIGKILL, restarts=3, seed=48)


async def test_sigterm_restarts_tell_clients_and_lose_no_game(tmp_path):
    await run_restarts(tmp_path, signal.SIGTERM, restarts=2, seed=4848)


class _HungCall:
    """A stream whose writes never finish (grpc.aio's write() on a call cut
    during its set-up, grpcio 1.85) and whose reads wait until cancelled."""

    def __init__(self) -> None:
        self.cancelled = asyncio.Event()

    async def write(self, request) -> None:
        await asyncio.Event().wait()

    async def read(self):
        await self.cancelled.wait()
        raise asyncio.CancelledError

    def cancel(self) -> None:
        self.cancelled.set()


async def test_a_stream_write_that_never_ends_is_cut_and_the_stream_reopened(monkeypatch):
    from types import SimpleNamespace

    from unoplay.client import sdk

    monkeypatch.setattr(sdk, "WRITE_TIMEOUT", 0.2)
    calls: list[_HungCall] = []
    reopened = asyncio.Event()

    def play() -> _HungCall:
        calls.append(_HungCall())
        if len(calls) == 2:
            reopened.set()
        return calls[-1]

    session = GameSession(SimpleNamespace(games=SimpleNamespace(Play=play)), "t1", "token")
    statuses: list[str] = []
    session.on_status = statuses.append
    session._call = live = _HungCall()  # a live stream: an intent's write hangs
    assert await asyncio.wait_for(session.send(1), WAIT) is False
    assert live.cancelled.is_set()
    session._call = None
    reader = asyncio.create_task(anext(aiter(session)))
    try:  # the join's write hangs: the stream is cancelled and opened again
        await asyncio.wait_for(reopened.wait(), WAIT)
    finally:
        reader.cancel()
    assert calls[0].cancelled.is_set() and "reconnecting" in statuses


async def test_a_table_whose_replay_fails_is_closed_and_the_others_come_back(tmp_path, caplog):
    """In process: two games in progress (a person who never connects, so
    each stops at their turn), the server stopped (a restart), one game's
    seed altered in the file: that table is closed with a log line, the
    other comes back with its seat token, history and commitment."""
    import logging

    from unoplay.server.service import start_server

    path = tmp_path / "games.sqlite3"
    server = await start_server("127.0.0.1", 0, store=str(path))
    kept = {}
    try:
        async with Connection(server.address) as conn:
            for _ in range(2):
                info = await conn.create_table(seats=3, rules=RuleSet(target_score=0), window_ms=0)
                me = await conn.join_table(info.table_id, "me", seat=0)
                for _ in range(2):
                    await conn.add_bot(info.table_id, "greedy")
                await conn.start_game(info.table_id, me.seat_token)
                table = server.lobby.get(info.table_id)
                kept[info.table_id] = (me.seat_token, table)
    finally:
        await server.stop(2.0)  # a restart: the games stay in the file
    (bad, _), (good, (token, before)) = kept.items()
    with sqlite3.connect(path) as db:
        (row,) = db.execute("SELECT game FROM live_tables WHERE table_id = ?", (bad,)).fetchone()
        game = json.loads(row)
        game["seed"] = "not the seed"
        db.execute("UPDATE live_tables SET game = ? WHERE table_id = ?", (json.dumps(game), bad))
    caplog.set_level(logging.INFO, "unoplay.durable")
    server = await start_server("127.0.0.1", 0, store=str(path))
    try:
        assert bad not in server.lobby.tables
        assert f"table {bad} could not be restored and is closed" in caplog.text
        after = server.lobby.get(good)
        # every action replayed (a bot may have moved on since, on a loaded machine)
        assert list(after.history)[: len(before.history)] == list(before.history)
        assert after.deal == before.deal and after.state is before.state
        async with Connection(server.address) as conn:
            session = conn.session(good, token, last_seq=len(before.seats[0].log))
            first = await asyncio.wait_for(anext(aiter(session)), WAIT)
            assert first.seq == len(before.seats[0].log) + 1  # no gap, no repeat
            assert session.state.gap_at == -1 and session.state.commitment == before.deal.commitment
            await session.close()
    finally:
        await server.stop(None)
    with sqlite3.connect(path) as db:
        assert (
            db.execute("SELECT count(*) FROM live_tables WHERE table_id = ?", (bad,)).fetchone()[0]
            == 0
        )


def test_the_tui_says_the_server_is_restarting():
    from unoplay.client.sdk import SessionState
    from unoplay.client.tui.model import Role, TableModel

    for role in (Role.PLAYER, Role.SPECTATOR):
        model = TableModel(state=SessionState(), role=role)
        model.reconnecting = model.restarting = True
        assert "Server restarting, reconnecting" in model.status()[0].plain
        model.restarting = False
        assert "Connection lost: reconnecting" in model.status()[0].plain


ROOT = Path(__file__).resolve().parents[2]
STARTERS = {
    "go": ROOT / "client" / "go_bot" / "build" / "uno-go-bot",
    "cpp": ROOT / "client" / "cpp_bot" / "build" / "uno-cpp-bot",
}


@pytest.mark.parametrize("starter", sorted(STARTERS))
async def test_a_starter_bot_plays_on_across_a_restart(tmp_path, starter):
    """The Go or C++ starter at a two-seat table (the other seat an SDK bot of
    this test): ``uno serve`` stopped with SIGTERM mid-game and started again;
    the starter is told the server restarts, reconnects and finishes the game."""
    binary = STARTERS[starter]
    if not os.access(binary, os.X_OK):
        pytest.skip(f"{binary} is not built (make {starter}-bot)")
    server = Serve(tmp_path / "games.sqlite3")
    await server.start()
    process = None
    try:
        async with Connection(server.address) as conn:
            info = await conn.create_table(seats=2, rules=RuleSet(target_score=200), window_ms=0)
            me = await conn.join_table(info.table_id, "me", seat=0)
            base = {k: v for k, v in os.environ.items() if not k.startswith("UNO")}
            process = await asyncio.create_subprocess_exec(
                str(binary),
                "--server",
                server.address,
                "--table",
                info.table_id,
                "--name",
                "starter",
                env=base,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            watcher = conn.spectate(info.table_id)
            async for _ in watcher:  # until the starter sits
                if any(s.occupied for s in watcher.state.seats if s.seat == 1):
                    break
            await watcher.close()
            await conn.start_game(info.table_id, me.seat_token)
            session = conn.session(info.table_id, me.seat_token)
            s, progress, count = Seen(), asyncio.Event(), [0]
            session.on_status = s.statuses.append
            mine = asyncio.create_task(play_seat(session, s, progress, count))
            while count[0] < 15:
                assert not mine.done(), "the game ended before the stop"
                progress.clear()
                await asyncio.wait_for(progress.wait(), WAIT)
            assert await server.stop(signal.SIGTERM) == 0
            await server.start()
            state = await asyncio.wait_for(mine, WAIT)
            out, err = await asyncio.wait_for(process.communicate(), WAIT)
    finally:
        if process is not None and process.returncode is None:
            process.kill()
            await process.wait()
        if server.process is not None and server.process.returncode is None:
            await server.stop(signal.SIGTERM)
    summary = json.loads(out.decode().strip().splitlines()[-1])
    stderr = err.decode()
    assert process.returncode == 0, stderr[-3000:]
    assert summary["game_over"] and not summary["interrupted"], summary
    assert summary["reconnects"] >= 1 and "server is restarting" in stderr, stderr[-3000:]
    assert state.game_over and state.gap_at == -1 and "restarting" in s.statuses
    record = GameStore(server.db).load(info.table_id)
    assert verify(record).fair


async def test_a_restored_log_takes_no_absurd_resume_and_no_spectator_moves_it(tmp_path):
    """After a restart, a ``last_seq`` past any stream (2**64 - 1), or one the
    log's seqs would run out after (2**48), is refused (OUT_OF_RANGE) on Play
    and Spectate, where it used to become the log's
    numbering and break every later stream of it; and a spectator resuming
    past the spectators' log does not move it, so the others watching go on."""
    import grpc

    from unoplay.server.service import start_server
    from unoplay.v1 import game_service_pb2 as gs

    path = tmp_path / "games.sqlite3"
    server = await start_server("127.0.0.1", 0, store=str(path))
    try:
        async with Connection(server.address) as conn:
            info = await conn.create_table(seats=3, rules=RuleSet(target_score=0), window_ms=0)
            me = await conn.join_table(info.table_id, "me", seat=0)
            for _ in range(2):
                await conn.add_bot(info.table_id, "greedy")
            await conn.start_game(info.table_id, me.seat_token)
    finally:
        await server.stop(2.0)  # a restart: the game stays in the file
    server = await start_server("127.0.0.1", 0, store=str(path))
    try:
        table = server.lobby.get(info.table_id)
        async with Connection(server.address) as conn:
            absurd = 2**64 - 1
            for last_seq in (absurd, 2**48):  # (2**48: seqs would run out after it)
                spectate = conn.games.Spectate(
                    gs.SpectateRequest(table_id=info.table_id, last_seq=last_seq)
                )
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await asyncio.wait_for(spectate.read(), WAIT)
                assert refused.value.code() is grpc.StatusCode.OUT_OF_RANGE
            play = conn.games.Play()
            join = gs.JoinGame(table_id=info.table_id, seat_token=me.seat_token, last_seq=absurd)
            await play.write(gs.PlayRequest(join=join))
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await asyncio.wait_for(play.read(), WAIT)
            assert refused.value.code() is grpc.StatusCode.OUT_OF_RANGE

            watching = conn.games.Spectate(gs.SpectateRequest(table_id=info.table_id))
            first = await asyncio.wait_for(watching.read(), WAIT)
            assert first.HasField("snapshot")
            end = len(table.log_for(-1))
            ahead = conn.games.Spectate(
                gs.SpectateRequest(table_id=info.table_id, last_seq=end + 3)
            )
            assert (await asyncio.wait_for(ahead.read(), WAIT)).HasField("snapshot")
            assert len(table.log_for(-1)) == end  # not moved by an anonymous stream
            session = conn.session(info.table_id, me.seat_token)  # me back: a seats change
            await asyncio.wait_for(anext(aiter(session)), WAIT)
            later = await asyncio.wait_for(watching.read(), WAIT)
            assert later.messages and later.messages[0].seq == end + 1  # still watching
            for call in (watching, ahead):
                call.cancel()
            await session.close()
    finally:
        await server.stop(None)


async def test_a_second_server_on_the_same_file_is_refused(tmp_path):
    """The open tables in a file are one server's: a second server started on
    it while the first runs is refused (RuntimeError naming the file), where
    it used to restore the first one's tables and play their absent seats;
    once the first stops, a server starts on the file again."""
    from unoplay.server.service import start_server

    path = tmp_path / "games.sqlite3"
    first = await start_server("127.0.0.1", 0, store=str(path))
    try:
        async with Connection(first.address) as conn:
            await conn.create_table(seats=2)
        with pytest.raises(RuntimeError, match="in use by another server"):
            await start_server("127.0.0.1", 0, store=str(path))
    finally:
        await first.stop(None)
    again = await start_server("127.0.0.1", 0, store=str(path))
    await again.stop(None)
