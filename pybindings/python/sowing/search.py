"""The Rust batched PUCT search (AlphaZero's tree policy) driven from Python, its leaves valued by
a Python network: PyTorch, JAX, or plain numpy.

The network is a function ``evaluate(obs, mask) -> (logits, value)``:

- ``obs``: float32 ``[B, D]``, the network input of ``B`` leaves (the input of ``sowing train``'s
  network: the observation scaled so an average hole reads 1, with ``lookahead`` three features
  per action of what playing it does, then the legal mask; ``D = 6n + 2``, or ``3n + 2`` without
  look-ahead, see ``input_length``);
- ``mask``: bool ``[B, n]``, the legal actions;
- ``logits``: float32 ``[B, n]`` (anything numpy turns into it: a CPU tensor, a JAX array); the
  search takes the softmax over the legal actions, so illegal ones may hold anything;
- ``value``: float32 ``[B]``, the expected result for the player to move, -1 to 1.

It is called once per simulation with one leaf of every tree, so ``B`` is up to the number of
games searched together; with ``leaf_batch=k`` up to ``k`` leaves of every tree, chosen one after
another with virtual losses on their paths, so that one game's search fills a batch too (a
network values 16 positions in not much more time than one: at a time per move, several times the
simulations). The tree work runs in Rust with the GIL released, taken only for the
call. An exception in ``evaluate`` reaches the caller as itself, and no game has moved.

- ``search(states, evaluate)``: one search of many positions (like ``mctx``'s policies); the
  ``Search`` class keeps each game's tree from move to move.
- ``self_play(variant, evaluate, games=...)``: training games, returned as numpy ``Samples``
  (observation, mask, visit distribution, value target, player), fixed by the seed.
- ``NetworkAgent(evaluate, variant)``: a player for ``gymnasium.make(..., opponent=agent)``,
  ``play_games`` and ``rate`` (the matches and Elo of ``sowing train``'s evaluation).
- ``LinearEvaluator(policy, value)``: a linear policy and value evaluated in Rust, the same
  arithmetic as ``obs @ policy`` and ``tanh(obs @ value)`` in numpy.

``evaluate`` may also be a ``sowing.nn.PolicyValueNet`` (its ``evaluator()`` is used). A network
that says what it is for (a ``sowing.nn`` network, a ``LinearEvaluator``: ``holes`` and
``lookahead``, and a ``span`` where it plays every board up to one) is checked against the game
before any search starts, and ``lookahead`` defaults to its own. Every search has ``root="puct"`` (AlphaZero's) or ``root="gumbel"`` (Gumbel
AlphaZero's sequential halving, ``considered`` actions). An object whose ``evaluate`` calls the
same object again is refused with ``RuntimeError`` (it would wait for itself).

Every search takes the same keywords, the fields of the Rust ``SearchSpec``: ``simulations``,
``c_puct``, ``dirichlet_alpha``, ``noise_fraction``, ``leaf_batch``, ``root``, ``considered``,
``c_visit``, ``c_scale`` and ``time`` (seconds per move, or ``None``). A keyword left out takes
the Rust default, ``search_defaults()`` (self-play's, with root noise on: ``self_play_defaults()``);
the values are checked in Rust, and an error names the keyword and what it may be
(``TypeError`` for a value of the wrong kind, ``ValueError`` for one out of range).
"""

from __future__ import annotations

import operator
import sys
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from . import _sowing
from ._sowing import LinearEvaluator, State

__all__ = [
    "BASELINES",
    "LinearEvaluator",
    "MatchResult",
    "NetworkAgent",
    "Rating",
    "Samples",
    "Search",
    "SearchOutput",
    "input_length",
    "play_games",
    "play_match",
    "rate",
    "search",
    "search_defaults",
    "self_play",
    "self_play_defaults",
    "Explanation",
]

Evaluate = Callable[[np.ndarray, np.ndarray], tuple[Any, Any]]
"""``evaluate(obs: float32[B, D], mask: bool[B, n]) -> (logits: float32[B, n], value:
float32[B])``, or a ``LinearEvaluator``."""

BASELINES = ("random", "greedy", "alphabeta:4", "mcts:1000")
"""The baselines ``sowing train`` rates its network against."""

Z95 = 1.96
"""The normal quantile of the 95% intervals of ``sowing train``'s ratings."""


def search_defaults() -> dict[str, Any]:
    """The search's keywords and their defaults, as Rust declares them (``SearchSpec``)."""
    return _sowing.search_defaults()


def self_play_defaults() -> dict[str, Any]:
    """``self_play``'s keywords and their defaults, as Rust declares them (``SelfPlayConfig``:
    the search's, root noise on, and self-play's own)."""
    return _sowing.self_play_defaults()


def input_length(holes: int, lookahead: bool = True) -> int:
    """``D``, the length of the network input for ``holes`` holes per row."""
    return (6 if lookahead else 3) * operator.index(holes) + 2


@dataclass(frozen=True)
class SearchOutput:
    """What a search found at each root (row ``i`` is ``states[i]``)."""

    visits: np.ndarray
    """int64 ``[B, n]``: visits of each action; only legal actions are visited."""
    priors: np.ndarray
    """float32 ``[B, n]``: the root's priors (noise included)."""
    value: np.ndarray
    """float32 ``[B]``: the mean value of the root for the player to move, -1 to 1."""
    action: np.ndarray
    """int64 ``[B]``: the most visited action (ties to the higher prior, then the lower action);
    with a Gumbel root the winner of the sequential halving."""
    improved_policy: np.ndarray | None = None
    """float32 ``[B, n]`` with a Gumbel root: ``softmax(logits + sigma(completed Q))``, Gumbel
    AlphaZero's policy target; ``None`` with PUCT's."""

    @property
    def policy(self) -> np.ndarray:
        """float32 ``[B, n]``: the policy target, the visit distribution (AlphaZero) or the
        improved policy (Gumbel AlphaZero)."""
        if self.improved_policy is not None:
            return self.improved_policy
        total = self.visits.sum(axis=1, keepdims=True)
        return (self.visits / np.maximum(total, 1)).astype(np.float32)


class Search:
    """The batched search with its trees: ``search(states, seed=0)`` searches every state with
    ``simulations`` simulations (the root's evaluation the first), the leaves of all trees valued
    together by ``evaluate``. With ``trees=[t0, t1, ...]`` state ``i`` is searched in tree ``ti``,
    kept from that tree's last search when the state is one or two plies below its last root
    (its visits then add to this search's), as a player keeps its tree from move to move; without,
    every search starts afresh. Root noise (``noise_fraction`` of Dirichlet(``dirichlet_alpha``))
    is drawn from stream ``i`` of ``seed`` for state ``i``. ``leaf_batch`` leaves of each tree
    (1 to 256) go to ``evaluate`` together, kept apart by virtual losses; 1, the default, is
    PUCT's own one-at-a-time sequence. ``root="gumbel"`` searches each root as Gumbel AlphaZero
    does (see ``self_play``): ``action`` is the halving's winner, ``improved_policy`` the target;
    its trees are not kept. Safe to share between threads (a second caller waits); called from
    inside its own ``evaluate``, it raises ``RuntimeError``."""

    def __init__(
        self,
        evaluate: Evaluate | LinearEvaluator,
        *,
        lookahead: bool | None = None,
        **settings: Any,
    ) -> None:
        evaluate, lookahead = _evaluate_arg(evaluate, lookahead)
        self._native = _sowing.Search(evaluate, lookahead, **settings)
        self._evaluate = evaluate

    def __call__(
        self, states: Sequence[State], *, seed: int = 0, trees: Sequence[int] | None = None
    ) -> SearchOutput:
        states = _states(states)
        if states and not _serves(self._evaluate, states[0].holes):
            raise ValueError(
                f"the network is for {_boards(self._evaluate)}, the states have "
                f"{states[0].holes}"
            )
        if trees is not None:
            trees = [_tree(t) for t in trees]
        return SearchOutput(*self._native.run(states, seed, trees))

    def clear(self) -> None:
        """Forget every tree, so that the next search starts afresh."""
        self._native.clear()


def search(
    states: Sequence[State],
    evaluate: Evaluate | LinearEvaluator,
    *,
    lookahead: bool | None = None,
    seed: int = 0,
    **settings: Any,
) -> SearchOutput:
    """One search of every state of ``states`` (none over, one board size) in fresh trees, with
    the search's keywords ``settings`` (see the module and ``search_defaults()``); see
    ``Search``."""
    return Search(evaluate, lookahead=lookahead, **settings)(states, seed=seed)


@dataclass(frozen=True)
class Samples:
    """Training positions of self-play, row by row, game by game in the order the games ended."""

    observation: np.ndarray
    """float32 ``[N, D]``: the network input of the position."""
    mask: np.ndarray
    """bool ``[N, n]``: its legal actions."""
    policy: np.ndarray
    """float32 ``[N, n]``: the search's visit distribution (sums to one)."""
    value: np.ndarray
    """float32 ``[N]``: ``(1 - value_mix) * result + value_mix * root value``, for the mover
    (the result with its margin in it under ``margin_weight``)."""
    player: np.ndarray
    """int64 ``[N]``: the player to move, 0 (South) or 1 (North)."""
    games: int
    """Games played."""
    south_wins: int
    """Games South won."""

    def __len__(self) -> int:
        return len(self.value)


def self_play(
    variant: Any,
    evaluate: Evaluate | LinearEvaluator,
    *,
    games: int,
    first_game: int = 0,
    seed: int = 0,
    iteration: int = 0,
    parallel_games: int = 128,
    threads: int = 1,
    lookahead: bool | None = None,
    **settings: Any,
) -> Samples:
    """Play ``games`` self-play games of ``variant`` (a preset name or ``sowing.Rules``), numbered
    from ``first_game``, as ``sowing train`` does: each from a random opening of 0 to ``opening_plies`` plies, every move
    searched with root noise, drawn in proportion to the visits for the first
    ``temperature_plies`` plies and the most visited after. ``parallel_games`` games are played
    at once, their leaves valued together; game ``g`` draws from stream ``(seed, iteration, g)``
    alone, so a game is fixed by ``seed``, ``iteration`` and its number, whoever plays it (the
    actors of ``sowing.ray`` play disjoint ranges of numbers), as far as ``evaluate`` gives each
    leaf the same numbers whatever the batch around it: a Rust evaluator does, while numpy and
    PyTorch may round a product differently in a batch of another size.

    ``root="gumbel"`` searches the root as Gumbel AlphaZero does (``sowing train --root
    gumbel``): the ``considered`` best actions by logit plus a Gumbel draw share the simulations
    by sequential halving, the winner is played for ``temperature_plies`` plies and the best
    without the draws after, and ``policy`` is the improved policy ``softmax(logits +
    sigma(completed Q))`` rather than the visit shares; no Dirichlet noise.

    ``full_fraction`` below 1 is KataGo's playout-cap randomisation (``sowing train
    --full-fraction``): a move is searched in full and returned as a sample with that chance, the
    others get a fast search of ``fast_simulations`` without noise and only play the game on.

    ``threads`` workers (0: one per core; game ``g`` to worker ``g % threads``, each with
    ``parallel_games / threads`` games) call ``evaluate`` from their own threads, so it must be
    thread-safe (a PyTorch module under ``no_grad`` is); each call holds the GIL only while it
    runs, and PyTorch releases it inside its kernels. A Ctrl-C stops every worker.

    The other keywords (``simulations``, ``c_puct``, ``dirichlet_alpha``, ``noise_fraction``,
    ``temperature_plies``, ``opening_plies``, ``value_mix``, ``margin_weight``, ``root``,
    ``considered``, ``full_fraction``, ``fast_simulations``, ...) are ``self_play_defaults()``'s, those of
    ``sowing train``; a keyword left out takes its default there."""
    rules = _rules(variant)
    evaluate, lookahead = _evaluate_arg(evaluate, lookahead, rules.holes)
    observation, mask, policy, value, player, south_wins = _sowing.self_play(
        rules,
        evaluate,
        games,
        first_game,
        seed,
        iteration,
        parallel_games,
        threads,
        lookahead=lookahead,
        **settings,
    )
    return Samples(observation, mask, policy, value, player, int(games), int(south_wins))


@dataclass(frozen=True)
class Explanation:
    """A network agent's move, with why (``NetworkAgent.explain``)."""

    action: int
    """The move played."""
    value: float
    """The root's mean value for the player to move, -1 to 1 (1 for a win the solver proved)."""
    line: tuple[int, ...]
    """The principal line: the move played, then the most visited reply at each node, as far as
    the tree reached (at most 12 plies)."""
    visits: tuple[int, ...]
    """The root's visits of each action (none when the solver proved the win)."""


class NetworkAgent(_sowing.NetworkAgent):
    """A player that searches with ``evaluate`` and plays the most visited move, without noise,
    keeping its tree from move to move; it takes the search's keywords (``simulations``,
    ``c_puct``, ``leaf_batch``, ``root``, ... see ``search_defaults()``; noise is off). With
    ``time=`` seconds it searches for that long per move (the solver's search included), its
    simulations capped by ``simulations`` when given, else by the most a move may have (1,000,000):
    a time for a human opponent, a count for reproducible games. ``explain(state)`` gives the move
    with its value and principal line; with ``solver_nodes`` an
    exact endgame solver first (as the agent ``az:`` does: at most 24 seeds on the board, a
    proven win played at once, moves proven to lose avoided). With ``root="gumbel"`` each move is
    searched afresh by Gumbel AlphaZero's sequential halving and the best action by
    ``logit + sigma(completed Q)`` is played. Usable as the ``opponent`` of
    ``gymnasium.make("sowing/...")``, in ``play_games`` and ``rate``. Its moves are fixed by the
    position, the tree it kept and its seed.

    ``holes`` is the board it plays; a network that says what it is for is checked against
    ``variant`` here. A copy shares the network and starts its tree afresh; a pickle carries
    the network (an ``az:`` agent: its spec, the copy loading the checkpoint again), so that
    ``AsyncVectorEnv`` can take an environment with it as the opponent."""

    def __new__(
        cls,
        evaluate: Evaluate | LinearEvaluator,
        variant: Any,
        *,
        lookahead: bool | None = None,
        solver_nodes: int = 0,
        seed: int = 0,
        name: str | None = None,
        **settings: Any,
    ) -> NetworkAgent:
        rules = _rules(variant)
        evaluate, lookahead = _evaluate_arg(evaluate, lookahead, rules.holes)
        if name is not None:
            name = str(name)
        self = super().__new__(
            cls, name, evaluate, rules.holes, lookahead, solver_nodes, seed, **settings
        )
        self._settings = dict(
            evaluate=evaluate,
            variant=rules,
            lookahead=lookahead,
            solver_nodes=solver_nodes,
            name=name,
            **settings,
        )
        self._spec: str | None = None
        return self

    def explain(self, state: State) -> Explanation:
        """The move ``choose`` plays in ``state``, with its value, principal line and the root's
        visits (the agent moves on as with ``choose``: its tree and random stream go on)."""
        action, value, line, visits = super().explain(state)
        return Explanation(action, value, tuple(line), tuple(visits))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    @property
    def holes(self) -> int:
        """Holes per row of the boards it plays."""
        return self._settings["variant"].holes

    @property
    def rules(self) -> _sowing.Rules:
        """The rules it was made for."""
        return self._settings["variant"]

    def __deepcopy__(self, memo: dict[int, Any]) -> NetworkAgent:
        # The network is shared (it is not changed by playing); the tree starts afresh.
        copied = type(self)(**self._settings, seed=self.current_seed)
        copied._spec = self._spec
        return copied

    def __copy__(self) -> NetworkAgent:
        return self.__deepcopy__({})

    def __reduce__(self) -> tuple[Any, ...]:
        if self._spec is not None:
            from . import agents

            return (agents.from_spec, (self._spec, self.current_seed))
        return (_network_agent, (type(self), self._settings, self.current_seed))


@dataclass(frozen=True)
class MatchResult:
    """Results of a player against one opponent, from the player's side."""

    opponent: str
    wins: int
    draws: int
    """Draws and truncated games."""
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        """Wins plus half the draws."""
        return self.wins + 0.5 * self.draws

    @property
    def score(self) -> float:
        return self.points / max(self.games, 1)


def _network_agent(cls: type, settings: dict[str, Any], seed: int) -> NetworkAgent:
    """A pickled ``NetworkAgent`` made again."""
    return cls(**settings, seed=seed)


def play_games(
    variant: Any,
    agent: NetworkAgent,
    opponent: str,
    *,
    games: int = 20,
    seed: int = 0,
    opening: int = 2,
    threads: int = 0,
) -> MatchResult:
    """Play ``games`` games on ``variant`` between ``agent`` (South in even games, North in odd
    ones) and the agent of spec ``opponent``, each side-swapped pair from a shared opening of
    ``opening`` random plies, as ``sowing train`` rates its network: the agent's moves in all
    games searched together, the opponent's on ``threads`` threads (0: every core). The agent
    plays without its endgame solver. (``sowing.agents.play_match`` plays a series to a number
    of wins instead; both take the variant first.)"""
    if not isinstance(agent, _sowing.NetworkAgent):
        raise TypeError(f"agent must be a sowing.search.NetworkAgent, got {type(agent).__name__}")
    wins, draws, losses = _sowing.network_match(
        variant, agent, opponent, games, seed, opening, threads
    )
    return MatchResult(opponent, wins, draws, losses)


def play_match(agent: Any, opponent: Any, variant: Any, **kwargs: Any) -> MatchResult:
    """Deprecated: ``play_games(variant, agent, opponent, ...)``, which takes the variant first
    as ``sowing.agents.play_match`` does. This old order still works, with a warning."""
    warnings.warn(
        "sowing.search.play_match(agent, opponent, variant) is now "
        "play_games(variant, agent, opponent); play_match will be removed",
        DeprecationWarning,
        stacklevel=2,
    )
    return play_games(variant, agent, opponent, **kwargs)


@dataclass(frozen=True)
class Rating:
    """An evaluation as ``sowing train`` makes it."""

    results: list[MatchResult]
    """Results against each baseline."""
    elo: float
    """Elo against the rated baselines (``random`` = 0)."""
    interval: float
    """Half-width of the Elo's 95% interval."""
    baseline_elo: dict[str, float]
    """The baselines' ratings, from a round robin among them."""


def rate_baselines(
    variant: Any,
    baselines: Sequence[str] = BASELINES,
    *,
    games: int = 20,
    seed: int = 0,
    opening: int = 2,
    threads: int = 0,
) -> dict[str, float]:
    """The baselines' Elo ratings by a round robin of ``games`` games per pair, ``random`` (or
    the first) anchored at 0."""
    names = list(baselines)
    if "random" in names:
        i = names.index("random")
        names[0], names[i] = names[i], names[0]
    ratings = _sowing.rate_round_robin(variant, names, games, seed, opening, threads)
    return dict(zip(names, ratings))


def rate(
    agent: NetworkAgent,
    variant: Any,
    *,
    baselines: Sequence[str] = BASELINES,
    games: int = 20,
    seed: int = 0,
    opening: int = 2,
    threads: int = 0,
    baseline_elo: dict[str, float] | None = None,
) -> Rating:
    """Rate ``agent`` as ``sowing train`` rates its network: ``games`` games against each
    baseline (``play_games``), and its Elo from the results against the baselines' ratings
    (``baseline_elo``, or a round robin among them, ``rate_baselines``, done once and passed back
    on later calls)."""
    if baseline_elo is None:
        baseline_elo = rate_baselines(
            variant, baselines, games=games, seed=seed, opening=opening, threads=threads
        )
    missing = [b for b in baselines if b not in baseline_elo]
    if missing:
        raise ValueError(f"baseline_elo has no rating for {', '.join(missing)}")
    results = [
        play_games(
            variant,
            agent,
            b,
            games=games,
            seed=(seed + 1 + i) % 2**64,
            opening=opening,
            threads=threads,
        )
        for i, b in enumerate(baselines)
    ]
    elo, interval = _sowing.elo_against(
        [(baseline_elo[r.opponent], r.points, r.games) for r in results], Z95
    )
    return Rating(results, elo, interval, dict(baseline_elo))


def _rules(variant: Any) -> _sowing.Rules:
    if isinstance(variant, _sowing.Rules):
        return variant
    if isinstance(variant, str):
        return _sowing.Rules.preset(variant)
    raise TypeError(
        f"a variant is a preset name or a sowing.Rules, got {type(variant).__name__}"
    )


def _states(states: Any) -> list[State]:
    if isinstance(states, State):
        raise TypeError("states must be a sequence of sowing.State; wrap a single one: [state]")
    states = list(states)
    for i, s in enumerate(states):
        if not isinstance(s, State):
            raise TypeError(f"states[{i}] must be a sowing.State, got {type(s).__name__}")
    return states


def _tree(t: Any) -> int:
    try:
        t = operator.index(t)
    except TypeError:
        raise TypeError(f"a tree is numbered by an integer, got {type(t).__name__}") from None
    if t < 0:
        raise ValueError(f"trees are numbered from 0, got {t}")
    return t


def _evaluate_arg(
    evaluate: Any, lookahead: Any, holes: int | None = None
) -> tuple[Any, bool]:
    """``evaluate`` for the native search (a ``sowing.nn.PolicyValueNet`` as its evaluator) and
    the ``lookahead`` to search with: as given (a bool), else the network's, else True. A
    network that says what it is for (``holes``, ``lookahead``) is refused, naming what differs,
    when it does not fit the game of ``holes`` holes or the ``lookahead`` asked for."""
    nn = sys.modules.get("sowing.nn")
    if nn is not None and isinstance(evaluate, nn.PolicyValueNet):
        evaluate = evaluate.evaluator()
    own_lookahead = getattr(evaluate, "lookahead", None)
    if lookahead is None:
        lookahead = own_lookahead if isinstance(own_lookahead, bool) else True
    lookahead = _flag(lookahead, "lookahead")
    if isinstance(own_lookahead, bool) and own_lookahead != lookahead:
        raise ValueError(
            f"the network takes inputs {'with' if own_lookahead else 'without'} the look-ahead "
            f"features and lookahead={lookahead} was asked for; leave lookahead out to use the "
            "network's"
        )
    if holes is not None and not _serves(evaluate, holes):
        raise ValueError(f"the network is for {_boards(evaluate)} and the game has {holes}")
    return evaluate, lookahead


def _serves(evaluate: Any, holes: int) -> bool:
    """Whether a network that says what it is for plays boards of ``holes`` holes per row: its
    ``holes``, or with a ``span`` (``sowing train --span``) any board up to it; one that says
    nothing is taken at its word."""
    own = getattr(evaluate, "holes", None)
    span = getattr(evaluate, "span", None)
    if not isinstance(own, int):
        return True
    return holes == own or (isinstance(span, int) and holes <= span)


def _boards(evaluate: Any) -> str:
    """The boards a network is for, in words."""
    span = getattr(evaluate, "span", None)
    if isinstance(span, int):
        return f"boards of up to {span} holes per row"
    return f"{getattr(evaluate, 'holes', '?')} holes per row"


def _flag(x: Any, name: str) -> bool:
    """A bool argument: ``True``/``False`` (or numpy's); anything else, a string above all
    (``"no"`` is truthy), is a ``TypeError``."""
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    raise TypeError(f"{name} must be True or False, got {type(x).__name__} {x!r}")
