"""Beyond one machine: the games of a match on a Ray cluster (``--ray``).

Every worker is a Ray actor (one CPU) that holds a :class:`~.worker.GameRunner`:
its own embedded server and the bots, on the actor's event loop, exactly as
a worker process runs them. The runner hands each actor one game at a time
and stores each result as it comes back, so a long run streams into its
SQLite file. An actor lost with its game (its process or its machine died)
is replaced and the game given to the next free actor; a game index is
stored once, so nothing is counted twice.

Ray is an optional extra: ``pip install 'unoplay[cluster]'``. ``--ray
local`` starts a Ray instance on this machine for the match; ``--ray auto``
joins the cluster this machine belongs to (``ray start``; ``RAY_ADDRESS``);
any other value is a cluster address (``ray://head:10001`` or
``head:6379``). Every node needs unoplay installed (and the commands of
external ``--seat`` bots); their error output stays in the nodes' log
directories (``--log-dir`` there), only a crash's tail comes back.
"""

from __future__ import annotations

import logging
from typing import Any

from .game import Setup
from .pool import WorkerLost
from .result import GameResult
from .schedule import GameSpec
from .worker import GameRunner

_started_here = False
_actor_class: Any = None


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        from .runner import MatchError

        raise MatchError(
            "--ray needs Ray, the cluster extra: pip install 'unoplay[cluster]'"
        ) from None
    return ray


def connect(address: str | None) -> Any:
    """Ray, initialised: as it is if already, else a local instance
    (``address`` None or "local") or the cluster at ``address``."""
    global _started_here
    ray = _ray()
    if not ray.is_initialized():
        options: dict[str, Any] = {
            "log_to_driver": False,  # the workers' output stays in Ray's log files
            "logging_level": logging.ERROR,
            "include_dashboard": False,
        }
        if address not in (None, "", "local"):
            options["address"] = address
        ray.init(**options)
        _started_here = True
    return ray


def shutdown() -> None:
    """Stop the Ray instance this module started (not one it found)."""
    global _started_here
    if _started_here:
        ray = _ray()
        ray.shutdown()
        _started_here = False


def cluster_cpus() -> int:
    """The cluster's CPUs (Ray's count)."""
    ray = _ray()
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


class MatchActor:
    """A Ray actor's body: a game runner with its own embedded server."""

    def __init__(self, setup: dict[str, Any], name: str) -> None:
        self.runner = GameRunner(Setup.from_dict(setup), name)

    async def start(self) -> str:
        """Start the actor's server and connection; returns ``host:pid``, where it runs."""
        await self.runner.start()
        import os
        import socket

        return f"{socket.gethostname()}:{os.getpid()}"

    async def play(self, spec: dict[str, Any]) -> dict[str, Any]:
        """Play one game (a :class:`GameSpec` as a dict); returns its GameResult as a dict."""
        result = await self.runner.play(GameSpec.from_dict(spec))
        return result.to_dict()

    async def close(self) -> None:
        """Stop the actor's server and connection."""
        await self.runner.close()


def _remote_class() -> Any:
    global _actor_class
    if _actor_class is None:
        ray = _ray()
        _actor_class = ray.remote(num_cpus=1, max_restarts=0)(MatchActor)
    return _actor_class


class RayWorker:
    """One Ray actor, seen from the runner."""

    def __init__(self, setup: Setup, name: str) -> None:
        self.setup = setup
        self.name = name
        self.actor: Any = None
        self.where = ""

    async def start(self) -> None:
        """Create the actor and start it. Raises WorkerLost when it cannot start."""
        ray = _ray()
        self.actor = _remote_class().remote(self.setup.to_dict(), self.name)
        try:
            self.where = await self.actor.start.remote()
        except ray.exceptions.RayError as err:
            raise WorkerLost(f"actor {self.name} did not start: {err}") from None

    async def play(self, spec: GameSpec) -> GameResult:
        """Play ``spec`` on the actor. Raises WorkerLost when the actor died with it."""
        ray = _ray()
        try:
            data = await self.actor.play.remote(spec.to_dict())
        except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError) as err:
            raise WorkerLost(
                f"actor {self.name} ({self.where}) was lost: {type(err).__name__}"
            ) from None
        result = GameResult.from_dict(data)
        result.worker = f"{self.name}@{self.where}"
        return result

    async def restart(self) -> None:
        """Kill the actor and start a new one (after a loss)."""
        self._kill()
        await self.start()

    def _kill(self) -> None:
        if self.actor is not None:
            ray = _ray()
            try:
                ray.kill(self.actor, no_restart=True)
            except Exception:  # already dead
                pass
            self.actor = None

    async def close(self, abandon: bool = False) -> None:
        """Stop the actor: its server first unless ``abandon``, then the actor itself."""
        if self.actor is not None and not abandon:
            ray = _ray()
            try:
                await self.actor.close.remote()
            except ray.exceptions.RayError:
                pass
        self._kill()


async def ray_workers(
    setup: Setup, count: int, address: str | None, limit: int | None = None
) -> list[Any]:
    """``count`` started actors (0: one per CPU of the cluster, at most ``limit``)."""
    import asyncio

    connect(address)
    if count <= 0:
        count = min(cluster_cpus(), limit or cluster_cpus())
    workers = [RayWorker(setup, f"ray{i}") for i in range(count)]
    started = await asyncio.gather(*(w.start() for w in workers), return_exceptions=True)
    failures = [r for r in started if isinstance(r, BaseException)]
    if failures:
        for w in workers:
            await w.close(abandon=True)
        from .runner import MatchError

        raise MatchError(f"the Ray actors could not start: {failures[0]}")
    return workers
