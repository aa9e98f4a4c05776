"""Beyond one machine: the games of a match on a Ray cluster (``--ray``).

Every worker is a Ray actor (one CPU) that holds a :class:`~.worker.GameRunner`:
its own embedded server and the bots, on the actor's event loop, exactly as
a worker process runs them. The runner hands each actor one game at a time
and stores each result as it comes back, so a long run streams into its
SQLite file. An actor lost with its game (its process or its machine died)
is replaced and the game given to the next free actor; a game index is
stored once, so nothing is counted twice. Every wait on an actor has a
bound (:data:`START_TIMEOUT`, :func:`.pool.play_bound`, :data:`CLOSE_TIMEOUT`):
an actor that cannot be replaced (no CPU left once a node is lost) leaves
the match, and its games go to the others.

Ray is an optional extra: ``pip install 'unoplay[cluster]'``. ``--ray
local`` starts a Ray instance on this machine for the match; ``--ray auto``
joins the cluster this machine belongs to (``ray start``; ``RAY_ADDRESS``);
any other value is a cluster address (``ray://head:10001`` or
``head:6379``). Before Ray connects, the address must answer within
:data:`CONNECT_TIMEOUT` and take this machine's token (Ray's token
authentication), else a :class:`~.runner.MatchError` says which. Every node
needs unoplay installed (and the commands of external ``--seat`` bots);
bots of one's own that are files (``file.py:attr``) or modules no
distribution installed travel to the nodes in the actors' runtime
environment (``py_modules``). External bots' error output stays in the
nodes' log directories (``--log-dir`` there), only a crash's tail comes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib
import importlib.metadata
import logging
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .config import MatchConfig
from .entrants import adopt_bot_file, is_plugin
from .errors import MatchError
from .pool import WorkerLost, play_bound
from .result import GameResult
from .schedule import GameSpec
from .worker import GameRunner

#: Seconds a cluster's address has to accept a connection.
CONNECT_TIMEOUT = 5.0
#: Seconds an actor has to start (be placed on a node with a free CPU, import,
#: start its server); one that does not is given up (the cluster may have no
#: CPU left for it, e.g. after losing a node: Ray would keep it pending for ever).
START_TIMEOUT = 120.0
#: Seconds an actor has to stop its server when the match ends.
CLOSE_TIMEOUT = 30.0

log = logging.getLogger("unoplay.match")

_started_here = False
_actor_class: Any = None


def _error(message: str) -> Exception:
    return MatchError(message)


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise _error("--ray needs Ray, the cluster extra: pip install 'unoplay[cluster]'") from None
    return ray


def connect(address: str | None, runtime_env: dict[str, Any] | None = None) -> bool:
    """Initialise Ray, unless it is already (then return False): a local
    instance (``address`` None or "local") or a connection to the cluster at
    ``address`` ("auto": the one this machine belongs to), ``runtime_env``
    (Ray's) applying to every actor; return True. Raises MatchError, in one line, when there is no
    cluster, its address does not answer within :data:`CONNECT_TIMEOUT`
    seconds, it refuses this machine's token, or Ray cannot connect."""
    global _started_here
    ray = _ray()
    if ray.is_initialized():
        return False
    options: dict[str, Any] = {
        "log_to_driver": False,  # the workers' output stays in Ray's log files
        "logging_level": logging.ERROR,
        "include_dashboard": False,
        "runtime_env": runtime_env or None,
    }
    if address is not None and address not in ("", "local"):
        _check_cluster(ray, address)
        options["address"] = address
    try:
        ray.init(**options)
    except (ConnectionError, RuntimeError) as err:
        raise _error(f"--ray {address or 'local'}: {_first_line(err)}") from None
    _started_here = True
    return True


def _check_cluster(ray: Any, address: str) -> None:
    """Raise MatchError unless ``address`` ("auto" or a cluster address) leads
    to a cluster that answers and takes this machine's token."""
    from ray._private import services  # how ray.init finds "auto" and RAY_ADDRESS

    try:
        target = services.canonicalize_bootstrap_address(address)
    except ConnectionError:
        raise _error(
            f"--ray {address}: no Ray cluster on this machine (start one with "
            "'ray start --head', set RAY_ADDRESS, give its address, or use --ray local)"
        ) from None
    except ValueError:
        target = address  # ray:// or what Ray parses itself: ray.init says
    target = target or ""
    host, _, port = target.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT):
            pass
    except OSError as err:
        reason = "no answer" if isinstance(err, TimeoutError) else err.strerror or str(err)
        raise _error(
            f"--ray {address}: no Ray cluster answers at {host}:{port} "
            f"({reason} within {CONNECT_TIMEOUT:g} s)"
        ) from None
    if not target.startswith("ray://"):
        _check_token(ray, address, target)


def _check_token(ray: Any, address: str, gcs_address: str) -> None:
    """Raise MatchError when the cluster's GCS at ``gcs_address`` (``--ray
    address``) refuses this machine's token, or is no GCS (``ray.init`` would
    try for 20 s, printing each try)."""
    try:
        from ray._raylet import GcsClient  # type: ignore[attr-defined]
    except ImportError:  # another Ray: ray.init says
        return
    with _stderr_silenced():  # Ray's core logs each failed try there
        try:
            GcsClient(address=gcs_address).cluster_id  # noqa: B018 (the check)
        except ray.exceptions.AuthenticationError:
            raise _error(
                f"--ray {address}: the cluster refuses this machine's token; set "
                "RAY_AUTH_MODE=token and the cluster's token (~/.ray/auth_token, "
                "RAY_AUTH_TOKEN or RAY_AUTH_TOKEN_PATH) here as on its nodes"
            ) from None
        except Exception as err:  # something else answers there
            raise _error(
                f"--ray {address}: no Ray cluster at {gcs_address} ({_first_line(err)})"
            ) from None


@contextlib.contextmanager
def _stderr_silenced() -> Iterator[None]:
    """File descriptor 2 goes to /dev/null meanwhile (native code's output too)."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _first_line(err: BaseException) -> str:
    """The first line of ``err``'s message, or its type's name."""
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


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


def shipped_bots(config: MatchConfig) -> tuple[dict[str, Any], dict[str, str]]:
    """What the nodes may lack of the bots of one's own, and how the actors
    find it: Ray's runtime environment (``{"py_modules": [paths]}``, or {}
    for none) and, per bot file as written in its kind (``file.py`` of
    ``file.py:attr``), the SHA-256 of its content (hex). A ``module:attr``
    bot's top-level package travels unless a distribution installed it (or
    it is in the standard library). Raises MatchError when a bot's file
    cannot be read."""
    paths: list[str] = []
    files: dict[str, str] = {}
    installed = importlib.metadata.packages_distributions()
    for kind in {e.kind for e in config.entrants if is_plugin(e.kind)}:
        where = kind.rpartition(":")[0]
        if where.endswith(".py"):
            path = Path(where).resolve()
            try:
                files[where] = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError as err:
                raise _error(f"cannot read the bot file {where}: {err.strerror}") from None
            paths.append(str(path))
            continue
        top = where.partition(".")[0]
        if top in installed or top in sys.stdlib_module_names:
            continue
        module = importlib.import_module(top)  # parse_entrants imported it
        package = list(getattr(module, "__path__", ()))
        source = package[0] if package else getattr(module, "__file__", None)
        if source:
            paths.append(source)
    runtime_env = {"py_modules": sorted(set(paths))} if paths else {}
    return runtime_env, files


def _find_shipped(name: str, digest: str) -> Path | None:
    """The file called ``name`` with SHA-256 ``digest`` in a directory of
    ``sys.path`` (where Ray put the runtime environment's ``py_modules``), or None."""
    for entry in sys.path:
        candidate = Path(entry or ".") / name
        with contextlib.suppress(OSError):
            if hashlib.sha256(candidate.read_bytes()).hexdigest() == digest:
                return candidate
    return None


class MatchActor:
    """A Ray actor's body: a game runner with its own embedded server. Bot
    files (``files``: as :func:`shipped_bots` gives them) come from the
    copies Ray shipped to this node, wherever the runner's paths point here;
    a missing copy raises RuntimeError."""

    def __init__(self, config: MatchConfig, name: str, files: dict[str, str]) -> None:
        for where, digest in files.items():
            copy = _find_shipped(Path(where).name, digest)
            if copy is None:
                raise RuntimeError(f"the bot file {where} did not reach this node")
            adopt_bot_file(where, copy)
        self.runner = GameRunner(config, name)

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


def _lost_errors(ray: Any) -> tuple[type[BaseException], ...]:
    """Ray's errors that mean the actor (its process or its node) is gone."""
    names = (
        "RayActorError",  # ActorDiedError, ActorUnavailableError
        "WorkerCrashedError",
        "NodeDiedError",
        "LocalRayletDiedError",
        "ObjectLostError",  # OwnerDiedError...
    )
    return tuple(getattr(ray.exceptions, n) for n in names if hasattr(ray.exceptions, n))


class RayWorker:
    """One Ray actor, seen from the runner."""

    def __init__(self, config: MatchConfig, name: str, files: dict[str, str] | None = None) -> None:
        self.config = config
        self.name = name
        self.files = files or {}  #: the bot files shipped (:func:`shipped_bots`)
        self.actor: Any = None
        self.where = ""

    async def start(self) -> None:
        """Create the actor and start it. Raises WorkerLost when it cannot
        start, or does not within :data:`START_TIMEOUT` seconds (it is killed)."""
        ray = _ray()
        self.actor = _remote_class().remote(self.config, self.name, self.files)
        try:
            self.where = await asyncio.wait_for(_awaited(self.actor.start.remote()), START_TIMEOUT)
        except TimeoutError:
            self._kill()  # a pending actor too: Ray would place it whenever a CPU frees
            raise WorkerLost(
                f"actor {self.name} did not start within {START_TIMEOUT:g} s "
                "(no free CPU in the cluster?)"
            ) from None
        except ray.exceptions.RayError as err:
            self._kill()
            raise WorkerLost(f"actor {self.name} did not start: {_first_line(err)}") from None

    async def play(self, spec: GameSpec) -> GameResult:
        """Play ``spec`` on the actor. Raises WorkerLost when the actor died
        with it, or gave no answer within :func:`.pool.play_bound` seconds."""
        ray = _ray()
        bound = play_bound(self.config)
        try:
            data = await asyncio.wait_for(_awaited(self.actor.play.remote(spec.to_dict())), bound)
        except TimeoutError:
            raise WorkerLost(
                f"actor {self.name} ({self.where}) gave no answer within {bound:g} s"
            ) from None
        except _lost_errors(ray) as err:
            raise WorkerLost(
                f"actor {self.name} ({self.where}) was lost: {type(err).__name__}"
            ) from None
        result = GameResult.from_dict(data)
        result.worker = f"{self.name}@{self.where}"
        return result

    async def restart(self) -> None:
        """Kill the actor and start a new one (after a loss). Raises
        WorkerLost when the new one does not start (:meth:`start`)."""
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
        """Stop the actor: its server first unless ``abandon`` (within
        :data:`CLOSE_TIMEOUT` seconds), then the actor itself."""
        if self.actor is not None and not abandon:
            ray = _ray()
            try:
                await asyncio.wait_for(_awaited(self.actor.close.remote()), CLOSE_TIMEOUT)
            except (ray.exceptions.RayError, TimeoutError):
                pass
        self._kill()


async def _awaited(ref: Any) -> Any:
    """The value of Ray object ref ``ref`` (awaited: a coroutine asyncio can bound)."""
    return await ref


async def ray_workers(
    config: MatchConfig, count: int, address: str | None, limit: int | None = None
) -> list[Any]:
    """``count`` actors (0: one per CPU of the cluster, at most ``limit``),
    started, the bots of one's own shipped to them when this call
    initialises Ray (one initialised already is used as it is: the actors
    load bot files from the runner's paths). Those that do not start within
    :data:`START_TIMEOUT` seconds (a cluster with fewer free CPUs) are left
    out. Raises MatchError when Ray cannot connect (:func:`connect`) or no
    actor starts."""
    runtime_env, files = shipped_bots(config)
    if not connect(address, runtime_env):
        files = {}
    if count <= 0:
        count = min(cluster_cpus(), limit or cluster_cpus())
    free = int(_ray().available_resources().get("CPU", 0))
    if count > free:
        log.warning(
            "%d Ray actors asked for and %d CPUs free: those that find none are left out "
            "after %g s",
            count,
            free,
            START_TIMEOUT,
        )
    workers = [RayWorker(config, f"ray{i}", files) for i in range(count)]
    started = await asyncio.gather(*(w.start() for w in workers), return_exceptions=True)
    failures = [r for r in started if isinstance(r, BaseException)]
    if failures:
        for w, r in zip(workers, started):
            if isinstance(r, BaseException):
                await w.close(abandon=True)
        if len(failures) == len(workers):
            raise MatchError(f"the Ray actors could not start: {failures[0]}")
        log.warning(
            "%d of %d Ray actors could not start (%s): the match plays on the others",
            len(failures),
            len(workers),
            failures[0],
        )
    return [w for w, r in zip(workers, started) if not isinstance(r, BaseException)]
