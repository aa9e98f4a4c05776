"""The Go bot (client/go_bot) plays complete games over loopback as a seat of
``uno match``, under the official rules and the "house" preset; joins by
name, resumes after dropped streams, creates and starts a table of its own,
speaks TLS, exits 1 when refused and 2 for a bad command line; and its
heuristic (``go test``) follows its rules, not the list order.

The bot is a separate process built by ``make go-bot`` from the ``.proto``
files alone; the server and the Python bots run on this test's event loop.
Skipped, with the reason in the summary, only when the binary is not built
(``go``, ``protoc`` or Debian's Go gRPC packages missing).
"""

from __future__ import annotations

import asyncio
import os
import shutil
from functools import partial
from pathlib import Path

import pytest
from external_bots import (
    BAD_COMMAND_LINES,
    assert_finished_cleanly,
    check_arena_mode,
    check_forged_token,
    check_house_match,
    check_official_match,
    run_bot_binary,
)
from helpers import a_game_the_server_stops, greedy_bots_beside

from unoplay.game.rules import RuleSet
from unoplay.server.service import start_server

WAIT = 90  # seconds: upper bound for any game or network wait here
ROOT = Path(__file__).resolve().parents[2]
BOT_DIR = ROOT / "client" / "go_bot"
BOT = BOT_DIR / "build" / "uno-go-bot"
GO = shutil.which("go")


def _missing() -> str | None:
    if BOT.is_file() and os.access(BOT, os.X_OK):
        return None
    if GO is None:
        return (
            "go is not on PATH: the Go bot (client/go_bot) is NOT tested; apt-get install "
            "golang-go protobuf-compiler protoc-gen-go protoc-gen-go-grpc golang-google-grpc-dev "
            "golang-github-golang-protobuf-1-5-dev, then run `make go-bot`"
        )
    return (
        f"{BOT.relative_to(ROOT)} is not built: the Go bot is NOT tested; run `make go-bot` "
        "(its NOTICE names what is missing)"
    )


MISSING = _missing()
if MISSING:  # shown in the warnings summary as well as in the skip reason
    import warnings

    warnings.warn(MISSING, pytest.PytestWarning, stacklevel=1)
pytestmark = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")

run_go = partial(run_bot_binary, BOT)


async def test_uno_match_runs_the_go_bot_under_the_official_rules(server, tmp_path):
    await check_official_match(BOT, server, tmp_path)


async def test_uno_match_runs_the_go_bot_under_the_house_preset(server, tmp_path):
    await check_house_match(BOT, server, tmp_path)


async def test_go_bot_joins_by_name_and_resumes_after_dropped_streams(server, conn):
    table_info = await conn.create_table(seats=3, rules=RuleSet(target_score=150), seed=5)
    table = server.lobby.get(table_info.table_id)
    go = asyncio.create_task(
        run_go(
            "--server",
            server.address,
            "--table",
            table.table_id,
            "--name",
            "gopher",
            # Testing hooks: cut its own stream after these messages, and right
            # after sending these intents (the intent may be lost in the drop).
            "--drop-after",
            "5,40,41",
            "--drop-after-intent",
            "3,12",
        )
    )
    seat, tasks = await greedy_bots_beside(conn, table, "gopher")
    run = await go
    await asyncio.wait_for(asyncio.gather(*tasks), WAIT)
    assert_finished_cleanly(table, run, seat)
    assert run.summary["reconnects"] == 5, run.stderr[-3000:]
    assert run.summary["errors"] == 0, run.stderr[-3000:]
    assert run.stderr.count("resuming after seq") == 5


async def test_go_bot_exits_0_on_a_game_interrupted_by_the_server_stop():
    # deal_revealed without GAME_OVER, then UNAVAILABLE "the server is shutting
    # down": the game will never go on; the bot must not retry a dead server.
    def launch(address: str, table_id: str) -> asyncio.Task:
        return asyncio.create_task(
            run_go("--server", address, "--table", table_id, "--name", "gopher")
        )

    run = await a_game_the_server_stops(launch, "gopher")
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.summary["interrupted"] and not run.summary["game_over"], run.summary
    assert run.summary["reconnects"] == 0 and "interrupted" in run.stderr


async def test_go_bot_creates_and_starts_a_table_of_its_own(server):
    run = await run_go(
        "--server", server.address, "--bots", "2", "--bot-kind", "greedy", "--target", "0"
    )
    table = server.lobby.get(run.summary["table"])
    assert_finished_cleanly(table, run, 0)
    assert [s.bot is not None for s in table.seats] == [False, True, True]
    assert run.summary["errors"] == 0  # greedy bots always call UNO: no catch race


async def test_go_bot_plays_over_tls_with_the_ca_from_the_environment(tmp_path):
    from helpers import make_certificate

    cert, key = make_certificate(tmp_path)
    srv = await start_server("127.0.0.1", 0, tls=(cert.read_bytes(), key.read_bytes()))
    try:
        run = await run_go(
            "--bots", "1", "--target", "0", UNO_SERVER=srv.address, UNOPLAY_TLS_CA=str(cert)
        )
        assert_finished_cleanly(srv.lobby.get(run.summary["table"]), run, 0)
        # Without trusting the certificate there is no way in: the bot gives up.
        plain = await run_go("--server", srv.address, "--bots", "1")
        assert plain.returncode == 1 and "CreateTable refused" in plain.stderr
    finally:
        await srv.stop(None)


async def test_go_bot_exits_with_an_error_for_a_forged_token(server, conn):
    await check_forged_token(run_go, server, conn)


@pytest.mark.parametrize("args", BAD_COMMAND_LINES)
async def test_go_bot_exits_2_for_a_bad_command_line(args):
    run = await run_go(*args)
    assert run.returncode == 2, run.stderr
    assert run.summary == {}


async def test_go_bot_heuristic_follows_its_rules_not_the_list_order():
    # strategy_test.go, built as `make go-bot` builds the bot (GOPATH mode,
    # the generated code in build/gopath, no module downloads).
    if GO is None:
        pytest.skip("go is not on PATH: the Go bot's unit tests need it")
    gopath = f"{BOT_DIR / 'build' / 'gopath'}{os.pathsep}/usr/share/gocode"
    env = {**os.environ, "GO111MODULE": "off", "GOFLAGS": "", "GOPROXY": "off", "GOPATH": gopath}
    if "HOME" not in env:
        env["GOCACHE"] = str(BOT_DIR / "build" / "gocache")
    process = await asyncio.create_subprocess_exec(
        GO,
        "test",
        "-count=1",
        ".",
        cwd=BOT_DIR,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        out, _ = await asyncio.wait_for(process.communicate(), 300)
    except TimeoutError:
        process.kill()
        await process.communicate()
        pytest.fail("go test did not finish in 300 s")
    assert process.returncode == 0, out.decode()[-3000:]


async def test_go_bot_enters_the_arena_plays_its_games_and_keeps_its_name(tmp_path):
    """`uno-go-bot --arena` (external_bots.check_arena_mode)."""
    await check_arena_mode(run_go, tmp_path / "gopher.secret", "gopher")
