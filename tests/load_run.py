"""Run the test suite N times under load and list every test that failed at
least once: a test that is red only when the machine is busy is found here,
not on a colleague's evening.

    .venv/bin/python tests/load_run.py --runs 3              (make load-run RUNS=3)
    .venv/bin/python tests/load_run.py --runs 5 -- tests/client/test_web.py

The load is ``--hogs`` CPU hogs (``yes > /dev/null``, two by default: a
2-core machine fully taken), started before the first run and killed after
the last, whatever happens (Ctrl-C included). Each run is ``python -m pytest``
with a JUnit XML report in ``--out`` (a temporary folder by default); the
failures and errors are read from those reports. Exit status: 0 when every
run passed, 1 when a test failed in some run, 2 when a run gave no report
(pytest itself broke, or ``--run-timeout`` cut it off).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def node_id(classname: str, name: str) -> str:
    """pytest's node id of a JUnit test case: ``tests.client.test_web`` and
    ``test_x[a]`` give ``tests/client/test_web.py::test_x[a]`` (a class's
    name, when there is one, follows the file's)."""
    parts = classname.split(".")
    for cut in range(len(parts), 0, -1):
        path = "/".join(parts[:cut]) + ".py"
        if (ROOT / path).is_file():
            return "::".join([path, *parts[cut:], name])
    return f"{classname}::{name}"


def failed_tests(report: Path) -> list[str]:
    """The node ids of the test cases of a JUnit XML ``report`` that failed
    or errored (in setup, call or teardown)."""
    failed = []
    for case in ET.parse(report).getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed.append(node_id(case.get("classname", ""), case.get("name", "")))
    return failed


@contextlib.contextmanager
def cpu_hogs(count: int) -> Iterator[list[subprocess.Popen]]:
    """``count`` processes of ``yes > /dev/null`` while the block runs; each
    is killed (by its own process id) and reaped when it ends."""
    hogs: list[subprocess.Popen] = []
    try:
        for _ in range(count):
            hogs.append(subprocess.Popen(["yes"], stdout=subprocess.DEVNULL))
        yield hogs
    finally:
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait(timeout=30)


def run_once(number: int, out: Path, pytest_args: list[str], timeout: float) -> tuple[int, float]:
    """Run pytest once with its JUnit report ``out/run-<number>.xml``:
    ``(exit status, seconds)``; -1 when ``timeout`` seconds cut it off (its
    process group is killed)."""
    report = out / f"run-{number}.xml"
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        f"--junitxml={report}",
        "-rfE",
        *pytest_args,
    ]
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=ROOT, start_new_session=True)
    try:
        status = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=60)
        status = -1
    except BaseException:  # Ctrl-C: the run's tests and their children go too
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=60)
        raise
    return status, time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    """Run the suite ``--runs`` times beside ``--hogs`` CPU hogs and print
    each test that failed, with how many runs it failed in."""
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3, help="runs of the suite (default 3)")
    parser.add_argument("--hogs", type=int, default=2, help="CPU hogs beside it (default 2)")
    parser.add_argument("--out", type=Path, help="folder of the JUnit reports (default: a new one)")
    parser.add_argument(
        "--run-timeout",
        type=float,
        default=3600.0,
        metavar="SECONDS",
        help="a run still going after this long is killed and counts as broken (default 3600)",
    )
    parser.add_argument("pytest_args", nargs="*", help="after --: pytest's own arguments")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error(f"--runs must be 1 or more, not {args.runs}")
    if args.hogs < 0:
        parser.error(f"--hogs must be 0 or more, not {args.hogs}")
    out = args.out or Path(tempfile.mkdtemp(prefix="unoplay-load-run-"))
    out.mkdir(parents=True, exist_ok=True)
    failures: Counter[str] = Counter()
    broken = []
    lines = []
    with cpu_hogs(args.hogs):
        for number in range(1, args.runs + 1):
            print(f"load_run: run {number} of {args.runs} beside {args.hogs} CPU hogs", flush=True)
            status, seconds = run_once(number, out, args.pytest_args, args.run_timeout)
            report = out / f"run-{number}.xml"
            if status == -1 or not report.is_file():
                broken.append(number)
                lines.append(f"run {number}: no report (exit {status}) after {seconds:.0f}s")
                continue
            failed = failed_tests(report)
            failures.update(set(failed))
            lines.append(f"run {number}: exit {status}, {len(failed)} failed, {seconds:.0f}s")
    print(f"\nload_run: {args.runs} runs beside {args.hogs} CPU hogs; reports in {out}")
    print("\n".join(lines))
    if failures:
        print("failed at least once (runs failed / runs):")
        for test, count in sorted(failures.items(), key=lambda item: (-item[1], item[0])):
            print(f"  {count}/{args.runs}  {test}")
    else:
        print("no test failed in any run")
    if broken:
        return 2
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
