"""uno match --ray on a real Ray cluster: a head and a worker node started
with the ``ray`` CLI (loopback, free ports, a temp dir, one CPU each) for the
module, and the errors that say in one line why there is no cluster to play
on. The nodes are stopped by killing their process groups, not ``ray stop``
(that stops every Ray instance of the machine). Every wait has a bound; no
test asserts a time."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from unoplay.client.match import MatchConfig, MatchError, parse_entrants, run_match
from unoplay.client.match.result import FINISHED, STATUSES, GameResult
from unoplay.game.rules import preset

ray = pytest.importorskip("ray", reason="Ray is the cluster extra: pip install '.[cluster]'")

WAIT = 120  # seconds: the bound on every wait of these tests (a Ray node starts in ~5)
ROUNDS = preset("official").replace(target_score=0)
BIN = Path(sys.executable).parent
TOKEN = "0123456789abcdef0123456789abcdef"  # the token-auth head's token

# A bot file of one's own that must be played from the copy Ray ships to the
# nodes, never from the runner's file (its directory is put in HERE).
SHIPPED_BOT = """\
import os
from unoplay.game.registry import make_bot

RUNNERS_DIR = {here!r}

def Shipped(seed=0):
    here = os.path.dirname(os.path.abspath(__file__))
    assert here != RUNNERS_DIR, "played from the runner's file, not Ray's copy"
    return make_bot("random", seed=seed)
"""


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


class Node:
    """One Ray node started by ``ray start`` in a process group of its own."""

    def __init__(self, temp_dir: Path, env: dict[str, str], *args: str) -> None:
        self.temp_dir = temp_dir
        agent, grpc, runtime_env, metrics = _free_ports(4)
        start = subprocess.Popen(
            [str(BIN / "ray"), "start", "--num-cpus", "1", "--disable-usage-stats",
             "--temp-dir", str(temp_dir),
             "--dashboard-agent-listen-port", str(agent),
             "--dashboard-agent-grpc-port", str(grpc),
             "--runtime-env-agent-port", str(runtime_env),
             "--metrics-export-port", str(metrics), *args],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=True,
        )  # fmt: skip
        self.group = start.pid  # its daemons stay in the group of ray start
        try:
            output, _ = start.communicate(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.stop()
            raise
        if start.returncode != 0:
            self.stop()
            raise AssertionError(f"ray start failed:\n{output}")

    def ran(self, pid: int) -> bool:
        """True when Ray process ``pid`` was a worker of this node."""
        return any(self.temp_dir.glob(f"session_*/logs/python-core-worker-*_{pid}.log"))

    def stop(self) -> None:
        """Kill the node's processes (its process group)."""
        try:
            os.killpg(self.group, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _head(root: Path, env: dict[str, str]) -> tuple[Node, str]:
    port, client, dashboard = _free_ports(3)
    head = Node(
        root / "h", env, "--head", "--node-ip-address", "127.0.0.1", "--port", str(port),
        "--ray-client-server-port", str(client), "--dashboard-port", str(dashboard),
        "--include-dashboard", "false",
    )  # fmt: skip
    return head, f"127.0.0.1:{port}"


def _env(root: Path, auth: str, **more: str) -> dict[str, str]:
    """The environment of a node or a runner: its own HOME (no ~/.ray/auth_token
    from elsewhere), Ray's temp dir in ``root``, RAY_AUTH_MODE ``auth``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    return env | {"HOME": str(root), "RAY_TMPDIR": str(root), "RAY_AUTH_MODE": auth} | more


@pytest.fixture(scope="module")
def cluster():
    """A head and a worker node (one CPU each, no token authentication): the
    head's address and the two nodes."""
    root = Path(tempfile.mkdtemp(prefix="uray", dir="/tmp"))  # short: Ray's socket paths
    env = _env(root, "disabled")
    nodes: list[Node] = []
    try:
        head, address = _head(root, env)
        nodes.append(head)
        nodes.append(Node(root / "w", env, "--address", address))
        yield address, nodes
    finally:
        for node in nodes:
            node.stop()
        shutil.rmtree(root, ignore_errors=True)


def _records(path: Path) -> list[GameResult]:
    return [GameResult.from_dict(json.loads(line)) for line in path.read_text().splitlines()]


# The runner, in a process of its own: Ray's state in this process (its
# authentication mode and token, cached once an earlier test ran ray.init)
# stays out of the way. argv: the cluster's address, the entrants, the JSONL file.
DRIVER = """\
import asyncio, json, sys
import ray
from unoplay.client.match import MatchConfig, parse_entrants, run_match
from unoplay.game.rules import preset

address, bots, jsonl = sys.argv[1:]
report = asyncio.run(run_match(MatchConfig(
    parse_entrants(bots), 6, 5, preset("official").replace(target_score=0),
    ray=address, concurrency=2, jsonl=jsonl,
)))
assert not ray.is_initialized()  # the runner's connection ended with the match
print(json.dumps(report))
"""


async def test_a_match_plays_on_both_nodes_of_a_cluster_with_shipped_bots(cluster, tmp_path):
    address, nodes = cluster
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "shipped_bot.py").write_text(SHIPPED_BOT.format(here=str(bots)))
    package = tmp_path / "lib" / "unoplay_test_local_bots"  # no distribution installed it
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        "from unoplay.game.registry import make_bot\n\n"
        "def Local(seed=0):\n    return make_bot('greedy', seed=seed)\n"
    )
    entrants = f"greedy,{bots}/shipped_bot.py:Shipped,unoplay_test_local_bots:Local"
    jsonl = tmp_path / "ray.jsonl"
    env = _env(tmp_path, "disabled", PYTHONPATH=str(package.parent))
    driver = await asyncio.create_subprocess_exec(
        sys.executable, "-c", DRIVER, address, entrants, str(jsonl),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env,
    )  # fmt: skip
    stdout, stderr = await asyncio.wait_for(driver.communicate(), WAIT)
    assert driver.returncode == 0, stderr.decode()[-3000:]
    report = json.loads(stdout)
    assert (report["workers"], report["concurrency"]) == ("ray", 2)
    assert report["counts"]["counted"] == 6  # no crash: Ray's copy of the file played
    played = _records(jsonl)
    assert sorted(r.index for r in played) == list(range(6))
    assert all(r.status == FINISHED and all(r.decisions) for r in played)  # every seat played
    pids = {int(r.worker.rpartition(":")[2]) for r in played}
    assert all(r.worker.startswith("ray") for r in played) and os.getpid() not in pids
    # one actor on each node (one CPU each): each pid is a worker of one of them
    assert {next(i for i, n in enumerate(nodes) if n.ran(pid)) for pid in pids} == {0, 1}


async def test_auto_without_a_cluster_is_a_clear_error(tmp_path, monkeypatch):
    from ray._private import services

    monkeypatch.setenv("RAY_TMPDIR", str(tmp_path))  # no ray_current_cluster there
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setattr(services, "find_gcs_addresses", frozenset)  # nor others' clusters
    with pytest.raises(MatchError, match=r"--ray auto: no Ray cluster on this machine"):
        await asyncio.wait_for(
            run_match(MatchConfig(parse_entrants("greedy,random"), 2, 1, ROUNDS, ray="auto")), WAIT
        )


async def test_an_address_where_nothing_listens_is_a_clear_error_at_once():
    (port,) = _free_ports(1)  # closed again: nothing listens there
    with pytest.raises(MatchError, match=rf"no Ray cluster answers at .*:{port} \("):
        await asyncio.wait_for(
            run_match(
                MatchConfig(parse_entrants("greedy,random"), 2, 1, ROUNDS, ray=f"127.0.0.1:{port}")
            ),
            WAIT,
        )


async def _uno_match(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        str(BIN / "uno"), "match", "--no-out", "--bots", "greedy,random", *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env,
    )  # fmt: skip
    stdout, stderr = await asyncio.wait_for(proc.communicate(), WAIT)
    return proc.returncode, stdout.decode(), stderr.decode()


async def test_a_cluster_with_token_authentication_wants_its_token():
    root = Path(tempfile.mkdtemp(prefix="uray", dir="/tmp"))
    head = None
    try:
        head, address = _head(root, _env(root, "token", RAY_AUTH_TOKEN=TOKEN))
        # no token here: one line says what to set, exit 1, no traceback
        code, _, stderr = await _uno_match(_env(root, "disabled"), "--games", "2", "--ray", address)
        assert code == 1
        assert stderr.splitlines() == [
            f"uno match: --ray {address}: the cluster refuses this machine's token; set "
            "RAY_AUTH_MODE=token and the cluster's token (~/.ray/auth_token, "
            "RAY_AUTH_TOKEN or RAY_AUTH_TOKEN_PATH) here as on its nodes"
        ]
        # as the README says: RAY_AUTH_MODE=token and the token, and the games play
        env = _env(root, "token", RAY_AUTH_TOKEN=TOKEN)
        code, stdout, stderr = await _uno_match(env, "--games", "2", "--ray", address)
        assert code == 0, stderr
        assert "2 played now, 1 worker (ray)" in stdout
    finally:
        if head is not None:
            head.stop()
        shutil.rmtree(root, ignore_errors=True)


# A slow random bot: a game takes a second or two, so that a node can be
# killed while its actor holds one.
SLOW_BOT = """\
import time
from unoplay.game.registry import make_bot

class Slow:
    def __init__(self, seed=0):
        self.bot = make_bot("random", seed=seed)

    def decide(self, view, legal):
        time.sleep(0.01)
        return self.bot.decide(view, legal)
"""

# The runner of the lost-nodes test, in a process of its own, its actors
# given START_TIMEOUT seconds to start (a lost node's is never placed: no CPU
# left). argv: the cluster's address, the bot file, the results file. It
# prints the report and the error the match ended with.
LOSING_DRIVER = """\
import asyncio, json, sys
from unoplay.client.match import MatchConfig, MatchError, cluster, parse_entrants, run_match
from unoplay.game.rules import preset

cluster.START_TIMEOUT = 15.0
address, bot, out = sys.argv[1:]
try:
    report, error = asyncio.run(run_match(MatchConfig(
        parse_entrants(f"{bot}:Slow,random"), 400, 7, preset("official").replace(target_score=0),
        ray=address, concurrency=2, out=out,
    ))), ""
except MatchError as err:
    report, error = err.report, str(err)
print()
print(json.dumps({"report": report, "error": error}))
"""

# Ray's GCS declares a node dead after 5 failed health checks in a row, a
# second apart (a dead node's fail at once; its defaults take half a minute);
# a live node has 5 s to answer each, so a loaded machine loses none.
FAST_HEALTH_CHECKS = {
    "RAY_health_check_initial_delay_ms": "1000",
    "RAY_health_check_period_ms": "1000",
    "RAY_health_check_timeout_ms": "5000",
    "RAY_health_check_failure_threshold": "5",
}


def _stored_games(path: Path) -> list[GameResult]:
    """The games stored so far in a match file (another process writes it)."""
    if not path.exists():
        return []
    with contextlib.closing(sqlite3.connect(path, timeout=WAIT)) as db:
        try:
            rows = db.execute("SELECT record FROM games ORDER BY idx").fetchall()
        except sqlite3.OperationalError:  # its tables are not made yet
            return []
    return [GameResult.from_dict(json.loads(r[0])) for r in rows]


async def test_a_match_that_loses_its_nodes_ends_with_a_full_report(tmp_path):
    """Two worker nodes (one CPU each) and a head with none: the runner's two
    actors are one on each. Node A is killed in a game: its game goes to B,
    A's replacement cannot start (no CPU left, or placed on A before Ray
    knew it was lost) and A's worker leaves the match; then B is killed: no
    worker is left, and the run ends (no hang) with its report, every game
    stored or counted as not played."""
    root = Path(tempfile.mkdtemp(prefix="uray", dir="/tmp"))
    env = _env(root, "disabled", **FAST_HEALTH_CHECKS)
    nodes: list[Node] = []
    driver = None
    try:
        port, client, dashboard = _free_ports(3)
        address = f"127.0.0.1:{port}"
        nodes.append(Node(
            root / "h", env, "--head", "--node-ip-address", "127.0.0.1", "--port", str(port),
            "--ray-client-server-port", str(client), "--dashboard-port", str(dashboard),
            "--include-dashboard", "false", "--num-cpus", "0",
        ))  # fmt: skip
        a = Node(root / "a", env, "--address", address)
        nodes.append(a)
        b = Node(root / "b", env, "--address", address)
        nodes.append(b)
        bot = tmp_path / "slow_bot.py"
        bot.write_text(SLOW_BOT)
        out = tmp_path / "match.sqlite3"
        driver = await asyncio.create_subprocess_exec(
            sys.executable, "-c", LOSING_DRIVER, address, str(bot), str(out),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env=_env(tmp_path, "disabled"),
        )  # fmt: skip
        loop = asyncio.get_running_loop()

        async def until(condition, what: str) -> list[GameResult]:
            deadline = loop.time() + WAIT
            while not condition(games := _stored_games(out)):
                assert driver.returncode is None, f"the runner ended before {what}"
                assert loop.time() < deadline, f"no {what} within {WAIT} s"
                await asyncio.sleep(0.2)  # another process's writes: polled, with a bound
            return games

        def on(node: Node, games: list[GameResult]) -> list[GameResult]:
            return [g for g in games if node.ran(int(g.worker.rpartition(":")[2]))]

        # both actors play; A is killed in the middle of its next game
        await until(lambda g: on(a, g) and on(b, g), "game of each node")
        a.stop()
        killed_a = len(_stored_games(out))
        # B plays on, A's game among its games (played again: attempt 1)
        await until(
            lambda g: any(r.attempt == 1 for r in on(b, g)) and len(g) >= killed_a + 3,
            "game played again by B",
        )
        b.stop()
        stdout, stderr = await asyncio.wait_for(driver.communicate(), 2 * WAIT)
    finally:
        if driver is not None and driver.returncode is None:
            driver.kill()
            await driver.wait()
        for node in nodes:
            node.stop()
        shutil.rmtree(root, ignore_errors=True)
    said = stderr.decode()[-4000:]  # the runner's log, for a failure's message
    assert driver.returncode == 0, said
    ended = json.loads(stdout.splitlines()[-1])  # (Ray's own lines before it: a node died)
    report, error = ended["report"], ended["error"]
    stored = _stored_games(out)
    unplayed = 400 - len(stored)
    assert error == f"every worker was lost; {unplayed} games not played", said
    assert report["stopped"] == error and report["played"] == len(stored), said
    assert report["played"] + unplayed == report["games"] == 400
    statuses = ("counted", "adjudicated", "void", "crashed", "errors")
    assert sum(report["counts"][s] for s in statuses) == len(stored)
    assert len({r.index for r in stored}) == len(stored)  # each game once
    assert {r.status for r in stored} <= set(STATUSES)
    assert not report["apart"]["crashed"] and not report["apart"]["error"], said  # nobody's fault
    left = report["workers_left"]
    assert sorted(w["worker"] for w in left) == ["ray0", "ray1"], said
    # no CPU left for it (15 s), or placed on the lost node before Ray knew
    assert all(w["why"].startswith(f"actor {w['worker']} did not start") for w in left), said
    assert report["lost_workers"] == 2, said  # A's game and B's, each put back in the queue
