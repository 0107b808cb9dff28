"""The two-player game as a PettingZoo AEC environment: ``sowing.pettingzoo.env(variant)``.

Agents are ``"player_0"`` (South, moves first) and ``"player_1"`` (North). Each observation is a
dict: ``"observation"``, float32 ``2n + 2`` values relative to the observing agent (own row,
the opponent's row in sowing order, own and opponent's captures, over the seeds in play), and
``"action_mask"``, int8 ``n`` values, 1 for each legal move of the observing agent (all zero
when it is not its turn), as PettingZoo's classic games do. Rewards are +1 for the winner and
-1 for the loser at the end, 0 otherwise; a truncation at ``max_plies`` gives 0 to both.

The game has no chance in it, so ``reset(seed=...)`` fixes nothing beyond what is already
fixed; an illegal action raises ``sowing.IllegalActionError`` (a ``ValueError``) listing the
legal actions.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ._sowing import Rules, State

AGENTS = ["player_0", "player_1"]
RENDER_MODES = ["ansi", "human"]


def env(variant: str | Rules = "en-dodoi-8", render_mode: str | None = None) -> AECEnv:
    """The AEC environment of ``variant``, wrapped to enforce calling ``reset`` first."""
    return wrappers.OrderEnforcingWrapper(raw_env(variant, render_mode=render_mode))


class raw_env(AECEnv, EzPickle):  # noqa: N801 - PettingZoo's naming convention
    """The unwrapped AEC environment; see the module docs."""

    metadata = {
        "render_modes": RENDER_MODES,
        "name": "sowing_v0",
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(self, variant: str | Rules = "en-dodoi-8", render_mode: str | None = None):
        EzPickle.__init__(self, variant, render_mode)
        super().__init__()
        self.rules = variant if isinstance(variant, Rules) else Rules.preset(variant)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode {render_mode!r} is not supported; modes: {RENDER_MODES}")
        self.render_mode = render_mode
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
        self.state: State = State.initial(self.rules)
        self._reset_bookkeeping()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        player = AGENTS.index(agent)
        mask = np.zeros(self.rules.holes, dtype=np.int8)
        if player == self.state.to_move:
            mask[self.state.legal_mask()] = 1
        return {"observation": self.state.observation(player), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.state = State.initial(self.rules)
        self._reset_bookkeeping()

    def _reset_bookkeeping(self) -> None:
        self.agents = AGENTS[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = AGENTS[self.state.to_move]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move and must give an action, not None")
        self.state = self.state.play(int(action))
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if self.state.is_over():
            south, north = self.state.returns()
            self.rewards = {"player_0": float(south), "player_1": float(north)}
            self.terminations = dict.fromkeys(self.agents, self.state.is_terminal())
            self.truncations = dict.fromkeys(self.agents, self.state.is_truncated())
        self.agent_selection = AGENTS[self.state.to_move]
        self._accumulate_rewards()
        if self.render_mode == "human":
            print(self.render())

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        return self.state.render()

    def close(self) -> None:
        pass
