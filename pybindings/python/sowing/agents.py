"""The search agents of the Rust crate ``sowing-agents``, for opponents and baselines.

``from_spec("mcts:1000")`` makes any agent from its spec (``random``, ``greedy``,
``alphabeta:DEPTH``, ``alphabeta:500ms``, ``mcts:SIMULATIONS``, ``mcts:200ms``, and
``az:PATH`` for a network trained by ``sowing train``, played through ``sowing.nn``);
``AlphaBeta(depth=6)``, ``MCTS(simulations=1000)``, ``Greedy()`` and ``Random()`` are the same
agents by keyword. ``agent.choose(state)`` returns a legal action; the search runs in Rust with
the GIL released, and Ctrl-C stops it within a few hundredths of a second
(``KeyboardInterrupt``, the agent's random stream left as it was). Each agent has its own
seeded random stream (``seed`` argument, ``seed()`` method): with a count budget the same seed
gives the same moves. A deep copy goes on from the same point of the stream, on a stream of its
own. Every agent is usable as the ``opponent`` of ``gymnasium.make("sowing/...")``, which
reseeds it at each reset.

``solve(state, nodes=1_000_000)`` proves by exact search what a position is worth under best
play: a ``Proof`` with a winning action (and within how many plies it wins), or the actions
proven to lose, as far as the budget of positions reaches. It too stops on Ctrl-C, and runs on
a stack as deep as its ``depth`` needs, whatever the stack of the calling thread.
"""

from __future__ import annotations

import operator

import numpy as np

from ._sowing import Agent, Proof, agent_forms, solve

__all__ = ["MCTS", "Agent", "AlphaBeta", "Greedy", "Proof", "Random", "forms", "from_spec", "solve"]


def forms() -> list[str]:
    """The forms an agent spec may take."""
    return [*agent_forms(), "az:PATH, az:PATH:SIMS, az:PATH[:SIMS]:solver=NODES (a trained network; needs torch)"]


def from_spec(spec: str, seed: int = 0) -> Agent:
    """The agent that ``spec`` names; a malformed spec raises ``ValueError`` listing the forms.
    ``az:PATH[:SIMS][:solver=NODES]`` is a checkpoint of ``sowing train`` played by its network in
    PyTorch (``sowing.nn.agent``; needs torch)."""
    if isinstance(spec, str) and spec.startswith("az:"):
        from . import nn

        return nn.agent(spec, seed)
    return Agent(spec, seed)


MAX_TIME = 3600.0
"""The longest time budget, in seconds per move."""


def _budget(kind: str, count_name: str, count: int | None, time: float | None) -> str:
    if (count is None) == (time is None):
        raise ValueError(
            f"{kind} takes either {count_name}= or time= (seconds per move), not both or neither"
        )
    if time is not None:
        if isinstance(time, bool) or not isinstance(time, (int, float, np.integer, np.floating)):
            raise TypeError(f"time must be a number of seconds, got {type(time).__name__}")
        if not 0 < time <= MAX_TIME:  # NaN fails too
            raise ValueError(
                f"time must be more than 0 and at most {MAX_TIME:g} seconds, got {time!r}"
            )
        return f"{kind}:{max(1, round(time * 1000))}ms"
    try:
        return f"{kind}:{operator.index(count)}"
    except TypeError:
        raise TypeError(
            f"{count_name} must be an integer, got {type(count).__name__} {count!r}"
        ) from None


class AlphaBeta(Agent):
    """Negamax with alpha-beta, iterative deepening and a transposition table, to ``depth``
    plies, or as deep as ``time`` seconds per move allow."""

    def __new__(
        cls, depth: int | None = None, *, time: float | None = None, seed: int = 0
    ) -> AlphaBeta:
        if depth is None and time is None:
            depth = 6
        return super().__new__(cls, _budget("alphabeta", "depth", depth, time), seed)


class MCTS(Agent):
    """UCT with random rollouts: ``simulations`` per move, or as many as ``time`` seconds allow."""

    def __new__(
        cls, simulations: int | None = None, *, time: float | None = None, seed: int = 0
    ) -> MCTS:
        if simulations is None and time is None:
            simulations = 1000
        return super().__new__(cls, _budget("mcts", "simulations", simulations, time), seed)


class Greedy(Agent):
    """The move that captures most seeds now, ties broken at random."""

    def __new__(cls, *, seed: int = 0) -> Greedy:
        return super().__new__(cls, "greedy", seed)


class Random(Agent):
    """A uniformly random legal move."""

    def __new__(cls, *, seed: int = 0) -> Random:
        return super().__new__(cls, "random", seed)
