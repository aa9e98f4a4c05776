"""Verdicts that cannot be gamed (uno match, client/match/): a forfeit is a
loss for the forfeiter and its deal stays in the test, the clock binds bots
played in the worker's process as it binds those over the wire, a bot that
ends its process is named, a bot that can never play stops the match. Real
matches at embedded servers; every wait has a bound; no test asserts a time."""

from __future__ import annotations

import asyncio

import pytest

from unoplay.client.match import MatchConfig, MatchError, parse_entrants, run_match
from unoplay.client.match.sprt import SprtSpec
from unoplay.game.rules import preset

WAIT = 300  # seconds: the bound on every match of these tests (a loaded 2-core machine)
ROUNDS = preset("official").replace(target_score=0)

# Copies of greedy that cheat when they are about to lose a round (an
# opponent holds one card while they hold three or more): one answers
# illegal actions until it forfeits, one sleeps past the turn timer; and bots
# that cannot play at all.
BOTS = """\
import sys, time
from unoplay.game.actions import Action, ActionKind
from unoplay.game.registry import make_bot


def losing(view):
    return len(view.hand) >= 3 and any(
        n == 1 for seat, n in enumerate(view.hand_sizes) if seat != view.seat
    )


def not_in_hand(view):
    card = next(c for c in range(108) if c not in view.hand)
    return Action(ActionKind.PLAY, card, -1, False, -1)


class IllegalWhenLosing:
    def __init__(self, seed=None, rules=None):
        self.bot = make_bot("greedy", seed=seed, rules=rules)

    def decide(self, view, legal):
        if losing(view):
            return not_in_hand(view)
        return self.bot.decide(view, legal)


class SlowWhenLosing:
    def __init__(self, seed=None, rules=None):
        self.bot = make_bot("greedy", seed=seed, rules=rules)

    def decide(self, view, legal):
        if losing(view):
            time.sleep(1.2)
        return self.bot.decide(view, legal)


class Sleeper:
    def __init__(self, seed=None, rules=None):
        self.bot = make_bot("greedy", seed=seed, rules=rules)

    def decide(self, view, legal):
        time.sleep(1.2)
        return self.bot.decide(view, legal)


class Illegal:
    def __init__(self, seed=None, rules=None):
        pass

    def decide(self, view, legal):
        return not_in_hand(view)


class Quitter:
    def __init__(self, seed=None, rules=None):
        pass

    def decide(self, view, legal):
        sys.exit(3)
"""


@pytest.fixture
def bots(tmp_path) -> str:
    path = tmp_path / "verdict_bots.py"
    path.write_text(BOTS)
    return str(path)


# Wide hypotheses, so that a test decides in tens of deals: is the cheat at
# least 200 Elo (a mean head-to-head score of 0.76) better than greedy?
WIDE = SprtSpec(elo0=0, elo1=200)


async def _sprt(entrants, games, seed, **kw):
    report = await asyncio.wait_for(
        run_match(MatchConfig(entrants, games, seed, ROUNDS, table_size=2, sprt=WIDE, **kw)), WAIT
    )
    return report, report["sprt"]


async def test_forfeiting_when_about_to_lose_is_a_loss_never_an_h1(bots):
    """The cheat turns a likely loss into a forfeit; before, the forfeited
    deal left the test, so the cheat won every deal it kept (H1 in 5 of 5
    runs). Now each forfeit is a loss and its deal stays: the test ends H0."""
    entrants = parse_entrants(f"{bots}:IllegalWhenLosing,greedy")
    report, sprt = await _sprt(entrants, 600, 4601, concurrency=2)
    assert sprt["decision"] == "H0"
    cheat, greedy = report["entrants"]
    assert cheat["illegal_forfeits"] > 0 and greedy["illegal_forfeits"] == 0
    assert cheat["forfeits"] == cheat["illegal_forfeits"]
    # no deal was dropped: every deal played to its end was an observation
    # (at most one was cut short by the decision, its other game in flight)
    assert report["deals"]["complete"] - sprt["observations"] in (0, 1)
    assert report["deals"]["incomplete"] <= 1
    assert sprt["games"] == 2 * sprt["observations"]
    assert cheat["win_rate"] < 0.5 < greedy["win_rate"]  # the forfeits are greedy's wins


async def test_sleeping_past_the_clock_when_about_to_lose_is_a_loss_never_an_h1(bots):
    entrants = parse_entrants(f"{bots}:SlowWhenLosing,greedy")
    report, sprt = await _sprt(entrants, 400, 4602, concurrency=2, move_time=1)
    assert sprt["decision"] == "H0"
    cheat, greedy = report["entrants"]
    assert cheat["timeouts"] > 0 and greedy["timeouts"] == 0
    # its forfeits are its time forfeits (under heavy load one more game was
    # once counted a forfeit of the cheat: still a loss of its own)
    assert cheat["forfeits"] >= cheat["timeouts"] and greedy["forfeits"] == 0
    # every deal was an observation (but one its games in flight at the decision
    # may have completed after it)
    assert report["deals"]["complete"] - sprt["observations"] in (0, 1)


async def test_a_bot_of_this_process_that_sleeps_past_the_clock_forfeits_every_game(bots):
    """Played in the worker's process (no wire), the clock binds it as it
    binds a bot over the wire: a time forfeit in every game, measured from
    when the decision was asked, the timer's move made for it."""
    entrants = parse_entrants(f"{bots}:Sleeper,greedy")
    report = await asyncio.wait_for(
        run_match(MatchConfig(entrants, 3, 4603, ROUNDS, move_time=1, workers="inline")), WAIT
    )
    assert report["counts"]["void"] == 3 and report["counts"]["counted"] == 0
    sleeper, greedy = report["entrants"]
    assert sleeper["timeouts"] == 3 and sleeper["forfeits"] == 3 and sleeper["wins"] == 0
    assert greedy["forfeits"] == 0 and greedy["timeouts"] == 0
    for game in report["apart"]["void"]:
        assert "(Sleeper)" in game["reason"] and "time forfeit" in game["reason"]


async def test_a_bot_of_this_process_is_bound_by_the_clock_over_the_network_too(bots):
    entrants = parse_entrants(f"{bots}:Sleeper,greedy")
    report = await asyncio.wait_for(
        run_match(
            MatchConfig(entrants, 2, 4604, ROUNDS, move_time=1, workers="inline", network=True)
        ),
        WAIT,
    )
    sleeper, greedy = report["entrants"]
    assert report["counts"]["void"] == 2
    assert sleeper["forfeits"] == 2 and greedy["forfeits"] == 0


async def test_a_bot_that_calls_sys_exit_is_named_and_stops_the_match(bots):
    entrants = parse_entrants(f"greedy,{bots}:Quitter")
    with pytest.raises(MatchError, match=r"seat 2 \(Quitter\) called sys.exit\(3\)") as stopped:
        await asyncio.wait_for(
            run_match(MatchConfig(entrants, 4, 4605, ROUNDS, workers="inline")), WAIT
        )
    report = stopped.value.report
    assert report is not None and report["counts"]["crashed"] == 1
    assert report["played"] == 1  # stopped at the first (--on-crash stop)


@pytest.mark.parametrize("seat", ["candidate", "baseline"])
async def test_an_entrant_that_forfeits_every_game_ends_the_match_in_one_line(bots, seat):
    names = [f"{bots}:Illegal", "greedy"]
    if seat == "baseline":
        names.reverse()
    entrants = parse_entrants(",".join(names))
    with pytest.raises(MatchError, match=r"Illegal forfeited each of the 5 games it played"):
        await asyncio.wait_for(
            run_match(
                MatchConfig(
                    entrants, 200, 4606, ROUNDS, table_size=2, sprt=SprtSpec(), workers="inline"
                )
            ),
            WAIT,
        )
