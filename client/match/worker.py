"""A worker: plays the games it is handed, one at a time, at its own
embedded server (its Python entrants in its process, the others over gRPC)
or at the match's ``--server`` (over gRPC).

It runs in the runner's process (:class:`GameRunner` on the runner's event
loop, for one game at a time), in a worker process of its own (``python -m
unoplay.client.match``: one core each, which is the point: a Python
event loop is one core), or in a Ray actor (:mod:`.cluster`).

The worker process speaks JSON lines: the runner writes ``{"setup": ...}``
then ``{"game": spec}`` lines on its stdin; it answers ``{"ready": ...}``
and one ``{"result": ...}`` line per game on stdout. End of input: it stops
after the game in hand. SIGTERM: it abandons the game in hand (its bots are
ended) and exits. It asks the kernel to kill it when the runner dies
(:mod:`.procs`), and it is in a session of its own, so the terminal's Ctrl-C
reaches only the runner.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import signal
import sys
from typing import IO, Any

from ..sdk import Connection
from . import procs
from .game import GameContext, Setup, play_game
from .result import GameResult
from .schedule import GameSpec

log = logging.getLogger("unoplay.match")

#: The runner's pid, in a worker process's environment.
PARENT_ENV = "UNOPLAY_MATCH_PARENT"
#: A finished table of an embedded server is dropped this soon (seconds): a
#: worker plays thousands of games and keeps no finished table it will not read.
FINISHED_TTL = 5.0


class GameRunner:
    """Plays games for one worker: an embedded server (unless the setup names
    one) and one connection, made on the running event loop. When every game
    is played in this process (:meth:`.game.Setup.in_process`) the embedded
    server is its lobby alone: no port, no connection."""

    def __init__(self, setup: Setup, worker: str = "local") -> None:
        self.setup = setup
        self.worker = worker
        self.server: Any = None
        self.lobby: Any = None  # the embedded server's lobby
        self.ctx: GameContext | None = None

    async def start(self) -> None:
        """Start the embedded server (if any) and connect."""
        for path in reversed(self.setup.sys_path):  # bots of one's own import as in the runner
            if path not in sys.path:
                sys.path.insert(0, path)
        address = self.setup.server or ""
        conn = None
        if not address:
            from unoplay.server.limits import Limits
            from unoplay.server.lobby import Lobby
            from unoplay.server.service import start_server

            limits = dataclasses.replace(Limits(), finished_ttl=FINISHED_TTL)
            if self.setup.in_process():
                self.lobby = Lobby(limits=limits)
            else:
                self.server = await start_server("127.0.0.1", 0, limits=limits)
                self.lobby = self.server.lobby
                address = self.server.address
        if address:
            conn = Connection(address)
            try:
                await conn.wait_ready()
            except BaseException:
                await conn.close()
                await self.close()
                raise
        self.ctx = GameContext(self.setup, conn, address, self.lobby, self.worker)

    async def play(self, spec: GameSpec) -> GameResult:
        """Play one game (see :func:`.game.play_game`)."""
        if self.ctx is None:
            await self.start()
        assert self.ctx is not None
        return await play_game(self.ctx, spec)

    async def close(self) -> None:
        """Close the connection and stop the embedded server."""
        if self.ctx is not None:
            if self.ctx.conn is not None:
                await self.ctx.conn.close()
            self.ctx = None
        if self.server is not None:
            await self.server.stop(None)
        elif self.lobby is not None:
            self.lobby.shut_down()
        self.server = self.lobby = None


#: Where the worker's answers go: the runner's pipe, which was stdout
#: (:func:`main` moves it off file descriptor 1, so that what bots print goes
#: to the worker's error output, its log, and never into the answers).
_answers: IO[str] | None = None


def _write(message: dict[str, Any]) -> None:
    assert _answers is not None
    _answers.write(json.dumps(message) + "\n")
    _answers.flush()


async def _serve() -> int:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**24)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    main = asyncio.current_task()
    assert main is not None
    loop.add_signal_handler(signal.SIGTERM, main.cancel)
    line = await reader.readline()
    if not line:
        return 0
    setup = Setup.from_dict(json.loads(line)["setup"])
    runner = GameRunner(setup, worker=os.environ.get("UNOPLAY_MATCH_WORKER", f"w{os.getpid()}"))
    try:
        await runner.start()
        _write({"ready": {"pid": os.getpid()}})
        while line := await reader.readline():
            spec = GameSpec.from_dict(json.loads(line)["game"])
            result = await runner.play(spec)
            _write({"result": result.to_dict()})
    except asyncio.CancelledError:
        return 0
    finally:
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(runner.close(), 10.0)
    return 0


def main() -> int:
    """The worker process's entry point."""
    global _answers
    _answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # print() and C code writing to stdout: the error output
    sys.stdout = sys.stderr
    parent = int(os.environ.get(PARENT_ENV, "0") or 0)
    procs.die_with_parent()
    if parent and not procs.parent_alive(parent):
        return 1  # the runner died before we could ask to die with it
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the runner decides, not the terminal
    logging.basicConfig(
        level=logging.INFO if os.environ.get("UNOPLAY_MATCH_VERBOSE") else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    try:
        return asyncio.run(_serve())
    except KeyboardInterrupt:  # pragma: no cover - SIGINT is ignored
        return 130


if __name__ == "__main__":
    sys.exit(main())
