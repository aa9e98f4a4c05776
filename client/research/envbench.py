"""``uno bench --env``: environment steps/s of :class:`unoplay.client.research.env.UnoEnv`
beside RLCard's UNO environment, in the same run.

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
