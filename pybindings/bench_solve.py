#!/usr/bin/env python3
"""Subtrees settled per second on Ray (`sowing.ray.solve`, `make bench`): en-dodoi-6's start
unrolled 3 plies, its frontier settled by the result search with a table of 16 seeds (built here
once, about a minute), first with 1 Ray worker, then with 2, on a local cluster; the answers
checked equal, and the figures given with the machine's load average, since the machine may be
shared. Target: 2 workers at least 1.6x one.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import ray

import sowing
from sowing import State, SubtreeSplit
from sowing.ray import solve


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--depth", type=int, default=3, help="plies unrolled (default 3)")
    p.add_argument("--tablebase", type=Path, help="a table of en-dodoi-6 (default: build one of 16 seeds)")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        table = args.tablebase or Path(tmp) / "en-dodoi-6-16.tb"
        if args.tablebase is None:
            sowing.Tablebase.build("en-dodoi-6", 16, path=table)
        settings = {"rules": "en-dodoi-6", "moves": [], "depth": args.depth, "tablebase": str(table)}
        split = SubtreeSplit(State.initial("en-dodoi-6"), args.depth, tablebase=str(table))
        rates, answers = {}, {}
        for workers in (1, 2):
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
            try:
                # Each worker opens the table before the clock starts.
                ray.get([ray.remote(num_cpus=1)(solve.settle_part).remote(settings, 0, 0) for _ in range(workers)])
                started = time.perf_counter()
                results = solve.settle_on_ray(settings, len(split), workers)
                seconds = time.perf_counter() - started
            finally:
                ray.shutdown()
            answers[workers] = split.combine(results)
            rates[workers] = len(split) / seconds
        ratio = rates[2] / rates[1]
        same = answers[1] == answers[2]
        print(
            f"Ray subtree solving, en-dodoi-6's start {args.depth} plies deep ({len(split)} positions, "
            f"{answers[1]['settled']} settled, the start: {answers[1]['result']}): 1 worker "
            f"{rates[1]:.2f} positions/s, 2 workers {rates[2]:.2f}: {ratio:.2f}x (target >= 1.6) "
            f"{'ok' if ratio >= 1.6 else 'BELOW'}; answers {'equal' if same else 'DIFFER'} [load {load()}]"
        )


if __name__ == "__main__":
    main()
