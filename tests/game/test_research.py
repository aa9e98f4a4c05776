"""The researchers' API (unoplay.game.research, OpenSpiel-style): the doctests
of the engine and the Game module run; every legal action of any rule set
has a dense index, distinct within a seat's list, that maps back to it."""

from __future__ import annotations

import doctest
import random

from helpers import rule_sets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import unoplay.game.engine
import unoplay.game.research
from unoplay.game import DRAW, Game, GameState, Outcome, RuleSet, Termination
from unoplay.game.actions import ActionKind, play
from unoplay.game.cards import Colour, Rank, card_ids
from unoplay.game.rules import PRESETS


def test_the_module_examples_run():
    for module in (unoplay.game.engine, unoplay.game.research):
        result = doctest.testmod(module)
        assert result.attempted > 3 and result.failed == 0, module.__name__


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.sampled_from([2, 3, 4, 6, 10]), rules=rule_sets)
def test_every_legal_action_has_an_index_that_maps_back(seed, players, rules):
    game = Game(players, rules.replace(target_score=0))
    size = game.num_distinct_actions()
    assert [game.action_index(game.action_from_index(i)) for i in range(size)] == list(range(size))
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    for _ in range(400):
        if state.is_round_over:
            break
        for seat in range(players):
            by_index = game.legal_actions_by_index(state, seat)
            legal = state.legal_actions(seat)
            assert len(by_index) == len(legal)  # distinct indices
            assert sorted(by_index) == [i for i, m in enumerate(game.legal_mask(state, seat)) if m]
            for index, action in by_index.items():
                assert 0 <= index < size and action in legal
        seat = state.current
        state.apply(seat, rng.choice(state.legal_actions(seat)))


def test_the_index_grows_with_the_rules_that_add_actions():
    official = Game(4).num_distinct_actions()
    assert Game(4, PRESETS["house"]).num_distinct_actions() > 10 * official  # multi-card plays
    assert Game(4, RuleSet(seven_zero=True)).num_distinct_actions() == official + 8 * 2 * 4
    assert Game(10).num_distinct_actions() == official + 6  # one catch per seat
    assert Game(2).action_index(DRAW) == 0


def test_outcome_and_returns():
    game = Game(3, RuleSet(target_score=0))
    state = game.new_initial_state("outcome")
    assert state.outcome() is None and state.returns() == (0.0, 0.0, 0.0)
    rng = random.Random(3)
    while not state.is_game_over:
        seat = state.current
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert state.outcome() == Outcome(Termination.GAME_WON, state.game_winners, state.scores)
    assert state.returns() == tuple(1.0 if p in state.game_winners else 0.0 for p in range(3))
    assert isinstance(state, GameState)


def test_canonical_actions_name_cards_by_face():
    """Canonical: one index per distinct decision; two copies of a card are
    one action (the first copy the engine lists), every index maps back."""
    sizes = {
        (n, name): Game(n, PRESETS[name], canonical=True).num_distinct_actions()
        for n in (2, 4)
        for name in ("official", "house")
    }
    assert sizes == {
        (2, "official"): 131,
        (4, "official"): 133,
        (2, "house"): 5323,
        (4, "house"): 5325,
    }
    red_sevens = card_ids(Colour.RED, Rank.SEVEN)
    state = GameState.from_position([list(red_sevens) + [0], [1, 2]], top=red_sevens[0] - 1)
    for rules in (RuleSet(), PRESETS["house"]):
        game = Game(2, rules, canonical=True)
        size = game.num_distinct_actions()
        assert [game.action_index(game.action_from_index(i)) for i in range(size)] == list(
            range(size)
        )
        assert game.action_index(play(red_sevens[0])) == game.action_index(play(red_sevens[1]))
    game = Game(2, canonical=True)
    by_index = game.legal_actions_by_index(state, 0)
    sevens = [a for a in by_index.values() if a.kind is ActionKind.PLAY and a.card in red_sevens]
    assert sevens == [play(state.hand(0)[0])]  # one action, the copy listed first
    assert len(Game(2).legal_actions_by_index(state, 0)) == len(by_index) + 1


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.sampled_from([2, 4]), rules=rule_sets)
def test_canonical_indices_are_the_legal_decisions(seed, players, rules):
    game = Game(players, rules.replace(target_score=0), canonical=True)
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    for _ in range(300):
        if state.is_round_over:
            break
        for seat in range(players):
            by_index = game.legal_actions_by_index(state, seat)
            legal = state.legal_actions(seat)
            assert set(by_index) == {game.action_index(a) for a in legal}
            assert all(a in legal for a in by_index.values())
        seat = state.current
        state.apply(seat, rng.choice(state.legal_actions(seat)))
