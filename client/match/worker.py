"""A worker: plays the games it is handed, one at a time, at its own
embedded server (its Python entrants in its process, the others over gRPC)
or at the match's ``--server`` (over gRPC).

It runs in the runner's process (:class:`GameRunner` on the runner's event
loop, for one game at a time), in a worker process of its own (``python -m
unoplay.client.match``: one core each, which is the point: a Python
event loop is one core), or in a Ray actor (:mod:`.cluster`).

The worker process speaks JSON lines: the runner writes ``{"config": ...}``
(its :class:`~.config.MatchConfig`, pickled, in base64)
then ``{"game": spec}`` lines on its stdin; it answers ``{"ready": ...}``
and one ``{"result": ...}`` line per game on stdout; a bot that ends the
process with ``os._exit()`` leaves an ``{"exit": ...}`` line first
(:func:`watch_exits`). End of input: it stops
after the game in hand. SIGTERM: it abandons the game in hand (its bots are
ended) and exits. It asks the kernel to kill it when the runner dies
(:mod:`.procs`), and it is in a session of its own, so the terminal's Ctrl-C
reaches only the runner.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import faulthandler
import inspect
import json
import logging
import os
import pickle
import signal
import sys
import traceback
from pathlib import Path
from types import FrameType
from typing import IO, Any, NoReturn

from ..sdk import Connection
from . import procs
from .config import MatchConfig
from .game import GameContext, play_game
from .result import GameResult
from .schedule import GameSpec

log = logging.getLogger("unoplay.match")

#: The runner's pid, in a worker process's environment.
PARENT_ENV = "UNOPLAY_MATCH_PARENT"
#: A finished table of an embedded server is dropped this soon (seconds): a
#: worker plays thousands of games and keeps no finished table it will not read.
FINISHED_TTL = 5.0


class GameRunner:
    """Plays games for one worker: an embedded server (unless the match's
    config names one) and one connection, made on the running event loop.
    When every game is played in this process
    (:meth:`.config.MatchConfig.in_process`) the embedded server is its lobby
    alone: no port, no connection."""

    def __init__(self, config: MatchConfig, worker: str = "local") -> None:
        self.config = config
        self.worker = worker
        self.server: Any = None
        self.lobby: Any = None  # the embedded server's lobby
        self.ctx: GameContext | None = None

    async def start(self) -> None:
        """Start the embedded server (if any) and connect."""
        for path in reversed(self.config.sys_path):  # bots of one's own import as in the runner
            if path not in sys.path:
                sys.path.insert(0, path)
        address = self.config.server or ""
        conn = None
        if not address:
            from unoplay.server.limits import Limits
            from unoplay.server.lobby import Lobby
            from unoplay.server.service import start_server

            limits = dataclasses.replace(Limits(), finished_ttl=FINISHED_TTL)
            if self.config.in_process():
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
        self.ctx = GameContext(self.config, conn, address, self.lobby, self.worker)

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
    config = pickle.loads(base64.b64decode(json.loads(line)["config"]))
    runner = GameRunner(config, worker=os.environ.get("UNOPLAY_MATCH_WORKER", f"w{os.getpid()}"))
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


#: Frames of a bot's code kept in an ``exit`` answer's stack.
EXIT_STACK_FRAMES = 8


def blame(frame: FrameType | None, roots: tuple[str, ...]) -> dict[str, Any]:
    """Whose code ``frame`` (the caller of ``os._exit``) is: ``bot`` True
    when it is not unoplay's own (``roots``: :func:`.entrants.unoplay_dirs`) and
    unoplay's code called it (a bot's method, or a helper of it: not a thread
    of its own, whose stack has no caller of ours); then ``seat``, the seat
    whose view the outermost of its frames holds (a ``decide(view, legal)``:
    None in ``observe``, or when the bot was being made), ``kind``, the bot
    kind being made or loaded ("" if none), ``at`` (``file:line in
    function``) and ``stack`` (its frames, innermost last). Costs nothing
    until the exit: it reads the frames then."""
    from unoplay.game.view import PlayerView

    def ours(f: FrameType) -> bool:
        return os.path.realpath(f.f_code.co_filename).startswith(roots)

    bot: list[FrameType] = []  # innermost first
    while frame is not None and not ours(frame):
        bot.append(frame)
        frame = frame.f_back
    if not bot or frame is None:
        return {"bot": False}
    seat = None
    for f in reversed(bot):  # the method unoplay called first: decide(view, legal)
        views = [v for v in f.f_locals.values() if isinstance(v, PlayerView)]
        if views:
            seat = views[0].seat
            break
    kind = ""
    caller: FrameType | None = frame
    while caller is not None and not kind:
        if caller.f_code.co_name in ("new_bot", "load_bot_factory") and ours(caller):
            kind = str(caller.f_locals.get("kind", ""))
        caller = caller.f_back
    inner = bot[0]
    at = f"{Path(inner.f_code.co_filename).name}:{inner.f_lineno} in {inner.f_code.co_name}"
    frames = traceback.extract_stack(inner, limit=len(bot))[-EXIT_STACK_FRAMES:]
    return {
        "bot": True,
        "seat": seat,
        "kind": kind,
        "at": at,
        "stack": "".join(traceback.format_list(frames)),
    }


def watch_exits() -> None:
    """Make ``os._exit`` in this process (not in a child it forks) answer
    ``{"exit": {"code": ..., and what :func:`blame` finds}}`` to the runner
    before the process ends as asked, so that a bot that ends its worker is
    named. Nothing is done per decision: the frames are read at the exit."""
    import posix

    from .entrants import unoplay_dirs

    real = os._exit
    pid = os.getpid()
    roots = unoplay_dirs()

    def _exit(status: int) -> NoReturn:
        if os.getpid() == pid:
            try:
                here = inspect.currentframe()
                seen = blame(here.f_back if here is not None else None, roots)
            except Exception:  # (to its log) the exit is still said
                traceback.print_exc()
                seen = {}
            with contextlib.suppress(Exception):
                _write({"exit": {"code": status, **seen}})
        real(status)

    os._exit = _exit
    # the same function under its C module's name (public, as os._exit, whose
    # underscore is the C name's: written through the module's dict, as ruff's
    # SLF001 exempts os._exit alone)
    vars(posix)["_exit"] = _exit


def main() -> int:
    """The worker process's entry point."""
    global _answers
    _answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # print() and C code writing to stdout: the error output
    sys.stdout = sys.stderr
    watch_exits()
    # A worker that gives no answer in time is asked for its threads' stacks
    # (the runner's pool: a bot that never returns is named by them).
    faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True)
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
