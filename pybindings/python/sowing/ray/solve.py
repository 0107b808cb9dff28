"""A position's exact result with its subtrees settled on a Ray cluster.

The tree is unrolled ``--depth`` plies from the position (the start, or the one ``--moves``
reach); the distinct positions there, the frontier, are cut into parts that Ray tasks settle
with the exact result search, each within ``--nodes`` positions and a search cleared before
each position, so a result does not depend on which worker settled it. The driver combines them
by minimax (Rust's ``sowing_exact::split``): the root's result for its mover and each root
move's. The frontier is fixed by the position and the depth, so every task rebuilds it itself
and settles its range; a tablebase is opened from its path once per worker process and
memory-mapped, so the workers of a machine share one copy.

``python -m sowing.ray.solve --variant en-dodoi-6 --depth 2 --tablebase t.tb --workers 2``
runs on a local cluster started for the run; ``--address auto`` joins a running one (the path
of ``--tablebase`` must then name the file on every machine). ``--workers 0`` settles the
frontier in this process, on one thread: the reference the cluster's answer equals.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from sowing import Rules, State, SubtreeSplit, _sowing

DEFAULTS = _sowing.positions_defaults()

#: Parts the frontier is cut into per worker: small enough that a slow part holds no one back.
PARTS_PER_WORKER = 8

_splits: dict[str, SubtreeSplit] = {}


def root_of(rules: dict | str, moves: list[int]) -> State:
    """The position ``moves`` reach from the start of ``rules`` (a preset name or a rules dict)."""
    state = State.initial(rules if isinstance(rules, str) else Rules.from_dict(rules))
    for a in moves:
        state = state.play(a)
    return state


def split_of(settings: dict) -> SubtreeSplit:
    """The split of ``settings``, made once per worker process (its frontier unrolled once)."""
    key = json.dumps(settings, sort_keys=True)
    if key not in _splits:
        s = dict(settings)
        root = root_of(s.pop("rules"), s.pop("moves"))
        _splits[key] = SubtreeSplit(root, s.pop("depth"), **s)
    return _splits[key]


def settle_part(settings: dict, start: int, end: int) -> list[str | None]:
    """The results of frontier positions ``start..end``, on one thread."""
    return split_of(settings).settle(start, end, threads=1)


def settle_on_ray(settings: dict, count: int, workers: int) -> list[str | None]:
    """Every frontier result, the parts dealt to Ray tasks, ``workers`` at a time."""
    import ray

    # By reference to the installed module (not this file's __main__), so that workers import it
    # and keep their own splits.
    from sowing.ray import solve as module
    from sowing.ray.positions import parts

    remote = ray.remote(num_cpus=1)(module.settle_part)
    todo = parts(0, count, PARTS_PER_WORKER * workers)
    refs = [remote.remote(settings, a, b) for a, b in todo]
    results: list[str | None] = []
    for ref in refs:
        results.extend(ray.get(ref))
    return results


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m sowing.ray.solve",
        description="A position's exact result, its subtrees settled on Ray tasks.",
    )
    which = p.add_mutually_exclusive_group()
    which.add_argument("--variant", default=None, help="preset (default en-dodoi-6)")
    which.add_argument("--rules", type=Path, metavar="FILE", help="rules file (JSON or TOML)")
    p.add_argument(
        "--moves",
        default="",
        help="moves from the start to the position, comma-separated (default: the start)",
    )
    p.add_argument("--depth", type=int, default=2, help="plies unrolled before the searches (1 to 6, default 2)")
    p.add_argument("--tablebase", type=Path, metavar="FILE", help="a tablebase of these rules")
    p.add_argument("--nodes", type=int, default=None, help=f"search budget per frontier position (default {DEFAULTS['nodes']})")
    p.add_argument("--table-bits", type=int, default=None, help=f"2^BITS slots per search (default {DEFAULTS['table_bits']})")
    p.add_argument("--address", default=None, help="Ray cluster to join (`auto`: a running one); default: a local one for the run")
    p.add_argument("--workers", type=int, default=2, help="tasks running at once (default 2; 0: here, one thread)")
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    return p.parse_args(argv)


def settings_of(args: argparse.Namespace) -> dict:
    """What every task needs to make the same split: rules, moves, depth and search settings."""
    if args.rules is not None:
        rules = Rules.from_file(args.rules).to_dict()
    else:
        rules = args.variant or "en-dodoi-6"
    try:
        moves = [int(m) for m in args.moves.split(",") if m.strip()]
    except ValueError:
        raise ValueError(f"--moves takes actions separated by commas, got {args.moves!r}") from None
    s: dict = {"rules": rules, "moves": moves, "depth": args.depth}
    if args.nodes is not None:
        s["nodes"] = args.nodes
    if args.table_bits is not None:
        s["table_bits"] = args.table_bits
    if args.tablebase is not None:
        s["tablebase"] = str(args.tablebase)
    return s


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.workers < 0:
        print("error: --workers must be 0 (here) or more", file=sys.stderr)
        return 2
    try:
        settings = settings_of(args)
        split = split_of(settings)
        if args.tablebase is not None:
            # Opened and checked against the rules here, before any task starts.
            split.settle(0, 0)
    except (OSError, ValueError, TypeError, MemoryError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    if args.workers == 0:
        results = split.settle(0, len(split), threads=1)
    else:
        import ray

        own = args.address is None
        if own:
            ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
        elif not ray.is_initialized():
            ray.init(address=args.address, include_dashboard=False, log_to_driver=False)
        try:
            results = settle_on_ray(settings, len(split), args.workers)
        finally:
            if own:
                ray.shutdown()
    answer = split.combine(results)
    answer["depth"] = args.depth
    answer["seconds"] = time.perf_counter() - started
    if args.json:
        print(json.dumps(answer, indent=2))
    else:
        moves = ", ".join(f"{m['action']}: {m['result'] or 'not settled'}" for m in answer["moves"])
        print(
            f"{answer['result'] or 'not settled'} for the player to move ({moves}); "
            f"{answer['settled']} of {answer['frontier']} positions {args.depth} plies deep "
            f"settled, {answer['seconds']:.1f} s"
            + (f" on {args.workers} Ray workers" if args.workers else " here")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
