"""One game of a match over the real gRPC path: a seeded table, a seat for
each entrant, bots driven through the SDK or started as commands, and the
record of how it went (:class:`~.result.GameResult`).

The table is created with the match's settings: its seed, ``turn_seconds``
(``--move-time``), ``max_round_actions`` (``--max-actions``), the
out-of-turn window and the away grace. The game starts only once every seat
has its stream open (an external bot that takes its time to start is not
played by the stand-in meanwhile). What happened is read from the table
itself when the server is embedded in this process (the server's own record
of every action and who made it: "player", "bot", "stand_in" or "timer"),
or from a spectator stream of it otherwise (EVENT_KIND_TIMED_OUT,
EVENT_KIND_ROUND_CAPPED, SeatsChanged with a stand-in: ``bot`` and not
``connected``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import tempfile
import time
import traceback
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from unoplay.game.actions import Action
from unoplay.game.events import Event, EventKind
from unoplay.game.messages import Refusal, SeatsChanged, TableState, Update
from unoplay.game.rules import GameFormat, RuleSet
from unoplay.game.view import Phase, PlayerView
from unoplay.server.lobby import Lobby
from unoplay.server.localseat import BotRaised, LocalSeats, SlowDecision
from unoplay.server.seats import BLAMELESS_REFUSALS, LobbyError
from unoplay.server.settings import MAX_GAME_ACTIONS

from ..sdk import Connection, ServerError, run_bot
from . import procs
from .embedded import EmbeddedLobby
from .entrants import Entrant, new_bot
from .result import ADJUDICATED, CRASHED, ERROR, FINISHED, VOID, GameResult
from .schedule import GameSpec
from .store import pack_record

log = logging.getLogger("unoplay.match")

#: Seconds one game may take before the match gives up on it.
GAME_TIMEOUT = 600.0
#: Seconds every seat has to open its stream once the table is ready.
CONNECT_TIMEOUT = 60.0
#: Seconds an external bot has to exit by itself after its game ended.
EXIT_GRACE = 10.0
#: Characters of an external bot's error output (a bot's traceback) kept with a crash.
TAIL_CHARS = 2000
#: A bot whose intents are refused more than this many times in one decision
#: (no action applied at the table between them) forfeits its game (--illegal-limit).
ILLEGAL_LIMIT = 3
#: A bot whose intents are refused more than this many times in a game forfeits it
#: (--illegal-budget).
ILLEGAL_BUDGET = 50


@dataclass(frozen=True)
class Setup:
    """What every game of a match shares; plain values, sent to worker
    processes and Ray actors as JSON."""

    entrants: tuple[Entrant, ...]
    rules: dict[str, Any]
    window_ms: int = 0
    max_actions: int | None = None  #: a round's cap of actions; None: the server's
    move_time: int = 0  #: the turn timer, seconds per decision (0: none)
    away_grace: int | None = None  #: seconds before the stand-in plays an absent seat
    server: str | None = None  #: HOST:PORT, or None for a server embedded in each worker
    log_dir: str | None = None  #: where external bots' error output goes
    sys_path: tuple[str, ...] = ()  #: the runner's import path (bots of your own)
    game_timeout: float = GAME_TIMEOUT
    connect_timeout: float = CONNECT_TIMEOUT
    illegal_limit: int = ILLEGAL_LIMIT  #: refusals in one decision a bot may have
    illegal_budget: int = ILLEGAL_BUDGET  #: refusals in one game a bot may have
    #: Python entrants play over gRPC even at an embedded server (--network);
    #: else they play their seats in this process (server/localseat.py)
    network: bool = False
    #: each game's full record is packed for the results file (False: there
    #: is none, --no-out, and the packing is saved)
    records: bool = True

    def in_process(self) -> bool:
        """True when every game is played in the worker's process: a server
        embedded there (no ``--server``), no ``--network``, no external
        entrant. The embedded server then listens on no port: its lobby serves
        the games directly."""
        return (
            self.server is None and not self.network and not any(e.external for e in self.entrants)
        )

    def ruleset(self) -> RuleSet:
        """The rules of the match's tables."""
        return RuleSet.from_dict(self.rules)

    def to_dict(self) -> dict[str, Any]:
        """Plain values (JSON), for worker processes and Ray actors."""
        data = asdict(self)
        data["entrants"] = [e.to_dict() for e in self.entrants]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Setup:
        """The setup of :meth:`to_dict`'s values."""
        values = dict(data)
        values["entrants"] = tuple(Entrant.from_dict(e) for e in data["entrants"])
        values["sys_path"] = tuple(data.get("sys_path", ()))
        return cls(**values)


# ------------------------------------------------------------------ illegal actions


def illegal_forfeit(refusals: int, in_row: int, setup: Setup) -> str | None:
    """Why a seat forfeits its game for illegal actions, given its refused
    intents in the game and in a row (in one decision); None when it does not
    (within ``setup.illegal_limit`` and ``setup.illegal_budget``)."""
    if in_row > setup.illegal_limit:
        return (
            f"forfeited: {in_row} illegal actions refused in one decision "
            f"(more than --illegal-limit {setup.illegal_limit})"
        )
    if refusals > setup.illegal_budget:
        return (
            f"forfeited: {refusals} illegal actions refused in the game "
            f"(more than --illegal-budget {setup.illegal_budget})"
        )
    return None


class IllegalActions(Exception):
    """A bot's intents were refused beyond the match's limits: it forfeits its game."""


class RefusalCount:
    """A bot's refused intents as the SDK sees them (``run_bot``'s
    ``on_refusal``), for a remote server, whose tables are not in reach; those
    no fault of the bot's (:data:`BLAMELESS_REFUSALS`) do not count, and
    races lost (the server says so: ``Refusal.race``) are counted apart."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self.refusals = 0
        self.races = 0
        self.in_row = 0  #: refusals counted since the bot last decided on a new update
        self.last = ""

    def __call__(self, refusal: Refusal, in_row: int) -> None:
        """Count one refusal (``in_row``: the SDK's count since the bot last
        decided on a new update, races included). Raises IllegalActions beyond
        the limits."""
        if in_row == 1:
            self.in_row = 0
        if refusal.reason in BLAMELESS_REFUSALS:
            return
        if refusal.race:
            self.races += 1
            return
        self.refusals += 1
        self.in_row += 1
        self.last = f"{refusal.reason}: {refusal.message}"
        why = illegal_forfeit(self.refusals, self.in_row, self.setup)
        if why is not None:
            raise IllegalActions(f"{why}; the last: {self.last}")


# ------------------------------------------------------------------ seats


class BotExited(Exception):
    """A bot called ``sys.exit()`` (its ``SystemExit`` is the ``__cause__``):
    a crash of its seat, not the end of the worker that plays it."""


class TimedBot:
    """A bot with a stopwatch: counts its decisions and the time they took;
    with a ``limit`` (seconds, the turn timer's), a decision that took longer
    raises :class:`~unoplay.server.localseat.SlowDecision` for ``seat`` (a
    time forfeit: its answer is not sent; the server's timer moves for it)."""

    def __init__(self, bot: Any, seat: int = 0, limit: float = 0.0) -> None:
        self.bot = bot
        self.seat = seat
        self.limit = limit
        self.observes = getattr(bot, "observes", False)
        self.decisions = 0
        self.seconds = 0.0

    def observe(self, events: Sequence[Event]) -> None:
        """The events the seat saw, for a bot that learns from them (not timed)."""
        try:
            self.bot.observe(events)
        except SystemExit as err:
            raise BotExited(f"called sys.exit({err.code!r})") from err

    def decide(self, view: PlayerView, legal: Sequence[Action]) -> Action | None:
        """The bot's decision, timed (``seconds``) and counted (``decisions``) when it acts."""
        start = time.perf_counter()
        try:
            action = self.bot.decide(view, legal)
        except SystemExit as err:
            raise BotExited(f"called sys.exit({err.code!r})") from err
        took = time.perf_counter() - start
        self.seconds += took
        if self.limit and took > self.limit:
            raise SlowDecision(self.seat, took, self.limit)
        if action is not None:
            self.decisions += 1
        return action


class BotSeat:
    """A bot (built-in or of your own) playing a seat through the SDK."""

    def __init__(
        self,
        seat: int,
        entrant: Entrant,
        bot: TimedBot,
        task: asyncio.Task[Any],
        refusals: RefusalCount | None = None,
        local: bool = False,
    ) -> None:
        self.seat = seat
        self.entrant = entrant
        self.bot = bot
        self.task = task
        self.refusals = refusals  #: counted here (a remote server), or None (by the table)
        self.local = local  #: played in this process (the task is its table's LocalSeats')

    @classmethod
    def start(
        cls,
        seat: int,
        entrant: Entrant,
        conn: Connection | None,
        table_id: str,
        token: str,
        seed: int,
        rules: RuleSet,
        refusals: RefusalCount | None = None,
        local: LocalSeats | None = None,
        limit: float = 0.0,
    ) -> BotSeat:
        """Seat ``entrant``'s bot, seeded ``seed``, for a table under ``rules``,
        on the table's stream (a task of this loop); ``refusals`` counts its
        refused intents (None: the table does). With ``local`` (the table's
        seats played by a server in this process) the bot plays its seat there
        without the wire (:class:`unoplay.server.localseat.LocalSeats`, whose
        task it shares), seeing what it would see through the SDK. ``limit``:
        the seconds a decision may take (the turn timer's; 0: no clock)."""
        bot = TimedBot(new_bot(entrant.kind, seed, rules), seat, limit)
        if local is not None:
            local.add(seat, bot.bot)  # (the table's record times it: no stopwatch)
            return cls(seat, entrant, bot, local.task, refusals, local=True)
        assert conn is not None
        play = run_bot(bot, conn.session(table_id, token), on_refusal=refusals)
        return cls(seat, entrant, bot, asyncio.create_task(play), refusals)

    @property
    def waiter(self) -> asyncio.Future[Any]:
        """Done when the bot's stream ended (the game's end, or a failure)."""
        return self.task

    @property
    def error(self) -> BaseException | None:
        """What the bot's task raised (None: nothing, or it still runs); of a
        task shared with other seats, what this seat's bot raised."""
        if not self.task.done() or self.task.cancelled():
            return None
        err = self.task.exception()
        if isinstance(err, BotRaised):
            cause = err.__cause__
            if isinstance(cause, SystemExit):
                return (
                    BotExited(f"called sys.exit({cause.code!r})") if err.seat == self.seat else None
                )
            return cause if err.seat == self.seat else None
        if isinstance(err, SlowDecision):
            return err if err.seat == self.seat else None
        return err

    def failure(self) -> str | None:
        """Why the bot stopped before its game ended, in a few words: "raised
        ValueError: ..." (the last line of its traceback), "lost its stream:
        ...", or an illegal-action forfeit (None: it did not fail)."""
        err = self.error
        if err is None:
            return None
        if isinstance(err, IllegalActions | SlowDecision | BotExited):
            return str(err)
        if isinstance(err, ServerError):
            return f"lost its stream: {err}"
        what = traceback.format_exception_only(err)[-1].strip()
        if isinstance(self.task.exception(), BotRaised) or not self.local:
            return "raised " + what
        return f"could not be played in this process: the server raised {what}"

    def tail(self) -> str:
        """The end of the traceback of what the bot raised ("" if nothing)."""
        err = self.error
        if err is None:
            return ""
        return "".join(traceback.format_exception(err))[-TAIL_CHARS:]

    async def stop(self) -> None:
        """Cancel the bot's task if it still runs, and wait (at most 5 s) for it."""
        if not self.task.done():
            self.task.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(self.task, 5.0)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[:60] or "bot"


class ExternalSeat:
    """An external bot's process for one game: the seat's token in its
    environment, stdout discarded, stderr appended to its log file (or a
    temporary file), in a process group of its own that dies with us."""

    def __init__(
        self,
        seat: int,
        entrant: Entrant,
        process: asyncio.subprocess.Process,
        log_file: IO[bytes],
        offset: int,
        path: str,
    ) -> None:
        self.seat = seat
        self.entrant = entrant
        self.process = process
        self.log_file = log_file
        self.offset = offset
        self.path = path
        self.waiter: asyncio.Task[int] = asyncio.create_task(process.wait())

    @classmethod
    async def start(
        cls,
        seat: int,
        entrant: Entrant,
        address: str,
        table_id: str,
        token: str,
        log_dir: str | None,
        worker: str,
        header: str,
    ) -> ExternalSeat:
        """Start the command. Raises OSError when it cannot be started."""
        if log_dir:
            path = str(Path(log_dir) / f"{_slug(entrant.label)}.{_slug(worker)}.log")
            log_file: IO[bytes] = open(path, "a+b")  # noqa: SIM115 - read back by tail()
        else:
            path = ""
            log_file = tempfile.TemporaryFile()  # noqa: SIM115 - closed by stop()
        try:
            log_file.write(f"==== {header}\n".encode())
            log_file.flush()
            offset = log_file.tell()
            env = dict(
                os.environ,
                UNO_SERVER=address,
                UNO_TABLE=table_id,
                UNO_TOKEN=token,
                UNO_SEAT=str(seat),
            )
            process = await procs.spawn(list(entrant.command), env=env, stderr=log_file.fileno())
        except BaseException:
            log_file.close()
            raise
        return cls(seat, entrant, process, log_file, offset, path)

    def tail(self, limit: int = TAIL_CHARS) -> str:
        """The end of what the bot wrote to stderr in this game."""
        try:
            self.log_file.flush()
            self.log_file.seek(self.offset)
            data = self.log_file.read()
            self.log_file.seek(0, os.SEEK_END)
        except (OSError, ValueError):
            return ""
        return data.decode("utf-8", "replace")[-limit:]

    def failure(self) -> str | None:
        """Why it failed, if it exited (every exit before the game's end is one)."""
        code = self.process.returncode
        if code is None:
            return None
        return f"exited with code {code}"

    async def stop(self, grace: float = 2.0) -> int | None:
        """End the command and its process group (SIGTERM, SIGKILL after ``grace`` seconds), close
        its log; returns its exit code."""
        code = await procs.end(self.process, grace)
        self.waiter.cancel()
        with contextlib.suppress(BaseException):
            await self.waiter
        self.log_file.close()
        return code


Player = BotSeat | ExternalSeat


# ------------------------------------------------------------------ watches


@dataclass
class Outcome:
    """What a watch saw of a finished (or abandoned) game."""

    over: bool = False
    capped: bool = False
    cap: int = 0
    scores: list[int] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    actions: int = 0
    rounds: int = 0
    decisions: list[int] | None = None  #: per seat (the server's record), None if unknown
    think_ms: list[float] | None = None
    timeouts: list[int] = field(default_factory=list)
    stand_in: list[int] = field(default_factory=list)


class TableWatch:
    """Watches a table of the server embedded in this process, through the
    table itself (no stream, no cost): its record of every action, and its
    count of every seat's refused intents (a bot of any kind, external too,
    forfeits past ``setup``'s limits: :func:`illegal_forfeit`)."""

    def __init__(self, table: Any, setup: Setup) -> None:
        self.table = table
        self.setup = setup

    async def open(self) -> None:
        """Nothing to open: the table is in this process."""
        return None

    async def _until(self, condition: Any) -> None:
        # Checked and waited for in one step of this task: no change can slip between.
        while not condition():
            await self.table.wait_for_change()

    async def connected(self) -> None:
        """Wait until every seat is taken and its stream open."""
        await self._until(lambda: all(s.occupied and s.connected for s in self.table.seats))

    def is_over(self) -> bool:
        """True once the game is over (or the table closing)."""
        return self.table.state is TableState.FINISHED or self.table.closing

    async def over(self) -> None:
        """Wait until :meth:`is_over`, a seat forfeits (:meth:`forfeit`), or
        the timer or a stand-in played a seat (:meth:`void`)."""
        await self._until(lambda: self.is_over() or self.forfeit() is not None or self.void())

    def void(self) -> bool:
        """True once the timer or a stand-in made an action: the game can no
        longer count (:func:`_status`), so it need not be played out."""
        return self.table.history.server_made()

    def forfeit(self) -> tuple[int, str] | None:
        """(seat, why) of the first seat whose refused intents went beyond the
        match's limits (the table counts them), or None."""
        for seat in self.table.seats:
            why = illegal_forfeit(seat.refusals, seat.refused_in_row, self.setup)
            if why is not None:
                return seat.index, f"{why}; the last: {seat.last_refusal}"
        return None

    def refusals(self) -> list[int | None]:
        """Per seat: its intents refused in this game (the table's count)."""
        return [seat.refusals for seat in self.table.seats]

    def races(self) -> list[int | None]:
        """Per seat: its races lost in this game (the table's count)."""
        return [seat.races for seat in self.table.seats]

    def record(self) -> str | None:
        """The game's full record as the table keeps it, packed
        (:func:`.store.pack_record`); None before the start."""
        if self.table.game is None:
            return None
        return pack_record(self.table.record())

    def outcome(self) -> Outcome:
        """The game as the table recorded it: who made every action (player, timer, stand-in),
        scores, winners."""
        table = self.table
        game = table.game
        n = len(table.seats)
        out = Outcome(timeouts=[0] * n, stand_in=[0] * n)
        if game is None:
            return out
        decisions = [0] * n
        think = [0.0] * n
        previous = 0
        for (seat, _action), source, ms in zip(
            table.history, table.history.sources, table.history.times_ms
        ):
            if source == "timer":
                out.timeouts[seat] += 1
            elif source == "stand_in":
                out.stand_in[seat] += 1
            elif source == "player":
                decisions[seat] += 1
                think[seat] += max(0, ms - previous)
            previous = ms
        outcome = game.outcome()
        out.over = outcome is not None
        out.capped = outcome is not None and not outcome.winners
        game_capped = len(table.history) >= MAX_GAME_ACTIONS
        out.cap = MAX_GAME_ACTIONS if game_capped else table.max_round_actions
        out.scores = list(game.scores)
        out.winners = list(outcome.winners) if outcome is not None else []
        out.actions = len(table.history)
        out.rounds = game.round_number
        out.decisions = decisions
        out.think_ms = think
        return out

    async def close(self) -> None:
        """Nothing to close."""
        return None


class SpectatorWatch:
    """Watches a table of another server through a spectator stream."""

    def __init__(self, conn: Connection, table_id: str, seats: int) -> None:
        self.session = conn.spectate(table_id)
        self.n = seats
        self.timeouts = [0] * seats
        self.stand_in = [0] * seats
        self.capped = 0
        self.updates = 0
        self.started = False
        self.ended = False
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def open(self) -> None:
        """Open the spectator stream and start reading it."""
        self._task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for received in self.session:
                message = received.message
                state = self.session.state
                if state.commitment:
                    self.started = True
                if isinstance(message, Event):
                    if message.kind is EventKind.TIMED_OUT and 0 <= message.player < self.n:
                        self.timeouts[message.player] += 1
                    elif message.kind is EventKind.ROUND_CAPPED:
                        self.capped = message.count or 1
                elif isinstance(message, Update) and self.started:
                    self.updates += 1
                if self.started and isinstance(message, SeatsChanged | Update):
                    for info in state.seats:
                        if info.bot and info.occupied and not info.connected:
                            self.stand_in[info.seat] = 1
                self._changed.set()
        except ServerError as err:
            log.info("spectator stream of %s ended: %s", self.session.table_id, err)
        finally:
            self.ended = True
            self._changed.set()

    async def _until(self, condition: Any) -> None:
        while not condition():
            if self.ended:
                raise ServerError("UNAVAILABLE", "the table's spectator stream ended")
            self._changed.clear()
            await self._changed.wait()

    async def connected(self) -> None:
        """Wait until every seat is taken and connected. Raises ServerError when the stream ends
        first."""

        def ready() -> bool:
            seats = self.session.state.seats
            return len(seats) == self.n and all(s.occupied and s.connected for s in seats)

        await self._until(ready)

    def is_over(self) -> bool:
        """True once the stream showed the game's end (its reveal, or the game-over phase)."""
        view = self.session.state.view
        return self.session.state.reveal is not None or (
            view is not None and view.phase is Phase.GAME_OVER
        )

    async def over(self) -> None:
        """Wait until :meth:`is_over`. Raises ServerError when the stream ends first."""
        await self._until(self.is_over)

    def forfeit(self) -> tuple[int, str] | None:
        """None: a spectator sees no refusal (the bots' own counts do,
        :class:`RefusalCount`; external bots' are not seen)."""
        return None

    def refusals(self) -> list[int | None]:
        """Per seat: None, not seen by a spectator."""
        return [None] * self.n

    def races(self) -> list[int | None]:
        """Per seat: None, not seen by a spectator."""
        return [None] * self.n

    def record(self) -> str | None:
        """None: a spectator does not see the hands (the remote server's own
        store, ``uno serve --db``, may hold the game)."""
        return None

    def outcome(self) -> Outcome:
        """The game as the stream showed it (actions counted from its updates; no per-seat
        decisions)."""
        view = self.session.state.view
        out = Outcome(timeouts=list(self.timeouts), stand_in=list(self.stand_in))
        out.over = self.is_over()
        out.capped = bool(self.capped)
        out.cap = self.capped
        if view is not None:
            out.scores = list(view.scores)
            out.winners = list(view.game_winners)
            out.rounds = view.round_number
        out.actions = max(0, self.updates - out.rounds)
        return out

    async def close(self) -> None:
        """Close the stream and its reader."""
        await self.session.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task


Watch = TableWatch | SpectatorWatch


# ------------------------------------------------------------------ a game


@dataclass
class GameContext:
    """A worker's means to play games: its connection to the server (None:
    every game is played in this process, :meth:`Setup.in_process`), the
    server's address (for external bots), the embedded server's lobby when
    there is one."""

    setup: Setup
    conn: Connection | None
    address: str
    embedded: Lobby | None = None  #: the lobby of the server embedded in this process
    worker: str = "local"
    rules: RuleSet = field(init=False)
    #: whom the lobby calls go to: the embedded server's lobby itself
    #: (:class:`.embedded.EmbeddedLobby`), or over gRPC (``conn``) to
    #: ``--server`` or with ``--network``
    lobby: Connection | EmbeddedLobby = field(init=False)

    def __post_init__(self) -> None:
        self.rules = self.setup.ruleset()
        if self.embedded is not None and not self.setup.network:
            self.lobby = EmbeddedLobby(self.embedded)
        else:
            assert self.conn is not None
            self.lobby = self.conn

    def watch(self, table_id: str, seats: int) -> Watch:
        """A watch of the table: the table itself when the server is embedded here, else a spectator
        stream."""
        if self.embedded is not None:
            return TableWatch(self.embedded.get(table_id), self.setup)
        assert self.conn is not None
        return SpectatorWatch(self.conn, table_id, seats)


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


async def _until_or_failure(
    waiting: asyncio.Future[Any], players: list[Player], timeout: float, watch: Watch
) -> None:
    """Wait for ``waiting``; raise _Failed when a player fails first, and
    TimeoutError after ``timeout`` seconds. An external bot that exits with
    code 0 fails only if the game does not end right after (it may have
    seen the end first)."""
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


def _status(result: GameResult, outcome: Outcome, entrants: Sequence[Entrant]) -> None:
    """Set the result's status and reason from what the watch saw."""
    labels = [entrants[e].label for e in result.seats]
    server_played = [
        f"seat {s + 1} ({labels[s]}): "
        + ", ".join(
            part
            for part in (
                f"{outcome.timeouts[s]} time forfeit{'s' if outcome.timeouts[s] != 1 else ''}"
                if outcome.timeouts[s]
                else "",
                "played by the server's stand-in" if outcome.stand_in[s] else "",
            )
            if part
        )
        for s in range(len(labels))
        if outcome.timeouts[s] or outcome.stand_in[s]
    ]
    if server_played:
        result.status, result.reason = VOID, "; ".join(server_played)
    elif outcome.capped:
        result.status = ADJUDICATED
        what = "the game" if outcome.cap >= MAX_GAME_ACTIONS else "a round"
        result.reason = f"{what} reached the cap of {outcome.cap:,} actions: no winner"
    elif outcome.over:
        result.status = FINISHED
    else:
        result.status, result.reason = ERROR, "the game did not end"


async def play_game(ctx: GameContext, spec: GameSpec) -> GameResult:
    """Play game ``spec`` and return its record (never raises for what a
    game can go through: a refusal of the server, a crash, a timeout;
    cancelling it abandons the game and ends its bots)."""
    setup = ctx.setup
    entrants = setup.entrants
    n = len(spec.seats)
    result = GameResult(
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
    conn, lobby = ctx.conn, ctx.lobby
    title = f"match {spec.seed}" + (f" r{spec.rotation}" if spec.rotation else "")
    players: list[Player] = []
    tokens: list[str] = []
    watch: Watch | None = None
    local: LocalSeats | None = None
    over = False
    try:
        table = await lobby.create_table(
            seats=n,
            rules=ctx.rules,
            title=title,
            turn_seconds=setup.move_time,
            away_grace=setup.away_grace,
            window_ms=setup.window_ms,
            seed=spec.seed,
            max_round_actions=setup.max_actions,
        )
        result.table_id = table.table_id

        def halt() -> bool:  # a forfeit: its bots are asked nothing more
            return watch is not None and watch.forfeit() is not None

        if (
            ctx.embedded is not None
            and not setup.network
            and not all(entrants[e].external for e in spec.seats)
        ):
            local = LocalSeats(ctx.embedded.get(table.table_id), halt=halt)  # no wire
        for seat, e in enumerate(spec.seats):
            joined = await lobby.join_table(table.table_id, entrants[e].name, seat=seat)
            tokens.append(joined.seat_token)
        watch = ctx.watch(table.table_id, n)
        await watch.open()
        for seat, e in enumerate(spec.seats):
            entrant = entrants[e]
            if entrant.external:
                header = (
                    f"game {spec.index} (seed {spec.seed}), table {table.table_id}, seat {seat + 1}"
                )
                try:
                    players.append(
                        await ExternalSeat.start(
                            seat,
                            entrant,
                            ctx.address,
                            table.table_id,
                            tokens[seat],
                            setup.log_dir,
                            ctx.worker,
                            header,
                        )
                    )
                except OSError as err:
                    result.status = CRASHED
                    result.reason = f"seat {seat + 1} ({entrant.label}) could not start: {err}"
                    result.crash = {
                        "seat": seat,
                        "label": entrant.label,
                        "code": None,
                        "stderr": str(err),
                    }
                    return result
            else:
                try:
                    players.append(
                        BotSeat.start(
                            seat,
                            entrant,
                            conn,
                            table.table_id,
                            tokens[seat],
                            spec.bot_seed(seat),
                            ctx.rules,
                            RefusalCount(setup) if ctx.embedded is None else None,
                            local,
                            float(setup.move_time),
                        )
                    )
                except Exception as err:  # a bot of one's own that cannot be made
                    result.status = CRASHED
                    result.reason = (
                        f"seat {seat + 1} ({entrant.label}) raised "
                        + traceback.format_exception_only(err)[-1].strip()
                        + " when it was made"
                    )
                    result.crash = {
                        "seat": seat,
                        "label": entrant.label,
                        "code": None,
                        "stderr": traceback.format_exc()[-TAIL_CHARS:],
                    }
                    return result
        connected = asyncio.ensure_future(watch.connected())
        try:
            await _until_or_failure(connected, players, setup.connect_timeout, watch)
        finally:
            connected.cancel()
        await lobby.start_game(table.table_id, tokens[0])
        start = time.monotonic()
        if spec.fault == "exit-worker":  # tests: a worker lost in the middle of a game
            os._exit(3)
        ended = asyncio.ensure_future(watch.over())
        try:
            await _until_or_failure(ended, players, setup.game_timeout, watch)
        finally:
            ended.cancel()
        result.duration = time.monotonic() - start
        forfeit = watch.forfeit()
        if forfeit is not None:
            raise _Forfeited(*forfeit)
        over = watch.is_over()  # (else void already: stopped where it stands)
        if over:
            await _finish(players)
        outcome = watch.outcome()
        _status(result, outcome, entrants)
        result.scores = outcome.scores
        result.winners = outcome.winners if result.status == FINISHED else []
        result.actions = outcome.actions
        result.rounds = outcome.rounds
        result.timeouts = outcome.timeouts
        result.stand_in = outcome.stand_in
        _decisions(result, outcome, players)
        for player in players:  # an exit code other than 0 is a failure, even at the end
            if isinstance(player, ExternalSeat) and player.process.returncode not in (0, None):
                _crashed(result, player, f"exited with code {player.process.returncode}")
                break
            if isinstance(player, BotSeat) and (why := player.failure()):
                _failed(result, player, why)
                break
    except _Failed as failed:
        if watch is not None:
            _so_far(result, watch.outcome())
        _failed(result, failed.player, failed.why)
    except _Forfeited as forfeited:
        seat = forfeited.seat
        if watch is not None:
            _so_far(result, watch.outcome())
        _forfeited(result, seat, entrants[spec.seats[seat]].label, forfeited.why)
    except TimeoutError:
        result.status = ERROR
        result.reason = (
            f"the game did not end within {setup.game_timeout:g} s"
            if watch is not None and tokens and len(players) == n
            else "timed out"
        )
        if isinstance(watch, TableWatch) and (game := watch.table.game) is not None:
            mover = game.current
            result.reason += f"; seat {mover + 1} ({entrants[spec.seats[mover]].label}) was to move"
    except ServerError as err:
        result.status = ERROR
        result.reason = f"the server refused: {err.status}: {err.details}"
    finally:
        for player in players:
            await player.stop()
        if local is not None:  # (it may have no seat yet)
            await local.stop()
        if watch is not None:
            _refusals(result, watch, players)
            result.packed_record = watch.record() if setup.records else None
            await watch.close()
        if not over and tokens and ctx.embedded is not None:  # abandoned, at our own server:
            with contextlib.suppress(LobbyError):  # stopped where it stands
                ctx.embedded.close_table(result.table_id)
        elif not over and tokens:  # abandoned: the server's bots play the seats out
            for token in tokens:
                with contextlib.suppress(ServerError, TimeoutError, asyncio.CancelledError):
                    await asyncio.wait_for(lobby.leave_table(result.table_id, token), 5.0)
    return result


async def _finish(players: list[Player]) -> None:
    """After the game's end: bots' streams end by themselves, external bots
    get :data:`EXIT_GRACE` seconds to exit before they are ended."""
    waiters = [p.waiter for p in players if not p.waiter.done()]
    if waiters:
        await asyncio.wait(waiters, timeout=EXIT_GRACE)


def _so_far(result: GameResult, outcome: Outcome) -> None:
    """How far a game stopped early went: scores, actions, rounds, and the
    turn timer's and stand-in's actions per seat."""
    result.scores = outcome.scores
    result.actions = outcome.actions
    result.rounds = outcome.rounds
    result.timeouts = outcome.timeouts
    result.stand_in = outcome.stand_in


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


def teams_format(rules: RuleSet) -> bool:
    """True when the winners of a game are a team (both partners win)."""
    return rules.format is GameFormat.TEAMS
