"""Network benchmark: K concurrent tables of four greedy bots over loopback.

The server runs in its own process (``uno serve`` on an ephemeral port), the
bots in this one, each on its own game stream through the client SDK, exactly
as remote bots would. Reports actions/s and the latency from sending an
intent to receiving the event it caused (p50/p99), plus refused intents
(races such as two catches of the same player) and errors (failed streams).
"""

from __future__ import annotations

import asyncio
import re
import statistics
import sys
import time
from dataclasses import dataclass, field

from unoplay.server.actions import Action, ActionKind
from unoplay.server.events import Event, EventKind
from unoplay.server.rules import RuleSet

from .bots import make_bot
from .sdk import Connection

# The event that shows an intent of each kind was applied.
_RESULT = {ActionKind.PLAY: EventKind.PLAYED, ActionKind.DRAW: EventKind.DREW,
           ActionKind.KEEP: EventKind.KEPT, ActionKind.CHALLENGE: EventKind.CHALLENGED,
           ActionKind.ACCEPT: EventKind.PENALTY_ACCEPTED, ActionKind.CALL_UNO: EventKind.UNO_CALLED,
           ActionKind.CATCH: EventKind.UNO_CAUGHT, ActionKind.CHOOSE_COLOUR: EventKind.COLOUR_CHOSEN}


@dataclass
class Stats:
    """What the bots measured."""

    latencies: list[float] = field(default_factory=list)  # seconds
    actions: int = 0
    refused: int = 0
    errors: int = 0
    games: int = 0


def _answers(event: Event, seat: int, action: Action) -> bool:
    return event.kind is _RESULT[action.kind] and event.player == seat


async def _seat(conn: Connection, table_id: str, token: str, seed: int, stats: Stats) -> None:
    bot = make_bot("greedy", seed=seed)
    session = conn.session(table_id, token)
    pending: tuple[Action, float] | None = None
    async for message in session:
        body = message.WhichOneof("body")
        state = session.state
        if body == "event" and pending and _answers(state.events[-1], state.seat, pending[0]):
            stats.latencies.append(time.perf_counter() - pending[1])
            stats.actions += 1
            pending = None
        elif body == "error":
            stats.refused += 1
            pending = None
        elif body == "update" and state.legal and pending is None:
            action = bot.decide(state.view, state.legal)
            if action is not None:
                pending = (action, time.perf_counter())
                await session.send(action)


async def _table_loop(conn: Connection, index: int, stop: asyncio.Event, stats: Stats) -> None:
    rules = RuleSet(target_score=0)
    game = 0
    while not stop.is_set():
        table = await conn.create_table(seats=4, rules=rules, title=f"bench {index}")
        joins = [await conn.join_table(table.table_id, f"b{s}") for s in range(4)]
        seats = [asyncio.create_task(_seat(conn, table.table_id, j.seat_token, index * 1000 + s, stats))
                 for s, j in enumerate(joins)]
        await conn.start_game(table.table_id, joins[0].seat_token, seed=index * 7919 + game)
        results = await asyncio.gather(*seats, return_exceptions=True)
        stats.errors += sum(1 for r in results if isinstance(r, BaseException))
        stats.games += 1
        game += 1


async def _start_server_process() -> tuple[asyncio.subprocess.Process, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "unoplay.client.cli", "serve", "--host", "127.0.0.1", "--port", "0",
        stderr=asyncio.subprocess.PIPE)
    assert process.stderr is not None
    while True:
        line = await asyncio.wait_for(process.stderr.readline(), 30)
        if not line:
            raise RuntimeError("the server process exited before listening")
        found = re.search(rb"listening on ([\d.]+):(\d+)", line)
        if found:
            return process, f"{found[1].decode()}:{found[2].decode()}"


async def measure(tables: int, seconds: float) -> dict:
    """Run ``tables`` concurrent tables for ``seconds``; returns the figures."""
    process, address = await _start_server_process()
    stats = Stats()
    try:
        async with Connection(address, timeout=30) as conn:
            await conn.wait_ready()
            stop = asyncio.Event()
            loops = [asyncio.create_task(_table_loop(conn, i, stop, stats)) for i in range(tables)]
            await asyncio.sleep(seconds)  # the measured window (not synchronisation)
            stop.set()
            measured = stats.actions
            for task in loops:
                task.cancel()
            await asyncio.gather(*loops, return_exceptions=True)
    finally:
        process.terminate()
        await process.wait()
    lat = sorted(stats.latencies)
    return {
        "tables": tables,
        "seconds": seconds,
        "actions_per_s": measured / seconds,
        "p50_ms": 1000 * statistics.median(lat) if lat else None,
        "p99_ms": 1000 * lat[min(len(lat) - 1, int(0.99 * len(lat)))] if lat else None,
        "games_finished": stats.games,
        "refused": stats.refused,
        "errors": stats.errors,
    }


def run(table_counts: tuple[int, ...] = (1, 10, 100), seconds: float = 5.0,
        as_json: bool = False) -> list[dict]:
    """Measure each table count in turn; print a report; return the figures."""
    results = [asyncio.run(measure(k, seconds)) for k in table_counts]
    if not as_json:
        print(f"network benchmark: tables of 4 greedy bots over loopback, {seconds:g} s each")
        for r in results:
            p50 = f"{r['p50_ms']:.2f}" if r["p50_ms"] is not None else "-"
            p99 = f"{r['p99_ms']:.2f}" if r["p99_ms"] is not None else "-"
            print(f"  K={r['tables']:<4d} {r['actions_per_s']:9,.0f} actions/s  p50 {p50} ms  "
                  f"p99 {p99} ms  games {r['games_finished']}  refused {r['refused']}  "
                  f"errors {r['errors']}")
    return results
