"""uno match's schedules: which entrants sit where in every game, and from
which seed each game is dealt (client/match/schedule.py). Pure: no server."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from unoplay.client.match.entrants import parse_entrants, short_command
from unoplay.client.match.schedule import make_schedule

SEED = 40


def test_plain_rotation_is_the_old_runners_order_with_one_deal_a_game():
    schedule = make_schedule(["a", "b", "c", "d"])
    specs = schedule.specs(10, SEED)
    for g, spec in enumerate(specs):
        assert spec.seats == tuple((g + s) % 4 for s in range(4))
        assert (spec.index, spec.deal, spec.seed) == (g, g, SEED + g)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_duplicate_rotations_give_every_entrant_every_hand_of_a_deal(n):
    identities = [f"bot{i}" for i in range(n)]
    schedule = make_schedule(identities, duplicate="rotations")
    specs = schedule.specs(3 * n, SEED)
    assert len(specs) == 3 * n
    by_deal: dict[int, list] = {}
    for spec in specs:
        by_deal.setdefault(spec.deal, []).append(spec)
    assert sorted(by_deal) == [0, 1, 2]
    for deal, games in by_deal.items():
        assert {g.seed for g in games} == {SEED + deal}  # one deal, n times
        assert [g.rotation for g in games] == list(range(n))
        for seat in range(n):  # every entrant holds every seat's hand once
            assert sorted(g.seats[seat] for g in games) == list(range(n))
        # ... and from every position: the seatings are the n rotations
        assert {g.seats for g in games} == {tuple((r + s) % n for s in range(n)) for r in range(n)}


def test_duplicate_rounds_the_games_up_to_whole_deals():
    schedule = make_schedule(["a", "b", "c"], duplicate="rotations")
    assert schedule.total(7) == 9
    assert len(schedule.specs(7, SEED)) == 9


def test_duplicate_permutations_cover_every_distinct_seat_permutation_of_a_deal():
    schedule = make_schedule(["a", "b", "c", "d"], duplicate="permutations")
    specs = schedule.specs(48, SEED)
    assert schedule.per_deal == (24,)
    for deal in (0, 1):
        games = [s for s in specs if s.deal == deal]
        assert {s.seed for s in games} == {SEED + deal}
        assert sorted(s.seats for s in games) == sorted(itertools.permutations(range(4)))


def test_duplicate_permutations_treat_entrants_of_one_identity_as_one():
    # greedy and three copies of random: 4 distinct arrangements, greedy in each seat once
    entrants = parse_entrants("greedy,random,random,random")
    schedule = make_schedule([e.identity for e in entrants], duplicate="permutations")
    games = schedule.specs(4, SEED)
    assert len(games) == 4 and {g.seed for g in games} == {SEED}
    assert sorted(g.seats.index(0) for g in games) == [0, 1, 2, 3]
    arrangements = {tuple(entrants[e].identity for e in g.seats) for g in games}
    assert len(arrangements) == 4
    # two of each kind: C(4, 2) = 6 arrangements a deal
    pairs = make_schedule(["x", "x", "y", "y"], duplicate="permutations")
    assert pairs.per_deal == (6,)


def _partners(seating):
    return {frozenset((seating[0], seating[2])), frozenset((seating[1], seating[3]))}


def test_partner_rotation_of_four_is_twelve_rounds_each_partner_four_times():
    schedule = make_schedule(["a", "b", "c", "d"], kind="partner-rotation")
    assert len(schedule.cycle) == 12
    specs = schedule.specs(24, SEED)
    cycle = [s.seats for s in specs[:12]]
    assert [s.seats for s in specs[12:]] == cycle  # the cycle repeats
    together = Counter(pair for seating in cycle for pair in _partners(seating))
    assert together == {frozenset(p): 4 for p in itertools.combinations(range(4), 2)}
    for block in range(3):  # each partnership for 4 rounds in a row, seats rotating
        rounds = cycle[4 * block : 4 * block + 4]
        assert len({frozenset(_partners(r)) for r in rounds}) == 1
        for seat in range(4):
            assert sorted(r[seat] for r in rounds) == list(range(4))
    assert len({s.seed for s in specs}) == 24  # a new deal every game


def test_partner_rotation_of_eight_is_two_tables_and_twenty_eight_rounds():
    schedule = make_schedule([f"p{i}" for i in range(8)], kind="partner-rotation")
    cycle = schedule.cycle
    assert len(cycle) == 56  # 28 rounds of two tables
    rounds = [cycle[i : i + 2] for i in range(0, 56, 2)]
    for tables in rounds:  # every entrant plays once a round
        assert sorted(e for table in tables for e in table) == list(range(8))
    together = Counter(pair for seating in cycle for pair in _partners(seating))
    assert together == {frozenset(p): 4 for p in itertools.combinations(range(8), 2)}


def test_partner_rotation_refuses_other_counts():
    with pytest.raises(ValueError, match="4 or 8"):
        make_schedule(["a", "b", "c", "d", "e", "f"], kind="partner-rotation")


def test_round_robin_seats_every_set_of_k_entrants_as_often():
    schedule = make_schedule([f"e{i}" for i in range(5)], table_size=3)
    assert schedule.kind == "round-robin"
    assert len(schedule.cycle) == 10 * 3  # C(5, 3) tables, 3 rotations each
    specs = schedule.specs(len(schedule.cycle), SEED)
    tables = Counter(frozenset(s.seats) for s in specs)
    assert set(tables) == {frozenset(c) for c in itertools.combinations(range(5), 3)}
    assert set(tables.values()) == {3}
    games = Counter(e for s in specs for e in s.seats)
    assert set(games.values()) == {18}
    seats = Counter((s.seats[k], k) for s in specs for k in range(3))
    assert set(seats.values()) == {6}  # every entrant in every seat alike


def test_a_table_bigger_than_the_field_is_refused():
    with pytest.raises(ValueError, match="cannot fill"):
        make_schedule(["a", "b"], table_size=3)


def test_labels_name_the_command_and_are_unique():
    entrants = parse_entrants("greedy,random,random", ["node client/node_bot/bot.js", "./x --fast"])
    assert [e.label for e in entrants] == [
        "greedy",
        "random",
        "random#2",
        "node client/node_bot/bot.js",
        "./x --fast",
    ]
    long = ["node", "/very/long/path/to/some/directory/of/bots/bot.js", "--level", "9"]
    assert short_command(long) == "node bot.js --level 9"
    assert len(short_command(["x" * 80])) == 40
    with pytest.raises(ValueError, match="unknown bot kind"):
        parse_entrants("greedy,nobody")
    with pytest.raises(ValueError, match=r"2\.\.64 entrants"):
        parse_entrants("greedy")


def test_two_versions_of_a_bot_of_ones_own_are_told_apart_by_their_file(tmp_path):
    for version in ("v1", "v2"):
        (tmp_path / f"{version}.py").write_text("from unoplay.game.bots import GreedyBot as Bot\n")
    v1, v2 = tmp_path / "v1.py", tmp_path / "v2.py"
    labels = [e.label for e in parse_entrants(f"{v2}:Bot,{v1}:Bot,random,{v2}:Bot")]
    assert labels == ["v2:Bot", "v1:Bot", "random", "v2:Bot#2"]
    assert [e.label for e in parse_entrants(f"{v2}:Bot,greedy")] == ["Bot", "greedy"]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_sprt_pairs_swap_candidate_and_baseline_on_every_deal(n):
    identities = ["v2"] + ["v1"] + [f"field{i}" for i in range(n - 2)]
    schedule = make_schedule(identities, pair=(0, 1))
    assert schedule.duplicate == "pairs"
    specs = schedule.specs(4 * n, SEED)
    assert len(specs) == 4 * n
    for deal in range(2 * n):
        first, second = (s for s in specs if s.deal == deal)
        assert first.seed == second.seed == SEED + deal
        # the same seats for the field; candidate and baseline each in the other's
        for seat, (a, b) in enumerate(zip(first.seats, second.seats)):
            assert b == {0: 1, 1: 0}.get(a, a), (deal, seat)
    # over a cycle of deals the pair sits in every pair of seats' rotation
    assert {s.seats for s in specs if s.rotation == 0} == set(schedule.cycle)


def test_sprt_pairs_with_duplicate_rotations_and_permutations_are_swap_closed():
    identities = ["same", "same", "r", "r"]  # identical candidate and baseline stay apart
    for duplicate, size in (("rotations", 8), ("permutations", 12)):
        schedule = make_schedule(identities, duplicate=duplicate, pair=(0, 1))
        (group,) = schedule.groups
        assert len(group) == size
        swapped = {tuple({0: 1, 1: 0}.get(e, e) for e in s) for s in group}
        assert swapped == set(group)


def test_sprt_pairs_need_every_entrant_at_the_table():
    with pytest.raises(ValueError, match="every entrant at every table"):
        make_schedule(["a", "b", "c"], table_size=2, pair=(0, 1))
    with pytest.raises(ValueError, match="two different entrants"):
        make_schedule(["a", "b"], pair=(1, 1))
