"""Batched environments.

- ``SelfPlayVec``: the fast path for self-play. ``num_envs`` games stepped together in Rust with
  the GIL released; every call returns fresh numpy arrays copied from the Rust buffers. Both
  players' moves go through ``step``: ``to_move`` says whose turn it is in each game and
  observations are relative to that player.
- ``VecEnv``: a ``gymnasium.vector.VectorEnv`` of agent-against-opponent games (the single
  environment of ``sowing.env``, batched), with Gymnasium's next-step autoreset.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from . import _sowing
from ._opponents import OpponentLike
from ._sowing import Rules, State
from .env import RENDER_MODES, SowingEnv


AUTORESET_MODES = {
    "same-step": AutoresetMode.SAME_STEP,
    "next-step": AutoresetMode.NEXT_STEP,
    "off": AutoresetMode.DISABLED,
}
"""SelfPlayVec's autoreset modes and Gymnasium's names for them (``metadata["autoreset_mode"]``)."""


class SelfPlayReset(NamedTuple):
    """What ``SelfPlayVec.reset`` returns."""

    observations: np.ndarray
    """float32, ``(num_envs, 2n + 2)``, relative to each game's player to move."""
    masks: np.ndarray
    """bool, ``(num_envs, n)``: the legal moves of each game's player to move."""
    to_move: np.ndarray
    """int64, ``(num_envs,)``: 0 South, 1 North."""


class SelfPlayStep(NamedTuple):
    """What ``SelfPlayVec.step`` returns."""

    observations: np.ndarray
    """float32, ``(num_envs, 2n + 2)``, relative to each game's player to move now."""
    masks: np.ndarray
    """bool, ``(num_envs, n)``: the legal moves of each game's player to move now."""
    rewards: np.ndarray
    """float32, ``(num_envs,)``: for the player who just moved, +1 won, -1 lost, else 0."""
    terminated: np.ndarray
    """bool, ``(num_envs,)``: the move ended the game by the rules."""
    truncated: np.ndarray
    """bool, ``(num_envs,)``: the move reached ``max_plies``."""
    to_move: np.ndarray
    """int64, ``(num_envs,)``: the player to move now, 0 South, 1 North."""


class SelfPlayVec:
    """``num_envs`` games of ``variant`` (a preset name or ``Rules``) for self-play.

    ``autoreset`` says what happens to a game that ends:

    - ``"same-step"`` (default): it is reset within the step that ends it. Its ``rewards``,
      ``terminated`` and ``truncated`` describe the final move; its ``observations``, ``masks``
      and ``to_move`` already belong to the new game; ``final_observations()`` holds the
      observation of the final position.
    - ``"next-step"`` (Gymnasium's default): the ending step returns the final observation with
      an all-false mask; the next step resets the game, ignores its action and returns the new
      game's first observation with reward 0.
    - ``"off"``: a finished game stays finished and stepping it raises until ``reset``.

    ``metadata["autoreset_mode"]`` gives the mode as Gymnasium's ``AutoresetMode``.

    Game ``i`` draws its randomness (``random_opening`` random plies at each reset,
    ``sample_actions``) from its own stream of ``seed``, so its trajectory does not depend on
    ``num_envs`` or ``threads`` (0: every core).
    """

    def __init__(
        self,
        variant: str | Rules,
        num_envs: int,
        seed: int = 0,
        autoreset: str = "same-step",
        threads: int = 0,
        random_opening: int = 0,
    ) -> None:
        self._vec = _sowing.SelfPlayVec(
            variant, num_envs, seed=seed, autoreset=autoreset, threads=threads,
            random_opening=random_opening,
        )
        self.rules: Rules = self._vec.rules
        self.num_envs: int = num_envs
        self.autoreset: str = autoreset
        self.metadata = {"autoreset_mode": AUTORESET_MODES[autoreset]}
        n = self.rules.holes
        self.single_observation_space = spaces.Box(
            0.0, 1.0, (self.rules.observation_len,), np.float32
        )
        self.single_action_space = spaces.Discrete(n)

    def reset(self, seed: int | None = None) -> SelfPlayReset:
        """Start every game again; ``seed`` restarts the random streams."""
        return SelfPlayReset(*self._vec.reset(seed))

    def step(self, actions: np.ndarray) -> SelfPlayStep:
        """Play ``actions[i]`` (int64 or int32, shape ``(num_envs,)``) in game ``i``. Every
        action is checked before any game moves: an illegal one raises ``ValueError`` naming the
        game, and nothing changes."""
        return SelfPlayStep(*self._vec.step(actions))

    def final_observations(self) -> np.ndarray:
        """Under ``"same-step"``: the final observation of each game that ended in the last
        step (other rows are stale)."""
        return self._vec.final_observations()

    def sample_actions(self) -> np.ndarray:
        """A uniformly random legal action for each game from its own stream (0 where none)."""
        return self._vec.sample_actions()

    def state(self, index: int) -> State:
        """The position of game ``index``."""
        return self._vec.state(index)

    def __len__(self) -> int:
        return self.num_envs

    def __repr__(self) -> str:
        return repr(self._vec)


class VecEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` agent-against-opponent games of ``variant``, as a Gymnasium vector env.

    Sub-environment ``i`` is a ``sowing.env.SowingEnv``; ``reset(seed=s)`` seeds it with
    ``s + i``, as ``SyncVectorEnv`` does, so the two give the same trajectories. Autoreset is
    Gymnasium's next-step mode (``metadata["autoreset_mode"]``): the step after a game ends
    resets it, ignores its action and returns the new game's first observation with reward 0.
    ``infos["action_mask"]`` (and ``action_masks()``) hold every game's legal moves.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": RENDER_MODES}

    def __init__(
        self,
        variant: str | Rules,
        num_envs: int,
        opponent: OpponentLike = "random",
        agent_side: int | str = "random",
        render_mode: str | None = None,
    ) -> None:
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.envs = [
            SowingEnv(variant, opponent=opponent, agent_side=agent_side, render_mode=render_mode)
            for _ in range(num_envs)
        ]
        first = self.envs[0]
        self.rules: Rules = first.rules
        self.num_envs = num_envs
        self.render_mode = render_mode
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._obs_shape = (num_envs, self.rules.observation_len)
        self._autoreset = np.zeros(num_envs, dtype=bool)
        self._masks = np.zeros((num_envs, self.rules.holes), dtype=bool)

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if seed is None:
            seeds: list[int | None] = [None] * self.num_envs
        elif isinstance(seed, int):
            seeds = [seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"expected {self.num_envs} seeds, one per game, got {len(seeds)}")
        if seed is not None:
            self._np_random_seed = seeds[0]
        observations = np.empty(self._obs_shape, dtype=np.float32)
        sides = np.empty(self.num_envs, dtype=np.int64)
        for i, (env, s) in enumerate(zip(self.envs, seeds)):
            observations[i], info = env.reset(seed=s, options=options)
            self._masks[i] = info["action_mask"]
            sides[i] = info["agent_side"]
        self._autoreset[:] = False
        return observations, self._infos(sides)

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(
                f"actions must have shape ({self.num_envs},), one per game; got {actions.shape}"
            )
        if not np.issubdtype(actions.dtype, np.integer):
            raise TypeError(f"actions must be integers, got dtype {actions.dtype}")
        # Check every action first, so that a bad one leaves every game as it was.
        for i, env in enumerate(self.envs):
            if not self._autoreset[i] and not env.state.is_legal(int(actions[i])):
                try:
                    env.state.play(int(actions[i]))
                except ValueError as e:
                    raise type(e)(f"game {i}: {e}") from None
        observations = np.empty(self._obs_shape, dtype=np.float32)
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        sides = np.empty(self.num_envs, dtype=np.int64)
        for i, env in enumerate(self.envs):
            if self._autoreset[i]:
                observations[i], info = env.reset()
            else:
                observations[i], rewards[i], terminated[i], truncated[i], info = env.step(
                    actions[i]
                )
            self._masks[i] = info["action_mask"]
            sides[i] = info["agent_side"]
        self._autoreset = terminated | truncated
        return observations, rewards, terminated, truncated, self._infos(sides)

    def action_masks(self) -> np.ndarray:
        """The legal moves of every game, bool ``(num_envs, n)``."""
        return self._masks.copy()

    def render(self) -> tuple[Any, ...] | None:
        if self.render_mode != "ansi":
            return None
        return tuple(env.render() for env in self.envs)

    def close_extras(self, **kwargs: Any) -> None:
        for env in self.envs:
            env.close()

    def _infos(self, sides: np.ndarray) -> dict[str, Any]:
        present = np.ones(self.num_envs, dtype=bool)
        return {
            "action_mask": self._masks.copy(),
            "_action_mask": present,
            "agent_side": sides,
            "_agent_side": present.copy(),
        }
