"""The Java bot (client/java_bot) plays complete games over loopback as a
seat of ``uno match``, under the official rules and the "house" preset,
checking every game's deals itself; joins by name and resumes after dropped
streams; ends cleanly on a game the server's stop interrupted; creates a
table of its own, speaks TLS, exits 1 when refused and 2 for a bad command
line; enters the arena. Its SHAKE-256 (written in Java: the JDK has none)
agrees with ``hashlib.shake_256``; its deal check agrees with the engine
under many rule sets and reports a tampered deal; its heuristic and the
guide's test vectors pass (``uno-java-tools selftest``).

The bot is a separate process (a JVM) built by ``make java-bot`` with javac
and Debian's jars from the ``.proto`` files alone; the server and the Python
bots run on this test's event loop. Skipped, with the reason in the summary,
only when the bot is not built (javac, protoc, grpc_java_plugin or Debian's
gRPC jars missing: ``make java-bot`` names them).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import subprocess
import warnings
from functools import partial
from pathlib import Path

import pytest
from external_bots import (
    BAD_COMMAND_LINES,
    WAIT,
    assert_deals_fair,
    assert_finished_cleanly,
    check_arena_mode,
    check_deal_checker,
    check_forged_token,
    check_house_match,
    check_interrupted_game,
    check_official_match,
    check_own_table_over_tls,
    run_bot_binary,
)
from helpers import greedy_bots_beside

from unoplay.game.rules import RuleSet

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "client" / "java_bot" / "build"
BOT = BUILD / "uno-java-bot"
TOOLS = BUILD / "uno-java-tools"


def _missing() -> str | None:
    if all(p.is_file() and os.access(p, os.X_OK) for p in (BOT, TOOLS)):
        return None
    if shutil.which("javac") is None:
        return (
            "javac is not on PATH: the Java bot (client/java_bot) is NOT tested; apt-get install "
            "openjdk-17-jdk-headless protobuf-compiler protobuf-compiler-grpc-java-plugin "
            "libgrpc-java libprotobuf-java libguava-java libnetty-java libperfmark-java "
            "libgeronimo-annotation-1.3-spec-java, then run `make java-bot`"
        )
    return (
        f"{BOT.relative_to(ROOT)} is not built: the Java bot is NOT tested; run `make java-bot` "
        "(its NOTICE names what is missing)"
    )


MISSING = _missing()
if MISSING:  # shown in the warnings summary as well as in the skip reason
    warnings.warn(MISSING, pytest.PytestWarning, stacklevel=1)
pytestmark = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")

run_java = partial(run_bot_binary, BOT)


def tools(command: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    """Run ``uno-java-tools COMMAND`` to its end (bounded) with ``stdin``."""
    return subprocess.run([str(TOOLS), command], input=stdin, capture_output=True, timeout=WAIT)


# ------------------------------------------------------------------ games


async def test_uno_match_runs_the_java_bot_under_the_official_rules(server, tmp_path):
    await check_official_match(BOT, server, tmp_path, each=assert_deals_fair)


async def test_uno_match_runs_the_java_bot_under_the_house_preset(server, tmp_path):
    await check_house_match(BOT, server, tmp_path, each=assert_deals_fair)


async def test_java_bot_joins_by_name_and_resumes_after_dropped_streams(server, conn):
    table_info = await conn.create_table(seats=3, rules=RuleSet(target_score=150), seed=5)
    table = server.lobby.get(table_info.table_id)
    java = asyncio.create_task(
        run_java(
            "--server",
            server.address,
            "--table",
            table.table_id,
            "--name",
            "duke",
            # Testing hooks: cut its own stream after these messages, and right
            # after sending these intents (the intent may be lost in the drop).
            "--drop-after",
            "5,40,41",
            "--drop-after-intent",
            "3,12",
        )
    )
    seat, tasks = await greedy_bots_beside(conn, table, "duke")
    run = await java
    await asyncio.wait_for(asyncio.gather(*tasks), WAIT)
    assert_finished_cleanly(table, run, seat)
    assert run.summary["reconnects"] == 5, run.stderr[-3000:]
    assert run.summary["errors"] == 0, run.stderr[-3000:]
    assert run.stderr.count("resuming after seq") == 5
    assert_deals_fair(run.summary)  # resumed by seq: no event of the game was lost


async def test_java_bot_exits_0_on_a_game_interrupted_by_the_server_stop():
    run = await check_interrupted_game(run_java, "duke")
    # The seed is revealed on an interrupted game too: its deals so far are checked.
    assert run.summary["deals"]["fair"] is True, run.summary


async def test_java_bot_creates_a_table_of_its_own_and_speaks_tls(tmp_path):
    await check_own_table_over_tls(run_java, tmp_path)


async def test_java_bot_exits_with_an_error_for_a_forged_token(server, conn):
    await check_forged_token(run_java, server, conn)


@pytest.mark.parametrize("args", BAD_COMMAND_LINES)
async def test_java_bot_exits_2_for_a_bad_command_line(args):
    run = await run_java(*args)
    assert run.returncode == 2, run.stderr
    assert run.summary == {}


async def test_java_bot_enters_the_arena_plays_its_games_and_keeps_its_name(tmp_path):
    """`uno-java-bot --arena`, three games in two runs (external_bots.check_arena_mode)."""
    await check_arena_mode(run_java, tmp_path / "duke.secret", "duke")


# ------------------------------------------------------------------ its own code


def test_java_bot_heuristic_and_the_guides_test_vectors():
    # Tools.selfTest: NIST's SHAKE-256 vectors, the guide's section 11 vectors
    # (K, words, below(108), the rules line, the commitment), and choose()
    # following its rules, not the list order.
    done = tools("selftest")
    assert done.returncode == 0, (done.stdout + done.stderr).decode()
    assert b"selftest: all passed" in done.stdout


def test_the_java_shake256_agrees_with_hashlib():
    """Shake256.java against hashlib.shake_256: empty input, around the
    136-byte rate (one block, one byte short, one over, two blocks), long
    inputs, and outputs shorter and far longer than a block (the deal check
    reads 1024 bytes)."""
    rng = __import__("random").Random(11)
    cases = [
        (bytes(rng.randrange(256) for _ in range(n)), length)
        for n, length in [
            (0, 64),
            (1, 1),
            (40, 1024),  # K || i: the deal check's own input size
            (135, 32),
            (136, 136),
            (137, 137),
            (271, 300),
            (272, 272),
            (273, 1024),
            (1000, 64),
            (5000, 7),
        ]
    ]
    lines = "".join(f"{data.hex() or '-'} {length}\n" for data, length in cases)
    done = tools("shake", lines.encode())
    assert done.returncode == 0, done.stderr.decode()
    got = done.stdout.decode().split()
    assert got == [hashlib.shake_256(data).hexdigest(length) for data, length in cases]


def test_the_java_deal_check_agrees_with_the_engine_and_finds_a_tampered_deal():
    """Deals.java, written from proto/README.md section 11 alone
    (external_bots.check_deal_checker)."""
    check_deal_checker([str(TOOLS), "deals"])
