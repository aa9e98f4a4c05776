"""The network benchmark runs end to end (it reports; it asserts no time)."""

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time

import pytest
from helpers import alive

from unoplay.client.bench import netbench


@pytest.mark.parametrize(
    ("bare", "target_score", "raw_client"),
    [(False, 0, False), (False, 500, False), (False, 500, True), (True, 0, False)],
)
async def test_a_short_network_run_plays_and_reports_with_no_error(bare, target_score, raw_client):
    figures = await netbench.measure(
        2, 0.5, bare=bare, warmup=0.1, target_score=target_score, raw_client=raw_client
    )
    assert figures["errors"] == 0, figures["error_samples"]
    assert figures["actions_per_s"] > 0 and figures["p99_ms"] is not None
    assert figures["server_exit_code"] == 0
    assert figures["target_score"] == target_score
    if not bare:
        assert figures["games_stored"] >= figures["games_finished"]  # (one may end as it stops)


def test_the_like_for_like_comparison_reports_both_servers_cpu_per_action(capsys):
    """The default comparison (raw-protobuf bots, games to 500, beside the
    bare server): per table count, both servers' actions/s and CPU per action
    (each its own process's), the bots' CPU per action, as JSON."""
    results = netbench.run((2,), 0.5, as_json=True, pairs=2, warmup=0.1)
    assert capsys.readouterr().out == ""  # with as_json, the caller prints the document
    (figures,) = json.loads(json.dumps(results))
    assert figures["tables"] == 2 and figures["pairs"] == 2 and len(figures["runs"]) == 2
    assert figures["raw_client"] is True and figures["target_score"] == 500
    for key in (
        "actions_per_s",
        "bare_actions_per_s",
        "server_cpu_ms_per_action",
        "bare_server_cpu_ms_per_action",
        "bots_cpu_ms_per_action",
        "bare_bots_cpu_ms_per_action",
        "ratio",
        "cpu_ratio",
    ):
        assert isinstance(figures[key], float) and figures[key] > 0, key
    assert figures["errors"] == 0 and figures["bare_errors"] == 0, figures["error_samples"]


def test_the_report_names_each_servers_cpu_per_action(capsys):
    netbench.run((1,), 0.3, warmup=0.1)
    out = capsys.readouterr().out
    assert "K=1 " in out and "ms/action" in out and "(bare " in out


@pytest.mark.parametrize("store", [True, False])
async def test_the_servers_cpu_is_split_by_its_threads(store):
    """The server's CPU per action, split into its event loop's, its journal
    writer's (none without a file) and grpc's own threads', adds up to the
    process's (both read from /proc: each thread's time is rounded to clock
    ticks apart, and a thread that ended is in the process's only)."""
    figures = await netbench.measure(2, 0.5, warmup=0.1, target_score=500, store=store)
    assert figures["errors"] == 0, figures["error_samples"]
    parts = {k: figures[f"server_{k}_cpu_ms_per_action"] for k in ("loop", "journal", "grpc")}
    assert all(v is not None and v >= 0 for v in parts.values()), parts
    assert parts["loop"] > 0
    if not store:
        assert parts["journal"] == 0  # no file, no writer thread
    actions = figures["actions_per_s"] * figures["seconds"]
    apart_s = abs(sum(parts.values()) - figures["server_cpu_ms_per_action"]) * actions / 1000
    assert apart_s <= 0.2, (parts, figures["server_cpu_ms_per_action"])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_server_process_dies_with_a_killed_bench():
    script = (
        "import asyncio\n"
        "from unoplay.client.bench.netbench import ServerProcess\n"
        "async def main():\n"
        "    server = await ServerProcess.start(None)\n"
        "    print(server.process.pid, flush=True)\n"
        "    await asyncio.sleep(3600)\n"
        "asyncio.run(main())\n"
    )
    bench = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([bench.stdout], [], [], 120)
        assert ready, "the bench's server did not start"
        server = int(bench.stdout.readline())
        assert alive(server)
    finally:
        bench.kill()
        bench.wait(30)
    deadline = time.monotonic() + 30
    while alive(server):  # the kernel's SIGKILL: polled, with a bound
        assert time.monotonic() < deadline, "the server outlived the killed bench"
        time.sleep(0.05)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")
def test_a_ctrl_c_stops_the_bench_at_once_with_no_traceback():
    """Ctrl-C (SIGINT to the bench and its server, as a terminal sends it)
    in the network part: ``uno bench`` says it was interrupted and exits 130,
    where it used to go on against its dead server (a busy loop of failed
    games) and end on a ProcessLookupError's traceback."""
    bench = subprocess.Popen(
        [sys.executable, "-m", "unoplay.client.cli", "bench", "--no-rlcard", "--runs", "1"]
        + ["--seconds", "0.05", "--tables", "2", "--network-seconds", "600"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's job
        # a terminal's SIGINT: the default action, even when this test runs in
        # the background of a shell (which ignores SIGINT, and so its children)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 120
        while not children(bench.pid):  # the server started: the network part is on
            assert bench.poll() is None and time.monotonic() < deadline, "no server started"
            time.sleep(0.05)
        os.killpg(bench.pid, signal.SIGINT)
        _, err = bench.communicate(timeout=60)
    finally:
        if bench.poll() is None:
            os.killpg(bench.pid, signal.SIGKILL)
            bench.wait(30)
    assert bench.returncode == 130, err
    assert "uno bench: interrupted" in err and "Traceback" not in err, err


def children(pid: int) -> list[str]:
    """The pids of ``pid``'s children (any of its threads'), from /proc."""
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/children") as f:
            found += f.read().split()
    return found
