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
from .env import RENDER_MODES, SowingEnv, playable_rules_arg


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
    - ``"off"``: a finished game stays finished and stepping it raises ``GameOverError`` until
      it is reset: all games with ``reset()``, some with
      ``reset(options={"reset_mask": finished})``.

    ``metadata["autoreset_mode"]`` gives the mode as Gymnasium's ``AutoresetMode``. The spaces
    are a Gymnasium vector env's: ``single_observation_space`` and ``single_action_space`` for
    one game, ``observation_space`` and ``action_space`` for the batch.

    Game ``i`` draws its randomness (``random_opening`` random plies at each reset,
    ``sample_actions``) from its own stream of ``seed``, so its trajectory does not depend on
    ``num_envs`` or ``threads`` (0: every core).

    At most 2**20 games; a batch is checked against the memory available before it is made
    (``MemoryError``). Each call is done whole or not at all: a Ctrl-C is raised when the call
    under way returns. ``close()`` (or a ``with`` block) frees the games and threads at once.
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
        if not isinstance(autoreset, str):
            raise TypeError(
                f"autoreset must be one of {', '.join(map(repr, AUTORESET_MODES))}, got "
                f"{type(autoreset).__name__}"
            )
        self._vec = _sowing.SelfPlayVec(
            playable_rules_arg(variant), num_envs, seed=seed, autoreset=autoreset, threads=threads,
            random_opening=random_opening,
        )
        self.rules: Rules = self._vec.rules
        self.num_envs: int = self._vec.num_envs
        self.autoreset: str = autoreset
        self.metadata = {"autoreset_mode": AUTORESET_MODES[autoreset]}
        self.single_observation_space = spaces.Box(
            0.0, 1.0, (self.rules.observation_len,), np.float32
        )
        self.single_action_space = spaces.Discrete(self.rules.holes)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> SelfPlayReset:
        """Start every game again, or with ``options={"reset_mask": mask}`` (a bool array, one
        flag per game, at least one set: Gymnasium's convention) only the games flagged, the
        others left as they are. ``seed`` restarts the random streams of the games started.
        Returns the rows of every game."""
        mask = None
        if options:
            unknown = sorted(set(options) - {"reset_mask"})
            if unknown:
                raise ValueError(
                    f"unknown reset options {unknown}; SelfPlayVec takes only 'reset_mask'"
                )
            mask = options.get("reset_mask")
        return SelfPlayReset(*self._vec.reset(seed, mask))

    def step(self, actions: np.ndarray) -> SelfPlayStep:
        """Play ``actions[i]`` (shape ``(num_envs,)``: a numpy array of any integer type, a
        sequence of ints, or anything numpy turns into an array, such as a CPU torch tensor) in
        game ``i``. Every action is checked before any game moves: an illegal one raises
        ``IllegalActionError`` naming the game, one for a finished game (under ``"off"``)
        ``GameOverError``, and nothing changes."""
        if not isinstance(actions, (np.ndarray, list, tuple)) and hasattr(actions, "__array__"):
            actions = np.asarray(actions)
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

    def close(self) -> None:
        """Free the games and threads now; any later call but ``close`` raises ``ValueError``."""
        self._vec.close()

    @property
    def closed(self) -> bool:
        """Whether ``close`` has been called."""
        return self._vec.closed

    def __enter__(self) -> SelfPlayVec:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __len__(self) -> int:
        return self.num_envs

    def __repr__(self) -> str:
        native = getattr(self, "_vec", None)  # None when the constructor raised
        return repr(native) if native is not None else "SelfPlayVec(not made)"


MAX_VEC_ENVS = 1 << 16
"""The most games a ``VecEnv`` holds: each is a Python object stepped by Python, and a batch
this large already takes about a second a step."""


# Bytes a VecEnv's game may take (see VecEnv.__init__).
VEC_ENV_BYTES_PER_GAME = 8 << 10


class VecEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` agent-against-opponent games of ``variant``, as a Gymnasium vector env
    (``gymnasium.make_vec("sowing/<preset>-v0", num_envs)`` makes one).

    Sub-environment ``i`` is a ``sowing.env.SowingEnv``; ``reset(seed=s)`` seeds it with
    ``s + i``, as ``SyncVectorEnv`` does, so the two give the same trajectories. Autoreset is
    Gymnasium's next-step mode (``metadata["autoreset_mode"]``): the step after a game ends
    resets it, ignores its action and returns the new game's first observation with reward 0.
    ``reset(options={"reset_mask": mask})`` starts again only the games flagged (Gymnasium's
    convention), the others going on. ``infos["action_mask"]`` (int8) and ``action_masks()``
    (bool) hold every game's legal moves.

    A Ctrl-C during a step (an opponent's search) stops it part way, where some games may have
    moved and others not: the next step raises ``gymnasium.error.ResetNeeded`` until a
    ``reset()`` of every game.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": RENDER_MODES}

    def __init__(
        self,
        variant: str | Rules,
        num_envs: int,
        opponent: OpponentLike = "random",
        agent_side: int | str = "random",
        render_mode: str | None = None,
        illegal_action: str = "raise",
    ) -> None:
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool):
            raise TypeError(f"num_envs must be an integer 1 to {MAX_VEC_ENVS}, got {num_envs!r}")
        if not 1 <= num_envs <= MAX_VEC_ENVS:
            raise ValueError(
                f"num_envs must be 1 to {MAX_VEC_ENVS}, got {num_envs}; for larger batches use "
                "sowing.vector.SelfPlayVec, which steps them in Rust"
            )
        num_envs = int(num_envs)
        # Each game is a Python environment: about 2-4 KB measured (VmSize over 20,000 of
        # en-dodoi-6, -10 and sadeqa-iii), counted twice over. Checked first, so that too many
        # raise MemoryError here instead of the interpreter dying at its limit halfway.
        _sowing.check_memory(
            num_envs * VEC_ENV_BYTES_PER_GAME, f"a VecEnv of {num_envs} games of {variant}"
        )
        self.envs = [
            SowingEnv(
                variant,
                opponent=opponent,
                agent_side=agent_side,
                render_mode=render_mode,
                illegal_action=illegal_action,
            )
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
        self._observations = np.zeros((num_envs, self.rules.observation_len), dtype=np.float32)
        self._autoreset = np.zeros(num_envs, dtype=bool)
        self._masks = np.zeros((num_envs, self.rules.holes), dtype=bool)
        self._sides = np.zeros(num_envs, dtype=np.int64)
        self._cut_short = False

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if seed is None:
            seeds: list[int | None] = [None] * self.num_envs
        elif isinstance(seed, (int, np.integer)):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"expected {self.num_envs} seeds, one per game, got {len(seeds)}")
        # The caller's dict is left as it is (Gymnasium's own vector envs take the mask out of
        # it, which hides it from the wrappers that read it after them).
        options = dict(options or {})
        mask = reset_mask_arg(options.pop("reset_mask", None), self.num_envs)
        if seed is not None:
            self._np_random_seed = seeds[0]
        for i, (env, s) in enumerate(zip(self.envs, seeds)):
            if mask is None or mask[i]:
                self._observations[i], info = env.reset(seed=s, options=options or None)
                self._masks[i] = info["action_mask"]
                self._sides[i] = info["agent_side"]
                self._autoreset[i] = False
        if mask is None:
            self._cut_short = False
        return self._observations.copy(), self._infos()

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
        if self._cut_short:
            raise gymnasium.error.ResetNeeded(
                "the last step was stopped part way (a Ctrl-C during an opponent's search), "
                "some games may have moved and others not: call reset()"
            )
        # Check every action first, so that a bad one leaves every game as it was.
        for i, env in enumerate(self.envs):
            action = int(actions[i])
            if self._autoreset[i] or env.state.is_legal(action):
                continue
            if env.illegal_action == "lose" and 0 <= action < self.rules.holes:
                continue  # the game ends as a loss
            try:
                env.state.play(action)
            except ValueError as e:
                raise type(e)(f"game {i}: {e}") from None
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        try:
            for i, env in enumerate(self.envs):
                if self._autoreset[i]:
                    self._observations[i], info = env.reset()
                else:
                    step = env.step(actions[i])
                    self._observations[i], rewards[i], terminated[i], truncated[i], info = step
                self._masks[i] = info["action_mask"]
                self._sides[i] = info["agent_side"]
        except BaseException:
            self._cut_short = True
            raise
        self._autoreset = terminated | truncated
        return self._observations.copy(), rewards, terminated, truncated, self._infos()

    def action_masks(self) -> np.ndarray:
        """The legal moves of every game, bool ``(num_envs, n)``."""
        return self._masks.copy()

    def render(self) -> tuple[Any, ...] | None:
        if self.render_mode != "ansi":
            return None
        return tuple(env.render() for env in self.envs)

    def close_extras(self, **kwargs: Any) -> None:
        # Also called on a batch whose constructor raised, which has no games.
        for env in getattr(self, "envs", ()):
            env.close()

    def _infos(self) -> dict[str, Any]:
        present = np.ones(self.num_envs, dtype=bool)
        return {
            "action_mask": self._masks.astype(np.int8),
            "_action_mask": present,
            "agent_side": self._sides.copy(),
            "_agent_side": present.copy(),
        }


def reset_mask_arg(mask: Any, num_envs: int) -> np.ndarray | None:
    """Gymnasium's ``options["reset_mask"]``: a bool array of shape ``(num_envs,)`` with at
    least one game flagged, or ``None`` for every game."""
    if mask is None:
        return None
    if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_:
        raise TypeError(
            "options['reset_mask'] must be a numpy array of dtype bool, one flag per game; got "
            + (f"dtype {mask.dtype}" if isinstance(mask, np.ndarray) else type(mask).__name__)
        )
    if mask.shape != (num_envs,):
        raise ValueError(
            f"options['reset_mask'] must have shape ({num_envs},), one flag per game; "
            f"got {mask.shape}"
        )
    if not mask.any():
        raise ValueError("options['reset_mask'] must flag at least one game (Gymnasium's rule)")
    return mask
