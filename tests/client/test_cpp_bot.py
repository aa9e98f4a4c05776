"""The C++ bot (client/cpp_bot) plays complete games over loopback as a seat
of ``uno match``, under the official rules and the "house" preset, checking
every game's deals itself; joins by name and resumes after dropped streams;
ends cleanly on a game the server's stop interrupted; creates a table of its
own, speaks TLS, enters the arena (``--arena``) and keeps its name, exits 1 when refused and 2 for a bad command line. Its deal
check (``uno-cpp-deals``, the same code) agrees with the engine under many
rule sets and reports a tampered deal; its heuristic and the guide's test
vectors pass (``strategy-test``).

The bot is a separate process built with CMake from the ``.proto`` files
alone; this module builds it once per session (as ``make cpp-bot`` does,
incrementally, into client/cpp_bot/build). Skipped, with the reason in the
summary, only when cmake, a C++ compiler, gRPC++ or OpenSSL's headers are
missing; a failed build fails the tests.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import warnings
from functools import partial
from pathlib import Path

import pytest
from external_bots import (
    BAD_COMMAND_LINES,
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
from unoplay.server.service import start_server

ROOT = Path(__file__).resolve().parents[2]
BOT_DIR = ROOT / "client" / "cpp_bot"
BUILD = BOT_DIR / "build"
BOT = BUILD / "uno-cpp-bot"
DEALS = BUILD / "uno-cpp-deals"
STRATEGY_TEST = BUILD / "strategy-test"
PACKAGES = "cmake g++ libgrpc++-dev protobuf-compiler-grpc libssl-dev"


def _missing() -> str | None:
    """What the build needs and this machine lacks (as `make cpp-bot` checks)."""
    lacking = [
        tool for tool in ("cmake", "c++", "protoc", "grpc_cpp_plugin") if not shutil.which(tool)
    ]
    for header, package in (("grpcpp/grpcpp.h", "libgrpc++-dev"), ("openssl/evp.h", "libssl-dev")):
        if not (Path("/usr/include") / header).is_file():
            lacking.append(package)
    if not lacking:
        return None
    return (
        f"missing {', '.join(lacking)}: the C++ bot (client/cpp_bot) is NOT tested; "
        f"apt-get install {PACKAGES}"
    )


MISSING = _missing()
if MISSING:  # shown in the warnings summary as well as in the skip reason
    warnings.warn(MISSING, pytest.PytestWarning, stacklevel=1)
pytestmark = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")


@pytest.fixture(scope="session", autouse=True)
def cpp_bot_built() -> None:
    """Configure (once) and build the bot incrementally: a minute or two the
    first time, seconds when client/cpp_bot/build is up to date."""
    if MISSING:
        return
    steps = [
        ["cmake", "-S", str(BOT_DIR), "-B", str(BUILD), "-DCMAKE_BUILD_TYPE=RelWithDebInfo"],
        ["cmake", "--build", str(BUILD), "-j", "2"],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            pytest.fail(f"{' '.join(step)} failed:\n{(done.stdout + done.stderr)[-4000:]}")


run_cpp = partial(run_bot_binary, BOT)


# ------------------------------------------------------------------ games


async def test_uno_match_runs_the_cpp_bot_under_the_official_rules(server, tmp_path):
    await check_official_match(BOT, server, tmp_path, each=assert_deals_fair)


async def test_uno_match_runs_the_cpp_bot_under_the_house_preset(server, tmp_path):
    await check_house_match(BOT, server, tmp_path, each=assert_deals_fair)


async def test_cpp_bot_joins_by_name_and_resumes_after_dropped_streams(server, conn):
    table_info = await conn.create_table(seats=3, rules=RuleSet(target_score=150), seed=5)
    table = server.lobby.get(table_info.table_id)
    cpp = asyncio.create_task(
        run_cpp(
            "--server",
            server.address,
            "--table",
            table.table_id,
            "--name",
            "cplusplus",
            # Testing hooks: cut its own stream after these messages, and right
            # after sending these intents (the intent may be lost in the drop).
            "--drop-after",
            "5,40,41",
            "--drop-after-intent",
            "3,12",
        )
    )
    seat, tasks = await greedy_bots_beside(conn, table, "cplusplus")
    run = await cpp
    await asyncio.wait_for(asyncio.gather(*tasks), 90)
    assert_finished_cleanly(table, run, seat)
    assert run.summary["reconnects"] == 5, run.stderr[-3000:]
    assert run.summary["errors"] == 0, run.stderr[-3000:]
    assert run.stderr.count("resuming after seq") == 5
    assert_deals_fair(run.summary)  # resumed by seq: no event of the game was lost


async def test_cpp_bot_exits_0_on_a_game_interrupted_by_the_server_stop():
    run = await check_interrupted_game(run_cpp, "cplusplus")
    # The seed is revealed on an interrupted game too: its deals so far are checked.
    assert run.summary["deals"]["fair"] is True, run.summary


async def test_cpp_bot_creates_a_table_of_its_own_and_speaks_tls(tmp_path):
    await check_own_table_over_tls(run_cpp, tmp_path)


async def test_cpp_bot_exits_with_an_error_for_a_forged_token(server, conn):
    await check_forged_token(run_cpp, server, conn)


@pytest.mark.parametrize("args", BAD_COMMAND_LINES)
async def test_cpp_bot_exits_2_for_a_bad_command_line(args):
    run = await run_cpp(*args)
    assert run.returncode == 2, run.stderr
    assert run.summary == {}


async def test_cpp_bot_enters_the_arena_plays_its_games_and_keeps_its_name(tmp_path):
    """`uno-cpp-bot --arena` (external_bots.check_arena_mode)."""
    await check_arena_mode(run_cpp, tmp_path / "cplusplus.secret", "cplusplus")


async def test_cpp_bot_arena_keeps_its_secret_private_and_exits_1_when_refused(tmp_path):
    import dataclasses

    from unoplay.server.arena import ArenaSettings

    settings = dataclasses.replace(ArenaSettings(), seats=2, fill_after=0.0)
    srv = await start_server("127.0.0.1", 0, arena=settings)
    try:
        secret = tmp_path / "cpp.secret"
        args = ("--arena", "--server", srv.address, "--name", "cplusplus", "--games", "1")
        run = await run_cpp(*args, "--secret-file", str(secret))
        assert run.returncode == 0 and run.summary["game_over"], run.stderr[-3000:]
        assert secret.stat().st_mode & 0o777 == 0o600
        # Under the name without its secret: refused, one line, exit 1.
        other = tmp_path / "other.secret"
        other.write_text("not-the-secret\n")
        refused = await run_cpp(*args, "--secret-file", str(other))
        assert refused.returncode == 1 and refused.summary == {}, refused.stderr
        assert refused.stderr.count("Enter refused") == 1, refused.stderr
    finally:
        await srv.stop(None)


@pytest.mark.parametrize(
    "args",
    [
        ["--arena", "--table", "t1"],
        ["--arena", "--bots", "2"],
        ["--arena", "--games", "-1"],
        ["--arena", "--games", "x"],
        ["--games", "2"],
        ["--secret-file", "f"],
    ],
)
async def test_cpp_bot_exits_2_for_a_bad_arena_command_line(args):
    run = await run_cpp(*args)
    assert run.returncode == 2, run.stderr
    assert run.summary == {}


def test_cpp_bot_heuristic_and_the_guides_test_vectors():
    # strategy_test.cpp: choose() follows its rules, not the list order; the
    # chance stream and the commitment give the guide's test vectors.
    done = subprocess.run([str(STRATEGY_TEST)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


# ------------------------------------------------------------------ the deal check


def test_the_cpp_deal_check_agrees_with_the_engine_and_finds_a_tampered_deal():
    """deals.cpp, written from proto/README.md section 11 alone, replays the
    engine's piles exactly under many rule sets, reports a forged card and a
    forged reveal, and says a game with a gap cannot be checked
    (external_bots.check_deal_checker)."""
    check_deal_checker([str(DEALS)])
