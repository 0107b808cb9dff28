"""The search agents of the Rust crate ``sowing-agents``, for opponents and baselines.

``from_spec("mcts:1000")`` makes any agent from its spec (``random``, ``greedy``,
``alphabeta:DEPTH``, ``alphabeta:500ms``, ``mcts:SIMULATIONS``, ``mcts:200ms``, and
``az:PATH[:SIMS|:TIME]`` for a network trained by ``sowing train``, played through
``sowing.nn``); ``AlphaBeta(depth=6)``, ``MCTS(simulations=1000)``, ``Greedy()`` and
``Random()`` are the same agents by keyword. Every agent, the network's ``NetworkAgent``
included, is a ``sowing.Agent``. ``parse_agent_spec("az:runs/x:50ms")`` gives a spec's fields
as a dict, read by the same grammar as ``sowing arena``'s (``sowing.Agent`` takes such a dict
too). ``agent.choose(state)`` returns a legal action; the search runs in Rust with
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

``play_match(variant, "greedy", "mcts:1000", to=3)`` plays match play, a series of games until
one agent has won ``to``, the start alternating and draws counting for neither, and gives the
result of ``sowing match --json`` as a dict, with the probability that the first agent wins
such a series from their measured chances; ``series_odds(to, a_south, a_north)`` works that
probability out exactly from any chances. See ``docs/match-play.md``.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple


from . import _sowing
from ._sowing import MAX_AGENT_TIME, Agent, Proof, Rules, agent_forms, parse_agent_spec, solve

__all__ = [
    "MCTS",
    "Agent",
    "AlphaBeta",
    "Greedy",
    "Proof",
    "Random",
    "SeriesOdds",
    "forms",
    "from_spec",
    "parse_agent_spec",
    "play_match",
    "series_odds",
    "solve",
]


def forms() -> list[str]:
    """The forms an agent spec may take (``az:`` needs torch in Python, for ``sowing.nn``)."""
    return agent_forms()


def from_spec(spec: str, seed: int = 0) -> Agent:
    """The agent that ``spec`` names; a malformed spec raises ``ValueError`` listing the forms.
    ``az:PATH[:SIMS|:TIME][:solver=NODES][:leaves=N]`` is a checkpoint of ``sowing train``
    played by its network in PyTorch (``sowing.nn.agent``; needs torch)."""
    if not isinstance(spec, str):
        raise TypeError(f"an agent spec is a string such as 'mcts:1000', got {type(spec).__name__}")
    if parse_agent_spec(spec)["kind"] == "az":
        from . import nn

        return nn.agent(spec, seed)
    return Agent(spec, seed)


MAX_TIME: float = MAX_AGENT_TIME
"""The longest time budget, in seconds per move (the core's)."""


class AlphaBeta(Agent):
    """Negamax with alpha-beta, iterative deepening and a transposition table, to ``depth``
    plies, or as deep as ``time`` seconds per move allow."""

    def __new__(
        cls, depth: int | None = None, *, time: float | None = None, seed: int = 0
    ) -> AlphaBeta:
        if depth is None and time is None:
            depth = 6
        return super().__new__(cls, {"kind": "alphabeta", "depth": depth, "time": time}, seed)


class MCTS(Agent):
    """UCT with random rollouts: ``simulations`` per move, or as many as ``time`` seconds allow."""

    def __new__(
        cls, simulations: int | None = None, *, time: float | None = None, seed: int = 0
    ) -> MCTS:
        if simulations is None and time is None:
            simulations = 1000
        return super().__new__(
            cls, {"kind": "mcts", "simulations": simulations, "time": time}, seed
        )


class Greedy(Agent):
    """The move that captures most seeds now, ties broken at random."""

    def __new__(cls, *, seed: int = 0) -> Greedy:
        return super().__new__(cls, {"kind": "greedy"}, seed)


class Random(Agent):
    """A uniformly random legal move."""

    def __new__(cls, *, seed: int = 0) -> Random:
        return super().__new__(cls, {"kind": "random"}, seed)


def play_match(
    variant: str | Rules,
    a: str | Agent,
    b: str | Agent,
    to: int,
    *,
    seed: int = 0,
    opening: int = 0,
    games_per_estimate: int = 200,
    max_games: int | None = None,
    threads: int = 0,
) -> dict[str, Any]:
    """Match play: agents ``a`` and ``b`` (specs, or agents by their spec) play a series on
    ``variant`` until one has won ``to`` games; ``a`` is South in the first game and the start
    alternates; a draw or a truncated game counts for neither. ``games_per_estimate`` other games
    (the arena's for the same seed and opening; 0 for none) measure each agent's chances, from
    which the probability that ``a`` wins such a series is worked out exactly.

    Returns what ``sowing match --json`` prints, as a dict: ``games`` (each with ``south`` 0 for
    ``a``, ``outcome``, ``captured``, ``moves`` and ``score`` after it), ``score``, ``draws``,
    ``winner`` (0, 1, or None when ``max_games``, default ``100 * to``, ran out) and
    ``estimate`` (``a_south`` and ``a_north`` counts, ``odds`` with ``a_wins``, ``b_wins``,
    ``never_ends``, ``expected_games``, and the 95% interval ``a_wins_low`` .. ``a_wins_high``).
    The agents play in Rust on ``threads`` threads (0: one per core) with the GIL released;
    Ctrl-C ends the series (``KeyboardInterrupt``). Bad arguments raise ``ValueError`` or
    ``TypeError``, a series too large for the memory ``MemoryError``.
    """
    names = [x.name if isinstance(x, Agent) else x for x in (a, b)]
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"an agent is a spec string or an Agent, got {type(name).__name__}")
    report = _sowing.play_match(
        variant, names[0], names[1], to, seed, opening, games_per_estimate, max_games, threads
    )
    return json.loads(report)


class SeriesOdds(NamedTuple):
    """How a series ends, for the agent that starts it as South."""

    a_wins: float
    b_wins: float
    never_ends: float
    expected_games: float | None
    """Expected games; None when the series may never end (every game certainly drawn)."""


def series_odds(
    to: int, a_south: tuple[float, float, float], a_north: tuple[float, float, float]
) -> SeriesOdds:
    """The exact odds of a series to ``to`` wins from the first agent's chances ``(win, draw,
    loss)`` in one game as South (``a_south``) and as North (``a_north``); the first agent is
    South in the first game and the start alternates."""
    return SeriesOdds(*_sowing.series_odds(to, tuple(a_south), tuple(a_north)))
