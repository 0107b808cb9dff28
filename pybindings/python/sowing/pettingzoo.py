"""The two-player game as a PettingZoo AEC environment: ``sowing.pettingzoo.env(variant)``.

Agents are ``"player_0"`` (South, moves first) and ``"player_1"`` (North). Each observation is a
dict: ``"observation"``, float32 ``2n + 2`` values relative to the observing agent (own row,
the opponent's row in sowing order, own and opponent's captures, over the seeds in play), and
``"action_mask"``, int8 ``n`` values, 1 for each legal move of the observing agent (all zero
when it is not its turn), as PettingZoo's classic games do. Rewards are +1 for the winner and
-1 for the loser at the end, 0 otherwise; a truncation at ``max_plies`` gives 0 to both.

- ``state()`` is PettingZoo's global state (for centralised critics): float32 ``2n + 3`` values,
  the board and captures as South sees them (``State.observation(0)``) and then the player to
  move (0 or 1). ``state_space`` is its space. The game's own ``sowing.State`` is
  ``env.unwrapped.position``.
- An action is any Python or numpy integer; anything else (``2.9``, ``"1"``) raises
  ``TypeError``, and an integer outside ``0..n`` raises ``sowing.IllegalActionError``.
- An illegal action (an empty hole, an endless move), by ``illegal_action``: ``"raise"``
  (default) raises ``sowing.IllegalActionError`` (a ``ValueError``) listing the legal actions,
  and nothing changes; ``"lose"`` is PettingZoo's classic convention (its
  ``TerminateIllegalWrapper``): the game ends, the mover gets -1 and the other player 0, and
  ``infos[mover]["illegal_action"]`` is true.
- ``render_mode="ansi"``: ``render()`` returns the board as text; ``"human"``: the board is
  printed after every ``reset`` and ``step``, and ``render()`` prints it too and returns None.

The game has no chance in it, so ``reset(seed=...)`` fixes nothing beyond what is already
fixed.
"""

from __future__ import annotations

import operator
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ._sowing import Rules, State
from .env import illegal_action_arg, playable_rules_arg

AGENTS = ["player_0", "player_1"]
RENDER_MODES = ["ansi", "human"]


def env(
    variant: str | Rules = "en-dodoi-8",
    render_mode: str | None = None,
    illegal_action: str = "raise",
) -> AECEnv:
    """The AEC environment of ``variant``, wrapped to enforce calling ``reset`` first."""
    return wrappers.OrderEnforcingWrapper(
        raw_env(variant, render_mode=render_mode, illegal_action=illegal_action)
    )


class raw_env(AECEnv, EzPickle):  # noqa: N801 - PettingZoo's naming convention
    """The unwrapped AEC environment; see the module docs."""

    metadata = {
        "render_modes": RENDER_MODES,
        "name": "sowing_v0",
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(
        self,
        variant: str | Rules = "en-dodoi-8",
        render_mode: str | None = None,
        illegal_action: str = "raise",
    ):
        EzPickle.__init__(self, variant, render_mode, illegal_action)
        super().__init__()
        self.rules = playable_rules_arg(variant)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode {render_mode!r} is not supported; modes: {RENDER_MODES}")
        self.render_mode = render_mode
        self.illegal_action = illegal_action_arg(illegal_action)
        n, length = self.rules.holes, self.rules.observation_len
        self.possible_agents = AGENTS[:]
        self.agents = AGENTS[:]
        self.action_spaces = {a: spaces.Discrete(n) for a in AGENTS}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (length,), np.float32),
                    "action_mask": spaces.Box(0, 1, (n,), np.int8),
                }
            )
            for a in AGENTS
        }
        self.state_space = spaces.Box(0.0, 1.0, (length + 1,), np.float32)
        self.position: State = State.initial(self.rules)
        self._reset_bookkeeping()

    # EzPickle alone rebuilds an env from its arguments, so a copy or a pickle would be a fresh
    # game at ply 0; the game under way travels with them.
    _GAME = (
        "position",
        "agents",
        "rewards",
        "_cumulative_rewards",
        "terminations",
        "truncations",
        "infos",
        "agent_selection",
        "_forfeited",
    )

    def __getstate__(self) -> dict[str, Any]:
        state = dict(EzPickle.__getstate__(self))
        state["_game"] = {name: getattr(self, name) for name in self._GAME}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        game = state.pop("_game", None)
        EzPickle.__setstate__(self, state)
        if game is not None:
            for name, value in game.items():
                setattr(self, name, value)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        player = AGENTS.index(agent)
        mask = np.zeros(self.rules.holes, dtype=np.int8)
        if player == self.position.to_move and not self._forfeited:
            mask[self.position.legal_mask()] = 1
        return {"observation": self.position.observation(player), "action_mask": mask}

    def state(self) -> np.ndarray:
        """The global state: the board and captures as South sees them, then the player to
        move."""
        return np.append(self.position.observation(0), np.float32(self.position.to_move))

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.position = State.initial(self.rules)
        self._reset_bookkeeping()
        if self.render_mode == "human":
            self.render()

    def _reset_bookkeeping(self) -> None:
        self.agents = AGENTS[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {"illegal_action": False} for a in self.agents}
        self.agent_selection = AGENTS[self.position.to_move]
        # The mover lost by an illegal action (illegal_action="lose").
        self._forfeited = False

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move and must give an action, not None")
        try:
            a = operator.index(action)
        except TypeError:
            raise TypeError(
                f"an action is an integer 0 to {self.rules.holes - 1}, got "
                f"{type(action).__name__} {action!r}"
            ) from None
        self._cumulative_rewards[agent] = 0.0
        in_range = 0 <= a < self.rules.holes
        if self.illegal_action == "lose" and in_range and not self.position.is_legal(a):
            self._clear_rewards()
            self._forfeited = True
            self.rewards[agent] = -1.0
            self.infos[agent]["illegal_action"] = True
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.position = self.position.play(a)
            self._clear_rewards()
            if self.position.is_over():
                south, north = self.position.returns()
                self.rewards = {"player_0": float(south), "player_1": float(north)}
                self.terminations = dict.fromkeys(self.agents, self.position.is_terminal())
                self.truncations = dict.fromkeys(self.agents, self.position.is_truncated())
            self.agent_selection = AGENTS[self.position.to_move]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _clear_rewards(self) -> None:
        # PettingZoo's sets int 0; every reward here is a float.
        for agent in self.rewards:
            self.rewards[agent] = 0.0

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        text = self.position.render()
        if self._forfeited:
            text += f"\n{self.agent_selection} lost by an illegal action"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

