"""Type stubs for the native module ``sowing._sowing`` (pybindings/src, built by maturin)."""

import os
import pathlib
from typing import Any, Final, Literal, Self, final

import numpy as np
import numpy.typing as npt

MAX_HOLES: Final[int]
__version__: Final[str]

class IllegalActionError(ValueError):
    """An action out of range, on an empty hole, or an endless move; lists the legal actions."""

class GameOverError(ValueError):
    """A move asked for after the game ended or was truncated, without a reset."""

def variants() -> list[str]:
    """The preset names."""

def variant_source(name: str) -> str | None:
    """Where a preset's rules come from, or ``None`` for an unknown name."""

def agent_forms() -> list[str]:
    """The forms an agent spec may take."""

MAX_AGENT_TIME: Final[float]
"""The longest time budget of an agent, in seconds per move."""

def parse_agent_spec(spec: str) -> dict[str, Any]:
    """The fields of an agent spec, read by the Rust grammar: ``kind``, then those of the kind
    (``depth`` or ``simulations`` or ``time`` in seconds, ``tablebase``; for ``alphabeta``
    also ``network``; for ``az`` also ``path``, ``solver``, ``leaves``, and ``budget``,
    ``default_solver``, ``default_leaves``),
    ``None`` where the spec leaves one out. A malformed spec raises ``ValueError`` listing the
    forms."""

@final
class Rules:
    """The rules of one game: a preset by name, or fields: ``holes`` and ``seeds`` always
    (``Rules(holes=6, seeds=4)``), the others taking RULES.md's defaults when left out. Invalid
    fields, of a wrong type included, raise ``ValueError`` naming the field."""

    def __new__(
        cls,
        variant: str | None = None,
        *,
        holes: int = ...,
        seeds: int = ...,
        trigger: str = ...,
        direction: str = ...,
        skip_origin: bool = ...,
        max_laps: int = ...,
        max_plies: int = ...,
    ) -> Rules: ...
    @staticmethod
    def preset(name: str) -> Rules: ...
    @staticmethod
    def from_dict(fields: dict[str, Any]) -> Rules: ...
    @staticmethod
    def from_json(text: str) -> Rules: ...
    @staticmethod
    def from_toml(text: str) -> Rules: ...
    @staticmethod
    def from_file(path: str | os.PathLike[str]) -> Rules:
        """A rules file as ``sowing --rules FILE`` reads it: TOML when its name ends in
        ``.toml`` (any case), JSON otherwise."""
    def replace(self, **fields: Any) -> Rules: ...
    def to_dict(self) -> dict[str, Any]: ...
    def to_json(self) -> str: ...
    def to_toml(self) -> str: ...
    @property
    def holes(self) -> int: ...
    @property
    def seeds(self) -> int: ...
    @property
    def trigger(self) -> str: ...
    @property
    def direction(self) -> str: ...
    @property
    def skip_origin(self) -> bool: ...
    @property
    def max_laps(self) -> int: ...
    @property
    def max_plies(self) -> int: ...
    @property
    def total_seeds(self) -> int: ...
    @property
    def observation_len(self) -> int: ...
    @property
    def summary(self) -> str: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

@final
class State:
    """An immutable position: board (absolute numbering of RULES.md), captures, player to move
    (0 South, 1 North), ply, legal moves. Actions are relative to the mover."""

    def __new__(
        cls,
        variant: str | Rules,
        board: list[int],
        captured: tuple[int, int] = (0, 0),
        to_move: int = 0,
        ply: int = 0,
    ) -> State: ...
    @staticmethod
    def initial(variant: str | Rules) -> State: ...
    @staticmethod
    def from_json(text: str) -> State: ...
    def to_json(self) -> str: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def board(self) -> list[int]: ...
    @property
    def captured(self) -> tuple[int, int]: ...
    @property
    def to_move(self) -> int: ...
    @property
    def ply(self) -> int: ...
    @property
    def holes(self) -> int: ...
    def legal_moves(self) -> list[int]: ...
    def legal_mask(self) -> npt.NDArray[np.bool_]: ...
    def is_legal(self, action: int) -> bool: ...
    def play(self, action: int) -> State:
        """The next state; raises IllegalActionError or GameOverError (both ValueError), and
        TypeError for what is not an integer (Python's or numpy's)."""
    def is_terminal(self) -> bool: ...
    def is_truncated(self) -> bool: ...
    def is_over(self) -> bool: ...
    def winner(self) -> int | None: ...
    def outcome(self) -> str:
        """"ongoing", "south", "north", "draw" or "truncated"."""
    def returns(self) -> tuple[float, float]: ...
    def observation(self, player: int | None = None) -> npt.NDArray[np.float32]: ...
    def render(self) -> str: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __copy__(self) -> State: ...
    def __deepcopy__(self, memo: Any) -> State: ...

class SelfPlayVec:
    """The native batch behind ``sowing.vector.SelfPlayVec`` (which returns named tuples).
    ``num_envs`` is 1 to 2**20, ``threads`` 0 to 256, ``random_opening`` 0 to 100 (and below
    ``max_plies``); a batch larger than the memory available raises ``MemoryError``."""

    def __new__(
        cls,
        variant: str | Rules,
        num_envs: int,
        seed: int = 0,
        autoreset: str = "same-step",
        threads: int = 0,
        random_opening: int = 0,
    ) -> SelfPlayVec: ...
    def reset(
        self, seed: int | None = None, reset_mask: npt.NDArray[np.bool_] | None = None
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_], npt.NDArray[np.int64]]: ...
    def step(
        self, actions: npt.NDArray[np.int64] | npt.NDArray[np.int32] | list[int]
    ) -> tuple[
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        npt.NDArray[np.int64],
    ]: ...
    def final_observations(self) -> npt.NDArray[np.float32]: ...
    def sample_actions(self) -> npt.NDArray[np.int64]: ...
    def state(self, index: int) -> State: ...
    def close(self) -> None:
        """Free the games and threads; later calls raise ``ValueError``."""
    @property
    def closed(self) -> bool: ...
    @property
    def num_envs(self) -> int: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def autoreset(self) -> str: ...
    def __len__(self) -> int: ...

class Agent:
    """The class of every agent (``sowing.Agent``). Made from a spec (random, greedy,
    alphabeta:DEPTH|TIME, mcts:SIMS|TIME: its text, or its fields as ``parse_agent_spec`` gives
    them), a search agent; ``NetworkAgent`` is a subclass."""

    def __new__(cls, spec: str | dict[str, Any], seed: int = 0) -> Self: ...
    def choose(self, state: State) -> int:
        """A legal action for ``state``, searched with the GIL released; Ctrl-C stops the
        search (``KeyboardInterrupt``)."""
    def __call__(self, state: State) -> int: ...
    def seed(self, seed: int) -> None: ...
    def new_game(self) -> None: ...
    @property
    def current_seed(self) -> int: ...
    @property
    def name(self) -> str: ...
    def __deepcopy__(self, memo: Any) -> Agent: ...
    def __copy__(self) -> Agent: ...

@final
class Proof:
    """What ``solve`` proved about a position, for the player to move."""

    @property
    def winning_action(self) -> int | None:
        """An action that forces a win, or None when none was found within the budget."""
    @property
    def win_within(self) -> int | None:
        """The plies within which ``winning_action`` wins (it included)."""
    @property
    def losing_actions(self) -> list[int]:
        """The actions proven to lose: after each, the opponent forces a win."""
    @property
    def lost(self) -> bool:
        """True when every legal action is proven to lose."""
    @property
    def depth(self) -> int:
        """The deepest search completed, in plies."""
    @property
    def nodes(self) -> int:
        """Positions made."""
    def __new__(
        cls,
        winning_action: int | None,
        win_within: int | None,
        losing_actions: list[int],
        lost: bool,
        depth: int,
        nodes: int,
    ) -> Self:
        """A proof from its fields (as ``repr`` and pickle give them)."""

def play_match(
    variant: str | Rules,
    a: str,
    b: str,
    to: int,
    seed: int,
    opening: int,
    games_per_estimate: int,
    max_games: int | None,
    threads: int,
) -> str:
    """A series between ``a`` and ``b`` to ``to`` wins; the report as JSON (``sowing.agents.play_match``)."""

def series_odds(
    to: int, a_south: tuple[float, float, float], a_north: tuple[float, float, float]
) -> tuple[float, float, float, float | None]:
    """``(a_wins, b_wins, never_ends, expected_games)`` of a series (``sowing.agents.series_odds``)."""

def check_memory(bytes: int, what: str) -> None:
    """Raise MemoryError when ``bytes`` more (and the headroom every request leaves) cannot be
    had now; ``what`` names the request in the message."""

def solve(state: State, nodes: int = 1_000_000, depth: int = 61, table_bits: int = 20) -> Proof:
    """Prove by exact search what ``state`` is worth to the player to move (GIL released;
    Ctrl-C stops it with ``KeyboardInterrupt``). ``depth`` is 1 to 999 plies, ``table_bits``
    10 to 30; a table larger than the memory available raises ``MemoryError``."""

@final
class Probe:
    """What a tablebase knows of a position, for the player to move."""

    @property
    def value(self) -> int:
        """The perfect-play margin: seeds the mover captures from here on minus the opponent's."""
    @property
    def endless(self) -> bool:
        """Perfect play never ends (the value is then 0)."""
    @property
    def final_margin(self) -> int:
        """Captures of the mover minus the opponent's at the end of perfect play, earlier ones
        included (where play never ends, the difference it stays at)."""
    @property
    def result(self) -> Literal["win", "draw", "loss"]:
        """The perfect-play result for the mover, endless play counted as a draw (a truncated
        game has no winner)."""
    @property
    def low(self) -> int | None:
        """The margin the mover forces when endless play counts as the worst for them; ``None``
        when they cannot force an end."""
    @property
    def high(self) -> int | None:
        """The margin the mover forces when endless play counts as the best for them; ``None``
        when the opponent cannot force an end."""
    def __new__(
        cls,
        value: int,
        endless: bool,
        final_margin: int,
        result: Literal["win", "draw", "loss"],
        low: int | None = None,
        high: int | None = None,
    ) -> Self:
        """A probe's answer from its fields (as ``repr`` and pickle give them)."""
    def __eq__(self, other: object) -> bool: ...

class Tablebase:
    """The exact value of every position with at most ``max_seeds`` seeds on the board
    (docs/tablebase.md). ``Tablebase(path)`` reads a file, checking all of it (a damaged file is
    a ``ValueError`` naming it); with ``rules``, a table of rules whose game tree differs is
    refused too. The file is mapped read-only (``mmap=True``, the default), so processes that
    open one table share one copy of it; ``mmap=False`` reads it into memory of this process's
    own. Reading, building and writing release the GIL. A copy holds the values in memory of its
    own; a pickle names the file, which the copy opens (mapped) and checks (a table never written
    cannot be pickled: ``TypeError``)."""

    def __new__(
        cls,
        path: str | os.PathLike[str],
        rules: str | Rules | None = None,
        mmap: bool = True,
    ) -> Self: ...
    @property
    def mapped(self) -> bool:
        """Whether the values are the file mapped read-only, shared with other processes."""
    @staticmethod
    def build(
        variant: str | Rules,
        max_seeds: int,
        path: str | os.PathLike[str] | None = None,
        threads: int | None = None,
    ) -> Tablebase:
        """Solve every position with at most ``max_seeds`` seeds (``MemoryError`` when the
        machine lacks the memory), and write it to ``path`` if given."""
    def write(self, path: str | os.PathLike[str]) -> None:
        """Write the table, atomically (a temporary file, then renamed)."""
    def next_layer_len(self) -> int:
        """The positions of the next layer, of ``max_seeds + 1`` seeds."""
    def layer_part(self, first: int, count: int) -> bytes:
        """The moves of positions ``first .. first + count`` of the next layer, sown and their
        captures valued from this table, as bytes for ``extend`` (a worker's part of a layer's
        build; ``sowing.ray.tablebase``)."""
    def extend(self, parts: list[bytes], threads: int | None = None) -> Tablebase:
        """This table with its next layer, joined from ``layer_part``'s parts covering it in
        order: the table a build to one more seed makes, byte for byte. Damaged parts, parts of
        another table, gaps and overlaps are a ``ValueError``."""
    def value(self, state: State) -> int | None:
        """The perfect-play margin for the player to move; 0 for a game that is over; ``None``
        above ``max_seeds`` seeds on the board. A state of other rules is a ``ValueError``."""
    def probe(self, state: State) -> Probe | None:
        """``value``, whether perfect play never ends, and the final margin."""
    def move_values(self, state: State) -> dict[int, int] | None:
        """Each legal action's value for the mover; the best of them is ``value(state)``."""
    @property
    def max_seeds(self) -> int: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def path(self) -> pathlib.Path | None:
        """The file the table was read from or last written to."""
    def __len__(self) -> int: ...
    def __copy__(self) -> Tablebase: ...
    def __deepcopy__(self, memo: Any) -> Tablebase: ...

# The batched search of sowing.search (see search.py for the documented wrappers).

class LinearEvaluator:
    """A linear policy ``obs @ policy`` and value ``tanh(obs @ value)`` evaluated in Rust."""

    def __new__(cls, policy: Any, value: Any, lookahead: bool = True) -> Self: ...
    @property
    def holes(self) -> int: ...
    @property
    def lookahead(self) -> bool: ...
    @property
    def policy(self) -> npt.NDArray[np.float32]:
        """A copy of the policy weights ``[D, n]``."""
    @property
    def value(self) -> npt.NDArray[np.float32]:
        """A copy of the value weights ``[D]``."""

def search_defaults() -> dict[str, Any]:
    """The search's keywords (the Rust ``SearchSpec``: simulations, c_puct, dirichlet_alpha,
    noise_fraction, leaf_batch, root, considered, c_visit, c_scale, time) and their defaults."""

def self_play_defaults() -> dict[str, Any]:
    """``self_play``'s keywords (the Rust ``SelfPlayConfig``: the search's, root noise on, and
    temperature_plies, opening_plies, value_mix, margin_weight, lookahead, full_fraction,
    fast_simulations)
    and their defaults."""

class Search:
    def __new__(cls, evaluate: Any, lookahead: bool, **search: Any) -> Self:
        """``search``: the keywords of ``search_defaults()``, checked in Rust."""
    def run(
        self, states: list[State], seed: int, trees: list[int] | None = None
    ) -> tuple[
        npt.NDArray[np.int64],
        npt.NDArray[np.float32],
        npt.NDArray[np.float32],
        npt.NDArray[np.int64],
        npt.NDArray[np.float32] | None,
    ]: ...
    def clear(self) -> None: ...

class NetworkAgent(Agent):
    def __new__(
        cls,
        name: str | None,
        evaluate: Any,
        holes: int,
        lookahead: bool,
        solver_nodes: int,
        seed: int,
        **search: Any,
    ) -> Self:
        """``search``: the keywords of ``search_defaults()`` (noise off); with ``time`` and no
        ``simulations`` the time alone ends a move's search."""
    def choose(self, state: State) -> int: ...
    def explain(self, state: State) -> tuple[int, float, list[int], list[int]]:
        """The move ``choose`` plays, its root value, principal line and root visits."""
    @property
    def search(self) -> dict[str, Any]: ...
    def seed(self, seed: int) -> None: ...
    def new_game(self) -> None: ...
    @property
    def current_seed(self) -> int: ...
    @property
    def name(self) -> str: ...
    def __call__(self, state: State) -> int: ...

def self_play(
    variant: str | Rules,
    evaluate: Any,
    games: int,
    first_game: int,
    seed: int,
    iteration: int,
    parallel_games: int,
    threads: int,
    **config: Any,
) -> tuple[
    npt.NDArray[np.float32],
    npt.NDArray[np.bool_],
    npt.NDArray[np.float32],
    npt.NDArray[np.float32],
    npt.NDArray[np.int64],
    int,
]: ...
def network_match(
    variant: str | Rules,
    agent: NetworkAgent,
    opponent: str,
    games: int,
    seed: int,
    opening: int,
    threads: int,
) -> tuple[int, int, int]: ...
def rate_round_robin(
    variant: str | Rules, names: list[str], games: int, seed: int, opening: int, threads: int
) -> list[float]: ...
def elo_against(results: list[tuple[float, float, int]], z: float) -> tuple[float, float]: ...

class PositionsLabelling:
    """How ``sowing positions`` draws exact test positions from games between two agents and
    labels them (docs/exact.md, section 2), checked when made (``ValueError`` naming what was
    wrong). Unset arguments take ``sowing positions``' defaults (``positions_defaults()``)."""

    def __new__(
        cls,
        variant: str | Rules | None = None,
        *,
        rules_file: str | os.PathLike[str] | None = None,
        seed: int | None = None,
        agents: list[str] | None = None,
        opening: int | None = None,
        nodes: int | None = None,
        table_bits: int | None = None,
        tablebase: str | os.PathLike[str] | None = None,
        mid_game: int | None = None,
        phases: str | None = None,
    ) -> Self:
        """``phases="LOW-HIGH"`` draws only from positions with LOW% up to HIGH% of the start's
        seeds on the board (``sowing positions --phases``), not with ``mid_game``."""
    def label(self, start: int, end: int, threads: int | None = None) -> str:
        """Play games ``start..end`` (at most 1,000,000) on ``threads`` threads (default 1, 0:
        one per core), draw a position from each and label it: the outcomes as text for
        ``PositionsCollector.add``. The GIL is released; a Ctrl-C stops it."""
    def collector(self, count: int, out: str | os.PathLike[str]) -> PositionsCollector:
        """A collector of ``count`` positions for the file ``out`` (checked now)."""

class PositionsCollector:
    """Deals game numbers in the batches ``sowing positions`` plays and merges the outcomes, in
    game order, into its file."""

    kept: int
    full: bool
    games: int
    def next_games(self) -> tuple[int, int] | None:
        """The next batch ``(start, end)``, or ``None`` once full; ``ValueError`` saying what to
        give when too few positions settle."""
    def add(self, outcomes: str) -> None:
        """Take ``PositionsLabelling.label``'s outcomes, in game order."""
    def finish(self) -> str:
        """Write the file (the Rust writer) and return the figures as JSON."""

def positions_defaults() -> dict[str, int | str]: ...

class SubtreeSplit:
    """A position's exact result cut into independent searches (docs/exact.md, section 2): the
    tree unrolled ``depth`` plies (1 to 6, default 2), its distinct positions there (the
    frontier) settled each on its own by the result search, anywhere, and the root's result and
    each root move's combined from theirs by minimax. The same state and settings give the same
    frontier in any process. ``ValueError`` when the game is over or the frontier would hold more
    than 2**20 positions."""

    depth: int
    nodes: int
    def __new__(
        cls,
        state: State,
        depth: int | None = None,
        *,
        nodes: int | None = None,
        table_bits: int | None = None,
        tablebase: str | os.PathLike[str] | None = None,
    ) -> Self: ...
    def __len__(self) -> int:
        """Positions on the frontier."""
    def positions(self, start: int, end: int) -> list[State]:
        """Frontier positions ``start..end``."""
    def settle(self, start: int, end: int, threads: int | None = None) -> list[str | None]:
        """Settle frontier positions ``start..end`` on ``threads`` threads (default 1, 0: one
        per core), each within ``nodes`` positions by a search cleared first: 'win', 'draw' or
        'loss' for its mover, None where not settled. The GIL is released; a Ctrl-C stops it
        between positions."""
    def combine(self, results: list[str | None]) -> dict:
        """``{"result", "moves": [{"action", "result"}], "settled", "frontier"}`` for the root's
        mover from one result per frontier position (None: not settled); a result is None where
        it depends on an unsettled position."""

# Checkpoints and training settings: the Rust implementation of `sowing train`'s (checkpoint.rs).
class CheckpointError(ValueError):
    """A checkpoint that is missing, damaged, or does not fit; the message names the file."""

RESUME_CHANGES: list[str]
"""The settings a resumed run takes from its command line (budget, threads, retention)."""
CHECKPOINT_TRAINER: str
"""The Ray trainer's state file in a checkpoint (``trainer.pt``)."""

def read_checkpoint(path: str | os.PathLike[str]) -> tuple[str, dict[str, Any], dict[str, np.ndarray]]: ...
def write_checkpoint(
    run: str | os.PathLike[str],
    meta: dict[str, Any],
    weights: dict[str, Any],
    files: dict[str, bytes] | None = None,
    keep_last: int | None = None,
    keep_every: int = 0,
) -> str: ...
def newest_checkpoint(run: str | os.PathLike[str]) -> str | None: ...
def resolve_checkpoint(path: str | os.PathLike[str]) -> str: ...
def train_config(
    settings: dict[str, Any] | None = None, file: str | os.PathLike[str] | None = None
) -> dict[str, Any]: ...
def train_config_names_in(file: str | os.PathLike[str]) -> list[str]: ...
def validate_train_config(settings: dict[str, Any]) -> None: ...
def run_train_config(args: dict[str, Any]) -> dict[str, Any]: ...
