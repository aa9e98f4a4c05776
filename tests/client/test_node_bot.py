"""The Node.js bot (client/node_bot/bot.js) plays complete games over loopback
against the Python bots, joins by name, resumes after dropped streams, is a
seat of ``uno match``, and chooses by its heuristic, not by list order.

The bot is a separate process that knows only the ``.proto`` files; the server
and the Python bots run on this test's event loop. Skipped, with the reason in
the summary, only when ``node`` or the bot's ``node_modules`` (``make
node-bot``) is missing.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import shutil
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import a_game_the_server_stops, greedy_bots_beside

from unoplay.client.match import MatchConfig, MatchError, parse_entrants, run_match
from unoplay.client.sdk import run_bot
from unoplay.game.messages import TableState
from unoplay.game.registry import make_bot
from unoplay.game.rules import RuleSet

WAIT = 90  # seconds: upper bound for any game or network wait here
ROOT = Path(__file__).resolve().parents[2]
BOT_DIR = ROOT / "client" / "node_bot"
BOT = BOT_DIR / "bot.js"
NODE = shutil.which("node")

# Refusals a bot cannot avoid by choosing from its legal actions: a catch that
# lost a race (another player caught first, the player called UNO first, or the
# next player moved first).
CATCH_RACE_REASONS = {"not_one_card", "already_called", "catch_too_late"}


def _missing() -> str | None:
    if NODE is None:
        return (
            "node is not on PATH: the Node.js bot (client/node_bot) is NOT tested; "
            "install Node.js 18+ and run `make node-bot`"
        )
    if not (BOT_DIR / "node_modules" / "@grpc" / "grpc-js").is_dir():
        return (
            "client/node_bot/node_modules is missing: the Node.js bot is NOT tested; "
            "run `make node-bot` (npm ci --prefix client/node_bot)"
        )
    return None


MISSING = _missing()
if MISSING:  # shown in the warnings summary as well as in the skip reason
    warnings.warn(MISSING, pytest.PytestWarning, stacklevel=1)
pytestmark = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")


@dataclass
class NodeRun:
    """A finished run of the Node bot."""

    returncode: int
    summary: dict
    stderr: str


class NodeBot:
    """The Node bot as a subprocess; :meth:`result` waits for it (bounded)."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    @classmethod
    async def start(cls, *args: str, **env: str) -> NodeBot:
        base = {k: v for k, v in os.environ.items() if not k.startswith("UNO_")}
        process = await asyncio.create_subprocess_exec(
            NODE,
            str(BOT),
            *args,
            env={**base, **env},
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        return cls(process)

    async def result(self) -> NodeRun:
        try:
            out, err = await asyncio.wait_for(self.process.communicate(), WAIT)
        except TimeoutError:
            self.process.kill()
            out, err = await self.process.communicate()
            pytest.fail(f"the Node bot did not finish in {WAIT}s; stderr:\n{err.decode()[-3000:]}")
        lines = out.decode().strip().splitlines()
        summary = json.loads(lines[-1]) if lines else {}
        return NodeRun(self.process.returncode, summary, err.decode())


async def play_with_node(
    server,
    conn,
    kinds: list[str],
    seed: int,
    rules: RuleSet,
    node_seat: int = 0,
    node_args: tuple[str, ...] = (),
):
    """One game: the Node bot in ``node_seat`` (seated by the test, token in its
    environment as ``uno match`` does), Python bots of ``kinds`` in the others."""
    n = len(kinds) + 1
    table = await conn.create_table(seats=n, rules=rules, title=f"node {seed}", seed=seed)
    joins = [
        await conn.join_table(table.table_id, "node" if s == node_seat else f"py{s}")
        for s in range(n)
    ]
    python_seats = [s for s in range(n) if s != node_seat]
    tasks = [
        asyncio.create_task(
            run_bot(
                make_bot(kind, seed=seed * 10 + s),
                conn.session(table.table_id, joins[s].seat_token),
            )
        )
        for kind, s in zip(kinds, python_seats)
    ]
    node = await NodeBot.start(
        *node_args,
        UNO_SERVER=server.address,
        UNO_TABLE=table.table_id,
        UNO_TOKEN=joins[node_seat].seat_token,
        UNO_SEAT=str(node_seat),
    )
    await conn.start_game(table.table_id, joins[0].seat_token)
    run = await node.result()
    states = await asyncio.wait_for(asyncio.gather(*tasks), WAIT)
    return server.lobby.get(table.table_id), run, states


def assert_finished_cleanly(table, run: NodeRun, seat: int) -> None:
    """The game is over and the Node bot saw all of it, as the server has it."""
    assert run.returncode == 0, run.stderr[-3000:]
    assert table.state is TableState.FINISHED and table.game.is_game_over
    s = run.summary
    assert s["game_over"] and s["seat"] == seat
    assert s["scores"] == list(table.game.scores)
    assert s["winners"] == list(table.game.view(seat).game_winners)
    assert s["gaps"] == 0 and s["last_seq"] == len(table.log_for(seat)) == s["messages"]
    # It checked the deals itself, from the guide alone (client/node_bot/deals.js).
    assert s["deals"] is not None and s["deals"]["problems"] == [], s["deals"]
    assert s["deals"]["fair"] and s["deals"]["checked"] >= 7


async def test_node_bot_plays_full_games_against_greedy_bots_with_no_refused_intent(server, conn):
    # Greedy bots always call UNO, so nobody can be caught and there is no race
    # for a catch: every intent the Node bot sends must be accepted.
    for seed, kinds, node_seat, target in (
        (11, ["greedy"] * 3, 0, 500),
        (12, ["greedy"], 1, 200),
        (13, ["greedy"] * 4, 3, 0),
    ):
        table, run, states = await play_with_node(
            server, conn, kinds, seed, RuleSet(target_score=target), node_seat
        )
        assert_finished_cleanly(table, run, node_seat)
        assert run.summary["errors"] == 0, run.summary
        assert "ActionError" not in run.stderr
        assert run.summary["intents"] > 0
        if target:
            assert max(table.game.scores) >= target
        assert all(state.game_over for state in states)


async def test_node_bot_plays_against_random_bots_and_only_loses_catch_races(server, conn):
    # Random bots forget UNO, so everyone races to catch them. A catch that
    # loses the race is refused, which no bot can avoid; nothing else may be.
    refusals = 0
    for seed in (21, 22, 23):
        table, run, _states = await play_with_node(
            server, conn, ["random", "random", "greedy"], seed, RuleSet(target_score=0), seed % 4
        )
        assert_finished_cleanly(table, run, seed % 4)
        s = run.summary
        assert set(s["error_reasons"]) <= CATCH_RACE_REASONS, s
        assert all(kind == "ACTION_KIND_CATCH" for _, _, kind in s["refused"]), s
        assert s["errors"] == len(s["refused"])
        refusals += s["errors"]
    assert refusals < 10  # a catch race is lost now and then, not every turn


async def test_node_bot_joins_by_name_and_resumes_after_dropped_streams(server, conn):
    table_info = await conn.create_table(seats=3, rules=RuleSet(target_score=150), seed=5)
    table = server.lobby.get(table_info.table_id)
    node = await NodeBot.start(
        "--server",
        server.address,
        "--table",
        table.table_id,
        "--name",
        "nodey",
        # Testing hooks: cut its own stream after these messages, and right
        # after sending these intents (the intent may be lost in the drop).
        "--drop-after",
        "5,40,41",
        "--drop-after-intent",
        "3,12",
    )
    seat, tasks = await greedy_bots_beside(conn, table, "nodey")
    run = await node.result()
    await asyncio.wait_for(asyncio.gather(*tasks), WAIT)
    assert_finished_cleanly(table, run, seat)
    assert run.summary["reconnects"] == 5, run.stderr[-3000:]
    assert run.summary["errors"] == 0, run.stderr[-3000:]
    assert "resuming after seq" in run.stderr


async def test_node_bot_exits_with_an_error_for_a_forged_token(server, conn):
    table = await conn.create_table(seats=2)
    node = await NodeBot.start(
        UNO_SERVER=server.address, UNO_TABLE=table.table_id, UNO_TOKEN="forged-token"
    )
    run = await node.result()
    assert run.returncode == 1
    assert "UNAUTHENTICATED" in run.stderr
    assert not run.summary["game_over"]


async def test_node_bot_exits_0_on_a_game_interrupted_by_the_server_stop():
    # deal_revealed without GAME_OVER, then UNAVAILABLE "the server is shutting
    # down": the game will never go on; the bot must not retry a dead server.
    async def start(address: str, table_id: str) -> NodeRun:
        node = await NodeBot.start("--server", address, "--table", table_id, "--name", "nodey")
        return await node.result()

    run = await a_game_the_server_stops(lambda *a: asyncio.create_task(start(*a)), "nodey")
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.summary["interrupted"] and not run.summary["game_over"], run.summary
    assert run.summary["reconnects"] == 0 and "interrupted" in run.stderr


async def test_uno_match_runs_the_node_bot_as_an_external_seat(server):
    entrants = parse_entrants("greedy,random", [f"{NODE} {BOT}"])
    report = await asyncio.wait_for(
        run_match(
            MatchConfig(
                entrants, games=3, seed=7, rules=RuleSet(target_score=0), server=server.address
            )
        ),
        WAIT,
    )
    assert [e["games"] for e in report["entrants"]] == [3, 3, 3]
    assert sum(e["wins"] for e in report["entrants"]) == pytest.approx(3)
    assert len(server.lobby.finished) == 3


async def test_uno_match_stops_when_an_external_bot_fails_instead_of_crediting_its_stand_in(server):
    failing = f"{shlex.quote(sys.executable)} -c 'import sys; sys.exit(3)'"
    entrants = parse_entrants("greedy", [failing])
    with pytest.raises(MatchError, match="exited with code 3"):
        await asyncio.wait_for(
            run_match(
                MatchConfig(
                    entrants, games=2, seed=7, rules=RuleSet(target_score=0), server=server.address
                )
            ),
            WAIT,
        )
    assert not server.lobby.finished  # no game was counted


SCENARIOS = r"""
const { choose } = require(process.argv[1]);
const card = (id, colour, rank) => ({ id, colour: `COLOUR_${colour}`, rank: `RANK_${rank}` });
const act = (id, kind, extra = {}) => ({ id, action: { kind: `ACTION_KIND_${kind}`, colour: 'COLOUR_UNSPECIFIED', uno: false, ...extra }, label: '' });
const view = (extra) => ({ seat: 0, current: 0, phase: 'PHASE_PLAY', catchable: -1, direction: 'DIRECTION_CLOCKWISE',
  hand: [], hand_sizes: [5, 5, 5, 5], drawn_card: null, ...extra });
const hand = [card(3, 'RED', 'THREE'), card(11, 'RED', 'SKIP'), card(30, 'YELLOW', 'FOUR'),
  card(31, 'YELLOW', 'FIVE'), card(100, 'UNSPECIFIED', 'WILD'), card(104, 'UNSPECIFIED', 'WILD_DRAW_FOUR')];
const wilds = (card, base) => ['RED', 'YELLOW', 'GREEN', 'BLUE'].map((c, i) => act(base + i, 'PLAY', { card_id: card, colour: `COLOUR_${c}` }));
const out = {};
out.catch_first = choose(view({}), [act(1, 'DRAW'), act(130, 'PLAY', { card_id: 3 }), act(22, 'CATCH', { target: 2 })], -1).id;
out.most_points = choose(view({ hand }), [act(1, 'DRAW'), act(130, 'PLAY', { card_id: 3 }), act(210, 'PLAY', { card_id: 11 }),
  ...wilds(100, 1100)], -1).id;
out.uno_play = choose(view({ hand: [card(3, 'RED', 'THREE'), card(11, 'RED', 'SKIP')] }), [act(130, 'PLAY', { card_id: 3 }),
  act(131, 'PLAY', { card_id: 3, uno: true }), act(210, 'PLAY', { card_id: 11 }), act(1, 'DRAW')], -1).id;
out.wild_names_colour_held_most = choose(view({ hand }), [act(1, 'DRAW'), ...wilds(104, 1140), ...wilds(100, 1100)], -1);
out.draw_when_nothing_fits = choose(view({ hand }), [act(23, 'CALL_UNO'), act(1, 'DRAW')], -1).id;
out.play_the_drawn_card = choose(view({ hand, phase: 'PHASE_DRAWN' }), [act(2, 'KEEP'), act(330, 'PLAY', { card_id: 30 })], -1).id;
out.challenge_big_hand = choose(view({ phase: 'PHASE_PENALTY', hand_sizes: [5, 5, 5, 6] }), [act(3, 'CHALLENGE'), act(4, 'ACCEPT')], 3).id;
out.accept_small_hand = choose(view({ phase: 'PHASE_PENALTY', hand_sizes: [5, 5, 5, 2] }), [act(3, 'CHALLENGE'), act(4, 'ACCEPT')], 3).id;
out.wait_out_of_turn = choose(view({ current: 2 }), [act(5, 'CALL_UNO')], -1);
out.call_own_uno = choose(view({ current: 2, catchable: 0 }), [act(5, 'CALL_UNO')], -1).id;
console.log(JSON.stringify(out));
"""


async def run_with_bot_module(script: str) -> tuple[dict, str]:
    """Run ``script`` under node with bot.js's path as its argument; (its JSON
    output, its stderr). Fails on a non-zero exit."""
    process = await asyncio.create_subprocess_exec(
        NODE,
        "-e",
        script,
        str(BOT),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), WAIT)
    assert process.returncode == 0, err.decode()
    return json.loads(out), err.decode()


async def test_node_bot_heuristic_follows_its_rules_not_the_list_order():
    picks, _ = await run_with_bot_module(SCENARIOS)
    assert picks["catch_first"] == 22
    assert picks["most_points"] == 210  # the Skip (20 points), not the 3 nor a wild
    assert picks["uno_play"] == 131  # the play that calls UNO
    wild = picks["wild_names_colour_held_most"]  # a Wild before a Wild Draw Four, naming...
    assert wild["action"]["card_id"] == 100
    assert wild["action"]["colour"] in ("COLOUR_RED", "COLOUR_YELLOW")  # ...a colour held most
    assert picks["draw_when_nothing_fits"] == 1
    assert picks["play_the_drawn_card"] == 330
    assert picks["challenge_big_hand"] == 3 and picks["accept_small_hand"] == 4
    assert picks["wait_out_of_turn"] is None and picks["call_own_uno"] == 5


def _transcript(seat: int, rules: RuleSet, seed: str, players: int, events) -> dict:
    """What a seat received, in the shapes @grpc/proto-loader gives (enums as names)."""
    from google.protobuf.json_format import MessageToDict

    from unoplay import wire
    from unoplay.game.deals import commitment

    def plain(message) -> dict:
        return MessageToDict(
            message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
        )

    salt = "5a" * 16
    value = commitment(seed, salt, "t9-node", players, rules.to_dict())
    return {
        "seat": seat,
        "table_id": "t9-node",
        "seats": players,
        "rules": plain(wire.rules_pb(rules)),
        "commitment": value,
        "reveal": {"seed": seed, "salt": salt, "commitment": value},
        "events": [plain(wire.event_pb(e)) for e in events if e.audience in (-1, seat)],
    }


def _node_check(transcript: dict) -> tuple[int, dict]:
    out = subprocess.run(
        [NODE, str(BOT_DIR / "deals.js")],
        input=json.dumps(transcript),
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    return out.returncode, json.loads(out.stdout)


def test_the_node_deal_check_agrees_with_the_engine_and_finds_an_altered_card():
    """deals.js, written from proto/README.md section 11 alone, replays the
    engine's piles exactly under many rule sets, and finds a forged card."""
    import random

    from external_bots import DEAL_CHECK_CASES
    from helpers import play_out

    from unoplay.game.events import EventKind

    for i, (rules, players) in enumerate(DEAL_CHECK_CASES):
        seed = f"node-{i}"
        events = play_out(players, rules, seed, random.Random(i))
        for seat in (-1, i % players):
            code, result = _node_check(_transcript(seat, rules, seed, players, events))
            assert code == 0 and result["fair"] and result["checked"] > 0, (i, seat, result)
    # One card of a hand dealt to seat 1, changed.
    rules = RuleSet(target_score=0)
    events = play_out(3, rules, "forged", random.Random(5))
    at = next(k for k, e in enumerate(events) if e.kind is EventKind.HAND_DEALT and e.player == 1)
    cards = list(events[at].cards)
    cards[3] = next(c for c in range(108) if c not in cards)
    events[at] = events[at]._replace(cards=tuple(cards))
    code, result = _node_check(_transcript(1, rules, "forged", 3, events))
    assert code == 1 and not result["fair"]
    assert "the hand dealt to seat 1" in result["problems"][0]


GAP_SCENARIO = r"""
const { Bot, parseArgs } = require(process.argv[1]);
class Stub { close() {} }
const bot = new Bot(parseArgs(['--server', 'localhost:1', '--table', 't1', '--token', 'x'], {}),
  { LobbyService: Stub, GameService: Stub });
const welcome = (seq) => ({ seq, body: 'welcome', welcome: { seat: 0, deal_commitment: 'c'.repeat(64),
  table: { table_id: 't1', seats: [{}, {}], rules: {} } } });
const event = (seq) => ({ seq, body: 'event', event: { kind: 'EVENT_KIND_TURN', player: 1, cards: [] } });
const reveal = (seq) => ({ seq, body: 'deal_revealed', deal_revealed: { seed: 'a'.repeat(64), salt: 'b'.repeat(32) } });
const out = {};
bot.onBatch([welcome(1), event(2)]);
bot.onBatch([event(9), reveal(10)]);  // seqs 3..8 lost: the server kept only the end
out.gap = bot.deals;
bot.onBatch([welcome(11), event(12), reveal(13)]);  // the next game, seen whole
out.next = { fair: bot.deals.fair, checked: bot.deals.checked };
out.gaps = bot.gaps;
console.log(JSON.stringify(out));
"""


async def test_node_bot_says_a_game_with_a_gap_in_its_stream_cannot_be_checked():
    """The guide's section 11: seqs that jumped during a game leave its deals
    uncheckable (fair null), not unfair; the next game's welcome starts afresh
    (checked again: here a made-up reveal, so found unfair)."""
    result, err = await run_with_bot_module(GAP_SCENARIO)
    assert result["gap"]["fair"] is None and result["gap"]["checked"] == 0
    assert "gap in the stream" in result["gap"]["problems"][0]
    assert result["next"]["fair"] is False  # checked, and the made-up seed does not match
    assert result["gaps"] == 1
    assert "cannot be checked" in err


async def test_node_bot_enters_the_arena_plays_its_games_and_keeps_its_name(tmp_path):
    """`bot.js --arena` (external_bots.check_arena_mode)."""
    from external_bots import check_arena_mode

    async def run(*args: str) -> NodeRun:
        return await (await NodeBot.start(*args)).result()

    await check_arena_mode(run, tmp_path / "nodey.secret", "nodey")
