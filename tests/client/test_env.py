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


@pytest.mark.parametrize("opponents", [["random"], ["greedy", "random", "random"]])
def test_gymnasiums_env_checker_passes(opponents):
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("unoplay/Uno-v0", opponents=opponents)
    check_env(env.unwrapped, skip_render_check=True)


def _deals(env: UnoEnv, seeds) -> list[tuple]:
    out = []
    for seed in seeds:
        env.reset(seed=seed)
        out.append(tuple(env.state.hand(s) for s in range(env.players)))
    return out


def test_unseeded_resets_after_a_seed_repeat():
    """After reset(seed=s) the unseeded resets draw their deals from a
    generator seeded by s: the same games in every run, not the seeded one."""
    first = _deals(UnoEnv(3), [4, None, None])
    second = _deals(UnoEnv(3), [4, None, None])
    assert first == second
    assert len(set(first)) == 3
    assert _deals(UnoEnv(3), [4]) == first[:1]  # the seeded deal itself is unchanged
    assert _deals(UnoEnv(3), [5, None]) != first[:2]


def test_an_illegal_action_ends_the_gymnasium_episode_or_raises():
    env = UnoGymEnv(opponents=["random"])
    _obs, info = env.reset(seed=2)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert terminated and not truncated and reward == -1.0 and info["illegal_action"]
    assert np.flatnonzero(obs["action_mask"]).tolist() == [env.aec.pass_action]
    strict = UnoGymEnv(opponents=["random"], illegal_action="raise")
    strict.reset(seed=2)
    with pytest.raises(ValueError, match="not legal"):
        strict.step(illegal)


def test_the_final_observation_has_a_mask():
    """Once a game is over every agent's mask is the pass alone: a masked
    softmax of the final observation is defined."""
    env = UnoEnv(2, RuleSet(target_score=0), max_round_actions=30)
    env.reset(seed=1)
    rng = random.Random(1)
    for _agent in env.agent_iter():
        obs, _reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            assert np.flatnonzero(obs["action_mask"]).tolist() == [env.pass_action]
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.state.is_game_over


def _vector_run(seed: int, steps: int) -> tuple[list[np.ndarray], int]:
    envs = gymnasium.make_vec(
        "unoplay/Uno-v0",
        num_envs=3,
        vectorization_mode="sync",
        opponents=["random"],
        rules=RuleSet(target_score=0),
        max_round_actions=25,
    )
    rng = np.random.default_rng(seed)
    obs, info = envs.reset(seed=seed)
    seen, ended = [obs["observation"].copy()], 0
    for _ in range(steps):
        masks = info["action_mask"]
        assert masks.any(axis=1).all()  # never all zeros, not even after an episode ends
        actions = [int(rng.choice(np.flatnonzero(m))) for m in masks]
        obs, rewards, terminated, truncated, info = envs.step(actions)
        seen += [obs["observation"].copy(), rewards.copy()]
        ended += int((terminated | truncated).sum())
    envs.close()
    return seen, ended


def test_a_seeded_vector_run_repeats_exactly():
    first, ended = _vector_run(7, 120)
    second, _ = _vector_run(7, 120)
    assert ended >= 3  # episodes ended and were reset without a seed
    assert all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))
