"""Exact test positions labelled on a Ray cluster: ``sowing positions`` with its games dealt to
Ray tasks, for the same file byte for byte.

The work of a game (play it between the two agents, draw one position, label it from the
tablebase or by the exact result search) is Rust's (``sowing_eval::labelling``), fixed by the
seed and the game's number, so it may run anywhere. The driver asks a ``PositionsCollector``
for each batch of game numbers (the batches ``sowing positions`` plays), cuts it into parts,
keeps ``--workers`` tasks running, feeds their outcomes back in game order and stops dealing
once ``--count`` positions are labelled; the collector writes the file through the Rust writer.
Each task makes its own ``PositionsLabelling``, which opens the tablebase from its path once
per worker process, memory-mapped read-only, so the workers of a machine share one copy in the
page cache (docs/scaling.md).

``python -m sowing.ray.positions --variant en-dodoi-6 --count 200 --out p.jsonl --workers 2``
runs on a local cluster started for the run; ``--address auto`` joins a running one (the path
of ``--tablebase`` must then name the file on every machine).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import ray

from sowing import _sowing

DEFAULTS = _sowing.positions_defaults()

#: Parts each batch is cut into per worker: small enough that a slow part holds no one back.
PARTS_PER_WORKER = 4

_labellings: dict[str, _sowing.PositionsLabelling] = {}


def _labelling(settings: dict) -> _sowing.PositionsLabelling:
    """The labelling of ``settings``, made once per worker process (the tablebase read once)."""
    key = json.dumps({k: str(v) for k, v in settings.items()}, sort_keys=True)
    if key not in _labellings:
        _labellings[key] = _sowing.PositionsLabelling(**settings)
    return _labellings[key]


@ray.remote(num_cpus=1)
def label_part(settings: dict, start: int, end: int) -> str:
    """The outcomes of games ``start..end``, labelled on one thread."""
    return _labelling(settings).label(start, end, threads=1)


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m sowing.ray.positions",
        description="sowing positions with the games dealt to Ray tasks: the same file.",
    )
    which = p.add_mutually_exclusive_group()
    which.add_argument("--variant", help=f"preset (default {DEFAULTS['variant']})")
    which.add_argument("--rules", type=Path, metavar="FILE", help="rules file (JSON or TOML)")
    p.add_argument("--count", type=int, required=True, help="labelled positions to write")
    p.add_argument("--seed", type=int, default=None, help="seed of the games (default 0)")
    p.add_argument("--out", type=Path, required=True, metavar="FILE", help="the file to write")
    p.add_argument("--tablebase", type=Path, metavar="FILE", help="a tablebase of these rules")
    p.add_argument(
        "--agents",
        default=None,
        help=f"the two agents, comma-separated (default {DEFAULTS['agents']})",
    )
    p.add_argument("--opening", type=int, default=None, help=f"random moves first (default {DEFAULTS['opening']})")
    p.add_argument("--nodes", type=int, default=None, help=f"search budget per position (default {DEFAULTS['nodes']})")
    p.add_argument("--table-bits", type=int, default=None, help=f"2^BITS slots per search (default {DEFAULTS['table_bits']})")
    p.add_argument("--mid-game", type=int, default=None, help="percent of games drawn from just past half the seeds (default 0)")
    p.add_argument("--phases", default=None, metavar="LOW-HIGH", help="draw only from LOW%%..HIGH%% of the start's seeds on the board")
    p.add_argument("--address", default=None, help="Ray cluster to join (`auto`: a running one); default: a local one for the run")
    p.add_argument("--workers", type=int, default=2, help="tasks running at once (default 2)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    return p.parse_args(argv)


def settings_of(args: argparse.Namespace) -> dict:
    """The keyword arguments of ``PositionsLabelling`` for these flags (unset: Rust's default)."""
    s: dict = {}
    if args.rules is not None:
        s["rules_file"] = str(args.rules)
    elif args.variant is not None:
        s["variant"] = args.variant
    if args.agents is not None:
        s["agents"] = args.agents.split(",")
    for key in ("seed", "opening", "nodes", "table_bits", "mid_game", "phases"):
        if getattr(args, key) is not None:
            s[key] = getattr(args, key)
    if args.tablebase is not None:
        s["tablebase"] = str(args.tablebase)
    return s


def parts(start: int, end: int, n: int) -> list[tuple[int, int]]:
    """``start..end`` cut into at most ``n`` consecutive parts of nearly equal size."""
    n = max(1, min(n, end - start))
    size, extra = divmod(end - start, n)
    out, at = [], start
    for i in range(n):
        step = size + (i < extra)
        out.append((at, at + step))
        at += step
    return out


def collect(settings: dict, collector: _sowing.PositionsCollector, workers: int) -> None:
    """Deal the collector's batches to Ray tasks, ``workers`` at a time, and feed it their
    outcomes in game order until it is full."""
    while (games := collector.next_games()) is not None:
        todo = parts(*games, PARTS_PER_WORKER * workers)
        running: list = []  # in game order
        while (todo or running) and not collector.full:
            while todo and len(running) < workers:
                running.append(label_part.remote(settings, *todo.pop(0)))
            collector.add(ray.get(running.pop(0)))
        for ref in running:
            ray.cancel(ref)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.workers < 1:
        print("error: --workers must be at least 1", file=sys.stderr)
        return 2
    settings = settings_of(args)
    try:
        labelling = _sowing.PositionsLabelling(**settings)
        collector = labelling.collector(args.count, str(args.out))
    except (ValueError, TypeError, MemoryError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    own = args.address is None
    if own:
        ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
    elif not ray.is_initialized():
        ray.init(address=args.address, include_dashboard=False, log_to_driver=False)
    try:
        collect(settings, collector, args.workers)
        report = json.loads(collector.finish())
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    finally:
        if own:
            ray.shutdown()
    report = {"file": str(args.out), **report, "seconds": time.perf_counter() - started}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"{report['count']} positions written to {args.out} ({report['dropped']} dropped "
            f"unsettled, {report['duplicates']} duplicates left out; {report['games']} games, "
            f"{report['seconds']:.1f} s on {args.workers} Ray workers)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
