"""What the tests of the compiled starter bots (client/go_bot, client/cpp_bot,
client/java_bot) share: running one to its end, seating it in ``uno match``,
the checks of a game it played, and the checks of a deal checker of its own
(section 11 of the guide) on recorded games. Each bot prints one line of JSON
at its end (the same fields in every language); these helpers read it."""

from __future__ import annotations

import asyncio
import json
import os
import random
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from unoplay.client.match import MatchConfig, parse_entrants, run_match
from unoplay.game.events import Event, EventKind
from unoplay.game.messages import TableState
from unoplay.game.rules import PRESETS, RuleSet

WAIT = 90  # seconds: upper bound for any game or network wait here

# Refusals a bot cannot avoid by choosing from its legal actions: a catch that
# lost a race (another player caught first, the player called UNO first, or
# the next player moved first).
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


@dataclass
class BotRun:
    """A finished run of an external bot."""

    returncode: int
    summary: dict
    stderr: str


async def run_bot_binary(binary: Path, *args: str, **env: str) -> BotRun:
    """Run ``binary`` to its end (bounded), with only ``env``'s UNO_ variables."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("UNO")}
    process = await asyncio.create_subprocess_exec(
        str(binary),
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
        pytest.fail(f"{binary.name} did not finish in {WAIT}s; stderr:\n{err.decode()[-3000:]}")
    lines = out.decode().strip().splitlines()
    summary = json.loads(lines[-1]) if lines else {}
    return BotRun(process.returncode, summary, err.decode())


def assert_finished_cleanly(table, run: BotRun, seat: int) -> None:
    """The game is over and the bot saw all of it, as the server has it."""
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


async def match_with_seat(
    binary: Path, server, tmp_path, bots: str, games: int, seed: int, rules: RuleSet
) -> tuple[dict, list[dict], dict]:
    """``uno match --bots BOTS --seat BINARY``: its report, the bot's summary
    line of each game (``uno match`` discards a seat's stdout, so a shell
    appends it to a file), and the finished tables by id."""
    lines = tmp_path / f"{binary.name}-{seed}.jsonl"
    shell = f'exec "$0" >> {shlex.quote(str(lines))}'
    entrants = parse_entrants(bots, [f"sh -c {shlex.quote(shell)} {shlex.quote(str(binary))}"])
    report = await asyncio.wait_for(
        run_match(
            MatchConfig(entrants, games=games, seed=seed, rules=rules, server=server.address)
        ),
        WAIT,
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


async def check_arena_mode(run, secret_file: Path, name: str) -> None:
    """A starter bot's arena mode: ``run(*args)`` runs it to its end (a
    result with ``returncode``, ``summary``, ``stderr``). Against a server
    whose arena seats two and fills with its greedy bots at once, the bot
    enters under ``name``, plays its ``--games`` and no more (it is seated at
    no further game, to lose it to a stand-in), keeps the name's secret in
    ``secret_file``; run again it enters with that secret; another client
    without the secret cannot take the name."""
    import dataclasses

    from unoplay.client.sdk import Connection, SeatGone
    from unoplay.server.arena import ArenaSettings
    from unoplay.server.service import start_server

    settings = dataclasses.replace(ArenaSettings(), seats=2, fill_after=0.0)
    srv = await start_server("127.0.0.1", 0, arena=settings)
    try:
        for games in (2, 1):
            result = await run(
                "--arena", "--server", srv.address, "--name", name,
                "--games", str(games), "--secret-file", str(secret_file),
            )  # fmt: skip
            assert result.returncode == 0, result.stderr[-3000:]
            assert result.summary["game_over"] and result.summary["errors"] == 0, result.summary
        assert secret_file.read_text().strip()
        # it left the queue before its last game: no further game was seated
        # (one would be in play now, its seat played by a stand-in: a loss)
        seated = [
            t.table_id
            for t in srv.lobby.tables.values()
            if t.state is not TableState.FINISHED and any(s.name == name for s in t.seats)
        ]
        assert seated == [], seated
        async with Connection(srv.address) as conn:
            rows = {r.name: r for r in await conn.standings()}
            assert rows[name].games == 3
            with pytest.raises(SeatGone):
                async for _ in conn.enter_arena(name):
                    pass
    finally:
        await srv.stop(None)


#: (rules, players) under which a starter's deal check must agree with the
#: engine (section 11): the house preset, a target, every option that moves
#: cards, the other formats, ten players.
DEAL_CHECK_CASES = [
    (PRESETS["house"].replace(target_score=0), 4),
    (RuleSet(target_score=200), 3),
    (
        RuleSet(
            target_score=0,
            seven_zero=True,
            swap_on_five=True,
            point_values="classic",
            initial_direction="counter_clockwise",
            wrong_play_penalty=1,
        ),
        5,
    ),
    (RuleSet(format="elimination", target_score=0, stacking="any"), 6),
    (RuleSet(format="tournament", scoring="penalty", target_score=60), 4),
    (RuleSet(target_score=0, multi_play="same_rank", starter_wild_redraw=True), 10),
]

#: Command lines a compiled starter (Go, C++) refuses with exit code 2.
BAD_COMMAND_LINES = [
    ["--bogus"],
    ["--token", "t"],
    ["--drop-after", "x"],
    ["--table", "t1", "--bots", "2"],
    ["--bots", "0"],
    ["extra"],
]


async def check_forged_token(run, server, conn) -> None:
    """A starter given a token that is no seat's exits 1 with UNAUTHENTICATED."""
    table = await conn.create_table(seats=2)
    result = await run(
        UNO_SERVER=server.address, UNO_TABLE=table.table_id, UNO_TOKEN="forged-token", UNO_SEAT="0"
    )
    assert result.returncode == 1
    assert "UNAUTHENTICATED" in result.stderr
    assert not result.summary["game_over"]


async def check_official_match(binary: Path, server, tmp_path, each=None) -> None:
    """A starter as a `uno match --seat` against greedy, official single
    rounds: only catch races refused, and it wins some. ``each(summary)``:
    the starter's own checks of each game (its deal check)."""
    report, summaries, _ = await match_with_seat(
        binary, server, tmp_path, "greedy,random", games=8, seed=31, rules=RuleSet(target_score=0)
    )
    for s in summaries:
        assert_only_races(s, jump_in=False)
        if each is not None:
            each(s)
    assert sum(s["errors"] for s in summaries) < 8  # a catch race is lost now and then
    assert report["entrants"][-1]["wins"] > 0, report  # it plays to win, not merely legally


async def check_house_match(binary: Path, server, tmp_path, each=None) -> None:
    """The same under the house preset: stacking, jump-in (the greedy bot
    jumps in), several cards in one play, a false UNO call costs 2 (the
    server accepts one spelled out, never lists it among the legal actions):
    the starter must never make one."""
    _report, summaries, tables = await match_with_seat(
        binary,
        server,
        tmp_path,
        "greedy,greedy,random",
        games=8,
        seed=41,
        rules=PRESETS["house"].replace(target_score=0),
    )
    for s in summaries:
        assert_only_races(s, jump_in=True)
        assert false_uno_calls(tables[s["table"]], s["seat"]) == 0
        if each is not None:
            each(s)
    assert sum(s["errors"] for s in summaries) < 10


def assert_deals_fair(summary: dict) -> None:
    """The bot checked the game's deals itself (its own section 11 code) and
    found them fair."""
    deals = summary["deals"]
    assert deals is not None and deals["problems"] == [], deals
    assert deals["fair"] is True and deals["checked"] >= 7, deals


def recorded_game(seat: int, rules: RuleSet, seed: str, players: int, events) -> bytes:
    """What ``seat`` (-1: a spectator) received of a game (the welcome that
    starts it, the events it may see, deal_revealed), as one serialized
    PlayResponse: the input of a starter's deal checker."""
    from unoplay import wire
    from unoplay.game.deals import commitment
    from unoplay.v1 import game_pb2
    from unoplay.v1 import game_service_pb2 as gs
    from unoplay.v1 import lobby_service_pb2 as ls

    salt = "5a" * 16
    value = commitment(seed, salt, "t9-deals", players, rules.to_dict())
    table = ls.Table(
        table_id="t9-deals",
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


def run_deal_check(command: list[str], recorded: bytes) -> tuple[int, dict]:
    """Run a starter's deal checker (``command``: it reads a recorded game on
    stdin, prints its check as one line of JSON, exits 0 when fair, 1 when
    not): its exit code and its check."""
    out = subprocess.run(command, input=recorded, capture_output=True, timeout=WAIT)
    assert out.returncode in (0, 1), out.stderr.decode()
    return out.returncode, json.loads(out.stdout)


def check_deal_checker(command: list[str]) -> None:
    """A starter's deal checker, written from proto/README.md section 11
    alone, replays the engine's piles exactly under many rule sets (as a
    spectator and as a seat), reports a forged card and a forged reveal, and
    says that a game with a gap in its seqs cannot be checked (fair null),
    not that it is unfair."""
    from helpers import play_out

    from unoplay.v1 import game_service_pb2 as gs

    for i, (rules, players) in enumerate(DEAL_CHECK_CASES):
        seed = f"deals-{i}"
        events = play_out(players, rules, seed, random.Random(i))
        for seat in (-1, i % players):
            code, result = run_deal_check(
                command, recorded_game(seat, rules, seed, players, events)
            )
            assert code == 0 and result["fair"] and result["checked"] > 0, (i, seat, result)
    # One card of a hand dealt to seat 1, changed.
    rules = RuleSet(target_score=0)
    events = play_out(3, rules, "forged", random.Random(5))
    at = next(k for k, e in enumerate(events) if e.kind is EventKind.HAND_DEALT and e.player == 1)
    cards = list(events[at].cards)
    cards[3] = next(c for c in range(108) if c not in cards)
    forged = [*events[:at], events[at]._replace(cards=tuple(cards)), *events[at + 1 :]]
    code, result = run_deal_check(command, recorded_game(1, rules, "forged", 3, forged))
    assert code == 1 and result["fair"] is False
    assert "the hand dealt to seat 1" in result["problems"][0]
    # A reveal whose seed is not the one committed to.
    recorded = gs.PlayResponse.FromString(recorded_game(1, rules, "forged", 3, events))
    recorded.messages[-1].deal_revealed.seed = "another seed"
    code, result = run_deal_check(command, recorded.SerializeToString())
    assert code == 1 and result["fair"] is False
    assert "do not give the revealed commitment" in result["problems"][0]
    # Seqs 6..15 lost: the deals cannot be checked.
    recorded = gs.PlayResponse.FromString(
        recorded_game(0, rules, "gap", 3, play_out(3, rules, "gap", random.Random(1)))
    )
    for message in recorded.messages[5:]:
        message.seq += 10
    code, result = run_deal_check(command, recorded.SerializeToString())
    assert code == 1 and result["fair"] is None and result["checked"] == 0
    assert "a gap in the stream" in result["problems"][0]


async def check_interrupted_game(run, name: str) -> BotRun:
    """A starter's game interrupted by the server's stop for good
    (deal_revealed without GAME_OVER, then UNAVAILABLE "the server is
    shutting down"): the game will never go on, so the bot exits 0 at once,
    never retrying a dead server. Returns the run for checks of its own."""
    from helpers import a_game_the_server_stops

    def launch(address: str, table_id: str) -> asyncio.Task:
        return asyncio.create_task(run("--server", address, "--table", table_id, "--name", name))

    result = await a_game_the_server_stops(launch, name)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.summary["interrupted"] and not result.summary["game_over"], result.summary
    assert result.summary["reconnects"] == 0 and "interrupted" in result.stderr
    return result


async def check_own_table_over_tls(run, tmp_path: Path) -> None:
    """A starter creates a table of its own with two server bots over TLS
    (the CA from UNOPLAY_TLS_CA) and plays it out; without trusting the
    certificate there is no way in: it gives up (exit 1)."""
    from helpers import make_certificate

    from unoplay.server.service import start_server

    cert, key = make_certificate(tmp_path)
    srv = await start_server("127.0.0.1", 0, tls=(cert.read_bytes(), key.read_bytes()))
    try:
        result = await run(
            "--bots", "2", "--target", "0", UNO_SERVER=srv.address, UNOPLAY_TLS_CA=str(cert)
        )
        table = srv.lobby.get(result.summary["table"])
        assert_finished_cleanly(table, result, 0)
        assert [s.bot is not None for s in table.seats] == [False, True, True]
        assert result.summary["errors"] == 0  # greedy bots always call UNO: no catch race
        plain = await run("--server", srv.address, "--bots", "1")
        assert plain.returncode == 1 and "CreateTable refused" in plain.stderr
    finally:
        await srv.stop(None)
