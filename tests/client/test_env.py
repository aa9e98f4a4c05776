"""The PettingZoo environment and its Gymnasium wrapper (unoplay.client.research.env):
PettingZoo's own API and seed tests, observations from the agent's view only,
masks that are exactly the engine's legal actions, the out-of-turn window."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

import gymnasium
from pettingzoo.test import api_test, seed_test

from unoplay.client.research.env import UnoEnv, UnoGymEnv, encode
from unoplay.game import PRESETS, RuleSet
from unoplay.game.search import determinize, move_key

SETTINGS = [(n, name) for n in (2, 4, 10) for name in ("official", "house")]


@pytest.mark.parametrize(("players", "preset"), SETTINGS)
def test_pettingzoo_api_and_seed_tests(players, preset):
    rules = PRESETS[preset]
    api_test(UnoEnv(players, rules), num_cycles=200)
    seed_test(lambda: UnoEnv(players, rules), num_cycles=200)


def _walk(env: UnoEnv, seed: int, steps: int, check) -> None:
    """Play ``steps`` random masked actions from ``reset(seed)``, calling
    ``check(env, agent, obs)`` before each."""
    env.reset(seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            return
        obs = env.observe(agent)
        check(env, agent, obs)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("preset", ["official", "house"])
def test_the_mask_is_exactly_the_engines_legal_actions(preset):
    seen_window = []

    def check(env, agent, obs):
        seat = env.possible_agents.index(agent)
        legal = {move_key(a) for a in env.state.legal_actions(seat)}
        mask = obs["action_mask"]
        masked = {move_key(env.game.action_from_index(i)) for i in np.flatnonzero(mask[:-1])}
        assert masked == legal
        out_of_turn = seat != env.state.current
        assert bool(mask[env.pass_action]) == out_of_turn
        if out_of_turn:
            seen_window.append(seat)
        for other in env.possible_agents:  # nobody else may act now
            if other != agent:
                assert not env.observe(other)["action_mask"].any()

    for seed in range(3):
        _walk(UnoEnv(4, PRESETS[preset]), seed, 600, check)
    assert seen_window  # catches, late UNO calls or jump-ins were offered


def test_an_observation_holds_no_hidden_card_of_another_seat():
    """The observation is a function of the seat's view: re-dealing every card
    that seat cannot see (another hand, the draw pile, under the top) leaves
    it unchanged."""

    def check(env, agent, obs):
        seat = env.possible_agents.index(agent)
        view = env.state.view(seat)
        assert np.array_equal(obs["observation"], encode(view))
        for k in range(2):
            other = determinize(view, env.rules, random.Random(k))
            assert np.array_equal(encode(other.view(seat)), obs["observation"])

    _walk(UnoEnv(3, RuleSet()), 5, 150, check)


def test_round_rewards_follow_the_tables_scoring():
    env = UnoEnv(2, RuleSet(target_score=0))
    env.reset(seed=3)
    rng = random.Random(3)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        legal = np.flatnonzero(obs["action_mask"])
        env.step(None if terminated or truncated else int(rng.choice(legal)))
    winner = max(totals, key=totals.__getitem__)
    scores = env.state.scores
    seat = env.possible_agents.index(winner)
    assert env.state.game_winners == (seat,)
    assert totals[winner] == pytest.approx(scores[seat] / env.points_scale + 1.0)


def test_the_gymnasium_wrapper_plays_a_game_against_built_in_bots():
    env = gymnasium.make("unoplay/Uno-v0", opponents=["greedy", "random"])
    assert isinstance(env.unwrapped, UnoGymEnv)
    obs, info = env.reset(seed=11)
    rng = random.Random(11)
    done = False
    steps = 0
    while not done:
        assert env.observation_space.contains(obs)
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, _reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        steps += 1
    assert steps > 0
    with pytest.raises(ValueError, match="unknown bot kind"):
        UnoGymEnv(opponents=["clever"])


def test_the_wrappers_observing_bots_get_every_event_of_their_seat():
    """An ismcts opponent is given the events its seat sees before each
    decision: the hand it followed from them alone is the one it holds."""
    env = UnoGymEnv(opponents=["ismcts"], rules=RuleSet(target_score=0))
    agreed = []
    _obs, info = env.reset(seed=5)
    bot = env.bots[1]
    decide = bot.decide

    def checked(view, legal):
        agreed.append(sorted(bot.tracker.mine) == sorted(view.hand))
        return decide(view, legal)

    bot.decide = checked
    rng = random.Random(5)
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _obs, _reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    assert env.aec.keep_events and len(agreed) >= 3 and all(agreed)


def test_the_module_example_runs():
    import doctest

    import unoplay.client.research.env

    result = doctest.testmod(unoplay.client.research.env)
    assert result.attempted >= 4 and result.failed == 0


def test_the_learning_example_trains_and_evaluates(capsys):
    from unoplay.client.research import learn

    assert learn.main(["--episodes", "20", "--eval", "6", "--block", "10"]) == 0
    out = capsys.readouterr().out
    assert out.count("|") == 2 and "trained policy (arg-max) vs random" in out
    assert "95% CI" in out
