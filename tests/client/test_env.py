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

from unoplay.client.research.env import BotPolicy, UnoEnv, UnoGymEnv, encode
from unoplay.client.research.features import COPIES
from unoplay.game import PRESETS, RuleSet
from unoplay.game.search import determinize, move_key

SETTINGS = [(n, name) for n in (2, 4, 10) for name in ("official", "house")]


@pytest.mark.parametrize(("players", "preset"), SETTINGS)
def test_pettingzoo_api_and_seed_tests(players, preset):
    rules = PRESETS[preset]
    api_test(UnoEnv(players, rules), num_cycles=200)
    seed_test(lambda: UnoEnv(players, rules), num_cycles=200)


def _walk(env: UnoEnv, seed: int, steps: int, check, greedy: bool = False) -> None:
    """Play ``steps`` random masked actions (``greedy``: the greedy bot's)
    from ``reset(seed)``, calling ``check(env, agent, obs)`` before each."""
    env.reset(seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            return
        obs = env.observe(agent)
        check(env, agent, obs)
        if greedy:
            env.step(env.bot_action(agent, "greedy"))
        else:
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


# ---------------------------------------------------------------- options


def _play(env: UnoEnv, seed: int, policy=None) -> dict[str, float]:
    """One game from ``reset(seed)``, every seat greedy unless ``policy``
    (agent, obs) -> action says otherwise; each step's rewards must sum as
    the env's scheme allows. Returns every agent's total reward."""
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if env.reward != "points":
            assert sum(env.rewards.values()) == pytest.approx(0.0, abs=1e-9)
        if terminated or truncated:
            env.step(None)
        elif policy is not None:
            env.step(policy(agent, obs))
        else:
            env.step(env.bot_action(agent, "greedy"))
    return totals


@pytest.mark.parametrize(("players", "preset"), [(2, "official"), (4, "house"), (5, "official")])
def test_zero_sum_rewards_sum_to_zero_and_follow_the_winner(players, preset):
    env = UnoEnv(players, PRESETS[preset], reward="zero_sum")
    totals = _play(env, players)
    winners = env.state.game_winners
    assert winners and sum(totals.values()) == pytest.approx(0.0, abs=1e-9)
    for s, agent in enumerate(env.possible_agents):
        want = 1.0 / len(winners) if s in winners else -1.0 / (players - len(winners))
        assert totals[agent] == pytest.approx(want)


@pytest.mark.parametrize("scoring", ["winner_takes", "penalty"])
def test_zero_sum_points_are_the_scores_minus_their_mean(scoring):
    rules = RuleSet(scoring=scoring, target_score=200)
    env = UnoEnv(3, rules, reward="zero_sum_points")
    totals = _play(env, 8)
    scores = env.state.scores
    sign = -1.0 if scoring == "penalty" else 1.0
    mean = sum(scores) / 3
    for s, agent in enumerate(env.possible_agents):
        assert totals[agent] == pytest.approx(sign * (scores[s] - mean) / env.points_scale)
    assert sum(totals.values()) == pytest.approx(0.0, abs=1e-9)


def test_the_default_reward_is_still_the_points_and_a_capped_game_is_a_zero_sum_draw():
    assert UnoEnv(2).reward == "points"
    env = UnoEnv(3, reward="zero_sum", max_round_actions=5)
    totals = _play(env, 1)
    assert all(env.truncations.values()) and set(totals.values()) == {0.0}
    with pytest.raises(ValueError, match="reward must be one of"):
        UnoEnv(2, reward="elo")


def test_the_gymnasium_wrapper_takes_the_zero_sum_reward():
    env = UnoGymEnv(opponents=["greedy", "random"], reward="zero_sum")
    returns = set()
    rng = random.Random(0)
    for seed in range(3):
        _obs, info = env.reset(seed=seed)
        done, total = False, 0.0
        while not done:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _obs, reward, terminated, truncated, info = env.step(action)
            total += reward
            done = terminated or truncated
        returns.add(round(total, 9))
    assert returns <= {1.0, -0.5, 0.0}


_BOUND_SETTINGS = [(n, name) for n in (2, 4, 10) for name in ("official", "house")]


@pytest.mark.parametrize(("players", "preset"), _BOUND_SETTINGS)
def test_normalised_observations_stay_in_the_unit_interval(players, preset):
    """Every feature in [0, 1] over many random steps (several rounds, scores
    above 0, memory planes filling), and the space contains every observation."""
    rules = PRESETS[preset].replace(target_score=150)
    env = UnoEnv(players, rules, normalize=True, memory=True)
    raw = UnoEnv(players, rules, memory=True)
    seen = np.zeros(env.observation_size, bool)
    for seed in range(2):
        env.reset(seed=seed)
        raw.reset(seed=seed)
        rng = random.Random(seed)
        for _ in range(1500):
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                break
            obs = env.observe(agent)
            x = obs["observation"]
            assert x.dtype == np.float32 and x.min() >= 0.0 and x.max() <= 1.0
            assert env.observation_space(agent).contains(obs)
            seen |= x > 0
            y = raw.observe(agent)["observation"]
            assert np.array_equal(x > 0, y > 0)  # the same information, scaled
            assert np.allclose(x[:54], y[:54] / COPIES)  # own hand by copies
            assert np.allclose(x[-108:-54], np.minimum(y[-108:-54] / COPIES, 1))
            assert np.allclose(x[-54:], y[-54:] / (y[-54:] + COPIES))
            sizes = slice(166, 166 + 6 * players, 6)
            assert np.allclose(x[sizes], y[sizes] / 108)
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
            raw.step(action)
    assert seen.mean() > 0.5


def test_normalised_observations_hold_under_hypothesis():
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies

    @hypothesis.settings(max_examples=25, deadline=None)
    @hypothesis.given(
        players=st.integers(2, 10),
        preset=st.sampled_from(["official", "house"]),
        seed=st.integers(0, 2**31),
        steps=st.integers(1, 400),
    )
    def check(players, preset, seed, steps):
        env = UnoEnv(players, PRESETS[preset].replace(target_score=0), normalize=True)
        env.reset(seed=seed)
        rng = random.Random(seed)
        for _ in range(steps):
            agent = env.agent_selection
            obs = env.observe(agent)
            x = obs["observation"]
            assert x.min() >= 0.0 and x.max() <= 1.0
            if env.terminations[agent] or env.truncations[agent]:
                return
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))

    check()


def _recount(events) -> np.ndarray:
    """The memory planes counted again from a list of events."""
    from unoplay.game.events import EventKind
    from unoplay.game.search import KIND

    played = np.zeros((2, 54), np.float32)
    for e in events:
        if e.kind is EventKind.ROUND_STARTED:
            played[0] = 0
        elif e.kind is EventKind.PLAYED:
            for card in e.cards:
                played[:, KIND[card]] += 1
    return played


@pytest.mark.parametrize("rules", [RuleSet(seven_zero=True, target_score=200), PRESETS["house"]])
def test_the_played_cards_memory_is_public_information_only(rules):
    """The memory planes are what each seat could count from the events it
    saw (its private ones included, the others' excluded), the same for every
    seat; with the other hands, the piles and every other hidden card dealt
    again (a different hidden state, the same public history) each seat's
    observation is unchanged."""
    from unoplay.game.events import visible

    env = UnoEnv(4, rules, memory=True)
    base = env.observation_size - 108
    rounds = set()
    checked = 0

    def check(env, agent, obs):
        nonlocal checked
        seat = env.possible_agents.index(agent)
        rounds.add(env.state.round_number)
        plane = obs["observation"][base:].reshape(2, 54)
        for s in range(env.players):
            assert np.array_equal(_recount(visible(env.events, s)), plane)
            other = env.observe(env.possible_agents[s])["observation"][base:]
            assert np.array_equal(other, obs["observation"][base:])
        view = env.state.view(seat)
        for k in range(2):
            hidden = determinize(view, env.rules, random.Random(k))
            again = encode(hidden.view(seat), played=_recount(visible(env.events, seat)))
            assert np.array_equal(again, obs["observation"])
        checked += 1

    for seed in range(2):
        _walk(env, seed, 500, check, greedy=bool(seed))
    assert checked > 500 and len(rounds) >= 2
    assert env.played[1].sum() > env.played[0].sum() > 0


def test_without_memory_the_observation_is_unchanged():
    env, mem = UnoEnv(3), UnoEnv(3, memory=True)
    assert env.observation_size == 194 and mem.observation_size == 194 + 108
    env.reset(seed=2)
    mem.reset(seed=2)
    a = env.observe("player_0")["observation"]
    b = mem.observe("player_0")["observation"]
    assert np.array_equal(a, b[:194]) and np.array_equal(a, encode(env.state.view(0)))


@pytest.mark.parametrize("opponents", [["greedy"], ["greedy", "ismcts@10", "random"]])
def test_bot_policies_in_the_aec_loop_play_as_the_gymnasium_wrappers_opponents(opponents):
    """The learner at seat 0 plays random masked actions; the other seats are
    BotPolicy (or env.bot_action) in the AEC loop, or the Gymnasium
    wrapper's opponents: the same game, move for move, seeded alike."""
    rules = RuleSet(target_score=0)
    gym = UnoGymEnv(opponents=opponents, rules=rules)
    env = UnoEnv(len(opponents) + 1, rules)
    bots = {f"player_{i + 1}": BotPolicy(kind) for i, kind in enumerate(opponents)}
    for seed in (5, 6):
        rng_a, rng_b = random.Random(seed), random.Random(seed)
        env.reset(seed=seed)
        mine = []
        for agent in env.agent_iter():
            obs, _reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            elif agent == "player_1":
                action = env.bot_action(agent, opponents[0])
            elif agent in bots:
                action = bots[agent](env, agent)
            else:
                action = int(rng_a.choice(np.flatnonzero(obs["action_mask"])))
                mine.append((obs["observation"].copy(), action))
            if action is not None:
                assert obs["action_mask"][action]
            env.step(action)
        theirs = []
        obs, info = gym.reset(seed=seed)
        done = False
        while not done:
            action = int(rng_b.choice(np.flatnonzero(info["action_mask"])))
            theirs.append((obs["observation"].copy(), action))
            obs, _r, terminated, truncated, info = gym.step(action)
            done = terminated or truncated
        assert len(mine) == len(theirs) > 0
        pairs = zip(mine, theirs, strict=True)
        assert all(np.array_equal(a[0], b[0]) and a[1] == b[1] for a, b in pairs)
        assert env.state.scores == gym.aec.state.scores


def test_a_bot_policy_takes_a_bot_and_says_what_it_needs():
    from unoplay.game.registry import make_bot

    env = UnoEnv(2, RuleSet(target_score=0))
    totals = _play(env, 4, lambda agent, obs: env.bot_action(agent, make_bot("random", seed=1)))
    assert set(totals) == set(env.possible_agents)
    assert len(env._policies) == 2  # a new Bot each call replaces the agent's last
    assert env.bot_action("player_0") is None  # the game is over
    with pytest.raises(ValueError, match="unknown bot kind"):
        BotPolicy("clever")
    env.keep_events = False
    env.reset(seed=1)
    with pytest.raises(ValueError, match="keep_events"):
        env.bot_action(env.agent_selection, "ismcts@5")
    with pytest.raises(ValueError, match="not selected"):
        other = next(a for a in env.possible_agents if a != env.agent_selection)
        BotPolicy("greedy")(env, other)


OPTIONS = {"reward": "zero_sum", "normalize": True, "memory": True}


@pytest.mark.parametrize("players", [2, 4])
def test_the_api_seed_and_env_checkers_pass_with_every_option(players):
    from gymnasium.utils.env_checker import check_env

    api_test(UnoEnv(players, PRESETS["house"], **OPTIONS), num_cycles=200)
    seed_test(lambda: UnoEnv(players, **OPTIONS), num_cycles=200)
    opponents = ["greedy"] * (players - 1)
    check_env(UnoGymEnv(opponents, reward="zero_sum_points", normalize=True, memory=True))
