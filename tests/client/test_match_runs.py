"""uno match on real games: every game over gRPC against embedded servers
(client/match/). Single rounds (target 0), so a game takes tens of
milliseconds; every wait has a bound; no test asserts a time."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shlex
import signal
import sqlite3
import sys
from pathlib import Path

import pytest

from unoplay.client.match import MatchConfig, MatchError, parse_entrants, run_match
from unoplay.client.match.adjudication import Outcome, adjudicate
from unoplay.client.match.command import external_log_dir
from unoplay.client.match.probes import RENDEZVOUS_DIR, RENDEZVOUS_GAMES
from unoplay.client.match.result import FINISHED, VOID, GameResult
from unoplay.client.match.schedule import make_schedule
from unoplay.client.match.sprt import SprtSpec
from unoplay.client.match.stats import MatchStats
from unoplay.game.rules import preset

WAIT = 60  # seconds: the bound on every wait of these tests
ROUNDS = preset("official").replace(target_score=0)
UNO = str(Path(sys.executable).with_name("uno"))
PROBES = "unoplay.client.match.probes"

# An external bot: the built-in random bot through the SDK, from the
# environment uno match gives it; with a first argument N it sleeps N
# seconds before its first decision on its turn (a slow bot, for the turn timer).
EXTERNAL_BOT = """\
import asyncio, os, sys, time
from unoplay.client.sdk import Connection, run_bot
from unoplay.game.registry import make_bot

class Slow:
    def __init__(self, pause):
        self.bot, self.pause = make_bot("random", seed=1), pause
    def decide(self, view, legal):
        if self.pause and view.current == view.seat:  # its turn: the timer runs
            time.sleep(self.pause)
            self.pause = 0
        return self.bot.decide(view, legal)

async def main():
    async with Connection(os.environ["UNO_SERVER"]) as conn:
        session = conn.session(os.environ["UNO_TABLE"], os.environ["UNO_TOKEN"])
        await run_bot(Slow(float(sys.argv[1]) if len(sys.argv) > 1 else 0), session)

asyncio.run(main())
"""


def _facts(results):
    """What decides each game (its deal and seats) and what it counts for.
    Not who won: out-of-turn intents (a catch of a forgotten UNO) race the
    next player's turn at a table without a window, so a game's course may
    differ from one run to the next (README, "Bots and matches"). With greedy
    at the table a round never comes near the cap of 2000 actions, so every
    game finishes (random bots alone sometimes reach it: adjudicated)."""
    return [(r.index, r.seed, r.seats, r.status) for r in results]


def _records(path) -> list[GameResult]:
    return [GameResult.from_dict(json.loads(line)) for line in Path(path).read_text().splitlines()]


def _children(pid: int) -> set[int]:
    """Every live descendant of ``pid`` (from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            if fields[0] != "Z":
                parents[int(entry.name)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _command(pid: int) -> str:
    """The name of process ``pid``'s program ("" once it is gone)."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


async def _gone(pids: set[int], within: float = WAIT) -> set[int]:
    """Waits (at most ``within`` seconds) until none of ``pids`` runs; returns
    those left."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while True:
        alive = set()
        for pid in pids:
            try:
                state = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                continue
            if state[state.rindex(")") + 2] != "Z":
                alive.add(pid)
        if not alive or loop.time() > deadline:
            return alive
        await asyncio.sleep(0.05)  # other processes' exits: polled, with a bound


async def _uno_match(*args: str, **kw) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        UNO, "match", *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, **kw
    )


# ------------------------------------------------------------------ concurrency


async def test_concurrency_two_plays_two_games_at_once_in_two_processes(tmp_path, monkeypatch):
    # Each game's Rendezvous bot waits, blocking its worker, until both games
    # have begun: the match ends only if they really run at once.
    monkeypatch.setenv(RENDEZVOUS_DIR, str(tmp_path / "met"))
    monkeypatch.setenv(RENDEZVOUS_GAMES, "2")
    entrants = parse_entrants(f"{PROBES}:Rendezvous,greedy")
    jsonl = tmp_path / "games.jsonl"
    report = await asyncio.wait_for(
        run_match(MatchConfig(entrants, 2, 11, ROUNDS, concurrency=2, jsonl=jsonl)), WAIT
    )
    assert (report["workers"], report["concurrency"], report["most_running"]) == (
        "processes",
        2,
        2,
    )
    # played to their end, neither crashed (a Rendezvous left alone would raise)
    assert report["counts"]["played"] == 2 and report["apart"]["crashed"] == []
    results = _records(jsonl)
    assert {r.worker for r in results} == {"w0", "w1"}
    assert len(list((tmp_path / "met").iterdir())) == 2


async def test_process_workers_play_the_games_of_the_inline_runner(tmp_path):
    entrants = parse_entrants("greedy,random,random")
    inline, processes = tmp_path / "inline.jsonl", tmp_path / "processes.jsonl"
    await run_match(MatchConfig(entrants, 6, 21, ROUNDS, workers="inline", jsonl=inline))
    # game 2's worker dies in its middle: the game is played again, counted once
    report = await asyncio.wait_for(
        run_match(MatchConfig(entrants, 6, 21, ROUNDS, concurrency=2, jsonl=processes, faults=[2])),
        WAIT,
    )
    assert report["lost_workers"] == 1 and report["played"] == 6
    replayed = _records(processes)
    assert _facts(replayed) == _facts(_records(inline))
    assert [r.attempt for r in replayed] == [0, 0, 1, 0, 0, 0]


async def test_the_sprt_stops_a_real_match_once_it_decides():
    # greedy wins about 97% of single rounds against random: H1 (elo 100 and
    # more, a 64% head-to-head score) is accepted after a dozen or so deals.
    lines: list[str] = []
    report = await asyncio.wait_for(
        run_match(
            MatchConfig(
                parse_entrants("greedy,random"),
                200,
                91,
                ROUNDS,
                workers="inline",
                sprt=SprtSpec(elo0=0, elo1=100),
            ),
            progress=lambda p: lines.append(p.sprt),
        ),
        WAIT,
    )
    sprt = report["sprt"]
    assert sprt["decision"] == "H1" and sprt["llr"] >= sprt["upper"]
    assert (sprt["candidate"], sprt["baseline"]) == ("greedy", "random")
    assert report["stopped"] == "SPRT: H1 accepted"
    # one game at a time: every game played is in the verdict, two a deal
    assert sprt["games"] == 2 * sprt["observations"] == report["played"] < 60
    assert sprt["after_decision"] == []
    # greedy won every pair: the estimate and its interval are unbounded above
    low, high = sprt["score_interval"]
    assert sprt["mean_score"] > 0.9 and low > 0.5 and high == 1.0
    assert lines[-1].endswith("H1 accepted") and lines[-2].startswith("LLR +")


async def test_the_verdict_is_the_crossing_and_games_in_flight_change_nothing(tmp_path):
    # Two workers: when the test decides, the other worker's game is still
    # being played; it is stored and listed apart, and the verdict stays.
    jsonl = tmp_path / "games.jsonl"
    report = await asyncio.wait_for(
        run_match(
            MatchConfig(
                parse_entrants("greedy,random"),
                200,
                93,
                ROUNDS,
                concurrency=2,
                sprt=SprtSpec(elo0=0, elo1=100),
                jsonl=jsonl,
            )
        ),
        WAIT,
    )
    sprt = report["sprt"]
    assert sprt["decision"] == "H1" and sprt["llr"] >= sprt["upper"]
    played = {r.index for r in _records(jsonl)}
    after = set(sprt["after_decision"])
    assert after <= played and len(played) == report["played"]
    assert sprt["games"] + len(after) <= report["played"] <= sprt["games"] + len(after) + 2
    from unoplay.client.match.report import sprt_lines

    text = "\n".join(sprt_lines(sprt))
    assert f"the LLR reached {sprt['llr']:+.3f}" in text
    assert (f"{len(after)} game" in text) == bool(after)


async def test_identical_candidate_and_baseline_at_four_seats_do_not_accept_h1(tmp_path):
    # The report's own example: greedy and a copy of greedy beside two random
    # bots. Pooled against the field, the first was "+195 Elo" after 45
    # deals; paired, the two swap seats on every deal and score even.
    copy = tmp_path / "greedy_copy.py"
    copy.write_text(
        "from unoplay.game.registry import make_bot\n"
        "def Bot(seed=0):\n"
        "    return make_bot('greedy', seed=seed)\n"
    )
    report = await asyncio.wait_for(
        run_match(
            MatchConfig(
                parse_entrants(f"greedy,{copy}:Bot,random,random"),
                60,
                4242,
                ROUNDS,
                concurrency=2,
                sprt=SprtSpec(elo0=0, elo1=20),
            )
        ),
        WAIT,
    )
    sprt = report["sprt"]
    assert sprt["decision"] != "H1"
    low, high = sprt["elo_interval"]
    assert (low is None or low <= 0) and (high is None or high >= 0)
    assert abs(sprt["elo"]) < 20


async def test_baseline_names_the_entrant_the_candidate_meets(tmp_path):
    plot = tmp_path / "sprt.svg"
    report = await asyncio.wait_for(
        run_match(
            MatchConfig(
                parse_entrants("greedy,random,random"),
                200,
                95,
                ROUNDS,
                workers="inline",
                sprt=SprtSpec(elo0=0, elo1=100),
                baseline="random#2",
                plot=plot,
            )
        ),
        WAIT,
    )
    sprt = report["sprt"]
    assert (sprt["candidate"], sprt["baseline"], sprt["decision"]) == ("greedy", "random#2", "H1")
    assert sprt["plot"] == str(plot)
    svg = plot.read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    with pytest.raises(ValueError, match="no such entrant"):
        await run_match(
            MatchConfig(
                parse_entrants("greedy,random"), 2, 1, ROUNDS, sprt=SprtSpec(), baseline="nobody"
            )
        )
    with pytest.raises(ValueError, match="is the candidate"):
        await run_match(
            MatchConfig(
                parse_entrants("greedy,random"), 2, 1, ROUNDS, sprt=SprtSpec(), baseline="greedy"
            )
        )


async def test_resume_does_not_reopen_a_match_the_sprt_decided(tmp_path):
    out = tmp_path / "match.sqlite3"
    entrants = parse_entrants("greedy,random")

    async def play(**kw):
        return await asyncio.wait_for(
            run_match(MatchConfig(entrants, 400, 97, ROUNDS, concurrency=2, sprt=SprtSpec(elo0=0, elo1=100), out=out, **kw)),
            WAIT,
        )  # fmt: skip

    first = await play()
    stored = _stored(out)
    again = await play(resume=True)
    assert again["played_now"] == 0 and _stored(out) == stored
    for key in ("decision", "llr", "observations", "games", "after_decision", "elo"):
        assert again["sprt"][key] == first["sprt"][key], key
    assert "does not reopen" in again["stopped"]


async def test_resume_refuses_an_entrant_whose_code_changed(tmp_path):
    bot = tmp_path / "mybot.py"
    bot.write_text(
        "from unoplay.game.registry import make_bot\n"
        "def Bot(seed=0):\n"
        "    return make_bot('greedy', seed=seed)\n"
    )
    out = tmp_path / "match.sqlite3"
    entrants = parse_entrants(f"{bot}:Bot,random")
    await asyncio.wait_for(run_match(MatchConfig(entrants, 2, 99, ROUNDS, out=out)), WAIT)
    bot.write_text(bot.read_text() + "# version 2\n")
    with pytest.raises(MatchError, match=r"changed since .*mybot\.py is changed.*--allow-changed"):
        await run_match(MatchConfig(entrants, 4, 99, ROUNDS, out=out, resume=True))
    assert len(_stored(out)) == 2
    report = await asyncio.wait_for(
        run_match(MatchConfig(entrants, 4, 99, ROUNDS, out=out, resume=True, allow_changed=True)),
        WAIT,
    )
    assert report["played_now"] == 2 and len(_stored(out)) == 4


async def test_resume_refuses_a_changed_helper_module_and_allow_changed_records_it(
    tmp_path, monkeypatch
):
    """The fingerprint covers the modules of a bot's own that it imports, not
    only its file; playing on with --allow-changed is written into the match
    and every report of it."""
    import io

    from unoplay.client.match.report import print_report
    from unoplay.client.match.store import MatchStore

    monkeypatch.syspath_prepend(str(tmp_path))  # where the helper is found (as PYTHONPATH)
    helper = tmp_path / "unoplay_test_helper46.py"
    helper.write_text("KIND = 'greedy'\n")
    bot = tmp_path / "helped.py"
    bot.write_text(
        "from unoplay.game.registry import make_bot\n"
        "from unoplay_test_helper46 import KIND\n"
        "def Bot(seed=0):\n"
        "    return make_bot(KIND, seed=seed)\n"
    )
    out = tmp_path / "match.sqlite3"
    entrants = parse_entrants(f"{bot}:Bot,random")
    first = await asyncio.wait_for(run_match(MatchConfig(entrants, 2, 99, ROUNDS, out=out)), WAIT)
    assert first["code_changes"] == []
    helper.write_text("KIND = 'greedy'  # version 2\n")
    with pytest.raises(
        MatchError, match=r"changed since .*Bot \(.*unoplay_test_helper46\.py is changed\)"
    ):
        await run_match(MatchConfig(entrants, 4, 99, ROUNDS, out=out, resume=True))
    report = await asyncio.wait_for(
        run_match(MatchConfig(entrants, 4, 99, ROUNDS, out=out, resume=True, allow_changed=True)),
        WAIT,
    )
    assert report["played_now"] == 2
    (change,) = report["code_changes"]
    assert change["games_before"] == 2
    assert change["entrants"] == [
        {"label": "Bot", "files": [{"path": str(helper.resolve()), "change": "changed"}]}
    ]
    store = MatchStore(out)
    try:
        assert store.match(report["match_id"]).settings["code_changes"] == [change]
    finally:
        store.close()
    text = io.StringIO()
    print_report(report, text)
    assert (
        f"resumed with changed code (--allow-changed) after 2 games: Bot ({helper.resolve()} "
        "is changed)" in text.getvalue()
    )
    # the code that plays now is the stored one: a further resume is not refused
    again = await asyncio.wait_for(
        run_match(MatchConfig(entrants, 6, 99, ROUNDS, out=out, resume=True)), WAIT
    )
    assert again["played_now"] == 2 and again["code_changes"] == [change]


def test_the_report_is_not_cut_when_piped_and_follows_columns(monkeypatch):
    import io

    from unoplay.client.match.report import print_report

    row = {
        "label": "a-rather-long-bot-name-" + "x" * 30, "kind": "greedy", "games": 10,
        "wins": 5.0, "win_rate": 0.5, "ci95": [0.2366, 0.7634], "mean_score": 12.5,
        "rating": 1.0, "ms_per_decision": 1.5, "deals": 5, "deal_score": 0.5,
        "deal_ci95": [0.1234, 0.8766],
    }  # fmt: skip
    report = {
        "games": 10, "played": 10, "seed": 1, "rules": ROUNDS.to_dict(),
        "duplicate": "rotations", "entrants": [row, {**row, "label": "b"}],
    }  # fmt: skip
    monkeypatch.delenv("COLUMNS", raising=False)
    piped = io.StringIO()
    print_report(report, piped)
    assert "12.3%..87.7%" in piped.getvalue() and row["label"] in piped.getvalue()
    monkeypatch.setenv("COLUMNS", "70")
    narrow = io.StringIO()
    print_report(report, narrow)
    assert max(len(line) for line in narrow.getvalue().splitlines()) <= 70


async def test_intervals_not_there_yet_read_as_what_they_are():
    """One deal gives no interval; deals that all scored alike give one of
    no width: the text says so (not "-inf .. +inf"), the JSON keeps its values."""
    import io

    from unoplay.client.match.report import print_report

    sprt = SprtSpec(elo0=0, elo1=100)
    one = await asyncio.wait_for(
        run_match(
            MatchConfig(parse_entrants("greedy,random"), 2, 3, ROUNDS, sprt=sprt, workers="inline")
        ),
        WAIT,
    )
    # random and random#2 seeded by seat: a deal's two games are one game
    # with the two swapped, so each deal scores 1/2 (in process: the engine's game)
    alike = await asyncio.wait_for(
        run_match(
            MatchConfig(parse_entrants("random,random"), 6, 3, ROUNDS, sprt=sprt, workers="inline")
        ),
        WAIT,
    )
    assert one["sprt"]["observations"] == 1 and one["sprt"]["elo_interval"] == [None, None]
    assert alike["sprt"]["observations"] == 3 and alike["sprt"]["score_interval"] == [0.5, 0.5]
    texts = []
    for report in (one, alike):
        text = io.StringIO()
        print_report(report, text)
        texts.append(text.getvalue())
    assert "Elo greedy - random: " in texts[0] and "(too few deals for an interval: 1)" in texts[0]
    assert "Elo random - random#2: +0.0 (no variance yet: every deal scored 0.5)" in texts[1]
    assert "too few deals" in texts[0].split("SPRT")[0]  # the deals' column
    assert "no variance yet" in texts[1].split("SPRT")[0]
    assert "95%:" not in texts[0] + texts[1]  # (a mean score of 1 is +inf Elo: it is)


# ------------------------------------------------------------------ games kept apart


async def test_max_actions_adjudicates_an_endless_game_and_credits_nobody():
    # Two hoarders never shed a card: only the cap of actions ends their round.
    entrants = parse_entrants(f"{PROBES}:Hoarder,{PROBES}:Hoarder")
    report = await asyncio.wait_for(
        run_match(MatchConfig(entrants, 2, 31, ROUNDS, max_actions=100, workers="inline")), WAIT
    )
    assert report["counts"] == {
        "played": 2,
        "counted": 0,
        "adjudicated": 2,
        "void": 0,
        "crashed": 0,
        "errors": 0,
    }
    for row in report["entrants"]:
        assert (row["games"], row["wins"], row["adjudicated"]) == (0, 0, 2)
    assert all("cap of 100 actions" in g["reason"] for g in report["apart"]["adjudicated"])


async def test_a_time_forfeit_of_an_external_bot_voids_its_game(tmp_path):
    script = tmp_path / "bot.py"
    script.write_text(EXTERNAL_BOT)
    slow = shlex.join([sys.executable, str(script), "3"])  # 3 s for a 1 s turn
    entrants = parse_entrants("greedy", [slow])
    report = await asyncio.wait_for(
        run_match(
            MatchConfig(entrants, 1, 41, ROUNDS, move_time=1, workers="inline", log_dir=tmp_path)
        ),
        WAIT,
    )
    assert report["counts"]["void"] == 1 and report["counts"]["counted"] == 0
    greedy, external = report["entrants"]
    assert external["label"] == shlex.join([Path(sys.executable).name, "bot.py", "3"])
    assert external["timeouts"] >= 1 and greedy["timeouts"] == 0
    # a time forfeit is a loss: the slow bot's, greedy's win
    assert (external["forfeits"], external["wins"], greedy["wins"]) == (1, 0, 1)
    assert "time forfeit" in report["apart"]["void"][0]["reason"]


def test_a_seat_the_stand_in_played_is_a_forfeit_a_loss_for_it_alone():
    entrants = parse_entrants("greedy,random")
    result = GameResult(0, 0, 0, 1, [0, 1], FINISHED, winners=[0], scores=[50, 0])
    outcome = Outcome(over=True, scores=[50, 0], winners=[0], timeouts=[0, 0], stand_in=[0, 1])
    adjudicate(result, outcome, entrants)
    assert result.status == VOID and "stand-in" in result.reason
    result.timeouts, result.stand_in = outcome.timeouts, outcome.stand_in  # as play_game does
    assert result.forfeiters() == {1} and result.head_to_head(0, 1, teams=False) == 1.0
    stats = MatchStats(entrants, make_schedule(["greedy", "random"]))
    stats.add(result)
    assert [(t.games, t.wins, t.forfeits) for t in stats.totals] == [(1, 1, 0), (1, 0, 1)]
    assert stats.ratings()[0] > stats.ratings()[1]


async def test_an_external_bot_that_crashes_is_reported_with_its_error_output(tmp_path):
    crasher = "sh -c 'echo boom at the start >&2; exit 3'"
    entrants = parse_entrants("greedy", [crasher])
    assert entrants[1].command == ("sh", "-c", "echo boom at the start >&2; exit 3")
    report = await asyncio.wait_for(
        run_match(
            MatchConfig(
                entrants, 2, 51, ROUNDS, workers="inline", on_crash="continue", log_dir=tmp_path
            )
        ),
        WAIT,
    )
    assert report["counts"]["crashed"] == 2 and report["counts"]["counted"] == 0
    greedy, external = report["entrants"]
    # each crash is a game the crasher lost, and greedy won
    assert (external["crashes"], external["games"], external["forfeits"]) == (2, 2, 2)
    assert (greedy["games"], greedy["wins"]) == (2, 2)
    crash = report["apart"]["crashed"][0]["crash"]
    assert crash["code"] == 3 and "boom at the start" in crash["stderr"]
    logs = list(tmp_path.glob("*.log"))
    assert len(logs) == 1 and logs[0].read_text().count("boom at the start") == 2
    with pytest.raises(MatchError, match="boom at the start") as stopped:
        await asyncio.wait_for(
            run_match(MatchConfig(entrants, 4, 51, ROUNDS, workers="inline")), WAIT
        )
    assert stopped.value.report is not None
    assert stopped.value.report["counts"]["crashed"] == 1  # the match stopped there


# Bots of one's own (file.py:attr) that go wrong: one plays a card it does not
# hold, every time; one raises; one answers nothing; one prints; one ends its
# process (os._exit) at its third decision, one has it killed, one never
# returns; and an external bot that plays as the first.
BAD_BOTS = """\
import os, signal

from unoplay.game.actions import Action, ActionKind


class Illegal:
    def __init__(self, seed=None):
        pass

    def decide(self, view, legal):
        card = next(c for c in range(108) if c not in view.hand)
        return Action(ActionKind.PLAY, card, -1, False, -1)


class Bad:
    def __init__(self, seed=None):
        pass

    def decide(self, view, legal):
        raise ValueError("no luck today")


class Passive:
    def __init__(self, seed=None):
        pass

    def decide(self, view, legal):
        return None


class Printer:
    def __init__(self, seed=None):
        print("hello from a bot")  # the worker's answers to the runner are not its stdout

    def decide(self, view, legal):
        print("deciding", len(legal))
        return legal[0]


class Exiter:
    def __init__(self, seed=None):
        self.decisions = 0

    def decide(self, view, legal):
        self.decisions += 1
        if self.decisions == 3:
            os._exit(3)
        return legal[0]


class Killed:
    def __init__(self, seed=None):
        pass

    def decide(self, view, legal):
        os.kill(os.getpid(), signal.SIGKILL)


class Spinner:
    def __init__(self, seed=None):
        pass

    def decide(self, view, legal):
        while True:  # never returns: the worker's event loop (and its timers) stops
            pass
"""
EXTERNAL_ILLEGAL = """\
import asyncio, os
from bots import Illegal
from unoplay.client.sdk import Connection, run_bot

async def main():
    async with Connection(os.environ["UNO_SERVER"]) as conn:
        session = conn.session(os.environ["UNO_TABLE"], os.environ["UNO_TOKEN"])
        await run_bot(Illegal(), session)

asyncio.run(main())
"""


def _bad_bots(tmp_path) -> str:
    path = tmp_path / "bots.py"
    path.write_text(BAD_BOTS)
    return str(path)


async def test_a_bot_that_keeps_playing_illegal_actions_forfeits_and_the_match_goes_on(tmp_path):
    # Three entrants at tables of two: Illegal forfeits its four games, the two
    # games of greedy and random count.
    entrants = parse_entrants(f"greedy,random,{_bad_bots(tmp_path)}:Illegal")
    report = await asyncio.wait_for(
        run_match(MatchConfig(entrants, 6, 61, ROUNDS, table_size=2, workers="inline")), WAIT
    )
    assert (report["counts"]["counted"], report["counts"]["void"]) == (2, 4)
    greedy, random_, illegal = report["entrants"]
    # each forfeit is a game Illegal lost and its opponent won
    assert (greedy["games"], random_["games"], illegal["games"]) == (4, 4, 4)
    assert (illegal["wins"], illegal["forfeits"], greedy["wins"] + random_["wins"]) == (0, 4, 6)
    assert (greedy["illegal_forfeits"], random_["illegal_forfeits"]) == (0, 0)
    # the table counts every refusal; a forfeit comes after more than 3 in a row
    assert illegal["illegal_forfeits"] == 4 and illegal["refusals"] >= 4 * 4
    for game in report["apart"]["void"]:
        assert "(Illegal) forfeited: 4 illegal actions refused" in game["reason"]
        assert "in one decision (more than --illegal-limit 3)" in game["reason"]
        assert "; the last: " in game["reason"]  # card_not_in_hand, or what the engine checks first


async def test_an_external_bot_that_keeps_playing_illegal_actions_forfeits(tmp_path):
    _bad_bots(tmp_path)
    script = tmp_path / "illegal.py"
    script.write_text(EXTERNAL_ILLEGAL)
    entrants = parse_entrants("greedy", [shlex.join([sys.executable, str(script)])])
    report = await asyncio.wait_for(
        run_match(MatchConfig(entrants, 2, 63, ROUNDS, workers="inline", log_dir=tmp_path)), WAIT
    )
    greedy, external = report["entrants"]
    assert report["counts"]["void"] == 2 and report["counts"]["crashed"] == 0
    assert (external["illegal_forfeits"], greedy["illegal_forfeits"]) == (2, 0)
    assert external["refusals"] >= 2 * 4


async def test_on_a_remote_server_our_bots_count_their_refusals_themselves(tmp_path):
    from unoplay.server.service import start_server

    server = await start_server("127.0.0.1", 0)
    try:
        entrants = parse_entrants(f"greedy,{_bad_bots(tmp_path)}:Illegal")
        report = await asyncio.wait_for(
            run_match(
                MatchConfig(
                    entrants,
                    2,
                    65,
                    ROUNDS,
                    server=server.address,
                    workers="inline",
                    illegal_limit=10,
                    illegal_budget=5,
                )
            ),
            WAIT,
        )
    finally:
        await server.stop(None)
    greedy, illegal = report["entrants"]
    assert report["counts"]["void"] == 2
    # the bot stops at the refusal beyond its budget: exactly 6 a game
    assert (illegal["illegal_forfeits"], illegal["refusals"], greedy["refusals"]) == (2, 12, 0)
    assert all(
        "6 illegal actions refused in the game (more than --illegal-budget 5)" in g["reason"]
        for g in report["apart"]["void"]
    )


async def test_a_bot_of_ours_that_raises_is_named_with_the_end_of_its_traceback(tmp_path):
    entrants = parse_entrants(f"greedy,{_bad_bots(tmp_path)}:Bad")
    with pytest.raises(MatchError, match="no luck today") as stopped:
        await asyncio.wait_for(
            run_match(MatchConfig(entrants, 3, 71, ROUNDS, workers="inline")), WAIT
        )
    report = stopped.value.report
    assert report is not None and report["counts"]["crashed"] == 1
    game = report["apart"]["crashed"][0]
    assert game["reason"] == "seat 2 (Bad) raised ValueError: no luck today"
    assert game["crash"]["code"] is None and "Traceback" in game["crash"]["stderr"]
    assert report["stopped"] == f"game 0: {game['reason']}"
    assert "external" not in str(stopped.value)
    assert "--- its traceback (end) ---" in str(stopped.value)


async def test_a_bot_that_ends_its_worker_process_is_named_and_stops_the_match(tmp_path):
    """os._exit() in decide(): the worker says which seat's bot called it
    before it ends; the game is crashed at once (never played again), and the
    match stops with that line and exit code 1."""
    bots = _bad_bots(tmp_path)
    out = tmp_path / "match.sqlite3"
    runner = await _uno_match(
        "--games", "6", "--target", "0", "--bots", f"greedy,{bots}:Exiter", "--concurrency", "2",
        "--json", "--out", str(out),
    )  # fmt: skip
    stdout, stderr = await asyncio.wait_for(runner.communicate(), WAIT)
    assert runner.returncode == 1, stderr.decode()
    report = json.loads(stdout)
    crashed = report["apart"]["crashed"]
    assert crashed and report["lost_workers"] == 0  # named at once: no game played again
    line = BAD_BOTS.splitlines().index("            os._exit(3)") + 1
    for game in crashed:
        seat = game["crash"]["seat"]
        assert game["reason"] == (
            f"seat {seat + 1} (Exiter) ended its worker process: os._exit(3) at bots.py:{line} "
            "in decide"
        )
        assert game["crash"]["code"] == 3 and "os._exit(3)" in game["crash"]["stderr"]
    lines = {f"game {g['game']}: {g['reason']}" for g in crashed}
    assert report["stopped"] in lines  # the first to arrive (two were in flight)
    assert f"uno match: {report['stopped']}" in stderr.decode().splitlines()
    assert report["entrants"][1]["crashes"] == len(crashed)
    stored = [GameResult.from_dict(json.loads(t)) for t in _stored(out).values()]
    assert sorted(r.index for r in stored if r.status == "crashed") == [g["game"] for g in crashed]


async def test_a_worker_killed_in_a_game_each_time_crashes_it_naming_its_in_process_bots(
    tmp_path,
):
    """A worker process that dies without a word (SIGKILL here): its game is
    played again, and crashed after MAX_ATTEMPTS, its in-process bots named."""
    from unoplay.client.match.runner import MAX_ATTEMPTS

    entrants = parse_entrants(f"greedy,{_bad_bots(tmp_path)}:Killed")
    report = await asyncio.wait_for(
        run_match(MatchConfig(entrants, 2, 5, ROUNDS, concurrency=2, on_crash="continue")), WAIT
    )
    assert report["counts"]["crashed"] == 2 and report["lost_workers"] == 2 * (MAX_ATTEMPTS - 1)
    seats = {0: "seat 1 (greedy), seat 2 (Killed)", 1: "seat 1 (Killed), seat 2 (greedy)"}
    for game in report["apart"]["crashed"]:
        assert game["reason"] == (
            f"the worker process was killed by signal 9 during game {game['game']} "
            f"({MAX_ATTEMPTS} times); its in-process bots: {seats[game['game']]}"
        )
        assert game["crash"]["seat"] is None and game["crash"]["code"] == -9


async def test_a_worker_whose_bot_never_returns_is_taken_for_lost_in_bounded_time(
    tmp_path, monkeypatch
):
    """A bot that never returns stops its worker's event loop, and the game's
    own timeouts with it: the runner's wait for the answer has a bound."""
    import dataclasses

    from unoplay.client.match import pool
    from unoplay.client.match.config import MatchConfig

    monkeypatch.setattr(pool, "PLAY_MARGIN", 1.0)
    entrants = parse_entrants(f"greedy,{_bad_bots(tmp_path)}:Spinner")
    config = MatchConfig(entrants, 1, 5, ROUNDS, sys_path=tuple(p for p in sys.path if p))
    config = dataclasses.replace(config, connect_timeout=1.0, game_timeout=1.0)
    worker = pool.ProcessWorker(config, "w0")
    try:
        await asyncio.wait_for(worker.start(), WAIT)
        spec = make_schedule([e.identity for e in entrants]).spec(0, 5)
        with pytest.raises(
            pool.WorkerLost, match=r"worker w0 gave no answer within 3 s during game 0"
        ) as lost:
            await asyncio.wait_for(worker.play(spec), WAIT)
        # its stacks show where: the bot's loop (the runner crashes the game at
        # once, naming its in-process bots: the same game would hang again)
        assert lost.value.hung is not None and "bots.py" in lost.value.hung
        assert "in decide" in lost.value.hung
    finally:
        await asyncio.wait_for(worker.close(abandon=True), WAIT)  # SIGTERM, then SIGKILL


async def test_every_games_moves_are_in_the_results_file_and_replay_to_its_result(tmp_path):
    from unoplay.client.match.store import MatchStore
    from unoplay.record import GameRecord, final_state

    out, jsonl = tmp_path / "match.sqlite3", tmp_path / "games.jsonl"
    entrants = parse_entrants("greedy,random,random")
    await asyncio.wait_for(
        run_match(MatchConfig(entrants, 3, 81, ROUNDS, workers="inline", out=out, jsonl=jsonl)),
        WAIT,
    )
    lines = [json.loads(line) for line in jsonl.read_text().splitlines()]
    store = MatchStore(out)
    try:
        match_id = store.latest()
        assert match_id is not None
        results = store.results(match_id)
        assert [r.status for r in results] == [FINISHED] * 3
        for result, line in zip(results, lines, strict=True):
            assert result.packed_record is None  # the record is kept apart
            record = store.game_record(match_id, result.index)
            assert record is not None and record.table_id == result.table_id
            assert len(record.actions) == result.actions
            assert [p["name"] for p in record.players] == line["players"]
            final = final_state(record)  # the engine, again, from the seed and the moves
            assert list(final.scores) == result.scores == list(record.scores)
            assert list(final.game_winners) == result.winners
            assert GameRecord.from_dict(line["game_record"]) == record  # the export's moves
    finally:
        store.close()
    replay = await asyncio.create_subprocess_exec(
        UNO, "replay", "--match", str(out), "2", "--text", stdout=asyncio.subprocess.PIPE
    )
    text, _ = await asyncio.wait_for(replay.communicate(), WAIT)
    assert replay.returncode == 0
    assert text.decode().startswith(f"game 2 at table {results[2].table_id}")
    assert text.decode().rstrip().endswith("(as stored)")


def test_external_bots_logs_go_beside_out_or_nowhere_with_no_out(tmp_path):
    bots = parse_entrants("greedy", ["node bot.js"])
    out = tmp_path / "matches.sqlite3"
    beside = external_log_dir(None, out, bots)
    assert beside is not None and Path(beside).parent == tmp_path / "matches-logs"
    assert external_log_dir(None, None, bots) is None  # --no-out: temporary files only
    assert external_log_dir(str(tmp_path), None, bots) == str(tmp_path)  # --log-dir wins
    assert external_log_dir(None, out, parse_entrants("greedy,random")) is None


# ------------------------------------------------------------------ runs that end early


def _stored(path) -> dict[int, str]:
    """Every game stored in a match file so far: index -> its record (JSON)."""
    if not path.exists():
        return {}
    with contextlib.closing(sqlite3.connect(path)) as db:
        try:
            return dict(db.execute("SELECT idx, record FROM games"))
        except sqlite3.OperationalError:  # the runner has not made its tables yet
            return {}


async def test_a_killed_match_resumes_with_the_games_it_lacks_none_twice(tmp_path):
    # The first run is far too long to end by itself: SIGKILL stops it once a
    # few games are stored. The resumed run plays the first GAMES of it.
    out = tmp_path / "match.sqlite3"
    common = ["--seed", "61", "--target", "0", "--bots", "greedy,random", "--out", str(out)]
    runner = await _uno_match("--games", "1000", "--concurrency", "2", *common)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while len(_stored(out)) < 4:
        assert loop.time() < deadline and runner.returncode is None
        await asyncio.sleep(0.02)  # another process's writes: polled, with a bound
    workers = _children(runner.pid)
    runner.kill()  # SIGKILL: no chance to clean up
    await asyncio.wait_for(runner.communicate(), WAIT)
    assert len(workers) == 2 and not await _gone(workers, within=10)  # died with it
    before = _stored(out)
    games = 24
    missing = set(range(games)) - set(before)

    resumed = await _uno_match("--games", str(games), "--resume", "--json", *common)
    stdout, stderr = await asyncio.wait_for(resumed.communicate(), WAIT)
    assert resumed.returncode == 0, stderr.decode()
    report = json.loads(stdout)
    assert report["played_now"] == len(missing)
    assert report["played"] == len(set(before) | set(range(games)))
    after = _stored(out)
    with contextlib.closing(sqlite3.connect(out)) as db:
        assert db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 1
    assert set(after) == set(before) | set(range(games))
    assert {i: after[i] for i in before} == before  # stored games are never rewritten
    fresh = tmp_path / "fresh.jsonl"
    await run_match(MatchConfig(parse_entrants("greedy,random"), games, 61, ROUNDS, jsonl=fresh))
    resumed_results = sorted(
        (GameResult.from_dict(json.loads(after[i])) for i in range(games)),
        key=lambda r: r.index,
    )
    assert _facts(resumed_results) == _facts(_records(fresh))


async def test_a_killed_runner_takes_its_workers_and_external_bots_with_it(tmp_path):
    # The external bot never connects, so each worker waits for it (for up to
    # a minute): SIGKILL the runner while both workers hold one.
    runner = await _uno_match(
        "--games", "4", "--bots", "greedy", "--seat", "sleep 300", "--concurrency", "2",
        "--no-out", "--log-dir", str(tmp_path), start_new_session=True,
    )  # fmt: skip
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while True:
        children = _children(runner.pid)
        bots = {pid for pid in children if _command(pid) == "sleep"}
        if len(bots) == 2:
            break
        assert loop.time() < deadline and runner.returncode is None
        await asyncio.sleep(0.02)  # other processes' starts: polled, with a bound
    assert len(children - bots) >= 2  # the two workers (and the bots' wrappers, exec'd)
    runner.kill()
    await asyncio.wait_for(runner.communicate(), WAIT)
    # Well before the workers would give up on their bots by themselves (60 s):
    # the kernel ends them with the runner (PR_SET_PDEATHSIG), and their bots with them.
    assert not await _gone(children, within=10)


async def test_ctrl_c_prints_the_report_so_far_exits_130_and_leaves_no_child():
    runner = await _uno_match(
        "--games", "400", "--target", "0", "--concurrency", "2", "--no-out", start_new_session=True
    )
    assert runner.stderr is not None
    line = await asyncio.wait_for(runner.stderr.readline(), WAIT)
    assert line.startswith(b"uno match: 1/400 games"), line
    children = _children(runner.pid)
    assert len(children) >= 2
    runner.send_signal(signal.SIGINT)
    stdout, stderr = await asyncio.wait_for(runner.communicate(), WAIT)
    assert runner.returncode == 130, stderr.decode()
    text = stdout.decode()
    assert "of 400 games" in text and "stopped: interrupted (Ctrl-C)" in text
    # the progress and the runner's own lines only: no traceback, no grpc log line
    assert all(line.startswith("uno match: ") for line in stderr.decode().splitlines())
    assert not await _gone(children)


# ------------------------------------------------------------------ Ray


async def test_a_match_on_a_local_ray_cluster_plays_the_local_games(tmp_path):
    ray = pytest.importorskip("ray", reason="Ray is the cluster extra: pip install '.[cluster]'")
    import logging

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    try:
        entrants = parse_entrants("greedy,random,random")
        local, remote = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
        await run_match(MatchConfig(entrants, 6, 71, ROUNDS, workers="inline", jsonl=local))
        # game 3's actor dies in its middle: a new actor plays it, counted once
        report = await asyncio.wait_for(
            run_match(
                MatchConfig(
                    entrants, 6, 71, ROUNDS, workers="ray", concurrency=2, jsonl=remote, faults=[3]
                )
            ),
            2 * WAIT,
        )
    finally:
        ray.shutdown()
    assert (report["workers"], report["concurrency"], report["lost_workers"]) == ("ray", 2, 1)
    assert report["counts"]["counted"] == 6
    played = _records(remote)
    assert _facts(played) == _facts(_records(local))
    assert all(r.worker.startswith("ray") for r in played)


# ------------------------------------------------------------------ the command line


@pytest.mark.parametrize("games", ["0", "-5"])
def test_a_match_of_no_games_is_refused(games, capsys):
    from unoplay.client.cli import main

    with pytest.raises(SystemExit, match=f"--games must be 1 or more, not {games}"):
        main(["match", "--games", games, "--no-out"])


@pytest.mark.parametrize(
    ("option", "path", "says"),
    [
        ("--plot", "{tmp}/sprt.txt", "--plot {tmp}/sprt.txt: its suffix gives the format: .svg, .png, .pdf"),
        ("--plot", "{tmp}/none/sprt.svg", "--plot {tmp}/none/sprt.svg: no such directory: {tmp}/none"),
        ("--jsonl", "{tmp}/none/g.jsonl", "--jsonl {tmp}/none/g.jsonl: no such directory: {tmp}/none"),
        ("--jsonl", "{tmp}/file/g.jsonl", "--jsonl {tmp}/file/g.jsonl: not a directory: {tmp}/file"),
        ("--jsonl", "{tmp}", "--jsonl {tmp}: a directory, not a file"),
        ("--jsonl", "/proc/version", "--jsonl /proc/version: cannot write it ("),
        ("--out", "{tmp}/none/m.sqlite3", "--out {tmp}/none/m.sqlite3: no such directory: {tmp}/none"),
        ("--out", "{tmp}/file", "--out {tmp}/file: not a SQLite file (a match file of uno match)"),
    ],
)  # fmt: skip
def test_files_a_match_cannot_write_are_refused_before_any_game(option, path, says, tmp_path):
    from unoplay.client.cli import main

    (tmp_path / "file").write_text("not a match file\n")
    out = tmp_path / "match.sqlite3"
    args = ["match", "--games", "1", "--sprt", "--out", str(out)]
    args += [option, path.format(tmp=tmp_path)]
    with pytest.raises(SystemExit) as refused:
        main(args)
    message = refused.value.code
    assert isinstance(message, str) and "\n" not in message  # one line; exit code 1
    assert message.startswith("uno match: " + says.format(tmp=tmp_path))
    assert not out.exists() and not (tmp_path / "none").exists()  # no game, no file made


async def test_json_stdout_is_the_report_alone_even_when_bots_print_inline(tmp_path):
    runner = await _uno_match(
        "--games", "2", "--target", "0", "--bots", f"{_bad_bots(tmp_path)}:Printer,greedy",
        "--workers", "inline", "--json", "--no-out",
    )  # fmt: skip
    stdout, stderr = await asyncio.wait_for(runner.communicate(), WAIT)
    assert runner.returncode == 0, stderr.decode()
    assert json.loads(stdout)["counts"]["counted"] == 2
    assert "hello from a bot" in stderr.decode() and "deciding" in stderr.decode()


async def test_the_match_bench_measures_both_figures():
    from unoplay.client.match.bench import run_bench

    figures = await asyncio.wait_for(
        run_bench(games=2, concurrency=2, interval_games=8, seed=81), WAIT
    )
    speed, interval = figures["speed"], figures["interval"]
    assert speed["concurrent"]["most_running"] == 2
    assert speed["concurrent_network"]["most_running"] == 2 and len(speed["shares"]) == 3
    assert speed["engine"]["games_per_second"] > 0
    assert speed["share_of_engine"] > 0 and speed["wire_gain"] > 0
    assert interval["plain"]["games"] == interval["duplicate"]["games"] == 8
    for row in (interval["plain"], interval["duplicate"]):
        low, high = row["ci95"]
        assert 0 <= low <= row["win_rate"] <= high <= 1 and row["width"] == high - low


@pytest.mark.parametrize("rules_name", ["official", "house"])
async def test_python_entrants_play_the_same_games_without_the_wire(tmp_path, rules_name):
    """Python entrants at the embedded server play their seats in the
    worker's process (server/localseat.py) unless --network: on seeded deals
    with deterministic bots and no races (two seats), both paths give the
    same records, action for action, with the same scores and winners.
    Without the two races a match's table has over the wire (no out-of-turn
    window there), whose winner depends on timing (two runs of the network
    path alone differ), so that no path can repeat such games: a jump-in
    races the turn (jump_in off), and a player's own UNO call races the
    other's catch (uno_call_strict: the call rides on the play; a CI run
    under load once had the catch first)."""
    from unoplay.client.match.store import MatchStore

    entrants = parse_entrants("greedy,random")
    rules = preset(rules_name).replace(target_score=0, jump_in=False, uno_call_strict=True)
    records = {}
    for network in (False, True):
        out = tmp_path / f"{rules_name}-{network}.sqlite3"
        report = await asyncio.wait_for(
            run_match(
                MatchConfig(entrants, 6, 33, rules, workers="inline", out=out, network=network)
            ),
            WAIT,
        )
        assert report["played"] == 6
        store = MatchStore(out)
        try:
            match_id = store.latest()
            assert match_id is not None
            records[network] = [store.game_record(match_id, i) for i in range(6)]
        finally:
            store.close()
    for local, wired in zip(records[False], records[True]):
        assert local is not None and wired is not None
        assert local.actions == wired.actions and len(local.actions) > 10
        assert local.sources == wired.sources
        assert (local.scores, local.winners, local.status) == (
            wired.scores,
            wired.winners,
            wired.status,
        )
        assert local.received == wired.received


class _Recorded:
    """A bot that notes every action it answers (all are applied: the engine's
    loop raises on an illegal one)."""

    def __init__(self, bot, seat, moves):
        self.bot, self.seat, self.moves = bot, seat, moves
        self.observes = bot.observes

    def observe(self, events):
        self.bot.observe(events)

    def decide(self, view, legal):
        action = self.bot.decide(view, legal)
        if action is not None:
            self.moves.append((self.seat, action))
        return action


@pytest.mark.parametrize(
    ("bots", "rules_name"),
    [
        ("greedy,random,random,random", "official"),
        ("greedy,random,random,random", "house"),
        ("greedy,greedy,random", "official"),
    ],
)
async def test_python_entrants_play_the_engines_own_games(tmp_path, bots, rules_name):
    """In the worker's process a table's Python entrants decide in the order
    the engine's own loop asks them (server/localseat.py): a match of
    deterministic bots, races and all (catches, the house rules' jump-ins,
    no window), is the games `unoplay.game.bots.play_game` plays with the
    same deals and bots' seeds, action for action; and so the same on every
    run."""
    from unoplay.client.match.entrants import new_bot
    from unoplay.client.match.store import MatchStore
    from unoplay.game.bots import play_game
    from unoplay.game.deals import game_seed

    entrants = parse_entrants(bots)
    rules = preset(rules_name)
    games, seed = 8, 17
    engine = []
    for spec in make_schedule([e.identity for e in entrants]).specs(games, seed):
        moves: list = []
        players = [
            _Recorded(new_bot(entrants[e].kind, spec.bot_seed(s), rules), s, moves)
            for s, e in enumerate(spec.seats)
        ]
        play_game(players, rules, seed=game_seed(str(spec.seed), 1))  # a table's first game
        engine.append(moves)
    out = tmp_path / "m.sqlite3"
    report = await asyncio.wait_for(
        run_match(MatchConfig(entrants, games, seed, rules, workers="inline", out=out)), WAIT
    )
    assert report["played"] == games
    store = MatchStore(out)
    try:
        match_id = store.latest()
        assert match_id is not None
        for index, moves in enumerate(engine):
            record = store.game_record(match_id, index)
            assert record is not None and len(moves) > 50
            assert list(record.actions) == moves, f"game {index}"
    finally:
        store.close()


async def test_a_bot_that_prints_plays_its_games_in_worker_processes(tmp_path):
    entrants = parse_entrants(f"{_bad_bots(tmp_path)}:Printer,greedy")
    report = await asyncio.wait_for(
        run_match(MatchConfig(entrants, 4, 5, ROUNDS, concurrency=2, workers="processes")), WAIT
    )
    assert report["counts"]["counted"] == 4 and report["counts"]["crashed"] == 0


async def test_a_bot_that_answers_nothing_on_its_turn_is_reported_at_once(tmp_path):
    """With no turn timer nothing could move the game on: in process the
    bot's seat is named at once (over the wire the game would wait for its
    timeout, 10 minutes by default)."""
    entrants = parse_entrants(f"greedy,{_bad_bots(tmp_path)}:Passive")
    report = await asyncio.wait_for(
        run_match(MatchConfig(entrants, 2, 5, ROUNDS, workers="inline", on_crash="continue")), WAIT
    )
    assert report["counts"]["crashed"] == 2
    for game in report["apart"]["crashed"]:
        assert "(Passive) raised ValueError: answered no action on its own turn" in game["reason"]


async def test_a_game_is_stopped_at_its_first_time_forfeit(tmp_path):
    """A seat the timer played makes the game void: it is not played out."""
    entrants = parse_entrants(f"greedy,{_bad_bots(tmp_path)}:Passive")
    report = await asyncio.wait_for(
        run_match(MatchConfig(entrants, 1, 5, preset("official"), move_time=1, workers="inline")),
        WAIT,
    )
    (void,) = report["apart"]["void"]
    assert void["reason"].endswith("(Passive): 1 time forfeit")
