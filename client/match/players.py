"""The players of one game: a bot of the match's own playing its seat
through the SDK or in the worker's process (:class:`BotSeat`, timed by
:class:`TimedBot`), or an external bot's command started for the game
(:class:`ExternalSeat`, a child that dies with the runner: :mod:`.procs`).
Each says when it stopped (``waiter``), why it failed (``failure``) and the
end of what it left (``tail``)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import tempfile
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from unoplay.game.actions import Action
from unoplay.game.events import Event
from unoplay.game.rules import RuleSet
from unoplay.game.view import PlayerView
from unoplay.server.localseat import BotRaised, LocalSeats, SlowDecision

from ..sdk import Connection, ServerError, run_bot
from . import procs
from .adjudication import IllegalActions, RefusalCount
from .entrants import Entrant, new_bot

#: Characters of an external bot's error output (a bot's traceback) kept with a crash.
TAIL_CHARS = 2000


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
