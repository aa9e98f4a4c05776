"""uno match's figures: the SPRT on simulated outcomes (seeded, so never
flaky), its model, the intervals and the per-game/per-deal statistics
(client/match/sprt.py, stats.py). Pure: no server."""

from __future__ import annotations

import math
import random

import pytest

from unoplay.client.match.entrants import parse_entrants
from unoplay.client.match.result import ADJUDICATED, FINISHED, VOID, GameResult
from unoplay.client.match.schedule import make_schedule
from unoplay.client.match.sprt import (
    Sprt,
    SprtSpec,
    elo_of_score,
    expected_score,
    llr,
    wald_expected_units,
)
from unoplay.client.match.stats import MatchStats, mean_interval, wilson_interval


def test_the_elo_model_is_chess_logistic_elo():
    assert expected_score(0) == pytest.approx(0.5)
    assert expected_score(400) == pytest.approx(10 / 11)
    assert elo_of_score(expected_score(35)) == pytest.approx(35)
    assert str(elo_of_score(0.5)) == "0.0"  # never "-0.0" in a report
    assert elo_of_score(0.0) == -math.inf and elo_of_score(1.0) == math.inf


def test_with_wins_and_losses_only_the_gsprt_is_walds_sprt():
    s0, s1 = 0.5, expected_score(10)
    wins, losses = 31, 69
    wald = wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))
    assert llr({1.0: wins, 0.0: losses}, s0, s1) == pytest.approx(wald, rel=1e-12)


def test_the_spec_parses_both_forms_and_refuses_nonsense():
    spec = SprtSpec.parse(["elo0=0", "elo1=10", "alpha=0.05", "beta=0.05"])
    assert spec == SprtSpec()
    assert spec.lower == pytest.approx(math.log(0.05 / 0.95))
    assert spec.upper == pytest.approx(math.log(0.95 / 0.05))
    assert SprtSpec.parse(["p0=0.5 p1=0.53"]).scores() == (0.5, 0.53)
    for bad in (["elo0=10", "elo1=0"], ["alpha=2"], ["p0=0.3"], ["tau=1"], ["elo1=x"]):
        with pytest.raises(ValueError):
            SprtSpec.parse(bad)


def _simulate(spec, draw, runs, rng, limit=100_000):
    """Run the SPRT ``runs`` times on observations from ``draw(rng)``:
    (decisions, units used by each run)."""
    decisions, used = [], []
    for _ in range(runs):
        test = Sprt(spec)
        while not test.decision and test.n < limit:
            test.add(draw(rng))
        decisions.append(test.decision)
        used.append(test.n)
    return decisions, used


def test_sprt_stops_for_a_clearly_better_bot_within_the_expected_games():
    # Head to head, the candidate wins 65% (elo +108); H1 is elo 50.
    spec = SprtSpec(elo0=0, elo1=50)
    s0, s1 = spec.scores()
    p = 0.65
    decisions, used = _simulate(spec, lambda r: float(r.random() < p), 100, random.Random(1))
    assert decisions.count("H1") == 100
    expected = wald_expected_units(spec, p, s0, s1)
    assert 40 < expected < 150
    assert 0.7 * expected < sum(used) / len(used) < 1.5 * expected


def test_sprt_stops_for_equal_bots_within_the_expected_games_and_errs_as_seldom_as_asked():
    spec = SprtSpec(elo0=0, elo1=40, alpha=0.05, beta=0.05)
    s0, s1 = spec.scores()  # head to head: 50% vs 55.7%
    decisions, used = _simulate(spec, lambda r: float(r.random() < s0), 100, random.Random(2))
    expected = wald_expected_units(spec, s0, s0, s1)
    assert 300 < expected < 600
    assert 0.7 * expected < sum(used) / len(used) < 1.5 * expected
    # alpha = 5%: a wrong H1 in 100 runs is Binomial(100, <= 0.05); 15 is far out
    assert decisions.count("H1") <= 15 and decisions.count("") == 0


def _four_seat_deal(strength, rng, luck=0.8):
    """One deal of a four-seat pair (:mod:`schedule`'s pairs): entrants 0
    (candidate) and 1 (baseline) in two seats, 2 and 3 (the field) in the
    others, then the two swapped. A deal gives each seat a luck shared by
    both games (its cards); a game's winner is drawn in proportion to
    ``strength[entrant] * luck[seat]``. Returns the deal's mean
    head-to-head score (1: candidate won, 0: baseline, 1/2: the field)."""
    lucks = [math.exp(rng.gauss(0.0, luck)) for _ in range(4)]
    seats = [0, 1, 2, 3]
    rng.shuffle(seats)
    total = 0.0
    for seating in (seats, [{0: 1, 1: 0}.get(e, e) for e in seats]):
        weights = [strength[e] * lucks[s] for s, e in enumerate(seating)]
        winner = seating[rng.choices(range(4), weights)[0]]
        total += {0: 1.0, 1: 0.0}.get(winner, 0.5)
    return total / 2


def test_identical_candidate_and_baseline_at_four_seats_accept_h1_about_alpha_of_the_time():
    # The bug this design fixes: the first entrant tested against the pooled
    # field accepted H1 for two identical bots beside two randoms. Paired
    # deals: the candidate's and the baseline's chances are equal, whatever
    # the field (randoms, a quarter as strong) and the seats' luck.
    spec = SprtSpec(elo0=0, elo1=40, alpha=0.05, beta=0.05)
    strength = [1.0, 1.0, 0.25, 0.25]
    runs = 200
    decisions, used = _simulate(
        spec, lambda r: _four_seat_deal(strength, r), runs, random.Random(11)
    )
    assert decisions.count("") == 0
    # alpha = 5%: the H1 count is at most Binomial(200, 0.05), mean 10, sd 3.1
    assert decisions.count("H1") <= 20
    assert 50 < sum(used) / runs < 2000


def test_a_clearly_better_candidate_at_four_seats_accepts_h1():
    spec = SprtSpec(elo0=0, elo1=40, alpha=0.05, beta=0.05)
    strength = [2.0, 1.0, 0.5, 0.5]  # twice the baseline: +120 Elo, head to head
    decisions, _ = _simulate(spec, lambda r: _four_seat_deal(strength, r), 50, random.Random(12))
    assert decisions.count("H1") == 50
    test = Sprt(spec)
    rng = random.Random(13)
    while not test.decision:
        test.add(_four_seat_deal(strength, rng), games=2)
    elo, low, high = test.elo_interval()
    assert low < elo < high and low > 0  # the interval lies above no difference
    assert test.games == 2 * test.n == test.path[-1].games
    with pytest.raises(ValueError, match="decided"):
        test.add(0.5)  # the verdict is the crossing: nothing after it


def test_equal_bots_interval_holds_zero():
    test = Sprt(SprtSpec(elo0=0, elo1=40))
    rng = random.Random(14)
    for _ in range(40):
        if test.decision:
            break
        test.add(_four_seat_deal([1.0, 1.0, 0.25, 0.25], rng), games=2)
    _elo, low, high = test.elo_interval()
    assert low is not None and high is not None and low < 0 < high
    data = test.to_dict()
    assert data["elo_interval"] == [low, high] and data["decision"] in (None, "H0", "H1")


def test_wilson_and_mean_intervals():
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    mean, low, high = mean_interval([0.5] * 10)
    assert (mean, low, high) == (0.5, 0.5, 0.5)
    assert mean_interval([1.0]) == (1.0, 0.0, 1.0)


def _result(index, deal, seats, winners, status=FINISHED, scores=None):
    return GameResult(
        index,
        deal,
        index % len(seats),
        100 + deal,
        list(seats),
        status,
        scores=scores or [0] * len(seats),
        winners=winners,
        decisions=[1] * len(seats),
        think_ms=[2.0] * len(seats),
        timeouts=[1 if status == VOID else 0] + [0] * (len(seats) - 1),
        stand_in=[0] * len(seats),
    )


def test_a_forfeit_is_a_loss_an_adjudication_a_draw_and_deals_pair_their_games():
    entrants = parse_entrants("greedy,random")
    schedule = make_schedule([e.identity for e in entrants], duplicate="rotations")
    stats = MatchStats(entrants, schedule)
    results = [
        _result(0, 0, (0, 1), [0], scores=[30, 0]),  # deal 0: seat 1's hand wins twice,
        _result(1, 0, (1, 0), [0], scores=[20, 0]),  # greedy's then random's
        _result(2, 1, (0, 1), [0]),
        _result(3, 1, (1, 0), [1]),  # deal 1: greedy both times
        _result(4, 2, (0, 1), [], ADJUDICATED),
        _result(5, 2, (1, 0), [1]),
        _result(6, 3, (0, 1), [0], VOID),  # greedy (seat 1) lost on time: a loss
        _result(7, 3, (1, 0), [0]),
    ]
    for r in reversed(results):  # any order
        assert stats.add(r)
    assert not stats.add(results[0])  # once only
    greedy, rand = stats.totals
    # game 4 (adjudicated) counts for no one's win rate; game 6 is greedy's
    # loss and random's win, its points (none here) in no mean score
    assert greedy.games == 7 and rand.games == 7
    assert greedy.forfeits == 1 and rand.forfeits == 0
    assert greedy.wins == 4 and rand.wins == 3
    assert greedy.scored_games == 6 and rand.scored_games == 6
    assert greedy.score == 30 and rand.score == 20
    assert greedy.adjudicated == 1 and greedy.void == 1 and greedy.timeouts == 1
    assert greedy.ms_per_decision == pytest.approx(2.0)
    assert stats.complete_deals() == [0, 1, 2, 3]  # no deal dropped
    assert stats.deal_scores(0) == [0.5, 1.0, 1.0, 0.0]
    # head to head for the SPRT: the adjudication a draw, the forfeit a loss
    assert stats.pair_score(2, 0, 1) == (0.75, 2)
    assert stats.pair_score(3, 0, 1) == (0.0, 2)
    assert stats.pair_score(3, 1, 0) == (1.0, 2)
    assert stats.summary() == {
        "played": 8,
        "counted": 6,
        "adjudicated": 1,
        "void": 1,
        "crashed": 0,
        "errors": 0,
    }
    assert stats.head[(0, 1)] == [7, 4, 3]
    # the ratings take the forfeit as a loss too: greedy lower, random higher
    without = MatchStats(entrants, schedule)
    without.add_all(r for r in results if r.index != 6)
    ratings, before = stats.ratings(), without.ratings()
    assert ratings[0][0] < before[0][0] and ratings[1][0] > before[1][0]


def _three_point_mle(counts, mean):
    """The maximum-likelihood distribution over three scores with a given
    mean, solved in closed form (the secular equation of Van den Bergh's
    "Maximum likelihood estimation of a multinomial with a given mean",
    support_MLE_multinomial.pdf, Proposition 1.1: ``p_i / (1 + x (a_i - mean))``
    with ``sum p_i d_i / (1 + x d_i) = 0``, a quadratic in ``x`` once its
    denominators are cleared), independent of sprt.py's iteration."""
    values = sorted(counts)
    n = sum(counts.values())
    p = [counts[v] / n for v in values]
    d = [v - mean for v in values]
    others = [[d[j] for j in range(3) if j != i] for i in range(3)]
    c = sum(pi * di for pi, di in zip(p, d))
    b = sum(pi * di * sum(o) for pi, di, o in zip(p, d, others))
    a = sum(pi * di * math.prod(o) for pi, di, o in zip(p, d, others))
    if abs(a) < 1e-15:
        roots = [-c / b]
    else:
        disc = math.sqrt(b * b - 4 * a * c)
        roots = [(-b + disc) / (2 * a), (-b - disc) / (2 * a)]
    (x,) = [r for r in roots if -1 / max(d) < r < -1 / min(d)]
    return p, [pi / (1 + x * di) for pi, di in zip(p, d)]


def test_the_gsprt_llr_of_deal_scores_is_the_known_value():
    # Deals of two games between two entrants: deal scores 0, 1/2, 1. The
    # GSPRT's LLR (fishtest's LLRcalc.LLR_jumps in general form) is
    # N sum p_i ln(p1_i / p0_i) with p0, p1 the MLEs of mean s0, s1.
    counts = {0.0: 9, 0.5: 12, 1.0: 15}
    s0, s1 = 0.5, expected_score(40)
    p, p0 = _three_point_mle(counts, s0)
    _, p1 = _three_point_mle(counts, s1)
    known = 36 * sum(pi * math.log(b / a) for pi, a, b in zip(p, p0, p1))
    assert known == pytest.approx(0.6826376, abs=1e-7)
    assert llr(counts, s0, s1) == pytest.approx(known, rel=1e-10)
    assert llr({}, s0, s1) == 0.0


def test_the_sprt_decides_a_run_of_wins_or_losses_at_walds_count():
    # Head to head, elo0=0 elo1=40 (s0 = 0.5, s1 = 0.5573): bounds +-ln(19);
    # Wald's LLR of k straight wins is k ln(s1/s0), of k losses k ln((1-s1)/(1-s0)).
    spec = SprtSpec(elo0=0, elo1=40)
    s0, s1 = spec.scores()
    wins_needed = math.ceil(spec.upper / math.log(s1 / s0))
    losses_needed = math.ceil(spec.lower / math.log((1 - s1) / (1 - s0)))
    assert (wins_needed, losses_needed) == (28, 25)
    for outcome, needed, decision in ((1.0, wins_needed, "H1"), (0.0, losses_needed, "H0")):
        test = Sprt(spec)
        for k in range(1, needed):
            assert test.add(outcome) == "", k
        assert test.add(outcome) == decision
        assert decision in test.status()


def test_the_paired_interval_of_duplicate_deals_is_narrower_for_as_many_games():
    # Two entrants; every deal has a lucky hand, which wins 90% of the time
    # for greedy and 70% for random (greedy wins 30% with the other hand).
    # Plain rotation: a new deal every game, greedy wins 60%, the Wilson
    # interval of 200 Bernoulli games. Duplicate: 100 deals played both
    # ways, the luck of the deal shared by its two games and cancelled.
    entrants = parse_entrants("greedy,random")
    rng = random.Random(7)

    def greedy_wins(lucky: bool) -> bool:
        return rng.random() < (0.9 if lucky else 0.3)

    plain = MatchStats(entrants, make_schedule(["greedy", "random"]))
    for g in range(200):
        seats = (g % 2, 1 - g % 2)
        won = greedy_wins(rng.random() < 0.5)
        plain.add(_result(g, g, seats, [seats.index(0 if won else 1)]))
    paired = MatchStats(entrants, make_schedule(["greedy", "random"], duplicate="rotations"))
    for deal in range(100):
        lucky_seat = rng.randrange(2)
        for r, seats in enumerate(((0, 1), (1, 0))):
            won = greedy_wins(seats[lucky_seat] == 0)
            paired.add(_result(2 * deal + r, deal, seats, [seats.index(0 if won else 1)]))
    assert plain.totals[0].games == paired.totals[0].games == 200
    low, high = wilson_interval(plain.totals[0].wins, plain.totals[0].games)
    mean, dlow, dhigh = mean_interval(paired.deal_scores(0))
    assert len(paired.deal_scores(0)) == 100 and dlow < mean < dhigh
    # Expected widths: 2 z sqrt(0.24 / 200) = 0.136 against 2 z sqrt(0.075 / 100) = 0.107.
    assert 0.10 < high - low < 0.17 and 0.08 < dhigh - dlow < 0.13
    assert dhigh - dlow < 0.9 * (high - low)


def test_a_capped_game_is_adjudicated_with_what_reached_its_cap():
    from unoplay.client.match.adjudication import MAX_GAME_ACTIONS, Outcome, adjudicate

    entrants = parse_entrants("greedy,random")
    reasons = []
    for cap in (2000, MAX_GAME_ACTIONS):
        result = _result(0, 0, (0, 1), [], FINISHED)
        outcome = Outcome(over=True, capped=True, cap=cap, timeouts=[0, 0], stand_in=[0, 0])
        adjudicate(result, outcome, entrants)
        assert result.status == ADJUDICATED
        reasons.append(result.reason)
    assert reasons == [
        "a round reached the cap of 2,000 actions: no winner",
        "the game reached the cap of 1,000,000 actions: no winner",
    ]
