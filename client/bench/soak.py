"""Soak benchmark (``uno bench --soak MINUTES``): a server under honest tables
and abusive clients for a while, its memory every minute.

The server runs in its own process (``uno serve`` on an ephemeral port of
127.0.0.1 and ::1, as :mod:`.netbench` starts it). In this process:

* **honest tables**: tables of four greedy SDK bots, one after another, each
  with a turn of about ``think_ms``;
* **abusers**, each a loop bounded in rate, every one a pattern seen in the
  bounded-server issue: quick finished tables (ten seats, nine server bots,
  one round, started at once; one a second, so about 300 are kept at a time,
  the tables' 5 minutes after their end); a seat flooding
  refused intents until its stream is cut, then reconnecting; a house-rules
  seat spelling out false UNO calls; a seat reconnecting in a loop; waiting
  tables left behind up to the per-client cap (from ::1, its own address);
  undecodable bytes to the lobby.

Every minute it prints the server's resident set size (RSS), the games the
honest tables finished, the abusers' refusals (expected: they are refused)
and errors (an honest bot failing, a lobby call failing in a way no limit
explains, an error line in the server's log, a server that does not stop
cleanly): errors must be 0, and RSS flat after the warm-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

import grpc

from unoplay import wire
from unoplay.game import actions
from unoplay.game.actions import Action, ActionKind
from unoplay.game.registry import make_bot
from unoplay.game.rules import RuleSet, preset
from unoplay.v1 import game_service_pb2 as gs

from ..sdk import Connection, GameSession, ServerError
from .netbench import ServerProcess


@dataclass
class SoakStats:
    """What the soak's clients saw: ``refused`` by kind of abuse (expected),
    ``errors`` (must stay 0) with a few samples."""

    games: int = 0
    quick_tables: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)

    def refuse(self, what: str) -> None:
        self.refused[what] = self.refused.get(what, 0) + 1

    def error(self, what: object) -> None:
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(repr(what)[:300])


async def _honest(conn: Connection, index: int, think: float, stats: SoakStats) -> None:
    """Tables of four greedy bots, one game after another (target 0)."""
    while True:
        try:
            table = await conn.create_table(seats=4, rules=RuleSet(target_score=0), window_ms=0)
            joins = [await conn.join_table(table.table_id, f"h{index}-{s}") for s in range(4)]
            seats = [
                asyncio.create_task(_thinking_seat(conn, table.table_id, j.seat_token, think))
                for j in joins
            ]
            await conn.start_game(table.table_id, joins[0].seat_token)
            for result in await asyncio.gather(*seats, return_exceptions=True):
                if isinstance(result, BaseException):
                    raise result
            stats.games += 1
        except asyncio.CancelledError:
            raise
        except Exception as err:
            stats.error(err)
            await asyncio.sleep(1)  # pacing after a failure, not synchronisation


async def _thinking_seat(conn: Connection, table_id: str, token: str, think: float) -> None:
    session = conn.session(table_id, token)
    bot = make_bot("greedy", seed=random.randrange(2**31))
    async for received in session:
        state = session.state
        if session.is_decision(received) and state.legal and state.view is not None:
            action = bot.decide(state.view, state.legal)
            if action is not None:
                if think:
                    await asyncio.sleep(random.uniform(0.5, 1.5) * think)  # thinking
                await session.send(action)
        if state.game_over:
            return


async def _quick_tables(conn: Connection, stats: SoakStats) -> None:
    """Ten seats, nine server bots, one round, started at once; refused past the limit."""
    while True:
        try:
            table = await conn.create_table(
                seats=10, rules=RuleSet(target_score=0), away_grace=0, window_ms=0
            )
            me = await conn.join_table(table.table_id, "quick")
            for _ in range(9):
                await conn.add_bot(table.table_id, "random")
            await conn.start_game(table.table_id, me.seat_token)
            stats.quick_tables += 1
        except ServerError as err:
            if err.status != "RESOURCE_EXHAUSTED":
                stats.error(err)
            stats.refuse("quick table")
        await asyncio.sleep(1.0)  # the abuser's pace: ~300 finished tables kept at a time


async def _flooder(conn: Connection, stats: SoakStats) -> None:
    """A seat sending intents nobody asked for until its stream is cut; again."""
    table = await conn.create_table(seats=2, rules=RuleSet(target_score=0), window_ms=0)
    me = await conn.join_table(table.table_id, "flooder")
    await conn.add_bot(table.table_id, "greedy")
    await conn.start_game(table.table_id, me.seat_token)
    not_a_card = Action(ActionKind.PLAY, card=500)
    while True:
        call = conn.games.Play()
        with contextlib.suppress(grpc.aio.AioRpcError, asyncio.TimeoutError):
            join = gs.JoinGame(table_id=table.table_id, seat_token=me.seat_token, last_seq=0)
            await call.write(gs.PlayRequest(join=join))
            intent = gs.PlayRequest(intent=gs.Intent(action=wire.action_pb(not_a_card)))
            for _ in range(200):
                await call.write(intent)
            await asyncio.wait_for(call.read(), 10)
        call.cancel()
        stats.refuse("flood")
        await asyncio.sleep(1.5)  # the flooder's backoff


async def _false_caller(conn: Connection, stats: SoakStats) -> None:
    """A house-rules seat spelling out false UNO calls (never listed; each costs cards)."""
    while True:
        rules = preset("house").replace(target_score=0)
        table = await conn.create_table(seats=2, rules=rules, window_ms=0)
        me = await conn.join_table(table.table_id, "caller")
        await conn.add_bot(table.table_id, "greedy")
        await conn.start_game(table.table_id, me.seat_token)
        session = GameSession(conn, table.table_id, me.seat_token, max_retries=0)
        greedy = make_bot("greedy", seed=1)
        with contextlib.suppress(ServerError):
            async for received in session:
                state = session.state
                if state.game_over:
                    break
                if session.is_decision(received) and state.view is not None:
                    await session.send(actions.CALL_UNO)  # a false call, spelled out
                    if state.legal and state.view.current == state.view.seat:
                        choice = greedy.decide(state.view, state.legal)
                        if choice is not None:
                            await session.send(choice)
                    await asyncio.sleep(0.05)  # the abuser's pace
        await session.close()
        stats.refuse("false caller game")


async def _churner(conn: Connection, stats: SoakStats) -> None:
    """A seat opening and dropping its game stream in a loop."""
    table = await conn.create_table(seats=2, rules=RuleSet(target_score=0))
    me = await conn.join_table(table.table_id, "churner")
    while True:
        call = conn.games.Play()
        with contextlib.suppress(grpc.aio.AioRpcError, asyncio.TimeoutError):
            join = gs.JoinGame(table_id=table.table_id, seat_token=me.seat_token)
            await call.write(gs.PlayRequest(join=join))
            await asyncio.wait_for(call.read(), 10)
        call.cancel()
        stats.refuse("churn")
        await asyncio.sleep(0.1)  # the churner's pace


async def _waiting_tables(conn: Connection, stats: SoakStats) -> None:
    """Tables left waiting, as many as the server lets one client leave."""
    while True:
        try:
            await conn.create_table(seats=10)
        except ServerError as err:
            if err.status != "RESOURCE_EXHAUSTED":
                stats.error(err)
            stats.refuse("waiting table")
        await asyncio.sleep(0.5)  # the abuser's pace


async def _garbage(address: str, stats: SoakStats) -> None:
    """Undecodable bytes to the lobby's rpcs."""
    methods = ["CreateTable", "ListTables", "JoinTable", "AddBot", "StartGame", "LeaveTable"]
    async with grpc.aio.insecure_channel(address) as channel:
        while True:
            for name in methods:
                call: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(
                    f"/unoplay.v1.LobbyService/{name}"
                )
                try:
                    await asyncio.wait_for(call(b"\xff\xff\xff\xff"), 10)
                except grpc.aio.AioRpcError as err:
                    if err.code() is not grpc.StatusCode.INVALID_ARGUMENT:
                        stats.error(err)
                    stats.refuse("garbage")
                except TimeoutError as err:
                    stats.error(err)
            await asyncio.sleep(0.5)  # the abuser's pace


class _Lags:
    """The longest stall seen this minute, in seconds: of this process's event
    loop (``loop``) and of the server's answer to a health check (``server``)."""

    def __init__(self) -> None:
        self.loop = 0.0
        self.server = 0.0

    def take(self) -> tuple[float, float]:
        out = (self.loop, self.server)
        self.loop = self.server = 0.0
        return out


async def _watch_loop(lags: _Lags) -> None:
    """How late this process's event loop wakes a 0.1 s sleep."""
    loop = asyncio.get_running_loop()
    while True:
        before = loop.time()
        await asyncio.sleep(0.1)  # a probe of the loop's lateness, not synchronisation
        lags.loop = max(lags.loop, loop.time() - before - 0.1)


async def _watch_server(address: str, lags: _Lags) -> None:
    """A health check a second on a channel of its own: the longest answer
    time (less this process's own lateness, which the loop probe shows)."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    async with grpc.aio.insecure_channel(address) as channel:
        health: Any = health_pb2_grpc.HealthStub(channel)  # the stubs type it as sync
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(1.0)  # the probe's pace
            started = loop.time()
            with contextlib.suppress(grpc.aio.AioRpcError):
                await health.Check(health_pb2.HealthCheckRequest(), timeout=60)
            lags.server = max(lags.server, loop.time() - started)


async def soak(minutes: float, honest_tables: int = 20, think_ms: int = 250) -> dict:
    """Run the soak for ``minutes``; print a line a minute; return the figures:
    ``rss_mb`` (one per minute), ``games``, ``errors``, ``refused`` by kind."""
    stats = SoakStats()
    with tempfile.TemporaryDirectory(prefix="unoplay-soak-") as tmp:
        # on 127.0.0.1 and ::1: the waiting tables and the garbage come from
        # ::1, so the per-address cap they meet is not the honest tables'.
        # The honest tables share 127.0.0.1 as people at many machines would not:
        # the cap of waiting tables per address is raised for them (each holds
        # one at a time), and the abuser from ::1 meets the same cap.
        cap = honest_tables + 8
        server = await ServerProcess.start(
            os.path.join(tmp, "games.sqlite3"),
            host="localhost",
            options=("--max-waiting-per-client", str(cap), "--max-tables-per-client", str(cap)),
        )
        abusers_address = "[::1]:" + server.address.rsplit(":", 1)[1]
        samples: list[float] = []
        try:
            async with (
                Connection(server.address, timeout=30) as conn,
                Connection(abusers_address, timeout=30) as bad,
            ):
                await conn.wait_ready()
                await bad.wait_ready()
                loops = [
                    *(_honest(conn, i, think_ms / 1000, stats) for i in range(honest_tables)),
                    _quick_tables(conn, stats),
                    _flooder(conn, stats),
                    _false_caller(conn, stats),
                    _churner(conn, stats),
                    _waiting_tables(bad, stats),
                    _garbage(abusers_address, stats),
                ]
                tasks = [asyncio.create_task(_guard(loop, stats)) for loop in loops]
                lags = _Lags()
                tasks.append(asyncio.create_task(_watch_loop(lags)))
                tasks.append(asyncio.create_task(_watch_server(server.address, lags)))
                started = time.monotonic()
                print(
                    f"soak: {honest_tables} honest tables (greedy, ~{think_ms} ms a turn) "
                    f"and 6 abusers for {minutes:g} min; server {server.address}"
                )
                print(
                    "  minute  RSS MB  games  quick tables  refused  errors"
                    "  stall: server, here (s)"
                )
                minute = 0
                while minute < minutes:
                    minute += 1
                    await asyncio.sleep(max(0.0, started + 60 * minute - time.monotonic()))
                    rss = server.rss()[0] / 2**20
                    samples.append(rss)
                    here, there = lags.take()
                    print(
                        f"  {minute:6d}  {rss:6.1f}  {stats.games:5d}  {stats.quick_tables:12d}"
                        f"  {sum(stats.refused.values()):7d}  {stats.errors + len(server.log_errors):6d}"
                        f"  {there:13.2f}, {here:.2f}",
                        flush=True,
                    )
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            code, stop_seconds = await server.stop()
    errors = stats.errors + len(server.log_errors) + (0 if code == 0 else 1)
    for sample in (stats.error_samples + server.log_errors)[:5]:
        print(f"      error: {sample}")
    print(
        f"  server stopped with code {code} in {stop_seconds:.1f} s; refused: "
        + ", ".join(f"{k} {v}" for k, v in sorted(stats.refused.items()))
    )
    return {
        "minutes": minutes,
        "rss_mb": samples,
        "games": stats.games,
        "quick_tables": stats.quick_tables,
        "refused": stats.refused,
        "errors": errors,
        "server_exit_code": code,
    }


async def _guard(loop, stats: SoakStats) -> None:  # type: ignore[no-untyped-def]
    """Run one client loop; a crash of an abuser's loop is an error, not the end."""
    try:
        await loop
    except asyncio.CancelledError:
        raise
    except Exception as err:
        stats.error(err)


def run(minutes: float, honest_tables: int = 20, think_ms: int = 250) -> dict:
    """:func:`soak` from synchronous code."""
    return asyncio.run(soak(minutes, honest_tables, think_ms))
