#!/usr/bin/env python3
"""Exact positions labelled per second on Ray (`sowing.ray.positions`, `make bench`): the same
set made with 1 and with 2 Ray workers on a local cluster, en-dodoi-6 with a table of 16 seeds
(built here once, about a minute), the labels checked equal; the figures with the machine's load
average, since the machine may be shared. Also the memory of a worker before and after it opens
the table: the table is mapped read-only, so its pages are the file's, counted once for all the
workers of a machine (the kernel's proportional share, Pss, splits them between the workers that
map them). Target: 2 workers at least 1.6x one.
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


def table_pages(path: str) -> dict[str, int]:
    """kB of the mapping of `path` in this process: resident, proportional share, private."""
    name, inside, seen = str(Path(path).resolve()), False, {"Rss": 0, "Pss": 0, "Private": 0}
    smaps = Path("/proc/self/smaps")
    if not smaps.exists():
        return seen
    for line in smaps.read_text().splitlines():
        first = line.split()[0]
        if "-" in first and not first.endswith(":"):
            inside = line.endswith(name)
        elif inside and first in ("Rss:", "Pss:"):
            seen[first[:-1]] += int(line.split()[1])
        elif inside and first in ("Private_Clean:", "Private_Dirty:"):
            seen["Private"] += int(line.split()[1])
    return seen


@ray.remote(num_cpus=1)
def worker_memory(settings: dict) -> tuple[int, int, dict[str, int]]:
    """Peak resident memory of a worker (kB) before and after it opened the table and labelled,
    and what of it is the table's mapping."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    positions._labelling(settings).label(0, 2)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return before, after, table_pages(settings["tablebase"])


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
    two, file2, mem2 = run(settings, args.count, 2, work / "two.jsonl")
    assert file1 == file2, "1 and 2 workers wrote different files"
    ok = two / one >= 1.6
    print(f"Ray position labelling, {args.count} positions (default agents and --nodes): 1 worker "
          f"{one:.1f} positions/s, 2 workers {two:.1f}: {two / one:.2f}x (target >= 1.6) "
          f"{'ok' if ok else 'MISSED'}; files equal [load {load()}]")
    print(f"a worker's peak memory: {mem[0] / 1024:.0f} MB before the table, {mem[1] / 1024:.0f} MB "
          f"after opening it and labelling, of which the mapped table {mem[2]['Rss'] / 1024:.0f} MB "
          f"resident, {mem[2]['Private'] / 1024:.0f} MB private; with 2 workers each one's share "
          f"of the table (Pss) is {mem2[2]['Pss'] / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
