"""The single-agent Gymnasium environment: the agent plays one side of a game against an
opponent, which moves inside ``step``.

``gymnasium.make("sowing/<preset>-v0", opponent=..., agent_side=..., illegal_action=...)``
builds it for every preset, and ``gymnasium.make_vec("sowing/<preset>-v0", num_envs)`` the
batched ``sowing.vector.VecEnv`` (registered when ``sowing`` is imported).

- Observation: float32, ``2n + 2`` values in ``[0, 1]``, relative to the agent (own row, the
  opponent's row in sowing order, own and opponent's captures, over the seeds in play).
- Action: ``Discrete(n)``, the agent's hole counted from its own left; any Python or numpy
  integer. Anything else (``2.9``, ``"1"``) raises ``TypeError``.
- Reward: +1 if the agent wins, -1 if it loses, 0 for a draw and at every other step.
- ``terminated``: the game ended by the rules (or by an illegal action under
  ``illegal_action="lose"``); ``truncated``: it reached ``max_plies``.
- ``action_space.sample()`` draws a legal action of the current position;
  ``action_space.sample(mask=info["action_mask"])`` too.
- ``info["action_mask"]``: int8, 1 for each legal move of the agent, all 0 once the episode is
  over (Gymnasium's dtype for masks); ``action_masks()`` gives the same as bools (sb3-contrib's
  MaskablePPO calls it).
- ``render_mode="ansi"``: ``render()`` returns the board as text; ``"human"``: the board is
  printed at every ``reset`` and ``step``, and ``render()`` prints it too.
- An illegal action (an empty hole, an endless move), by ``illegal_action``:
  ``"raise"`` (default) raises ``sowing.IllegalActionError`` (a ``ValueError``) whose message
  lists the legal actions, and nothing changes; ``"lose"`` (PettingZoo's classic convention,
  for learners that do not mask, such as plain PPO or DQN) ends the episode at once as a loss:
  reward -1, ``terminated``, ``info["illegal_action"]`` true and ``info["outcome"]`` the
  opponent's side. An action outside ``0..n`` is not in the action space and raises under
  both. A step after the end without a reset raises ``sowing.GameOverError``.
"""

from __future__ import annotations

import copy
import operator
import weakref
from typing import Any, SupportsInt

import gymnasium
import numpy as np
from gymnasium import spaces

from ._opponents import Opponent, OpponentLike
from ._sowing import GameOverError, Rules, State, variants

SIDES = {"south": 0, "north": 1}
SIDE_NAMES = ("south", "north")
RENDER_MODES = ["ansi", "human"]
ILLEGAL_ACTIONS = ("raise", "lose")


def side_arg(agent_side: int | str) -> int | None:
    """0 or 1 for a fixed side, ``None`` for a random one per episode."""
    if agent_side == "random":
        return None
    if isinstance(agent_side, str) and agent_side in SIDES:
        return SIDES[agent_side]
    if agent_side in (0, 1) and not isinstance(agent_side, bool):
        return int(agent_side)
    raise ValueError(
        f'agent_side must be 0 or "south" (moves first), 1 or "north", or "random"; got {agent_side!r}'
    )


def rules_arg(variant: str | Rules) -> Rules:
    """The rules of ``variant``, a preset name or a ``Rules``."""
    if isinstance(variant, Rules):
        return variant
    if isinstance(variant, str):
        return Rules.preset(variant)
    raise TypeError(
        f"a variant is a preset name (one of {', '.join(variants())}) or a sowing.Rules, "
        f"got {type(variant).__name__}"
    )


def playable_rules_arg(variant: str | Rules) -> Rules:
    """The rules of ``variant``, refused (``ValueError``) when their start has no legal move:
    every game would be over before it began, as the command line refuses such rules."""
    rules = rules_arg(variant)
    if State.initial(rules).is_over():
        # Valid rules have seeds in South's row, so every first move is endless.
        raise ValueError(
            f"the start of {rules.summary} has no legal move: each of South's moves is endless "
            f"(its sowing goes on past max_laps = {rules.max_laps} laps), so there is no game "
            "to play"
        )
    return rules


def illegal_action_arg(illegal_action: str) -> str:
    if illegal_action not in ILLEGAL_ACTIONS:
        raise ValueError(
            f'illegal_action must be "raise" (an IllegalActionError) or "lose" (the episode ends '
            f"as a loss); got {illegal_action!r}"
        )
    return illegal_action


def action_arg(action: Any, holes: int) -> int:
    """An action as a Python int: any Python or numpy integer; a float, even a whole one, is
    refused, as ``operator.index`` refuses it."""
    try:
        return operator.index(action)
    except TypeError:
        raise TypeError(
            f"an action is an integer 0 to {holes - 1}, got {type(action).__name__} {action!r}"
        ) from None


class LegalDiscrete(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()``, given no mask, draws among the legal actions of its
    environment's current position, so that ``env.action_space.sample()`` is always playable
    (Gymnasium's env checker and random baselines sample this way). With a mask or
    probabilities it is plain ``Discrete``, and it takes a bool mask as well as Gymnasium's
    int8 one. Holds only a weak reference to the environment and forgets it when pickled."""

    def __init__(self, n: int, env: SowingEnv, seed: int | None = None) -> None:
        super().__init__(n, seed=seed)
        self._env: weakref.ref[SowingEnv] | None = weakref.ref(env)

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        if mask is None and probability is None:
            env = self._env() if self._env is not None else None
            if env is not None and env._state is not None and env.action_masks().any():
                mask = env.action_masks()
        if isinstance(mask, np.ndarray) and mask.dtype == np.bool_:
            mask = mask.astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_env"] = None
        return state

    def __deepcopy__(self, memo: dict[int, Any]) -> LegalDiscrete:
        # A deep copy of the environment copies it before its spaces, so the copy's space
        # follows the copied environment; a space copied alone follows the original.
        env = self._env() if self._env is not None else None
        target = memo.get(id(env), env)
        new = LegalDiscrete.__new__(LegalDiscrete)
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            new.__dict__[key] = copy.deepcopy(value, memo) if key != "_env" else None
        new._env = weakref.ref(target) if target is not None else None
        return new


class SowingEnv(gymnasium.Env[np.ndarray, np.int64]):
    """One game of ``variant`` (a preset name or a ``sowing.Rules``), the agent against
    ``opponent`` (``"random"``, an agent spec such as ``"alphabeta:6"``, a callable taking a
    ``State``, or an object with ``choose(state)``), on ``agent_side`` (0/"south", 1/"north" or
    "random", drawn at each reset from the environment's random stream). ``illegal_action``
    (``"raise"`` or ``"lose"``) says what an illegal action does; see the module docs."""

    metadata = {"render_modes": RENDER_MODES, "render_fps": 4}

    def __init__(
        self,
        variant: str | Rules = "en-dodoi-8",
        opponent: OpponentLike = "random",
        agent_side: int | str = "random",
        render_mode: str | None = None,
        illegal_action: str = "raise",
    ) -> None:
        self.rules = playable_rules_arg(variant)
        self._opponent = Opponent(opponent)
        self._opponent.check(self.rules)
        self.opponent_name = self._opponent.name
        self._fixed_side = side_arg(agent_side)
        self.illegal_action = illegal_action_arg(illegal_action)
        if render_mode is not None and render_mode not in RENDER_MODES:
            # A warning, not an error: Stable-Baselines3's make_vec_env asks for "rgb_array"
            # first and only falls back on a TypeError.
            gymnasium.logger.warn(
                f"render_mode {render_mode!r} is not supported and render() will return None; "
                f"modes: {RENDER_MODES}"
            )
        self.render_mode = render_mode
        n, length = self.rules.holes, self.rules.observation_len
        self.observation_space = spaces.Box(0.0, 1.0, (length,), np.float32)
        self.action_space = LegalDiscrete(n, self)
        self._state: State | None = None
        self.agent_side = 0 if self._fixed_side is None else self._fixed_side
        self.last_opponent_action = -1
        # The agent lost by an illegal action (illegal_action="lose"): the episode is over.
        self._forfeited = False

    @property
    def state(self) -> State:
        """The current position (raises before the first reset)."""
        if self._state is None:
            raise gymnasium.error.ResetNeeded("call reset() before using the environment")
        return self._state

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        self._opponent.refuse_reentry("reset")
        super().reset(seed=seed)
        rng = self.np_random
        side = int(rng.integers(2)) if self._fixed_side is None else self._fixed_side
        self._opponent.new_game(rng)
        state, opponent_action = State.initial(self.rules), -1
        if state.to_move != side:
            state, opponent_action = self._opponent.move(state, rng)
        # Set only now: an opponent's search stopped by Ctrl-C leaves the episode as it was.
        self._state, self.agent_side, self.last_opponent_action = state, side, opponent_action
        self._forfeited = False
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(
        self, action: SupportsInt
    ) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        self._opponent.refuse_reentry("step")
        state = self.state
        a = action_arg(action, self.rules.holes)
        in_range = 0 <= a < self.rules.holes
        if self._forfeited and in_range:
            raise GameOverError(
                "the game is over (the agent lost by an illegal action); reset or start a new game"
            )
        if (
            self.illegal_action == "lose"
            and in_range
            and not state.is_over()
            and not state.is_legal(a)
        ):
            self._forfeited = True
            self.last_opponent_action = -1
            reward = -1.0
        else:
            state, opponent_action = state.play(a), -1
            if not state.is_over():
                state, opponent_action = self._opponent.move(state, self.np_random)
            # Set only now: an opponent's search stopped by Ctrl-C leaves the game as it was.
            self._state, self.last_opponent_action = state, opponent_action
            reward = float(state.returns()[self.agent_side])
        if self.render_mode == "human":
            self.render()
        return (
            self._observation(),
            reward,
            self._forfeited or state.is_terminal(),
            state.is_truncated(),
            self._info(),
        )

    def action_masks(self) -> np.ndarray:
        """The agent's legal moves as bools, all false once the episode is over (sb3-contrib's
        MaskablePPO calls this)."""
        if self._forfeited:
            return np.zeros(self.rules.holes, dtype=bool)
        return self.state.legal_mask()

    def render(self) -> str | None:
        """The board as text: returned under "ansi", printed under "human"."""
        if self.render_mode not in RENDER_MODES:
            return None
        side = "South" if self.agent_side == 0 else "North"
        text = f"agent: {side}, opponent: {self.opponent_name}\n{self.state.render()}"
        if self._forfeited:
            text += "\nthe agent lost by an illegal action"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _observation(self) -> np.ndarray:
        return self.state.observation(self.agent_side)

    def _info(self) -> dict[str, Any]:
        state = self.state
        outcome = SIDE_NAMES[1 - self.agent_side] if self._forfeited else state.outcome()
        return {
            "action_mask": self.action_masks().astype(np.int8),
            "agent_side": self.agent_side,
            "opponent_action": self.last_opponent_action,
            "ply": state.ply,
            "outcome": outcome,
            "illegal_action": self._forfeited,
        }


def register_envs() -> None:
    """Register ``sowing/<preset>-v0`` for every preset (done on ``import sowing``), with
    ``sowing.vector.VecEnv`` as its vector entry point for ``gymnasium.make_vec``."""
    for name in variants():
        env_id = f"sowing/{name}-v0"
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point="sowing.env:SowingEnv",
                vector_entry_point="sowing.vector:VecEnv",
                kwargs={"variant": name},
            )
