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
import json
import os
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import a_game_the_server_stops, greedy_bots_beside

from unoplay.client.match import parse_entrants, run_match
from unoplay.game.events import Event, EventKind
from unoplay.game.messages import TableState
from unoplay.game.rules import RuleSet, preset
from unoplay.server.service import start_server

WAIT = 90  # seconds: upper bound for any game or network wait here
ROOT = Path(__file__).resolve().parents[2]
BOT_DIR = ROOT / "client" / "go_bot"
BOT = BOT_DIR / "build" / "uno-go-bot"
GO = shutil.which("go")

# Refusals a bot cannot avoid by choosing from its legal actions (as in
# test_node_bot.py): a catch that lost a race (another player caught first,
# the player called UNO first, or the next player moved first).
CATCH_RACE_REASONS = {"not_one_card", "already_called", "catch_too_late"}
# Under jump_in (the house preset), a jump-in by someone else can land between
# the bot's decision and its turn action: that action is then refused with
# jumped_in (inside an out-of-turn window), or judged on the new state, with a
# turn reason (proto/README.md, section 3, "Races"), or with round_over or
# game_over when the jump-in was the player's last card.
JUMP_IN_RACE_REASONS = {
    "jumped_in",
    "round_over",
    "game_over",
    "not_your_turn",
    "does_not_match",
    "penalty_pending",
    "already_drew",
    "nothing_to_keep",
    "nothing_to_accept",
    "nothing_to_challenge",
    "only_drawn_card",
    "card_not_in_hand",
}
TURN_KINDS = {
    "ACTION_KIND_PLAY",
    "ACTION_KIND_DRAW",
    "ACTION_KIND_KEEP",
    "ACTION_KIND_CHALLENGE",
    "ACTION_KIND_ACCEPT",
    "ACTION_KIND_CHOOSE_COLOUR",
}


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


@dataclass
class GoRun:
    """A finished run of the Go bot."""

    returncode: int
    summary: dict
    stderr: str


async def run_go(*args: str, **env: str) -> GoRun:
    """Run the Go bot to its end (bounded), with only ``env``'s UNO_ variables."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("UNO")}
    process = await asyncio.create_subprocess_exec(
        str(BOT),
        *args,
        env={**base, **env},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), WAIT)
    except TimeoutError:
        process.kill()
        out, err = await process.communicate()
        pytest.fail(f"the Go bot did not finish in {WAIT}s; stderr:\n{err.decode()[-3000:]}")
    lines = out.decode().strip().splitlines()
    summary = json.loads(lines[-1]) if lines else {}
    return GoRun(process.returncode, summary, err.decode())


def assert_finished_cleanly(table, run: GoRun, seat: int) -> None:
    """The game is over and the Go bot saw all of it, as the server has it."""
    assert run.returncode == 0, run.stderr[-3000:]
    assert table.state is TableState.FINISHED and table.game.is_game_over
    s = run.summary
    assert s["game_over"] and s["seat"] == seat and s["table"] == table.table_id
    assert s["scores"] == list(table.game.scores)
    assert s["winners"] == list(table.game.view(seat).game_winners)
    assert s["gaps"] == 0 and s["last_seq"] == len(table.log_for(seat)) == s["messages"]


def assert_only_races(summary: dict, jump_in: bool) -> None:
    """Every refused intent lost a race no bot can avoid: a catch (any rules),
    or, under jump_in, a turn action overtaken by someone's jump-in."""
    assert summary["errors"] == len(summary["refused"]), summary
    for reason, _, kind in summary["refused"]:
        if kind == "ACTION_KIND_CATCH":
            assert reason in CATCH_RACE_REASONS, summary
        else:
            assert jump_in and kind in TURN_KINDS and reason in JUMP_IN_RACE_REASONS, summary


async def match_with_go(
    server, tmp_path, bots: str, games: int, seed: int, rules: RuleSet
) -> tuple[dict, list[dict]]:
    """``uno match --bots BOTS --seat <go bot>``: its report, and the Go bot's
    summary line of each game (``uno match`` discards a seat's stdout, so a
    shell appends it to a file)."""
    lines = tmp_path / f"go-{seed}.jsonl"
    shell = f'exec "$0" >> {shlex.quote(str(lines))}'
    entrants = parse_entrants(bots, [f"sh -c {shlex.quote(shell)} {shlex.quote(str(BOT))}"])
    report = await asyncio.wait_for(
        run_match(entrants, games=games, seed=seed, rules=rules, server=server.address), WAIT
    )
    summaries = [json.loads(line) for line in lines.read_text().splitlines()]
    n = len(entrants)
    assert [e["games"] for e in report["entrants"]] == [games] * n
    assert sum(e["wins"] for e in report["entrants"]) == pytest.approx(games)
    assert len(summaries) == games
    finished = {t.table_id: t for t in server.lobby.finished}
    for s in summaries:  # each game finished, and the bot saw all of it
        table = finished[s["table"]]
        assert table.state is TableState.FINISHED and table.game.is_game_over
        assert s["game_over"] and s["gaps"] == 0 and s["reconnects"] == 0
        assert s["scores"] == list(table.game.scores)
        assert s["last_seq"] == s["messages"] == len(table.log_for(s["seat"]))
        assert s["intents"] > 0
    return report, summaries, finished


def false_uno_calls(table, seat: int) -> int:
    """UNO calls by ``seat`` that were not due (accepted, at a cost, under a
    false_uno_penalty, so they show as events, not as refusals)."""
    return sum(
        1
        for m in table.log_for(seat)
        if isinstance(m, Event) and m.kind is EventKind.UNO_FALSE_CALL and m.player == seat
    )


async def test_uno_match_runs_the_go_bot_under_the_official_rules(server, tmp_path):
    report, summaries, _ = await match_with_go(
        server, tmp_path, "greedy,random", games=8, seed=31, rules=RuleSet(target_score=0)
    )
    for s in summaries:
        assert_only_races(s, jump_in=False)
    assert sum(s["errors"] for s in summaries) < 8  # a catch race is lost now and then
    go = report["entrants"][-1]
    assert go["wins"] > 0, report  # it plays to win, not merely legally


async def test_uno_match_runs_the_go_bot_under_the_house_preset(server, tmp_path):
    # Stacking, jump-in (the greedy bot jumps in), several cards in one play,
    # a false UNO call costs 2 (the server accepts one spelled out, never lists
    # it among the legal actions): the bot must never make one.
    _report, summaries, tables = await match_with_go(
        server,
        tmp_path,
        "greedy,greedy,random",
        games=8,
        seed=41,
        rules=preset("house").replace(target_score=0),
    )
    for s in summaries:
        assert_only_races(s, jump_in=True)
        assert false_uno_calls(tables[s["table"]], s["seat"]) == 0
    assert sum(s["errors"] for s in summaries) < 10


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
    table = await conn.create_table(seats=2)
    run = await run_go(
        UNO_SERVER=server.address, UNO_TABLE=table.table_id, UNO_TOKEN="forged-token", UNO_SEAT="0"
    )
    assert run.returncode == 1
    assert "UNAUTHENTICATED" in run.stderr
    assert not run.summary["game_over"]


@pytest.mark.parametrize(
    "args",
    [
        ["--bogus"],
        ["--token", "t"],
        ["--drop-after", "x"],
        ["--table", "t1", "--bots", "2"],
        ["--bots", "0"],
        ["extra"],
    ],
)
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
