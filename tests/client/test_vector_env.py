"""The vector environment (unoplay.client.research.vector): N games stepped
together as NumPy arrays, the same games as N single envs, same-step
auto-reset with the final observation kept apart, seeded runs repeating."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from unoplay.client.research.env import UnoGymEnv
from unoplay.client.research.vector import UnoVectorEnv
from unoplay.game import RuleSet

SHORT = {
    "opponents": ["random", "greedy"],
    "rules": RuleSet(target_score=0),
    "max_round_actions": 30,
}


def _pick(rng: random.Random, mask: np.ndarray) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def test_the_module_example_runs():
    import doctest

    import unoplay.client.research.vector

    result = doctest.testmod(unoplay.client.research.vector)
    assert result.attempted >= 4 and result.failed == 0


def test_a_vector_steps_the_games_single_envs_play():
    """Game i of reset(seed=s) is UnoGymEnv's reset(seed=s + i); an ended game
    returns its last observation apart and the next game's first."""
    envs = UnoVectorEnv(3, **SHORT)
    singles = [UnoGymEnv(**SHORT) for _ in range(3)]
    obs, info = envs.reset(seed=10)
    single_obs = [env.reset(seed=10 + i)[0] for i, env in enumerate(singles)]
    assert obs["observation"].shape == (3, *envs.single_observation_space["observation"].shape)
    assert obs["action_mask"].dtype == np.int8 and obs["observation"].dtype == np.float32
    rng = random.Random(1)
    ended = 0
    for _ in range(150):
        for i in range(3):
            assert np.array_equal(obs["observation"][i], single_obs[i]["observation"])
            assert np.array_equal(obs["action_mask"][i], single_obs[i]["action_mask"])
        actions = [_pick(rng, m) for m in info["action_mask"]]
        obs, rewards, terminated, truncated, info = envs.step(np.array(actions))
        for i, env in enumerate(singles):
            one, reward, term, trunc, _ = env.step(actions[i])
            assert (rewards[i], terminated[i], truncated[i]) == (reward, term, trunc)
            if term or trunc:
                ended += 1
                assert info["_final_obs"][i]
                assert np.array_equal(info["final_obs"]["observation"][i], one["observation"])
                assert np.array_equal(info["final_obs"]["action_mask"][i], one["action_mask"])
                env.new_game()  # what the vector's auto-reset does
                one, _ = env._observation()
            elif "_final_obs" in info:
                assert not info["_final_obs"][i]
                assert not info["final_obs"]["action_mask"][i].any()
            single_obs[i] = one
    assert ended >= 3


def test_a_seeded_vector_run_repeats():
    def run() -> list[np.ndarray]:
        envs = UnoVectorEnv(4, **SHORT)
        obs, info = envs.reset(seed=3)
        rng = random.Random(3)
        seen = [obs["observation"]]
        for _ in range(100):
            obs, rewards, *_rest, info = envs.step([_pick(rng, m) for m in info["action_mask"]])
            seen += [obs["observation"], rewards]
        return seen

    first, second = run(), run()
    assert all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))


def test_the_vector_bench_reports_each_figure():
    from unoplay.client.research.envbench import run_vector

    report = run_vector(runs=1, seconds=0.2, num_envs=2, as_json=True)
    assert {"single_steps_per_s", "vector_steps_per_s", "make_vec_steps_per_s"} <= set(report)
    assert all(v > 0 for k, v in report.items() if k.endswith("_per_s"))


def test_the_options_reach_every_game_of_the_vector():
    """normalize, memory and reward pass through to each game: the batch's
    rows have the memory planes, every feature in [0, 1], zero-sum returns."""
    envs = UnoVectorEnv(
        3, ["greedy"], RuleSet(target_score=0), normalize=True, memory=True, reward="zero_sum"
    )
    assert envs.single_observation_space["observation"].shape == (188 + 108,)
    obs, info = envs.reset(seed=4)
    rng = random.Random(4)
    returns = set()
    for _ in range(400):
        x = obs["observation"]
        assert x.shape == (3, 296) and x.min() >= 0.0 and x.max() <= 1.0
        assert envs.observation_space.contains(obs)
        obs, rewards, terminated, truncated, info = envs.step(
            [_pick(rng, m) for m in info["action_mask"]]
        )
        returns |= {float(r) for r, t in zip(rewards, terminated | truncated, strict=True) if t}
    assert returns and returns <= {1.0, -1.0, 0.0}


def test_the_options_benchmark_runs():
    from unoplay.client.research.envbench import OPTION_SETS, run_options

    report = run_options(games=2, repeats=1, as_json=True)
    assert report["steps"] > 0
    assert all(report[f"{name}_steps_per_s"] > 0 for name in OPTION_SETS)
