"""N games of the Gymnasium environment stepped together, as NumPy arrays:
:class:`UnoVectorEnv` (a ``gymnasium.vector.VectorEnv``). Needs the ``rl`` extra.

>>> import numpy as np
>>> from unoplay.client.research.vector import UnoVectorEnv
>>> envs = UnoVectorEnv(4, opponents=["random"])
>>> obs, info = envs.reset(seed=1)
>>> obs["observation"].shape, obs["action_mask"].shape
((4, 188), (4, 132))
>>> actions = [int(np.flatnonzero(m)[0]) for m in obs["action_mask"]]
>>> obs, rewards, terminated, truncated, info = envs.step(actions)
>>> rewards.shape, terminated.dtype
((4,), dtype('bool'))

Each game is a :class:`~.env.UnoGymEnv` (one learner against built-in bots)
stepped in this process, one after the other: no subprocesses, no wrappers,
no per-step copies of dictionaries; observations and masks are written
straight into the batch's rows.

**Auto-reset**, Gymnasium's same-step mode: a game that ends in a step is
dealt again at once, and that step returns the new game's first
observation; the last observation of the game that ended is kept apart in
``info["final_obs"]`` (a dict of arrays of the batch's shapes, the rows of
the games that did not end all zero) with ``info["_final_obs"]`` (bool,
``(N,)``) telling which rows hold one. Rewards, ``terminated`` and
``truncated`` are those of the game that ended.

**Seeds**: ``reset(seed=s)`` seeds game ``i`` with ``s + i``; every later
deal (``reset()`` without a seed, auto-resets) is drawn from that game's
generator, so a seeded run repeats exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from unoplay.game import RuleSet

from .env import UnoGymEnv


class UnoVectorEnv(gymnasium.vector.VectorEnv):  # type: ignore[misc]
    """``num_envs`` games of :class:`~.env.UnoGymEnv` (the same ``opponents``,
    ``rules``, ``seat`` and keyword options each), stepped together (see the
    module docstring). ``copy`` False returns the batch's own arrays, which
    the next step overwrites. Raises ValueError like :class:`~.env.UnoGymEnv`."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int,
        opponents: Sequence[str] = ("greedy",),
        rules: RuleSet | None = None,
        seat: int = 0,
        copy: bool = True,
        **kwargs: Any,
    ) -> None:
        if num_envs < 1:
            raise ValueError("num_envs must be at least 1")
        self.envs = [UnoGymEnv(list(opponents), rules, seat, **kwargs) for _ in range(num_envs)]
        self.num_envs = num_envs
        self.copy = copy
        self.single_observation_space = self.envs[0].observation_space
        self.single_action_space = self.envs[0].action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._obs = self._zeros()
        self._final = self._zeros()

    def _zeros(self) -> dict[str, np.ndarray]:
        """A batch of observations: float32 ``(N, D)``, int8 ``(N, A + 1)``."""
        n, aec = self.num_envs, self.envs[0].aec
        return {
            "observation": np.zeros((n, aec.observation_size), np.float32),
            "action_mask": np.zeros((n, aec.pass_action + 1), np.int8),
        }

    def _out(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {k: v.copy() for k, v in batch.items()} if self.copy else batch

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Deal every game again: ``seed`` s seeds game ``i`` with ``s + i``
        (a list: one seed, or None, per game). Returns the batch of
        observations and ``{"action_mask": ...}``."""
        if seed is None or isinstance(seed, int):
            seeds: Sequence[int | None] = [
                None if seed is None else seed + i for i in range(self.num_envs)
            ]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"give {self.num_envs} seeds, one per game")
        obs, mask = self._obs["observation"], self._obs["action_mask"]
        for i, (env, s) in enumerate(zip(self.envs, seeds, strict=True)):
            env.reset(seed=s)  # seeds its np_random; the game dealt again below is the same
            env.observe_into(obs[i], mask[i])
        out = self._out(self._obs)
        return out, {"action_mask": out["action_mask"]}

    def step(
        self, actions: Sequence[int] | np.ndarray
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One action per game (shape ``(N,)``). Returns observations (dict of
        ``(N, ...)`` arrays), rewards (float64 ``(N,)``), terminated and
        truncated (bool ``(N,)``) and infos: ``action_mask``, and for the games
        that ended ``final_obs`` with ``_final_obs``."""
        n = self.num_envs
        rewards = np.zeros(n, np.float64)
        terminated = np.zeros(n, bool)
        truncated = np.zeros(n, bool)
        ended = np.zeros(n, bool)
        obs, mask = self._obs["observation"], self._obs["action_mask"]
        final_obs, final_mask = self._final["observation"], self._final["action_mask"]
        for i, env in enumerate(self.envs):
            action = int(actions[i])
            legal = 0 <= action < mask.shape[1] and bool(mask[i, action])
            rewards[i], terminated[i], truncated[i] = env.act(action, legal)
            if terminated[i] or truncated[i]:
                ended[i] = True
                env.observe_into(final_obs[i], final_mask[i])
                env.new_game()
            env.observe_into(obs[i], mask[i])
        out = self._out(self._obs)
        infos: dict[str, Any] = {"action_mask": out["action_mask"]}
        if ended.any():
            final_obs[~ended] = 0
            final_mask[~ended] = 0
            infos["final_obs"] = self._out(self._final)
            infos["_final_obs"] = ended
        return out, rewards, terminated, truncated, infos

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release."""
