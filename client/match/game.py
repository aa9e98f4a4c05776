"""One game of a match over the real gRPC path: a seeded table, a seat for
each entrant, bots driven through the SDK or started as commands
(:mod:`.players`), watched (:mod:`.watch`) and judged (:mod:`.adjudication`)
into the record of how it went (:class:`~.result.GameResult`).

The table is created with the match's settings (:class:`~.config.MatchConfig`):
its seed, ``turn_seconds`` (``--move-time``), ``max_round_actions``
(``--max-actions``), the out-of-turn window and the away grace. The game
starts only once every seat has its stream open (an external bot that takes
its time to start is not played by the stand-in meanwhile).

:func:`play_game` goes in steps (:class:`_Game`): open the table and take its
seats, start the players, play it out, record its end; whatever stopped it
early is recorded as such, and the table is closed or left either way.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import traceback
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

from unoplay.protocol import LobbyError
from unoplay.server.lobby import Lobby
from unoplay.server.localseat import LocalSeats, SlowDecision

from ..sdk import Connection, ServerError
from .adjudication import IllegalActions, Outcome, RefusalCount, adjudicate
from .config import MatchConfig
from .embedded import EmbeddedLobby
from .entrants import Entrant
from .players import TAIL_CHARS, BotSeat, ExternalSeat, Player
from .result import CRASHED, ERROR, FINISHED, VOID, GameResult
from .schedule import GameSpec
from .watch import SpectatorWatch, TableWatch, Watch

#: Seconds an external bot has to exit by itself after its game ended.
EXIT_GRACE = 10.0


@dataclass
class GameContext:
    """A worker's means to play games: the match's settings, its connection
    to the server (None: every game is played in this process,
    :meth:`.config.MatchConfig.in_process`), the server's address (for
    external bots), the embedded server's lobby when there is one."""

    config: MatchConfig
    conn: Connection | None
    address: str
    embedded: Lobby | None = None  #: the lobby of the server embedded in this process
    worker: str = "local"
    #: whom the lobby calls go to: the embedded server's lobby itself
    #: (:class:`.embedded.EmbeddedLobby`), or over gRPC (``conn``) to
    #: ``--server`` or with ``--network``
    lobby: Connection | EmbeddedLobby = field(init=False)

    def __post_init__(self) -> None:
        if self.embedded is not None and not self.config.network:
            self.lobby = EmbeddedLobby(self.embedded)
        else:
            assert self.conn is not None
            self.lobby = self.conn

    def watch(self, table_id: str, seats: int) -> Watch:
        """A watch of the table: the table itself when the server is embedded here, else a spectator
        stream."""
        if self.embedded is not None:
            return TableWatch(self.embedded.get(table_id), self.config.illegal)
        assert self.conn is not None
        return SpectatorWatch(self.conn, table_id, seats)


async def play_game(ctx: GameContext, spec: GameSpec) -> GameResult:
    """Play game ``spec`` and return its record (never raises for what a
    game can go through: a refusal of the server, a crash, a timeout;
    cancelling it abandons the game and ends its bots)."""
    return await _Game(ctx, spec).play()


class _Failed(Exception):
    def __init__(self, player: Player, why: str) -> None:
        super().__init__(why)
        self.player = player
        self.why = why


class _Forfeited(Exception):
    def __init__(self, seat: int, why: str) -> None:
        super().__init__(why)
        self.seat = seat
        self.why = why


class _Game:
    """One game as far as it got: its record, its seats' tokens, its players
    and its watch (:func:`play_game`)."""

    def __init__(self, ctx: GameContext, spec: GameSpec) -> None:
        self.ctx = ctx
        self.config = ctx.config
        self.spec = spec
        self.entrants = [ctx.config.entrants[e] for e in spec.seats]  #: per seat
        self.result = GameResult(
            spec.index,
            spec.deal,
            spec.rotation,
            spec.seed,
            list(spec.seats),
            ERROR,
            worker=ctx.worker,
            attempt=spec.attempt,
            started_at=time.time(),
        )
        self.players: list[Player] = []
        self.tokens: list[str] = []
        self.watch: Watch | None = None
        self.local: LocalSeats | None = None
        self.over = False

    async def play(self) -> GameResult:
        """The steps, and what stopped them early."""
        result = self.result
        try:
            await self._open_table()
            if await self._start_players():
                await self._play_out()
                await self._record_end()
        except _Failed as failed:
            self._so_far()
            _failed(result, failed.player, failed.why)
        except _Forfeited as forfeited:
            self._so_far()
            seat = forfeited.seat
            _forfeited(result, seat, self.entrants[seat].label, forfeited.why)
        except TimeoutError:
            self._timed_out()
        except ServerError as err:
            result.status = ERROR
            result.reason = f"the server refused: {err.status}: {err.details}"
        finally:
            await self._close()
        return result

    # -------------------------------------------------------- the steps

    async def _open_table(self) -> None:
        """Create the table, take its seats (their tokens) and open its watch;
        a server in this process plays the bots of this process without the wire."""
        config, spec, lobby = self.config, self.spec, self.ctx.lobby
        n = len(spec.seats)
        # as uno replay --match numbers it (the deal's seed is the record's)
        title = f"match game {spec.index}" + (f" r{spec.rotation}" if spec.rotation else "")
        table = await lobby.create_table(
            seats=n,
            rules=config.rules,
            title=title,
            turn_seconds=config.move_time,
            away_grace=config.away_grace,
            window_ms=config.window_ms,
            seed=spec.seed,
            max_round_actions=config.max_actions,
        )
        self.result.table_id = table.table_id
        embedded = self.ctx.embedded
        if (
            embedded is not None
            and not config.network
            and not all(entrant.external for entrant in self.entrants)
        ):
            self.local = LocalSeats(embedded.get(table.table_id), halt=self._halted)  # no wire
        for seat, entrant in enumerate(self.entrants):
            joined = await lobby.join_table(table.table_id, entrant.name, seat=seat)
            self.tokens.append(joined.seat_token)
        self.watch = self.ctx.watch(table.table_id, n)
        await self.watch.open()

    def _halted(self) -> bool:
        """True once a seat forfeited: its bots are asked nothing more."""
        return self.watch is not None and self.watch.forfeit() is not None

    async def _start_players(self) -> bool:
        """Start every seat's player; False (the game crashed, recorded)
        when one cannot be started."""
        for seat, entrant in enumerate(self.entrants):
            player = await self._start_player(seat, entrant)
            if player is None:
                return False
            self.players.append(player)
        return True

    async def _start_player(self, seat: int, entrant: Entrant) -> Player | None:
        """The player of ``seat``, started; None when it could not be (the
        game's record says why: a command that cannot start, a bot of one's
        own that cannot be made)."""
        ctx, table_id, token = self.ctx, self.result.table_id, self.tokens[seat]
        if entrant.external:
            spec = self.spec
            header = f"game {spec.index} (seed {spec.seed}), table {table_id}, seat {seat + 1}"
            try:
                return await ExternalSeat.start(
                    seat,
                    entrant,
                    ctx.address,
                    table_id,
                    token,
                    str(self.config.log_dir) if self.config.log_dir else None,
                    ctx.worker,
                    header,
                )
            except OSError as err:
                self._not_started(seat, "could not start: " + str(err), str(err))
                return None
        try:
            return BotSeat.start(
                seat,
                entrant,
                ctx.conn,
                table_id,
                token,
                self.spec.bot_seed(seat),
                self.config.rules,
                RefusalCount(self.config.illegal) if ctx.embedded is None else None,
                self.local,
                float(self.config.move_time),
            )
        except Exception as err:  # a bot of one's own that cannot be made
            what = traceback.format_exception_only(err)[-1].strip()
            self._not_started(
                seat, f"raised {what} when it was made", traceback.format_exc()[-TAIL_CHARS:]
            )
            return None

    def _not_started(self, seat: int, why: str, stderr: str) -> None:
        label = self.entrants[seat].label
        self.result.status = CRASHED
        self.result.reason = f"seat {seat + 1} ({label}) {why}"
        self.result.crash = {"seat": seat, "label": label, "code": None, "stderr": stderr}

    async def _play_out(self) -> None:
        """Start the game once every seat is connected and wait for its end
        (within the match's timeouts). Raises _Failed for a player that
        failed first, _Forfeited for a seat past the illegal-action limits."""
        assert self.watch is not None
        watch, config = self.watch, self.config
        await _until_or_failure(watch.connected(), self.players, config.connect_timeout, watch)
        await self.ctx.lobby.start_game(self.result.table_id, self.tokens[0])
        start = time.monotonic()
        if self.spec.fault == "exit-worker":  # tests: a worker lost in the middle of a game
            os._exit(3)
        await _until_or_failure(watch.over(), self.players, config.game_timeout, watch)
        self.result.duration = time.monotonic() - start
        forfeit = watch.forfeit()
        if forfeit is not None:
            raise _Forfeited(*forfeit)

    async def _record_end(self) -> None:
        """The game's end as the watch saw it, judged (its players given
        :data:`EXIT_GRACE` to end by themselves); a player that exited with a
        code other than 0, or failed, even at the end, is a failure."""
        assert self.watch is not None
        result, players = self.result, self.players
        self.over = self.watch.is_over()  # (else void already: stopped where it stands)
        if self.over:
            await _finish(players)
        outcome = self.watch.outcome()
        adjudicate(result, outcome, self.config.entrants)
        result.scores = outcome.scores
        result.winners = outcome.winners if result.status == FINISHED else []
        result.actions = outcome.actions
        result.rounds = outcome.rounds
        result.timeouts = outcome.timeouts
        result.stand_in = outcome.stand_in
        _decisions(result, outcome, players)
        for player in players:
            if isinstance(player, ExternalSeat) and player.process.returncode not in (0, None):
                _crashed(result, player, f"exited with code {player.process.returncode}")
                break
            if isinstance(player, BotSeat) and (why := player.failure()):
                _failed(result, player, why)
                break

    # -------------------------------------------------------- stopped early, and after

    def _so_far(self) -> None:
        """How far a game stopped early went: scores, actions, rounds, and the
        turn timer's and stand-in's actions per seat."""
        if self.watch is None:
            return
        outcome = self.watch.outcome()
        result = self.result
        result.scores = outcome.scores
        result.actions = outcome.actions
        result.rounds = outcome.rounds
        result.timeouts = outcome.timeouts
        result.stand_in = outcome.stand_in

    def _timed_out(self) -> None:
        """The game did not end within the match's timeout (or its seats were
        not taken within it): an error, naming whose move it was."""
        result, watch = self.result, self.watch
        result.status = ERROR
        result.reason = (
            f"the game did not end within {self.config.game_timeout:g} s"
            if watch is not None and self.tokens and len(self.players) == len(self.entrants)
            else "timed out"
        )
        if isinstance(watch, TableWatch) and (game := watch.table.game) is not None:
            mover = game.current
            result.reason += f"; seat {mover + 1} ({self.entrants[mover].label}) was to move"

    async def _close(self) -> None:
        """Stop the players and the watch (the record's refusals and moves
        read first); a game not over is stopped where it stands at our own
        server, or left to the server's bots at another."""
        result, ctx = self.result, self.ctx
        for player in self.players:
            await player.stop()
        if self.local is not None:  # (it may have no seat yet)
            await self.local.stop()
        if self.watch is not None:
            _refusals(result, self.watch, self.players)
            result.packed_record = self.watch.record() if self.config.records else None
            await self.watch.close()
        if self.over or not self.tokens:
            return
        if ctx.embedded is not None:  # abandoned, at our own server: stopped where it stands
            with contextlib.suppress(LobbyError):
                ctx.embedded.close_table(result.table_id)
            return
        for token in self.tokens:  # abandoned: the server's bots play the seats out
            with contextlib.suppress(ServerError, TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(ctx.lobby.leave_table(result.table_id, token), 5.0)


async def _until_or_failure(
    waited: Awaitable[Any], players: list[Player], timeout: float, watch: Watch
) -> None:
    """Wait for the coroutine ``waited``; raise _Failed when a player fails
    first, and TimeoutError after ``timeout`` seconds. An external bot that
    exits with code 0 fails only if the game does not end right after (it
    may have seen the end first)."""
    waiting = asyncio.ensure_future(waited)
    try:
        deadline = time.monotonic() + timeout
        pending: set[asyncio.Future[Any]] = {waiting} | {
            p.waiter for p in players if not p.waiter.done()
        }
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            done, _ = await asyncio.wait(pending, timeout=left, return_when=asyncio.FIRST_COMPLETED)
            if waiting in done:
                waiting.result()  # its error, if it failed
                return
            for player in players:
                if player.waiter not in done:
                    continue
                pending.discard(player.waiter)
                why = player.failure()
                if why is None:
                    continue
                if isinstance(player, ExternalSeat) and player.process.returncode == 0:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(asyncio.shield(waiting), 5.0)
                    if waiting.done() and not waiting.cancelled() and watch.is_over():
                        return
                    why = "exited with code 0 before its game ended"
                raise _Failed(player, why)
    finally:
        waiting.cancel()


async def _finish(players: list[Player]) -> None:
    """After the game's end: bots' streams end by themselves, external bots
    get :data:`EXIT_GRACE` seconds to exit before they are ended."""
    waiters = [p.waiter for p in players if not p.waiter.done()]
    if waiters:
        await asyncio.wait(waiters, timeout=EXIT_GRACE)


def _failed(result: GameResult, player: Player, why: str) -> None:
    """A player that failed: it forfeited for illegal actions (a bot that
    counts its own refusals) or on time (a decision past the clock), or it
    crashed."""
    error = player.error if isinstance(player, BotSeat) else None
    if isinstance(error, IllegalActions):
        _forfeited(result, player.seat, player.entrant.label, why)
    elif isinstance(error, SlowDecision):
        n = len(result.seats)
        if len(result.timeouts) != n:
            result.timeouts, result.stand_in = [0] * n, [0] * n
        result.timeouts[player.seat] = max(1, result.timeouts[player.seat])
        result.status = VOID
        result.winners = []
        result.reason = f"seat {player.seat + 1} ({player.entrant.label}): {why}"
    else:
        _crashed(result, player, why)


def _forfeited(result: GameResult, seat: int, label: str, why: str) -> None:
    """The seat forfeited the game for illegal actions: void, a loss for the
    seat (:meth:`.result.GameResult.forfeiters`)."""
    result.status = VOID
    result.winners = []
    result.reason = f"seat {seat + 1} ({label}) {why}"
    result.forfeit = {"seat": seat, "label": label, "why": why}


def _refusals(result: GameResult, watch: Watch, players: list[Player]) -> None:
    """Refused intents per seat, and races lost apart: the table's counts
    when the server is embedded, else the bots' own (external bots': not
    known)."""
    result.refusals = watch.refusals()
    result.races = watch.races()
    for player in players:
        if isinstance(player, BotSeat) and player.refusals is not None:
            result.refusals[player.seat] = player.refusals.refusals
            result.races[player.seat] = player.refusals.races


def _crashed(result: GameResult, player: Player, why: str) -> None:
    label = player.entrant.label
    result.status = CRASHED
    result.winners = []
    result.reason = f"seat {player.seat + 1} ({label}) {why}"
    if isinstance(player, ExternalSeat):
        stderr = player.tail()
        code = player.process.returncode
        if player.path:
            result.reason += f"; its error output: {player.path}"
    else:
        stderr = player.tail()
        code = None
    result.crash = {"seat": player.seat, "label": label, "code": code, "stderr": stderr}


def _decisions(result: GameResult, outcome: Outcome, players: list[Player]) -> None:
    """Decisions and their time per seat: the server's record when the server
    is embedded (the time between an action and the one before it, the same
    measure for every kind of bot), else the bots' own stopwatch (external
    bots: unknown)."""
    n = len(result.seats)
    if outcome.decisions is not None and outcome.think_ms is not None:
        result.decisions = list(outcome.decisions)
        result.think_ms = list(outcome.think_ms)
        return
    result.decisions = [0] * n
    result.think_ms = [None] * n
    for player in players:
        if isinstance(player, BotSeat):
            result.decisions[player.seat] = player.bot.decisions
            result.think_ms[player.seat] = player.bot.seconds * 1000
