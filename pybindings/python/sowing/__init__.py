"""Sowing: the relay-sowing mancala games of East Africa (En Dodoi, Sadeqa III, Cross-Endodoi)
as fast, exact reinforcement-learning environments, over a Rust engine.

- ``Rules``, ``State``, ``variants()``: the game itself (``State`` is immutable; ``play``
  returns the next state).
- ``gymnasium.make("sowing/<preset>-v0", opponent="random")``: one side against an opponent
  (registered on import, with ``gymnasium.make_vec`` giving ``sowing.vector.VecEnv``); see
  ``sowing.env``.
- ``sowing.vector.SelfPlayVec``: many games of self-play stepped in Rust, the fast path;
  ``sowing.vector.VecEnv``: a Gymnasium vector env.
- ``sowing.pettingzoo.env(variant)``: the two-player game as a PettingZoo AEC env.
- ``sowing.Agent``: the class of every agent (``choose(state)``, ``seed``, ``new_game``,
  ``name``; copied and pickled); ``sowing.agents``: the Rust search agents
  (``AlphaBeta(depth=6)``, ``from_spec("mcts:1000")``), ``sowing.search.NetworkAgent`` the
  network's.
- ``sowing.search``: the Rust batched PUCT search with leaves valued by a Python network
  (``search``, ``self_play``, ``NetworkAgent``); ``sowing.nn``: the network of ``sowing train``
  in PyTorch, loading its checkpoints (needs torch); ``sowing.ray``: self-play on Ray (needs
  ray).
- ``Tablebase``: exact values of every position with few seeds on the board
  (``Tablebase(path).value(state)``, ``Tablebase.build(variant, max_seeds, path)``).

Players are numbered 0 (South, moves first) and 1 (North). ``State.board`` uses the absolute
hole numbering of RULES.md; actions are relative to the mover, ``0..n`` from the mover's left.
"""

from ._sowing import (
    MAX_HOLES,
    Agent,
    GameOverError,
    IllegalActionError,
    PositionsCollector,
    PositionsLabelling,
    SubtreeSplit,
    Probe,
    Rules,
    State,
    Tablebase,
    __version__,
    variant_source,
    variants,
)
from . import vector
from .env import SowingEnv, register_envs

SOUTH = 0
NORTH = 1

__all__ = [
    "MAX_HOLES",
    "NORTH",
    "SOUTH",
    "Agent",
    "GameOverError",
    "IllegalActionError",
    "PositionsCollector",
    "PositionsLabelling",
    "SubtreeSplit",
    "Probe",
    "Rules",
    "SowingEnv",
    "State",
    "Tablebase",
    "__version__",
    "variant_source",
    "variants",
    "vector",
]


def __getattr__(name: str) -> object:
    # These load on first use: PettingZoo, torch and ray are optional dependencies.
    if name in ("agents", "pettingzoo", "search", "nn", "ray"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'sowing' has no attribute {name!r}")


register_envs()
