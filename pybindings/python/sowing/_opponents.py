"""Opponents for the single-agent environments: turning what a user passes as ``opponent`` into
one function ``(state, rng) -> action``.

An opponent may be ``"random"`` (uniform over the legal moves, drawn from the environment's own
``np_random`` so that a seeded reset fixes the whole episode), any callable taking a ``State``
and returning an action, an object with a ``choose(state)`` method (the agents of
``sowing.agents``), or an agent spec string such as ``"alphabeta:6"`` or ``"mcts:1000"``.
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

Policy = Callable[[State, np.random.Generator], int]


def _random(state: State, rng: np.random.Generator) -> int:
    moves = state.legal_moves()
    return moves[int(rng.integers(len(moves)))]


def resolve(opponent: Any) -> tuple[Policy, str, Any]:
    """The opponent as ``(policy, name, agent)``; ``agent`` is the object whose ``new_game`` and
    ``seed`` methods are called at each reset, if it has them, else ``None``."""
    if isinstance(opponent, str):
        if opponent == "random":
            return _random, "random", None
        agent = agents.from_spec(opponent)
        return _choose(agent), opponent, agent
    if hasattr(opponent, "choose") and callable(opponent.choose):
        return _choose(opponent), getattr(opponent, "name", type(opponent).__name__), opponent
    if callable(opponent):
        return (lambda state, rng: opponent(state)), getattr(opponent, "__name__", "callable"), None
    raise TypeError(
        f"an opponent is \"random\", an agent spec string, a callable taking a sowing.State, or an "
        f"object with a choose(state) method; got {type(opponent).__name__}"
    )


def _choose(agent: Agent) -> Policy:
    return lambda state, rng: agent.choose(state)


def play(policy: Policy, name: str, state: State, rng: np.random.Generator) -> tuple[State, int]:
    """Let the opponent move in ``state``; a move it may not make is a ``ValueError`` naming it."""
    action = policy(state, rng)
    try:
        return state.play(int(action)), int(action)
    except IllegalActionError as e:
        raise ValueError(f"the opponent {name} chose an action it may not play: {e}") from e
    except (TypeError, ValueError) as e:
        raise ValueError(f"the opponent {name} returned {action!r}, not an action: {e}") from e
