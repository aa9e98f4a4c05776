"""UNO as an OpenSpiel game (unoplay.client.research.openspiel): OpenSpiel's
own random simulation test, chance taken from outside the engine exactly as
the engine draws it, states as histories, information from a seat's view
only, zero-sum returns, and OpenSpiel's MCTS and ISMCTS bots playing it."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip(
    "pyspiel", reason="open_spiel is not installed (pip install 'unoplay[openspiel]')"
)

import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import unoplay.client.research.openspiel  # registers python_unoplay
from unoplay.client.research.chance import Table
from unoplay.game import OFFICIAL, GameState
from unoplay.game.deals import DealRandom


def _load(**params):
    return pyspiel.load_game("python_unoplay", {"target_score": 0, **params})


def _play_randomly(state, rng: random.Random, until=lambda s: False):
    """Random chance outcomes and random legal actions until the end (or ``until``)."""
    while not state.is_terminal() and not until(state):
        if state.is_chance_node():
            outcomes, _ = zip(*state.chance_outcomes())
            state.apply_action(rng.choice(outcomes))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize(
    ("players", "rules"), [(2, "official"), (4, "official"), (4, "house"), (10, "official")]
)
def test_random_sim_test(players, rules):
    game = _load(players=players, rules=rules)
    assert game.num_players() == players
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


class _Recorder:
    """The seeded DealRandom, noting every ``below(n)`` it answers."""

    def __init__(self, seed: str) -> None:
        self.rng = DealRandom(seed)
        self.drawn: list[tuple[int, int]] = []

    def below(self, n: int) -> int:
        value = self.rng.below(n)
        self.drawn.append((n, value))
        return value

    def shuffle_steps(self, items, start, stop):
        for i in range(start - 1, stop - 1, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def copy(self):
        raise NotImplementedError


@pytest.mark.parametrize("players", [2, 4, 10])
def test_outside_chance_deals_as_the_seeded_engine_does(players):
    """The seed's chance, given one outcome at a time, deals the same game:
    the outcomes are the engine's own ``below(n)`` draws."""
    seeded, _ = GameState.new(players, OFFICIAL, "same deal")
    recorder = _Recorder("same deal")
    recorded, _ = GameState.new(players, OFFICIAL, "same deal", rng=recorder)
    assert [recorded.hand(s) for s in range(players)] == [seeded.hand(s) for s in range(players)]
    table = Table(players, OFFICIAL)
    for n, value in recorder.drawn:
        if n > 1:  # a single outcome is taken at once
            assert table.chance_outcomes() == n
            table.apply_chance(value)
    assert table.chance_outcomes() == 0
    assert table.state is not None
    assert [table.state.hand(s) for s in range(players)] == [seeded.hand(s) for s in range(players)]
    assert table.state.top_card == seeded.top_card and table.state.current == seeded.current


def test_a_state_is_its_history():
    game = _load(players=3)
    state = _play_randomly(
        game.new_initial_state(), random.Random(5), lambda s: s.move_number() > 300
    )
    again = game.new_initial_state()
    for action in state.history():
        again.apply_action(action)
    assert str(again) == str(state)
    assert again.information_state_string(0) == state.information_state_string(0)


def test_information_comes_from_the_players_view_only():
    """Resampling what seat p cannot see keeps p's information state, tensor
    and observation; another seat's changes."""
    game = _load(players=4)
    rng = random.Random(3)
    checked = 0
    state = game.new_initial_state()
    while checked < 20:
        state = _play_randomly(state, rng, lambda s: not s.is_chance_node() and rng.random() < 0.1)
        if state.is_terminal():
            state = game.new_initial_state()
            continue
        p = state.current_player()
        sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
        sample = state.resample_from_infostate(p, sampler)
        assert sample.information_state_string(p) == state.information_state_string(p)
        assert sample.information_state_tensor(p) == state.information_state_tensor(p)
        assert sample.observation_tensor(p) == state.observation_tensor(p)
        assert sample.legal_actions() == state.legal_actions()
        checked += 1
        state.apply_action(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("utility", ["points", "win"])
def test_returns_are_zero_sum(utility):
    game = _load(players=4, utility=utility)
    for seed in range(3):
        state = _play_randomly(game.new_initial_state(), random.Random(seed))
        returns = state.returns()
        assert abs(sum(returns)) < 1e-9
        assert all(game.min_utility() <= r <= game.max_utility() for r in returns)


@pytest.mark.parametrize("kind", ["ismcts", "mcts"])
def test_an_openspiel_bot_plays_a_round(kind):
    game = _load(players=2, max_round_actions=80, utility="win")
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    if kind == "ismcts":
        bot = ismcts.ISMCTSBot(
            game,
            evaluator,
            uct_c=2.0,
            max_simulations=10,
            random_state=np.random.RandomState(2),
            allow_inconsistent_action_sets=True,
        )
    else:
        bot = mcts.MCTSBot(game, 2.0, 10, evaluator, random_state=np.random.RandomState(2))
    opponent = pyspiel.make_uniform_random_bot(1, 3)
    rng = random.Random(0)
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, _ = zip(*state.chance_outcomes())
            state.apply_action(rng.choice(outcomes))
        elif state.current_player() == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            decisions += 1
        else:
            state.apply_action(opponent.step(state))
    assert decisions > 0
    assert sum(state.returns()) == 0


def test_canonical_actions_by_default():
    """One action per decision (132 at two seats with the pass); by copy on request."""
    assert _load(players=2).num_distinct_actions() == 132
    assert _load(players=4).num_distinct_actions() == 134
    by_copy = _load(players=2, canonical_actions=False)
    assert by_copy.num_distinct_actions() == 276
    pyspiel.random_sim_test(by_copy, num_sims=1, serialize=False, verbose=False)


def test_the_module_example_runs():
    import doctest

    result = doctest.testmod(unoplay.client.research.openspiel)
    assert result.attempted >= 4 and result.failed == 0
