"""The runner's side of its workers: where a game is sent to be played.

Every kind has ``start()``, ``play(spec) -> GameResult`` (raises
:class:`WorkerLost` when the worker died with the game: the runner plays
it again elsewhere), ``restart()`` and ``close(abandon)``:

* :class:`InlineWorker`: on the runner's own event loop (one game at a time);
* :class:`ProcessWorker`: a worker process (:mod:`.worker`), one core each;
* ``RayWorker`` (:mod:`.cluster`): a Ray actor, anywhere in a cluster.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import pickle
import signal
import sys
import tempfile
from pathlib import Path
from typing import IO, Any, Protocol

from . import procs
from .config import MatchConfig
from .result import GameResult
from .schedule import GameSpec
from .worker import PARENT_ENV, GameRunner

#: Seconds a worker process has to start (import, start its server).
START_TIMEOUT = 120.0
#: Seconds a worker process whose answers ended has to exit (its exit code is reported).
END_WAIT = 10.0
#: Seconds a worker may take over a game beyond the game's own bounds (its
#: connect and game timeouts, which a bot that never returns in the worker's
#: process keeps from firing) before it is taken for lost.
PLAY_MARGIN = 120.0


def play_bound(config: MatchConfig) -> float:
    """Seconds a worker may hold a game of the match ``config`` before it
    is taken for lost: the game's own bounds and :data:`PLAY_MARGIN`."""
    return config.connect_timeout + config.game_timeout + PLAY_MARGIN


class WorkerLost(RuntimeError):
    """The worker died (or could not start) while it held a game.

    ``code`` is its process's exit status when it ended by itself (negative:
    the signal that killed it; None when not known: a Ray actor, a lost
    machine). ``culprit`` is what the worker process saw of an
    ``os._exit`` it was ended by (:func:`.worker.watch_exits`): ``code``,
    ``bot`` (True when a bot's code called it), ``seat`` (the seat whose
    bot was deciding, None when not known), ``kind`` (the bot kind being
    made, "" when not known), ``at`` (where, in the bot's code) and
    ``stack`` (its frames, as text); None when it was not seen."""

    def __init__(
        self,
        message: str,
        *,
        code: int | None = None,
        culprit: dict[str, Any] | None = None,
        hung: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.culprit = culprit
        #: the stacks of a worker that gave no answer within its bound (its
        #: threads' frames, as faulthandler wrote them; "" when none came):
        #: None when it did answer
        self.hung = hung

    @property
    def exited(self) -> str:
        """How the process ended, for people (:func:`exit_text`)."""
        return exit_text(self.code)


def exit_text(code: int | None) -> str:
    """A process's exit status for people: "exited with code 3", "was killed
    by signal 9" (negative ``code``), "" for None (not known)."""
    if code is None:
        return ""
    return f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"


class Worker(Protocol):
    """Where games are played (see the module docstring)."""

    name: str

    async def start(self) -> None:
        """Make the worker ready. Raises WorkerLost (or the server's errors) when it cannot be."""

    async def play(self, spec: GameSpec) -> GameResult:
        """Play one game; returns its record. Raises WorkerLost when the worker died with it."""

    async def restart(self) -> None:
        """Replace a lost worker by a new one."""

    async def close(self, abandon: bool = False) -> None:
        """Stop the worker; ``abandon``: at once, its game in hand given up."""


class InlineWorker:
    """Games on the runner's event loop."""

    def __init__(self, config: MatchConfig, name: str = "local") -> None:
        self.name = name
        self.runner = GameRunner(config, name)

    async def start(self) -> None:
        """Start the embedded server and connect."""
        await self.runner.start()

    async def play(self, spec: GameSpec) -> GameResult:
        """Play one game on this event loop."""
        return await self.runner.play(spec)

    async def restart(self) -> None:
        """Stop and start again."""
        await self.runner.close()
        await self.runner.start()

    async def close(self, abandon: bool = False) -> None:
        """Stop the server and the connection."""
        await self.runner.close()


class ProcessWorker:
    """A worker process: JSON lines on its stdin and stdout, its stderr
    (grpc's and the server's log lines) to a log file in the match's
    ``log_dir`` (else a temporary file), never the terminal."""

    def __init__(self, config: MatchConfig, name: str) -> None:
        self.name = name
        self.config = config
        self.log_dir = str(config.log_dir) if config.log_dir else None
        self.process: asyncio.subprocess.Process | None = None
        self.log_file: IO[bytes] | None = None
        self._lock = asyncio.Lock()

    async def start(self) -> None:
        """Start the process and hand it the match's config. Raises WorkerLost when it does not answer ready
        within START_TIMEOUT seconds."""
        if self.log_dir:
            path = Path(self.log_dir) / f"worker-{self.name}.log"
            self.log_file = open(path, "a+b")  # noqa: SIM115 - read back by stderr_tail()
        else:
            self.log_file = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()
        env = dict(os.environ, UNOPLAY_MATCH_WORKER=self.name)
        env[PARENT_ENV] = str(os.getpid())
        env.setdefault("GRPC_VERBOSITY", "ERROR")
        self.process = await procs.spawn(
            [sys.executable, "-m", "unoplay.client.match"],
            env=env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=self.log_file.fileno(),
            limit=2**24,
            wrap=False,  # it asks for PR_SET_PDEATHSIG itself, first thing
        )
        self._send({"config": base64.b64encode(pickle.dumps(self.config)).decode("ascii")})
        try:
            reply = await asyncio.wait_for(self._receive(), START_TIMEOUT)
        except TimeoutError:
            reply = None
        if reply is None or "ready" not in reply:
            raise WorkerLost(f"worker {self.name} did not start: {self.stderr_tail()}")

    def _send(self, message: dict[str, object]) -> None:
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write((json.dumps(message) + "\n").encode())

    async def _receive(self) -> dict[str, object] | None:
        assert self.process is not None and self.process.stdout is not None
        line = await self.process.stdout.readline()
        if not line:
            return None
        reply: dict[str, object] = json.loads(line)
        return reply

    def stderr_tail(self, limit: int = 2000) -> str:
        """The last ``limit`` bytes of the process's error output, as text."""
        if self.log_file is None:
            return ""
        try:
            self.log_file.flush()
            size = self.log_file.seek(0, os.SEEK_END)
            self.log_file.seek(max(0, size - limit))
            return self.log_file.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""

    async def play(self, spec: GameSpec) -> GameResult:
        """Hand the process one game and wait for its result. Raises
        WorkerLost when the process died, or gave no answer within
        :func:`play_bound` seconds (:meth:`restart` ends it)."""
        async with self._lock:
            if self.process is None or self.process.returncode is not None:
                raise WorkerLost(f"worker {self.name} is not running")
            bound = play_bound(self.config)
            try:
                self._send({"game": spec.to_dict()})
                assert self.process.stdin is not None
                await self.process.stdin.drain()
                reply = await asyncio.wait_for(self._receive(), bound)
            except (ConnectionError, BrokenPipeError) as err:
                raise WorkerLost(f"worker {self.name}: {err}") from None
            except TimeoutError:
                raise WorkerLost(
                    f"worker {self.name} gave no answer within {bound:g} s during game "
                    f"{spec.index} (a bot that never returns?)",
                    hung=await self._stacks(),
                ) from None
            culprit: dict[str, Any] | None = None
            if reply is not None and "exit" in reply:  # os._exit() in it: what it saw
                said = reply["exit"]
                culprit = said if isinstance(said, dict) else None
                reply = None
            if reply is None or "result" not in reply:
                code = await self._ended()
                raise WorkerLost(
                    f"worker {self.name} {exit_text(code) or 'stopped answering'} "
                    f"during game {spec.index}",
                    code=code,
                    culprit=culprit,
                )
            data = reply["result"]
            assert isinstance(data, dict)
            return GameResult.from_dict(data)

    async def _stacks(self) -> str:
        """The stacks of the process's threads: it writes them to its error
        output on SIGUSR1 (faulthandler, from C, even while a bot holds the
        interpreter); read back once they stop growing, within
        :data:`END_WAIT` seconds ("" if none came)."""
        assert self.process is not None and self.log_file is not None
        self.log_file.flush()
        offset = self.log_file.seek(0, os.SEEK_END)
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGUSR1)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + END_WAIT
        text = ""
        while loop.time() < deadline:  # polled: another process's output, with a bound
            await asyncio.sleep(0.1)
            self.log_file.seek(offset)
            now = self.log_file.read().decode("utf-8", "replace")
            if now == text and "most recent call first" in now:
                break
            text = now
        self.log_file.seek(0, os.SEEK_END)
        return text[-4000:]

    async def _ended(self) -> int | None:
        """The process's exit status once its answers stopped (negative: the
        signal that killed it); None if it still runs after :data:`END_WAIT` seconds."""
        assert self.process is not None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), END_WAIT)
        return self.process.returncode

    async def restart(self) -> None:
        """End the process at once and start a new one."""
        await self.close(abandon=True)
        await self.start()

    async def close(self, abandon: bool = False) -> None:
        """Stop the worker: after its game in hand (end of input), or at once
        (``abandon``: SIGTERM, its game's bots are ended); SIGKILL for one
        that does not stop."""
        process = self.process
        if process is not None:
            if process.stdin is not None and not process.stdin.is_closing():
                process.stdin.close()
            if not abandon and process.returncode is None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(process.wait(), 30.0)
            await procs.end(process, grace=10.0)
            self.process = None
        if self.log_file is not None:
            self.log_file.close()
            self.log_file = None
