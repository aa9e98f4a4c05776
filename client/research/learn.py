"""A learning example: a masked linear softmax policy trained by REINFORCE in
the Gymnasium environment (``unoplay/Uno-v0``), with NumPy only, on a CPU in
minutes. It learns to beat the ``random`` bot in 2-player one-round games.

    python -m unoplay.client.research.learn --episodes 600 --eval 400

The policy: logits ``W @ obs + b`` over the dense action index (plus the
pass), illegal actions masked out, an action sampled from the softmax.
Each episode is one round against the opponent; its return (1.0 for a
win, plus the round's points / 100) less a running-mean baseline is
credited to every action of the episode, the update divided by the
episode's length (a long round, often capped, would otherwise swamp it). It prints the learning curve (the
win rate over each block of episodes, as a terminal plot) and the final
win rate of the greedy (arg-max) policy over fresh games with its 95%
Wilson interval.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field

import gymnasium
import numpy as np

from unoplay.game import RuleSet

from ..match import wilson_interval
from . import env as _env  # noqa: F401  # registers unoplay/Uno-v0


@dataclass
class Policy:
    """A masked linear softmax policy: ``weights`` (actions x features) and
    ``bias`` (actions); the features are ``log1p`` of the observation vector
    (counts and sizes compressed, one-hots kept apart from zero)."""

    weights: np.ndarray
    bias: np.ndarray

    @classmethod
    def zeros(cls, actions: int, features: int) -> Policy:
        """A uniform policy over the legal actions."""
        return cls(np.zeros((actions, features)), np.zeros(actions))

    def probabilities(self, obs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(features, action probabilities: 0 where the mask is 0)."""
        x = np.log1p(obs["observation"].astype(np.float64))
        logits = self.weights @ x + self.bias
        logits = np.where(obs["action_mask"] > 0, logits, -np.inf)
        logits -= logits.max()
        p = np.exp(logits)
        return x, p / p.sum()


@dataclass
class Curve:
    """Win rate per block of training episodes."""

    block: int
    rates: list[float] = field(default_factory=list)

    def plot(self, width: int = 50) -> str:
        """A terminal plot: one bar per block."""
        lines = []
        for i, rate in enumerate(self.rates):
            bar = "#" * round(rate * width)
            lines.append(f"{(i + 1) * self.block:6d} {rate:6.1%} |{bar}")
        return "\n".join(lines)


def train(
    episodes: int, opponent: str = "random", seed: int = 0, lr: float = 0.5, block: int = 50
) -> tuple[Policy, Curve]:
    """Train a policy for ``episodes`` one-round games against ``opponent``.
    Returns the policy and its learning curve (win rate per ``block`` episodes)."""
    env = gymnasium.make("unoplay/Uno-v0", opponents=[opponent], rules=RuleSet(target_score=0))
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    features = obs["observation"].shape[0]
    policy = Policy.zeros(obs["action_mask"].shape[0], features)
    baseline = 0.0
    curve = Curve(block)
    wins = 0
    for episode in range(episodes):
        obs, _ = env.reset(seed=seed * 100_003 + episode)
        steps: list[tuple[np.ndarray, int, np.ndarray]] = []
        total, done = 0.0, False
        while not done:
            x, p = policy.probabilities(obs)
            action = int(rng.choice(len(p), p=p))
            steps.append((x, action, p))
            obs, reward, terminated, truncated, _ = env.step(action)
            total += float(reward)
            done = terminated or truncated
        wins += total >= 1.0
        advantage = total - baseline
        baseline += 0.02 * (total - baseline)
        step = lr * advantage / len(steps)  # one episode's update, however long it was
        for x, action, p in steps:
            grad = -p
            grad[action] += 1.0
            policy.weights += step * np.outer(grad, x)
            policy.bias += step * grad
        if (episode + 1) % block == 0:
            curve.rates.append(wins / block)
            wins = 0
    return policy, curve


def evaluate(
    policy: Policy, games: int, opponent: str = "random", seed: int = 10**6
) -> tuple[float, tuple[float, float]]:
    """The arg-max policy's win rate over ``games`` fresh one-round games, and
    its 95% Wilson interval."""
    env = gymnasium.make("unoplay/Uno-v0", opponents=[opponent], rules=RuleSet(target_score=0))
    wins = 0
    for g in range(games):
        obs, _ = env.reset(seed=seed + g)
        done, total = False, 0.0
        while not done:
            _, p = policy.probabilities(obs)
            obs, reward, terminated, truncated, _ = env.step(int(p.argmax()))
            total += float(reward)
            done = terminated or truncated
        wins += total >= 1.0
    return wins / games, wilson_interval(wins, games)


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m unoplay.client.research.learn")
    parser.add_argument("--episodes", type=int, default=600)
    parser.add_argument("--eval", type=int, default=400, help="evaluation games")
    parser.add_argument("--opponent", default="random")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--block", type=int, default=50, help="episodes per point of the curve")
    args = parser.parse_args(argv)
    policy, curve = train(args.episodes, args.opponent, args.seed, block=args.block)
    print("learning curve (win rate while training, sampling):")
    print(curve.plot())
    rate, (low, high) = evaluate(policy, args.eval, args.opponent)
    print(
        f"trained policy (arg-max) vs {args.opponent}: {rate:.1%} of {args.eval} games, "
        f"95% CI {low:.1%}..{high:.1%}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
