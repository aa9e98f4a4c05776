"""The C++ bot (client/cpp_bot) plays complete games over loopback as a seat
of ``uno match``, under the official rules and the "house" preset, checking
every game's deals itself; joins by name and resumes after dropped streams;
ends cleanly on a game the server's stop interrupted; creates a table of its
own, speaks TLS, exits 1 when refused and 2 for a bad command line. Its deal
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
import json
import random
import shutil
import subprocess
import warnings
from functools import partial
from pathlib import Path

import pytest
from external_bots import (
    BAD_COMMAND_LINES,
    DEAL_CHECK_CASES,
    assert_finished_cleanly,
    check_forged_token,
    check_house_match,
    check_official_match,
    run_bot_binary,
)
from helpers import a_game_the_server_stops, greedy_bots_beside, make_certificate, play_out

from unoplay.game.events import EventKind
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


def assert_deals_fair(summary: dict) -> None:
    """The bot checked the game's deals itself (deals.cpp) and found them fair."""
    deals = summary["deals"]
    assert deals is not None and deals["problems"] == [], deals
    assert deals["fair"] is True and deals["checked"] >= 7, deals


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
    # deal_revealed without GAME_OVER, then UNAVAILABLE "the server is shutting
    # down": the game will never go on; the bot must not retry a dead server.
    def launch(address: str, table_id: str) -> asyncio.Task:
        return asyncio.create_task(
            run_cpp("--server", address, "--table", table_id, "--name", "cplusplus")
        )

    run = await a_game_the_server_stops(launch, "cplusplus")
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.summary["interrupted"] and not run.summary["game_over"], run.summary
    assert run.summary["reconnects"] == 0 and "interrupted" in run.stderr
    # The seed is revealed on an interrupted game too: its deals so far are checked.
    assert run.summary["deals"]["fair"] is True, run.summary


async def test_cpp_bot_creates_a_table_of_its_own_and_speaks_tls(tmp_path):
    cert, key = make_certificate(tmp_path)
    srv = await start_server("127.0.0.1", 0, tls=(cert.read_bytes(), key.read_bytes()))
    try:
        run = await run_cpp(
            "--bots", "2", "--target", "0", UNO_SERVER=srv.address, UNOPLAY_TLS_CA=str(cert)
        )
        table = srv.lobby.get(run.summary["table"])
        assert_finished_cleanly(table, run, 0)
        assert [s.bot is not None for s in table.seats] == [False, True, True]
        assert run.summary["errors"] == 0  # greedy bots always call UNO: no catch race
        # Without trusting the certificate there is no way in: the bot gives up.
        plain = await run_cpp("--server", srv.address, "--bots", "1")
        assert plain.returncode == 1 and "CreateTable refused" in plain.stderr
    finally:
        await srv.stop(None)


async def test_cpp_bot_exits_with_an_error_for_a_forged_token(server, conn):
    await check_forged_token(run_cpp, server, conn)


@pytest.mark.parametrize("args", BAD_COMMAND_LINES)
async def test_cpp_bot_exits_2_for_a_bad_command_line(args):
    run = await run_cpp(*args)
    assert run.returncode == 2, run.stderr
    assert run.summary == {}


def test_cpp_bot_heuristic_and_the_guides_test_vectors():
    # strategy_test.cpp: choose() follows its rules, not the list order; the
    # chance stream and the commitment give the guide's test vectors.
    done = subprocess.run([str(STRATEGY_TEST)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


# ------------------------------------------------------------------ the deal check


def _recorded_game(seat: int, rules: RuleSet, seed: str, players: int, events) -> bytes:
    """What ``seat`` received of a game (the welcome that starts it, the events
    it may see, deal_revealed), as one serialized PlayResponse."""
    from unoplay import wire
    from unoplay.game.deals import commitment
    from unoplay.v1 import game_pb2
    from unoplay.v1 import game_service_pb2 as gs
    from unoplay.v1 import lobby_service_pb2 as ls

    salt = "5a" * 16
    value = commitment(seed, salt, "t9-cpp", players, rules.to_dict())
    table = ls.Table(
        table_id="t9-cpp",
        seats=[game_pb2.SeatInfo(seat=s, name=f"p{s}", occupied=True) for s in range(players)],
        rules=wire.rules_pb(rules),
    )
    messages = [gs.TableMessage(welcome=gs.Welcome(seat=seat, table=table, deal_commitment=value))]
    messages += [
        gs.TableMessage(event=wire.event_pb(e)) for e in events if e.audience in (-1, seat)
    ]
    reveal = gs.DealRevealed(seed=seed, salt=salt, commitment=value)
    messages.append(gs.TableMessage(deal_revealed=reveal))
    for seq, message in enumerate(messages, start=1):
        message.seq = seq
    return gs.PlayResponse(messages=messages).SerializeToString()


def _cpp_check(recorded: bytes) -> tuple[int, dict]:
    out = subprocess.run([str(DEALS)], input=recorded, capture_output=True, timeout=60)
    assert out.returncode in (0, 1), out.stderr.decode()
    return out.returncode, json.loads(out.stdout)


def test_the_cpp_deal_check_agrees_with_the_engine_and_finds_a_tampered_deal():
    """deals.cpp, written from proto/README.md section 11 alone, replays the
    engine's piles exactly under many rule sets, and reports a forged card and
    a forged reveal."""
    for i, (rules, players) in enumerate(DEAL_CHECK_CASES):
        seed = f"cpp-{i}"
        events = play_out(players, rules, seed, random.Random(i))
        for seat in (-1, i % players):
            code, result = _cpp_check(_recorded_game(seat, rules, seed, players, events))
            assert code == 0 and result["fair"] and result["checked"] > 0, (i, seat, result)
    # One card of a hand dealt to seat 1, changed.
    rules = RuleSet(target_score=0)
    events = play_out(3, rules, "forged", random.Random(5))
    at = next(k for k, e in enumerate(events) if e.kind is EventKind.HAND_DEALT and e.player == 1)
    cards = list(events[at].cards)
    cards[3] = next(c for c in range(108) if c not in cards)
    forged = [*events[:at], events[at]._replace(cards=tuple(cards)), *events[at + 1 :]]
    code, result = _cpp_check(_recorded_game(1, rules, "forged", 3, forged))
    assert code == 1 and result["fair"] is False
    assert "the hand dealt to seat 1" in result["problems"][0]
    # A reveal whose seed is not the one committed to.
    from unoplay.v1 import game_service_pb2 as gs

    recorded = gs.PlayResponse.FromString(_recorded_game(1, rules, "forged", 3, events))
    recorded.messages[-1].deal_revealed.seed = "another seed"
    code, result = _cpp_check(recorded.SerializeToString())
    assert code == 1 and result["fair"] is False
    assert "do not give the revealed commitment" in result["problems"][0]


def test_the_cpp_deal_check_says_a_game_with_a_gap_cannot_be_checked():
    """The guide's section 11: seqs that jumped during a game leave its deals
    uncheckable (fair null), not unfair."""
    from unoplay.v1 import game_service_pb2 as gs

    rules = RuleSet(target_score=0)
    recorded = gs.PlayResponse.FromString(
        _recorded_game(0, rules, "gap", 3, play_out(3, rules, "gap", random.Random(1)))
    )
    for message in recorded.messages[5:]:
        message.seq += 10  # seqs 6..15 lost
    code, result = _cpp_check(recorded.SerializeToString())
    assert code == 1 and result["fair"] is None and result["checked"] == 0
    assert "a gap in the stream" in result["problems"][0]
