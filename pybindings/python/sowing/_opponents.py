"""Opponents for the single-agent environments: what a user passes as ``opponent``, resolved once
into an ``Opponent`` that moves for the other side.

An opponent may be ``"random"`` (uniform over the legal moves, drawn from the environment's own
``np_random`` so that a seeded reset fixes the whole episode), any callable taking a ``State``
and returning an action, an object with a ``choose(state)`` method (the agents of
``sowing.agents``), or an agent spec string such as ``"alphabeta:6"`` or ``"mcts:1000"``.

The ``Opponent`` holds the agent itself, never a function closed over it, so that a deep copy of
an environment has an agent (and a random stream) of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, Union

import numpy as np

from . import agents
from ._sowing import IllegalActionError, State


class Agent(Protocol):
    """Anything with a ``choose(state) -> action`` method."""

    def choose(self, state: State) -> int: ...


OpponentLike = Union[str, Callable[[State], int], Agent]
"""What ``opponent=`` accepts."""


class Opponent:
    """The other side of a single-agent game."""

    def __init__(self, opponent: Any) -> None:
        self.agent: Any = None
        self.function: Callable[[State], int] | None = None
        # True while the opponent chooses: its code calling the environment back is refused.
        self.moving = False
        if isinstance(opponent, str):
            self.name = opponent
            if opponent != "random":
                self.agent = agents.from_spec(opponent)
        elif hasattr(opponent, "choose") and callable(opponent.choose):
            self.agent = opponent
            self.name = getattr(opponent, "name", type(opponent).__name__)
        elif callable(opponent):
            self.function = opponent
            self.name = getattr(opponent, "__name__", "callable")
        else:
            raise TypeError(
                'an opponent is "random", an agent spec string, a callable taking a sowing.State, '
                f"or an object with a choose(state) method; got {type(opponent).__name__}"
            )

    def check(self, rules: Any) -> None:
        """Refuse an opponent made for another board (one that says which, as a
        ``NetworkAgent`` does), before the first move rather than at it."""
        holes = getattr(self.agent, "holes", None)
        if isinstance(holes, int) and holes != rules.holes:
            raise ValueError(
                f"the opponent {self.name} plays boards of {holes} holes per row, and "
                f"{rules.summary} has {rules.holes}"
            )

    def refuse_reentry(self, what: str) -> None:
        """Refuse ``what`` (``"step"``) asked from inside the opponent's own move."""
        if self.moving:
            raise RuntimeError(
                f"{what} was called from inside the opponent {self.name}'s move, which runs "
                "inside step or reset; an opponent must not drive the environment it plays in"
            )

    def new_game(self, rng: np.random.Generator) -> None:
        """Before a game: reseed the agent from ``rng`` and clear its tables, where it can."""
        if self.agent is not None:
            if hasattr(self.agent, "seed"):
                self.agent.seed(int(rng.integers(2**63)))
            if hasattr(self.agent, "new_game"):
                self.agent.new_game()

    def move(self, state: State, rng: np.random.Generator) -> tuple[State, int]:
        """Let the opponent move in ``state``; a move it may not make is a ``ValueError`` naming
        it."""
        self.moving = True
        try:
            if self.agent is not None:
                action = self.agent.choose(state)
            elif self.function is not None:
                action = self.function(state)
            else:
                moves = state.legal_moves()
                action = moves[int(rng.integers(len(moves)))]
        finally:
            self.moving = False
        try:
            return state.play(action), int(action)
        except IllegalActionError as e:
            raise ValueError(
                f"the opponent {self.name} chose an action it may not play: {e}"
            ) from e
        except (TypeError, ValueError) as e:
            raise ValueError(
                f"the opponent {self.name} returned {action!r}, not an action: {e}"
            ) from e
