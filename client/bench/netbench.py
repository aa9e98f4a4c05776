"""Network benchmark: K concurrent tables of four bots over loopback.

The server runs in its own process (``uno serve`` on an ephemeral port,
storing every finished game in a temporary SQLite file), the bare grpc.aio
reference in one of its own, the bots in this one, each on its own game
stream: by default on raw protobuf (:func:`_raw_seat`), or through the
client SDK, exactly as remote bots would. Reports actions/s, each server
process's own CPU time per action (the bots' never enters it) and the
bots', the server's writes per action, the latency from sending an intent
to receiving the event it caused (p50/p99), refused intents (races such as
two catches of the same player), the server's memory (resident set size: at
the end and its peak), games finished and stored, and errors: failed
streams or lobby calls, error lines in the server's log, and a server that
does not stop cleanly on SIGTERM. Errors must be zero.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import random
import re
import signal
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from unoplay.game.actions import Action, ActionKind
from unoplay.game.events import Event, EventKind
from unoplay.game.messages import Refusal
from unoplay.game.registry import make_bot
from unoplay.game.rules import RuleSet
from unoplay.v1 import game_pb2 as pb
from unoplay.v1 import game_service_pb2 as gs

from ..match.procs import wrapped
from ..sdk import Connection

# The event that shows an intent of each kind was applied.
_RESULT = {
    ActionKind.PLAY: EventKind.PLAYED,
    ActionKind.DRAW: EventKind.DREW,
    ActionKind.KEEP: EventKind.KEPT,
    ActionKind.CHALLENGE: EventKind.CHALLENGED,
    ActionKind.ACCEPT: EventKind.PENALTY_ACCEPTED,
    ActionKind.CALL_UNO: EventKind.UNO_CALLED,
    ActionKind.CATCH: EventKind.UNO_CAUGHT,
    ActionKind.CHOOSE_COLOUR: EventKind.COLOUR_CHOSEN,
}


@dataclass
class Stats:
    """What the bots measured."""

    latencies: list[float] = field(default_factory=list)  # seconds
    actions: int = 0
    responses: int = 0  #: responses the raw and bare bots read (the server's writes)
    refused: int = 0
    errors: int = 0
    games: int = 0
    error_samples: list[str] = field(default_factory=list)
    tables: int = 0  #: tables of the run
    started: int = 0  #: tables whose first game has started
    all_started: asyncio.Event = field(default_factory=asyncio.Event)

    def table_started(self) -> None:
        self.started += 1
        if self.started == self.tables:
            self.all_started.set()

    def answered(self, sent: float) -> None:
        """An action answered: its latency since ``sent`` (``time.perf_counter()``)."""
        self.latencies.append(time.perf_counter() - sent)
        self.actions += 1

    def error(self, what: object) -> None:
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(repr(what)[:300])


def _answers(event: Event, seat: int, action: Action) -> bool:
    return event.kind is _RESULT[action.kind] and event.player == seat


async def _seat(
    conn: Connection, table_id: str, token: str, seed: int, stats: Stats, think: float = 0.0
) -> None:
    bot = make_bot("greedy", seed=seed)
    rng = random.Random(seed)
    session = conn.session(table_id, token)
    pending: tuple[Action, float] | None = None
    async for received in session:
        message = received.message
        state = session.state
        if isinstance(message, Event) and pending and _answers(message, state.seat, pending[0]):
            stats.answered(pending[1])
            pending = None
        elif isinstance(message, Refusal):
            stats.refused += 1
            pending = None
        elif session.is_decision(received) and state.legal and state.view and pending is None:
            action = bot.decide(state.view, state.legal)
            if action is not None:
                if think:  # a bot that thinks: 0.5 to 1.5 times ``think`` seconds
                    await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                pending = (action, time.perf_counter())
                await session.send(action)


async def _raw_seat(conn: Connection, table_id: str, token: str, seed: int, stats: Stats) -> None:
    """A seat that skips the SDK: raw protobuf on its game stream, a random
    legal action whenever the latest update says it is its turn (one that
    calls UNO when there is one: nobody waits out a catch window). With
    these, the bench measures the server nearly alone (the bots' process does
    little more than the bare pattern's). An action counts once the seat's own
    event arrives."""
    rng = random.Random(seed)
    call = conn.games.Play()
    await call.write(gs.PlayRequest(join=gs.JoinGame(table_id=table_id, seat_token=token)))
    me, sent = -1, 0.0
    while True:
        response = await call.read()
        if not isinstance(response, gs.PlayResponse):
            return  # the game is over and the stream ended
        stats.responses += 1
        if response.HasField("snapshot"):
            me = response.snapshot.welcome.seat
        update = None
        for message in response.messages:
            body = message.WhichOneof("body")
            if body == "update":
                update = message.update
            elif sent and body == "event" and message.event.player == me:
                stats.answered(sent)
                sent = 0.0
            elif sent and body == "error":
                stats.refused += 1
                sent = 0.0
        if (
            update is not None
            and not sent
            and update.legal_actions
            and update.view.current == me
            and update.view.phase < pb.PHASE_ROUND_OVER
        ):
            legal = update.legal_actions
            calls = [a for a in legal if a.action.uno]  # no catch window to wait out
            ident = rng.choice(calls or legal).id
            sent = time.perf_counter()
            await call.write(gs.PlayRequest(intent=gs.Intent(action_id=ident)))


#: Seconds a table's loop waits after a failed game before the next.
ERROR_PAUSE = 0.2


async def _table_loop(
    conn: Connection,
    index: int,
    stop: asyncio.Event,
    stats: Stats,
    setting_up: asyncio.Semaphore,
    think: float = 0.0,
    target_score: int = 0,
    raw_client: bool = False,
) -> None:
    """One table's games, one after the other, until ``stop``; ``setting_up``
    bounds how many tables are being made and dealt at once."""
    rules = RuleSet(target_score=target_score)
    game = 0
    while not stop.is_set():
        seats: list[asyncio.Task[None]] = []
        try:
            async with setting_up:
                table = await conn.create_table(
                    seats=4, rules=rules, title=f"bench {index}", seed=index * 7919 + game
                )
                joins = [await conn.join_table(table.table_id, f"b{index}-{s}") for s in range(4)]
                seats = [
                    asyncio.create_task(
                        _raw_seat(conn, table.table_id, j.seat_token, index * 1000 + s, stats)
                        if raw_client
                        else _seat(
                            conn, table.table_id, j.seat_token, index * 1000 + s, stats, think
                        )
                    )
                    for s, j in enumerate(joins)
                ]
                await conn.start_game(table.table_id, joins[0].seat_token)
            if game == 0:
                stats.table_started()
        except BaseException as err:  # the seats go too: none is left reading its stream
            for task in seats:
                task.cancel()
            await asyncio.gather(*seats, return_exceptions=True)
            if not isinstance(err, Exception):
                raise  # cancelled: the run is over
            stats.error(err)
            await asyncio.sleep(ERROR_PAUSE)  # (a server gone: no busy loop of failures)
            continue
        results = await asyncio.gather(*seats, return_exceptions=True)
        for r in results:
            if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError):
                stats.error(r)
        stats.games += 1
        game += 1


async def _all_started(stats: Stats, tables: int) -> None:
    """Wait (bounded: a minute and more for many tables) until every table
    started its first game; an error of the run if some did not."""
    try:
        await asyncio.wait_for(stats.all_started.wait(), 60 + tables / 4)
    except TimeoutError:
        stats.error(f"{stats.started} of {tables} tables started their game")


#: The OS name of the server's journal writer thread (``server/durable.py``'s
#: ``WRITER_THREAD``, read across processes as the ``listening on`` line is).
JOURNAL_THREAD = "unoplay-journal"


def _stat_cpu(path: str) -> tuple[str, float]:
    """(name, CPU seconds used so far: user + system) of the process or
    thread whose ``/proc/.../stat`` is ``path``. Raises OSError if it is gone."""
    with open(path) as f:
        stat = f.read()
    name, rest = stat.split("(", 1)[1].rsplit(")", 1)
    fields = rest.split()
    return name, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class ServerProcess:
    """``uno serve`` in a child process: its address, its memory, its log's errors."""

    def __init__(self, process: asyncio.subprocess.Process, address: str, db: str | None) -> None:
        self.process = process
        self.address = address
        self.db = db
        self.log_errors: list[str] = []
        self.peak_rss = 0
        self._drain = asyncio.create_task(self._read_log())

    @classmethod
    async def start(
        cls,
        db: str | None,
        bare: bool = False,
        host: str = "127.0.0.1",
        options: tuple[str, ...] = (),
    ) -> ServerProcess:
        """``uno serve`` on ``host`` storing games in ``db`` (None: ``--no-db``,
        no file and so no journal of its open tables), with ``options`` (more
        of its command line), or with ``bare`` the bare grpc.aio server of
        :func:`bare_server_main`; ``address`` is its port on 127.0.0.1."""
        env = dict(os.environ, UNOPLAY_MDNS="0")
        command = (
            ["-m", "unoplay.client.bench.netbench", "--bare"]
            if bare
            else [
                "-m",
                "unoplay.client.cli",
                "serve",
                "--host",
                host,
                "--port",
                "0",
                *(["--db", db] if db is not None else ["--no-db"]),
                *options,
            ]
        )
        process = await asyncio.create_subprocess_exec(  # (dies with the bench, if killed)
            *wrapped([sys.executable, *command]), stderr=asyncio.subprocess.PIPE, env=env
        )
        assert process.stderr is not None
        while True:
            line = await asyncio.wait_for(process.stderr.readline(), 30)
            if not line:
                raise RuntimeError("the server process exited before listening")
            found = re.search(rb"listening on \S+:(\d+)", line)
            if found:
                return cls(process, f"127.0.0.1:{found[1].decode()}", db)

    async def _read_log(self) -> None:
        """Keep reading the server's log (a full pipe would stall the server)."""
        assert self.process.stderr is not None
        async for line in self.process.stderr:
            if b" ERROR " in line or b"Traceback" in line or b" CRITICAL " in line:
                self.log_errors.append(line.decode(errors="replace").strip())

    def cpu_seconds(self) -> float:
        """CPU time the server has used so far (user + system), 0.0 if unknown."""
        try:
            return _stat_cpu(f"/proc/{self.process.pid}/stat")[1]
        except (OSError, IndexError, ValueError):
            return 0.0

    def cpu_by_thread(self) -> dict[str, float]:
        """CPU time the server's threads have used so far (user + system),
        by kind: ``loop`` (the main thread: the event loop, where grpc.aio
        and all our Python but the journal run), ``journal`` (the journal's
        writer, named :data:`JOURNAL_THREAD`) and ``grpc`` (grpc's own
        threads: its poller and its event engine). Threads that ended are
        not counted; empty if unknown (no ``/proc``)."""
        times = {"loop": 0.0, "journal": 0.0, "grpc": 0.0}
        pid = self.process.pid
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            return {}
        for tid in tids:
            try:
                name, cpu = _stat_cpu(f"/proc/{pid}/task/{tid}/stat")
            except OSError:
                continue  # (ended meanwhile)
            kind = "loop" if int(tid) == pid else "journal" if name == JOURNAL_THREAD else "grpc"
            times[kind] += cpu
        return times

    def rss(self) -> tuple[int, int]:
        """(resident set size, its peak) of the server in bytes; (0, 0) if unknown."""
        try:
            with open(f"/proc/{self.process.pid}/status") as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line)
            now = int(fields["VmRSS"].split()[0]) * 1024
            peak = int(fields["VmHWM"].split()[0]) * 1024
        except (OSError, KeyError, ValueError):
            return 0, 0
        self.peak_rss = max(self.peak_rss, peak)
        return now, peak

    async def stop(self, timeout: float = 30) -> tuple[int | None, float]:
        """SIGTERM and wait: (exit code, seconds it took); kills it after ``timeout``."""
        started = time.perf_counter()
        with contextlib.suppress(ProcessLookupError):  # (gone already: a Ctrl-C reached it too)
            self.process.send_signal(signal.SIGTERM)
        try:
            code = await asyncio.wait_for(self.process.wait(), timeout)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
            code = None
        await asyncio.wait_for(self._drain, 10)
        return code, time.perf_counter() - started

    def stored_games(self) -> int:
        if self.db is None or not os.path.exists(self.db):
            return 0
        with sqlite3.connect(self.db) as db:
            return db.execute("SELECT count(*) FROM games WHERE status = 'finished'").fetchone()[0]


@contextlib.contextmanager
def _no_collections() -> Iterator[None]:
    """Keep Python's garbage collector from pausing the bots' process while
    it runs: the bots are the load, not what is measured, and with hundreds
    of them in one process a collection paused every stream for 20-80 ms
    (even gen0 ones), a latency of the bots measured as if it were the
    server's. Cycles wait for the end of the run (seconds to minutes), when
    the collector is as it was. Applied to the bare server's runs alike."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


#: Tables being made and dealt at once (the lobby calls and the streams'
#: joins). Beyond, a run's start is a storm no LAN sees: a thousand tables at
#: once kept the server's accept loop so busy that lobby calls waited over a
#: minute and the lobby freed the seats of tables not yet started (their
#: people showed no sign of life for ``waiting_seat_grace``). Even so, under
#: the load of the tables already playing, grpc.aio accepts about one new
#: call per turn of the event loop: a thousand tables take minutes to start.
SETTING_UP = 64

#: Seconds every run plays, once every table's first game has started,
#: before its measured window: the tables are made and their first games dealt
#: all at once (a storm of lobby calls and new streams no steady load has),
#: and the processes warm up.
WARMUP_SECONDS = 2.0


async def measure(
    tables: int,
    seconds: float,
    bare: bool = False,
    think_ms: int = 0,
    warmup: float = WARMUP_SECONDS,
    target_score: int = 0,
    raw_client: bool = False,
    store: bool = True,
) -> dict:
    """Run ``tables`` (>= 1) concurrent tables until each has started its first game,
    for ``warmup`` more, then for ``seconds``;
    returns the figures of those ``seconds`` (actions, latencies, refusals,
    CPU; games and errors count the whole run). With ``bare``, the same
    pattern on the bare grpc.aio server (no game); with ``think_ms``, bots
    that think that long (0.5 to 1.5 times) before each action: a realistic
    load rather than saturation. Each table plays game after game, each to
    ``target_score`` (0: one round a game, and a new game's lobby calls and
    streams every round; 500: the official game, rounds on the same streams);
    the bare pattern is one endless game on the streams it opened. With
    ``raw_client``, bots that skip the SDK (:func:`_raw_seat`): the server's
    own capacity, with the SDK's work out of the bots' process. ``store``
    False: ``uno serve --no-db`` (no journal of its tables, no games stored)."""
    with tempfile.TemporaryDirectory(prefix="unoplay-bench-") as tmp:
        # every bench table comes from this one address: the caps of waiting and
        # open tables per client address are raised to let them all be made, and the
        # cap of tables to hold the finished ones a run leaves (kept five
        # minutes for resumes and rematches: thousands at saturation)
        server = await ServerProcess.start(
            os.path.join(tmp, "games.sqlite3") if store else None,
            bare,
            options=(
                "--max-waiting-per-client",
                str(tables + 16),
                "--max-tables-per-client",
                str(tables + 16),
                "--max-tables",
                str(2 * tables + 50_000),
            ),
        )
        stats = Stats(tables=tables)
        try:
            rss_start, _ = server.rss()
            with _no_collections():
                async with Connection(server.address, timeout=30) as conn:
                    await conn.wait_ready()
                    stop = asyncio.Event()
                    setting_up = asyncio.Semaphore(SETTING_UP)
                    loops = [
                        asyncio.create_task(
                            _bare_table(conn.channel, i, stop, stats)
                            if bare
                            else _table_loop(
                                conn,
                                i,
                                stop,
                                stats,
                                setting_up,
                                think_ms / 1000,
                                target_score,
                                raw_client,
                            )
                        )
                        for i in range(tables)
                    ]
                    try:
                        await _all_started(stats, tables)
                        await asyncio.sleep(warmup)  # not measured (and not synchronisation)
                        stats.latencies.clear()
                        stats.actions = stats.refused = stats.responses = 0
                        cpu_server, cpu_bots = server.cpu_seconds(), time.process_time()
                        threads = server.cpu_by_thread()
                        await asyncio.sleep(seconds)  # the measured window
                        stop.set()
                        measured, responses = stats.actions, stats.responses
                        cpu_server = server.cpu_seconds() - cpu_server
                        threads = {
                            kind: cpu - threads[kind]
                            for kind, cpu in server.cpu_by_thread().items()
                            if kind in threads
                        }
                        cpu_bots = time.process_time() - cpu_bots
                        rss_end, _ = server.rss()
                    finally:  # (also when interrupted: none goes on against a dead server)
                        for task in loops:
                            task.cancel()
                        await asyncio.gather(*loops, return_exceptions=True)
        finally:
            code, stop_seconds = await server.stop()
        rss_peak = server.peak_rss
        stored = server.stored_games() if code == 0 else 0
    errors = stats.errors + len(server.log_errors) + (0 if code == 0 else 1)
    lat = sorted(stats.latencies)
    return {
        "tables": tables,
        "seconds": seconds,
        "warmup_s": warmup,
        "think_ms": think_ms,
        "target_score": target_score,
        "raw_client": raw_client,
        "store": store,
        "actions_per_s": measured / seconds,
        "p50_ms": 1000 * statistics.median(lat) if lat else None,
        "p99_ms": 1000 * lat[min(len(lat) - 1, int(0.99 * len(lat)))] if lat else None,
        "games_finished": stats.games,
        "games_stored": stored,
        "refused": stats.refused,
        "server_rss_start_mb": rss_start / 2**20,
        "server_rss_mb": rss_end / 2**20,
        "server_rss_peak_mb": rss_peak / 2**20,
        "server_cpu_pct": 100 * cpu_server / seconds,
        "bots_cpu_pct": 100 * cpu_bots / seconds,
        # per action measured: the server process's own CPU (user + system, from
        # /proc: the bots' process never enters it) and the bots' process's
        "server_cpu_ms_per_action": 1000 * cpu_server / measured if measured else None,
        # ... split by its threads (:meth:`ServerProcess.cpu_by_thread`)
        **{
            f"server_{kind}_cpu_ms_per_action": (
                1000 * threads[kind] / measured if measured and kind in threads else None
            )
            for kind in ("loop", "journal", "grpc")
        },
        "bots_cpu_ms_per_action": 1000 * cpu_bots / measured if measured else None,
        # the server's writes (responses) per action; the SDK's bots count none
        "responses_per_action": responses / measured if measured and responses else None,
        "server_exit_code": code,
        "server_stop_s": stop_seconds,
        "errors": errors,
        "error_samples": (stats.error_samples + server.log_errors)[:5],
    }


#: What each table count reports, ours and the bare server's (``bare_`` + key):
#: medians over the run's pairs.
_COMPARED = (
    "actions_per_s",
    "server_cpu_ms_per_action",
    "server_loop_cpu_ms_per_action",
    "server_journal_cpu_ms_per_action",
    "server_grpc_cpu_ms_per_action",
    "bots_cpu_ms_per_action",
    "responses_per_action",
    "p50_ms",
    "p99_ms",
    "server_cpu_pct",
    "bots_cpu_pct",
)


def _median(values: list) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def compare(
    tables: int,
    seconds: float = 5.0,
    pairs: int = 1,
    target_score: int = 500,
    raw_client: bool = True,
    warmup: float = WARMUP_SECONDS,
    store: bool = True,
) -> dict:
    """``pairs`` runs of ours and the bare server's at ``tables`` tables,
    alternated (ours first), each server in its own process: the figures
    of ours (the median run's fields and every run's errors), each compared
    figure as the median of its runs, the bare server's as ``bare_<figure>``,
    ``ratio`` (actions/s over the bare's) and ``cpu_ratio`` (the server's
    CPU per action over the bare server's), both medians of the pairs' own,
    and every run under ``"runs"``; ``store`` as :func:`measure`."""
    ours_runs, bare_runs = [], []
    for _ in range(pairs):
        ours_runs.append(
            asyncio.run(
                measure(
                    tables,
                    seconds,
                    warmup=warmup,
                    target_score=target_score,
                    raw_client=raw_client,
                    store=store,
                )
            )
        )
        bare_runs.append(asyncio.run(measure(tables, seconds, bare=True, warmup=warmup)))
    by_rate = sorted(ours_runs, key=lambda r: r["actions_per_s"])
    result = dict(by_rate[(len(by_rate) - 1) // 2])
    for key in _COMPARED:
        result[key] = _median([r[key] for r in ours_runs])
        result["bare_" + key] = _median([r[key] for r in bare_runs])
    result["ratio"] = _median(
        [
            o["actions_per_s"] / b["actions_per_s"] if b["actions_per_s"] else None
            for o, b in zip(ours_runs, bare_runs, strict=True)
        ]
    )
    result["cpu_ratio"] = _median(
        [
            o["server_cpu_ms_per_action"] / b["server_cpu_ms_per_action"]
            if o["server_cpu_ms_per_action"] and b["server_cpu_ms_per_action"]
            else None
            for o, b in zip(ours_runs, bare_runs, strict=True)
        ]
    )
    result["errors"] = sum(r["errors"] for r in ours_runs)
    result["bare_errors"] = sum(r["errors"] for r in bare_runs)
    result["error_samples"] = [e for r in ours_runs + bare_runs for e in r["error_samples"]][:5]
    result["pairs"] = pairs
    result["runs"] = [{"ours": o, "bare": b} for o, b in zip(ours_runs, bare_runs, strict=True)]
    return result


def run(
    table_counts: tuple[int, ...] = (1, 10, 100),
    seconds: float = 5.0,
    as_json: bool = False,
    target_score: int | None = None,
    raw_client: bool = True,
    pairs: int = 1,
    warmup: float = WARMUP_SECONDS,
    store: bool = True,
) -> list[dict]:
    """Compare ours with the bare grpc.aio pattern like for like at each
    table count in turn (:func:`compare`): by default bots on raw protobuf
    (``raw_client``; False: greedy bots through the SDK) playing games to
    ``target_score`` (None: 500, the official game, rounds on the same
    streams as the bare pattern's one endless game; 0: one round a game, a
    new table's lobby calls and streams every ~60 actions); ``store`` False:
    our server without its file (no journal). Prints a report (unless
    ``as_json``); returns the figures."""
    target = 500 if target_score is None else target_score
    results = [
        compare(
            k,
            seconds,
            pairs,
            target_score=target,
            raw_client=raw_client,
            warmup=warmup,
            store=store,
        )
        for k in table_counts
    ]
    if not as_json:
        bots = "random bots on raw protobuf (no SDK)" if raw_client else "greedy bots (SDK)"
        print(
            f"network benchmark: K tables of 4 {bots} over loopback, {seconds:g} s each"
            f" after {WARMUP_SECONDS:g} s of warm-up, {_games(target)},"
            " beside a bare grpc.aio server with the same pattern and no game"
            + (f"; medians of {pairs} alternated pairs" if pairs > 1 else "")
        )
        print(
            "  CPU ms/action: each server process's own CPU (and the bots' process's)"
            " per action measured"
        )
        for r in results:
            print(
                f"  K={r['tables']:<4d} {r['actions_per_s']:8,.0f} actions/s "
                f"(bare {r['bare_actions_per_s']:,.0f}: ratio {r['ratio']:.2f})  "
                f"server CPU {_ms(r['server_cpu_ms_per_action'], 3)} ms/action "
                f"(bare {_ms(r['bare_server_cpu_ms_per_action'], 3)}: "
                f"x{r['cpu_ratio'] or 0:.2f}; by thread: loop "
                f"{_ms(r['server_loop_cpu_ms_per_action'], 3)}, journal "
                f"{_ms(r['server_journal_cpu_ms_per_action'], 3)}, grpc "
                f"{_ms(r['server_grpc_cpu_ms_per_action'], 3)}, bare's loop "
                f"{_ms(r['bare_server_loop_cpu_ms_per_action'], 3)}, grpc "
                f"{_ms(r['bare_server_grpc_cpu_ms_per_action'], 3)})  "
                f"bots {_ms(r['bots_cpu_ms_per_action'], 3)} "
                f"(bare {_ms(r['bare_bots_cpu_ms_per_action'], 3)})  "
                f"writes/action {_ms(r['responses_per_action'], 2)} "
                f"(bare {_ms(r['bare_responses_per_action'], 2)})  "
                f"p50 {_ms(r['p50_ms'])} p99 {_ms(r['p99_ms'])} ms "
                f"(bare p99 {_ms(r['bare_p99_ms'])})  "
                f"CPU server {r['server_cpu_pct']:.0f}% bots {r['bots_cpu_pct']:.0f}% "
                f"(bare {r['bare_server_cpu_pct']:.0f}%/{r['bare_bots_cpu_pct']:.0f}%)  "
                f"RSS {r['server_rss_mb']:.0f} MB (peak {r['server_rss_peak_mb']:.0f}"
                f"{_per_table_kb(r)})  games {r['games_finished']} "
                f"(stored {r['games_stored']})  refused {r['refused']}  "
                f"errors {r['errors']} (bare {r['bare_errors']})"
            )
            for sample in r["error_samples"]:
                print(f"      error: {sample}")
    return results


def run_thinking(
    table_counts: tuple[int, ...],
    think_ms: int,
    seconds: float = 20.0,
    as_json: bool = False,
    target_score: int | None = 0,
    store: bool = True,
) -> list[dict]:
    """Realistic load: each table count in turn with bots that think
    ``think_ms`` a decision (games to ``target_score`` and ``store``, as :func:`measure`);
    print each p99 (intent to its event) and the largest table count whose
    p99 stays under 20 ms; return the figures."""
    target_score = target_score or 0  # None: one round a game, as always here
    results = [
        asyncio.run(measure(k, seconds, think_ms=think_ms, target_score=target_score, store=store))
        for k in table_counts
    ]
    if not as_json:
        print(
            f"network benchmark, bots that think ~{think_ms} ms a decision: "
            f"K tables of 4 greedy bots over loopback, {seconds:g} s each"
            f" after {WARMUP_SECONDS:g} s of warm-up, {_games(target_score)}"
        )
        for r in results:
            print(
                f"  K={r['tables']:<5d} {r['actions_per_s']:8,.0f} actions/s  "
                f"p50 {_ms(r['p50_ms'])} p99 {_ms(r['p99_ms'])} ms  "
                f"CPU server {r['server_cpu_pct']:.0f}% bots {r['bots_cpu_pct']:.0f}%  "
                f"RSS {r['server_rss_mb']:.0f} MB (peak {r['server_rss_peak_mb']:.0f}"
                f"{_per_table_kb(r)})  "
                f"refused {r['refused']}  errors {r['errors']}"
            )
            for sample in r["error_samples"]:
                print(f"      error: {sample}")
        under = [r["tables"] for r in results if r["p99_ms"] is not None and r["p99_ms"] < 20]
        print(f"  p99 under 20 ms up to K={max(under)}" if under else "  p99 over 20 ms at every K")
    return results


def _games(target_score: int) -> str:
    return f"games to {target_score} points" if target_score else "one-round games"


def _ms(value: float | None, digits: int = 1) -> str:
    return f"{value:.{digits}f}" if value is not None else "-"


#: The fewest tables whose RSS growth is shown per table: below, the
#: allocator's own steps (arenas of a few MB) are larger than the tables.
PER_TABLE_FROM = 100


def _per_table_kb(r: dict) -> str:
    """The server's memory per table: RSS growth over the run, per table, as
    ", N KB/table" (nothing below :data:`PER_TABLE_FROM` tables)."""
    if r["tables"] < PER_TABLE_FROM:
        return ""
    growth = max(0.0, r["server_rss_mb"] - r["server_rss_start_mb"]) * 1024
    return f", {growth / r['tables']:.0f} KB/table"


# ------------------------------------------------------------------ the ceiling

#: The bare pattern's message to each seat after a move: about what one of our
#: changes sends a seat (its events and its update).
BARE_MESSAGE_BYTES = 400
_BARE_METHOD = "/unoplay.bench.Bare/Play"


def bare_server_main(port: int = 0) -> None:
    """A bare grpc.aio server with our pattern and no game at all (``python -m
    unoplay.client.bench.netbench --bare``): a bidi stream per seat; a seat's message
    (its first names its table) makes the server write one ~400-byte message
    to every stream of that table. Prints ``listening on 127.0.0.1:PORT``."""
    import grpc

    async def main() -> None:
        tables: dict[bytes, list[asyncio.Queue[bytes]]] = {}
        payload = bytes(BARE_MESSAGE_BYTES)

        async def play(requests, context):  # type: ignore[no-untyped-def]
            outbox: asyncio.Queue[bytes] = asyncio.Queue()
            first = await anext(requests)
            streams = tables.setdefault(first[:4], [])
            streams.append(outbox)

            async def read() -> None:
                async for move in requests:
                    for q in streams:
                        q.put_nowait(move[4:12] + payload)

            reader = asyncio.create_task(read())
            try:
                while True:
                    yield await outbox.get()
            finally:
                reader.cancel()
                streams.remove(outbox)

        def identity(b: bytes) -> bytes:
            return b

        handler = grpc.method_handlers_generic_handler(
            "unoplay.bench.Bare",
            {"Play": grpc.stream_stream_rpc_method_handler(play, identity, identity)},
        )
        server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
        server.add_generic_rpc_handlers((handler,))
        bound = server.add_insecure_port(f"127.0.0.1:{port}")
        await server.start()
        stopping = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stopping.set_result, None)
        print(f"listening on 127.0.0.1:{bound}", file=sys.stderr, flush=True)
        await stopping  # SIGTERM: stop cleanly (exit 0), as ``uno serve`` does,
        # with its grace: the calls the bots cancelled just before end by themselves
        # (cut at once, a busy machine's last ones logged a CancelledError traceback)
        await server.stop(1.0)

    asyncio.run(main())


async def _bare_table(channel, index: int, stop: asyncio.Event, stats: Stats) -> None:  # type: ignore[no-untyped-def]
    """Four seats of one bare table: the seat to move sends, waits for the
    server's message on its own stream, then the next seat moves."""
    name = index.to_bytes(4, "big")
    play = channel.stream_stream(_BARE_METHOD, lambda b: b, lambda b: b)
    calls = [play() for _ in range(4)]
    for call in calls:
        await call.write(name)
    stats.table_started()
    arrived = [asyncio.Event() for _ in range(4)]

    async def read(seat: int) -> None:
        while True:
            message = await calls[seat].read()
            if message is None or not isinstance(message, bytes):
                return
            stats.responses += 1
            if int.from_bytes(message[:8], "big") % 4 == seat:
                arrived[seat].set()

    readers = [asyncio.create_task(read(s)) for s in range(4)]
    move = 0
    try:
        while not stop.is_set():
            seat = move % 4
            arrived[seat].clear()
            sent = time.perf_counter()
            await calls[seat].write(name + move.to_bytes(8, "big"))
            await asyncio.wait_for(arrived[seat].wait(), 30)
            stats.answered(sent)
            move += 1
    finally:
        for call in calls:
            call.cancel()
        for task in readers:
            task.cancel()


if __name__ == "__main__":
    if sys.argv[1:] == ["--bare"]:
        bare_server_main()
    else:
        sys.exit("usage: python -m unoplay.client.bench.netbench --bare")
