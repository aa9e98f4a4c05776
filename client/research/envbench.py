"""``uno bench --env``: environment steps/s of :class:`unoplay.client.research.env.UnoEnv`
beside RLCard's UNO environment, in the same run; and (:func:`run_vector`) the
Gymnasium environment's learner steps/s, one env beside N stepped together;
(:func:`run_options`) what the options (``normalize``, ``memory``, zero-sum
rewards) cost.

Both run 2-player games (RLCard's UNO has two players only) between
uniformly random legal players, one observation per step as a learner would
read it (ours: :meth:`UnoEnv.observe` with its action mask; RLCard's: the
state ``step`` returns, with its legal actions). Runs are interleaved
(ours, theirs, ours, ...) and the ratio is the median of each back-to-back
pair's ratio.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any


def _ours(seconds: float, seed: int) -> float:
    """Our environment's steps/s for about ``seconds``."""
    import numpy as np

    from unoplay.client.research.env import UnoEnv
    from unoplay.game import RuleSet

    env = UnoEnv(2, RuleSet(target_score=0))
    pick = random.Random(seed).random
    steps, game = 0, 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        env.reset(seed=seed + game)
        game += 1
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            legal = np.flatnonzero(env.observe(agent)["action_mask"])
            env.step(int(legal[int(pick() * len(legal))]))
            steps += 1
        if time.perf_counter() >= deadline:
            return steps / (time.perf_counter() - start)


def _rlcard(seconds: float, seed: int) -> float:
    """RLCard's UNO environment's steps/s for about ``seconds``."""
    import rlcard

    env = rlcard.make("uno", config={"seed": seed})
    pick = random.Random(seed).random
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        state, _ = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[int(pick() * len(legal))])
            steps += 1
        if time.perf_counter() >= deadline:
            return steps / (time.perf_counter() - start)


def _pick(rng: random.Random, mask: Any) -> int:
    """A uniformly random action that ``mask`` allows."""
    import numpy as np

    legal = np.flatnonzero(mask)
    return int(legal[int(rng.random() * len(legal))])


def _learner(seconds: float, seed: int, num_envs: int = 0, native: bool = True) -> float:
    """Learner steps/s of the Gymnasium environment (2 players, one-round
    games, a random opponent, random masked actions): one env (``num_envs``
    0) or ``num_envs`` stepped together, by :class:`~.vector.UnoVectorEnv`
    (``native``) or by ``gymnasium.make_vec``'s sync vector env. A batch of
    N counts N steps."""
    import gymnasium

    import unoplay.client.research.env  # noqa: F401  (registers unoplay/Uno-v0)
    from unoplay.client.research.vector import UnoVectorEnv
    from unoplay.game import RuleSet

    options: dict[str, Any] = {"opponents": ["random"], "rules": RuleSet(target_score=0)}
    rng = random.Random(seed)
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    if not num_envs:
        env = gymnasium.make("unoplay/Uno-v0", **options)
        _obs, info = env.reset(seed=seed)
        while time.perf_counter() < deadline:
            _obs, _r, terminated, truncated, info = env.step(_pick(rng, info["action_mask"]))
            steps += 1
            if terminated or truncated:
                _obs, info = env.reset()
        return steps / (time.perf_counter() - start)
    envs: Any
    if native:
        envs = UnoVectorEnv(num_envs, **options)
    else:
        envs = gymnasium.make_vec("unoplay/Uno-v0", num_envs, vectorization_mode="sync", **options)
    _obs, info = envs.reset(seed=seed)
    while time.perf_counter() < deadline:
        actions = [_pick(rng, mask) for mask in info["action_mask"]]
        _obs, _r, _terminated, _truncated, info = envs.step(actions)
        steps += num_envs
    return steps / (time.perf_counter() - start)


def run_vector(
    runs: int = 3, seconds: float = 1.0, num_envs: int = 8, as_json: bool = False
) -> dict[str, Any]:
    """Learner steps/s of one Gymnasium env, of ``num_envs`` in
    :class:`~.vector.UnoVectorEnv` and in ``gymnasium.make_vec`` (sync),
    ``runs`` interleaved runs of ``seconds`` each; prints a line (nothing
    with ``as_json``). Returns the medians."""
    figures: dict[str, list[float]] = {"single": [], "vector": [], "make_vec": []}
    for r in range(runs):
        figures["single"].append(_learner(seconds, r))
        figures["vector"].append(_learner(seconds, r, num_envs))
        figures["make_vec"].append(_learner(seconds, r, num_envs, native=False))
    report: dict[str, Any] = {"num_envs": num_envs}
    for name, values in figures.items():
        report[f"{name}_steps_per_s"] = statistics.median(values)
    if not as_json:
        print(
            f"vector env benchmark: learner steps/s, 2 players, median of {runs} runs of "
            f"{seconds:g} s: one env {report['single_steps_per_s']:,.0f}, "
            f"UnoVectorEnv x{num_envs} {report['vector_steps_per_s']:,.0f}, "
            f"gymnasium.make_vec x{num_envs} {report['make_vec_steps_per_s']:,.0f}"
        )
    return report


def run(runs: int = 5, seconds: float = 1.0, as_json: bool = False) -> dict[str, Any]:
    """Measure both environments (``runs`` interleaved runs of ``seconds``
    each) and print a line (nothing with ``as_json``). Returns medians and the
    ratio; RLCard's figures are None when it is not installed."""
    try:
        import rlcard  # noqa: F401

        have_rlcard = True
    except Exception:
        have_rlcard = False
    ours: list[float] = []
    theirs: list[float] = []
    _ours(0.0, 0)  # imports and first calls outside the timed runs
    if have_rlcard:
        _rlcard(0.0, 0)
    for r in range(runs):
        ours.append(_ours(seconds, 1000 * r + 1))
        if have_rlcard:
            theirs.append(_rlcard(seconds, 1000 * r + 1))
    report: dict[str, Any] = {
        "players": 2,
        "unoplay_env_steps_per_s": statistics.median(ours),
        "rlcard_env_steps_per_s": statistics.median(theirs) if theirs else None,
        "ratio": statistics.median(a / b for a, b in zip(ours, theirs)) if theirs else None,
    }
    if not as_json:
        line = f"env benchmark: 2 players, median of {runs} run{'s' if runs != 1 else ''} of {seconds:g} s: "
        line += f"unoplay {report['unoplay_env_steps_per_s']:,.0f} steps/s"
        if theirs:
            line += f", rlcard {report['rlcard_env_steps_per_s']:,.0f} steps/s"
            line += f", ratio {report['ratio']:.2f}x"
        print(line)
    return report


#: The option sets :func:`run_options` compares (keywords of :class:`~.env.UnoEnv`).
OPTION_SETS: dict[str, dict[str, Any]] = {
    "default": {},
    "normalize": {"normalize": True},
    "memory": {"memory": True},
    "all": {"normalize": True, "memory": True, "reward": "zero_sum"},
}


def run_options(games: int = 20, repeats: int = 7, as_json: bool = False) -> dict[str, Any]:
    """Steps/s of :class:`~.env.UnoEnv` under each of :data:`OPTION_SETS`:
    ``games`` 2-player one-round games of random masked actions, recorded
    once, replayed (reset, an observation per step, the steps) ``repeats``
    times per option set, interleaved; the best time of each (this
    machine's other load only slows a run down). Prints a line (nothing with
    ``as_json``); returns the steps/s."""
    from unoplay.client.research.env import UnoEnv
    from unoplay.game import RuleSet

    rules = RuleSet(target_score=0)
    recorded: list[list[int | None]] = []
    for seed in range(games):
        env = UnoEnv(2, rules)
        env.reset(seed=seed)
        rng = random.Random(seed)
        actions: list[int | None] = []
        while env.agents:
            agent = env.agent_selection
            action = None
            if not (env.terminations[agent] or env.truncations[agent]):
                action = _pick(rng, env.observe(agent)["action_mask"])
            actions.append(action)
            env.step(action)
        recorded.append(actions)
    steps = sum(a is not None for actions in recorded for a in actions)
    best = dict.fromkeys(OPTION_SETS, float("inf"))
    for _ in range(repeats):
        for name, options in OPTION_SETS.items():
            env = UnoEnv(2, rules, **options)
            start = time.perf_counter()
            for seed, actions in enumerate(recorded):
                env.reset(seed=seed)
                for action in actions:
                    if action is not None:
                        env.observe(env.agent_selection)
                    env.step(action)
            best[name] = min(best[name], time.perf_counter() - start)
    report: dict[str, Any] = {"steps": steps}
    report |= {f"{name}_steps_per_s": steps / t for name, t in best.items()}
    if not as_json:
        figures = ", ".join(f"{name} {steps / t:,.0f}" for name, t in best.items())
        print(f"env options: steps/s, 2 players, {steps} steps, best of {repeats}: {figures}")
    return report
