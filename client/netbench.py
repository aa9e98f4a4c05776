"""Network benchmark: K concurrent tables of four greedy bots over loopback.

The server runs in its own process (``uno serve`` on an ephemeral port, storing
every finished game in a temporary SQLite file), the bots in this one, each on
its own game stream through the client SDK, exactly as remote bots would.
Reports actions/s and the latency from sending an intent to receiving the
event it caused (p50/p99), refused intents (races such as two catches of the
same player), the server's memory (resident set size: at the end and its
peak), games finished and stored, and errors: failed streams or lobby calls,
error lines in the server's log, and a server that does not stop cleanly on
SIGTERM. Errors must be zero.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sqlite3
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field

from unoplay.game.actions import Action, ActionKind
from unoplay.game.bots import make_bot
from unoplay.game.events import Event, EventKind
from unoplay.game.messages import Refusal
from unoplay.game.rules import RuleSet

from .sdk import Connection

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
    refused: int = 0
    errors: int = 0
    games: int = 0
    error_samples: list[str] = field(default_factory=list)

    def error(self, what: object) -> None:
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(repr(what)[:300])


def _answers(event: Event, seat: int, action: Action) -> bool:
    return event.kind is _RESULT[action.kind] and event.player == seat


async def _seat(conn: Connection, table_id: str, token: str, seed: int, stats: Stats) -> None:
    bot = make_bot("greedy", seed=seed)
    session = conn.session(table_id, token)
    pending: tuple[Action, float] | None = None
    async for received in session:
        message = received.message
        state = session.state
        if isinstance(message, Event) and pending and _answers(message, state.seat, pending[0]):
            stats.latencies.append(time.perf_counter() - pending[1])
            stats.actions += 1
            pending = None
        elif isinstance(message, Refusal):
            stats.refused += 1
            pending = None
        elif session.is_decision(received) and state.legal and pending is None:
            action = bot.decide(state.view, state.legal)
            if action is not None:
                pending = (action, time.perf_counter())
                await session.send(action)


async def _table_loop(conn: Connection, index: int, stop: asyncio.Event, stats: Stats) -> None:
    rules = RuleSet(target_score=0)
    game = 0
    while not stop.is_set():
        try:
            table = await conn.create_table(
                seats=4, rules=rules, title=f"bench {index}", seed=index * 7919 + game
            )
            joins = [await conn.join_table(table.table_id, f"b{index}-{s}") for s in range(4)]
            seats = [
                asyncio.create_task(
                    _seat(conn, table.table_id, j.seat_token, index * 1000 + s, stats)
                )
                for s, j in enumerate(joins)
            ]
            await conn.start_game(table.table_id, joins[0].seat_token)
        except asyncio.CancelledError:
            raise
        except Exception as err:
            stats.error(err)
            continue
        results = await asyncio.gather(*seats, return_exceptions=True)
        for r in results:
            if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError):
                stats.error(r)
        stats.games += 1
        game += 1


class ServerProcess:
    """``uno serve`` in a child process: its address, its memory, its log's errors."""

    def __init__(self, process: asyncio.subprocess.Process, address: str, db: str) -> None:
        self.process = process
        self.address = address
        self.db = db
        self.log_errors: list[str] = []
        self.peak_rss = 0
        self._drain = asyncio.create_task(self._read_log())

    @classmethod
    async def start(cls, db: str) -> ServerProcess:
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
            db,
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )
        assert process.stderr is not None
        while True:
            line = await asyncio.wait_for(process.stderr.readline(), 30)
            if not line:
                raise RuntimeError("the server process exited before listening")
            found = re.search(rb"listening on ([\d.]+):(\d+)", line)
            if found:
                return cls(process, f"{found[1].decode()}:{found[2].decode()}", db)

    async def _read_log(self) -> None:
        """Keep reading the server's log (a full pipe would stall the server)."""
        assert self.process.stderr is not None
        async for line in self.process.stderr:
            if b" ERROR " in line or b"Traceback" in line or b" CRITICAL " in line:
                self.log_errors.append(line.decode(errors="replace").strip())

    def cpu_seconds(self) -> float:
        """CPU time the server has used so far (user + system), 0.0 if unknown."""
        try:
            with open(f"/proc/{self.process.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return 0.0

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
        with sqlite3.connect(self.db) as db:
            return db.execute("SELECT count(*) FROM games WHERE status = 'finished'").fetchone()[0]


async def measure(tables: int, seconds: float) -> dict:
    """Run ``tables`` concurrent tables for ``seconds``; returns the figures."""
    with tempfile.TemporaryDirectory(prefix="unoplay-bench-") as tmp:
        server = await ServerProcess.start(os.path.join(tmp, "games.sqlite3"))
        stats = Stats()
        try:
            rss_start, _ = server.rss()
            async with Connection(server.address, timeout=30) as conn:
                await conn.wait_ready()
                stop = asyncio.Event()
                cpu_server, cpu_bots = server.cpu_seconds(), time.process_time()
                loops = [
                    asyncio.create_task(_table_loop(conn, i, stop, stats)) for i in range(tables)
                ]
                await asyncio.sleep(seconds)  # the measured window (not synchronisation)
                stop.set()
                measured = stats.actions
                cpu_server = server.cpu_seconds() - cpu_server
                cpu_bots = time.process_time() - cpu_bots
                rss_end, _ = server.rss()
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
        "server_exit_code": code,
        "server_stop_s": stop_seconds,
        "errors": errors,
        "error_samples": (stats.error_samples + server.log_errors)[:5],
    }


def run(
    table_counts: tuple[int, ...] = (1, 10, 100), seconds: float = 5.0, as_json: bool = False
) -> list[dict]:
    """Measure each table count in turn; print a report; return the figures."""
    results = [asyncio.run(measure(k, seconds)) for k in table_counts]
    if not as_json:
        print(f"network benchmark: tables of 4 greedy bots over loopback, {seconds:g} s each")
        for r in results:
            p50 = f"{r['p50_ms']:.2f}" if r["p50_ms"] is not None else "-"
            p99 = f"{r['p99_ms']:.2f}" if r["p99_ms"] is not None else "-"
            print(
                f"  K={r['tables']:<4d} {r['actions_per_s']:9,.0f} actions/s  p50 {p50} ms  "
                f"p99 {p99} ms  games {r['games_finished']} (stored {r['games_stored']})  "
                f"refused {r['refused']}  server RSS {r['server_rss_mb']:.0f} MB "
                f"(peak {r['server_rss_peak_mb']:.0f})  CPU server {r['server_cpu_pct']:.0f}% "
                f"bots {r['bots_cpu_pct']:.0f}%  errors {r['errors']}"
            )
            for sample in r["error_samples"]:
                print(f"      error: {sample}")
    return results
