#!/usr/bin/env python3
"""Exact positions labelled per second on Ray (`sowing.ray.positions`, `make bench`): the same
set made with 1 and with 2 Ray workers on a local cluster, en-dodoi-6 with a table of 16 seeds
(built here once, about a minute), the labels checked equal; the figures with the machine's load
average, since the machine may be shared. Also the memory of a worker before and after it reads
the table (each worker reads the file into its own memory). Target: 2 workers at least 1.6x one.
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

import ray

import sowing
from sowing.ray import positions

ROOT = Path(__file__).resolve().parent.parent


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


@ray.remote(num_cpus=1)
def worker_memory(settings: dict) -> tuple[int, int]:
    """Peak resident memory of a worker (kB) before and after it opened the table and labelled."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    positions._labelling(settings).label(0, 2)
    return before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def run(settings: dict, count: int, workers: int, out: Path) -> tuple[float, bytes, tuple]:
    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    try:
        # Every worker started, its table read, before the clock starts.
        memory = ray.get([worker_memory.remote(settings) for _ in range(workers)])
        collector = sowing.PositionsLabelling(**settings).collector(count, str(out))
        start = time.perf_counter()
        positions.collect(settings, collector, workers)
        seconds = time.perf_counter() - start
        collector.finish()
        return count / seconds, out.read_bytes(), memory[0]
    finally:
        ray.shutdown()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--count", type=int, default=300)
    p.add_argument("--max-seeds", type=int, default=16)
    args = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="sowing-bench-positions-"))
    table = work / f"en-dodoi-6-{args.max_seeds}.tb"
    start = time.perf_counter()
    sowing.Tablebase.build("en-dodoi-6", args.max_seeds, path=table)
    print(f"table of en-dodoi-6 to {args.max_seeds} seeds: {table.stat().st_size:,} bytes, built in "
          f"{time.perf_counter() - start:.0f} s [load {load()}]")
    settings = {"variant": "en-dodoi-6", "tablebase": str(table), "seed": 1}
    one, file1, mem = run(settings, args.count, 1, work / "one.jsonl")
    two, file2, _ = run(settings, args.count, 2, work / "two.jsonl")
    assert file1 == file2, "1 and 2 workers wrote different files"
    ok = two / one >= 1.6
    print(f"Ray position labelling, {args.count} positions (default agents and --nodes): 1 worker "
          f"{one:.1f} positions/s, 2 workers {two:.1f}: {two / one:.2f}x (target >= 1.6) "
          f"{'ok' if ok else 'MISSED'}; files equal [load {load()}]")
    print(f"a worker's peak memory: {mem[0] / 1024:.0f} MB before the table, {mem[1] / 1024:.0f} MB "
          f"after reading it and labelling")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
