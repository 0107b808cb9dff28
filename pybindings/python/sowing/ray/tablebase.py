"""A tablebase built on a Ray cluster, layer by layer: each layer's moves sown on Ray tasks.

A layer of ``k`` seeds needs the layers below it and itself: every position's moves are sown and
their captures valued from the table below (Rust's ``Tablebase.layer_part``, the half of a
layer's time that spreads), then the in-layer moves are linked and the threshold sweep values
the layer (``Tablebase.extend``), on the driver, which needs the whole layer at once. What a part
holds depends only on the table below and its range, so the file is the one ``sowing tablebase
build`` writes, byte for byte.

After each layer the driver writes the table so far to ``OUT.partial`` (atomically: a temporary,
then renamed); the tasks open it from its path, memory-mapped read-only, once per worker process
and layer, so the workers of a machine share one copy in the page cache. A run killed part way
goes on from ``OUT.partial`` when started again with the same rules, and gives the same file.
The first layers (to ``--local-seeds``, small ones whose parts would cost more to send than to
sow) are built in the driver.

``python -m sowing.ray.tablebase --variant en-dodoi-6 --max-seeds 14 --out t.tb --workers 2``
runs on a local cluster started for the run; ``--address auto`` joins a running one (``OUT``
must then be on a file system every machine sees, at the same path). ``--workers 0`` sows the
parts in this process, one after the other: the reference the cluster's file equals.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from sowing import Rules, Tablebase
from sowing.ray.positions import parts

#: Parts each layer is cut into per worker: small enough that a slow part holds no one back.
PARTS_PER_WORKER = 4

#: The table a worker process has open: (path, seeds) and the table.
_open: dict[tuple[str, int], Tablebase] = {}


def table_below(path: str, seeds: int) -> Tablebase:
    """The table of ``seeds`` seeds at ``path``, opened (mapped) once per worker process and
    layer; the table of the layer before is let go, since the driver has renamed a larger one
    over it."""
    key = (path, seeds)
    if key not in _open:
        _open.clear()
        table = Tablebase(path)
        if table.max_seeds != seeds:
            raise ValueError(
                f"{path} holds {table.max_seeds} seeds where the driver wrote {seeds}: "
                "another build is writing it"
            )
        _open[key] = table
    return _open[key]


def sow_part(path: str, seeds: int, first: int, count: int) -> bytes:
    """Positions ``first .. first + count`` of the layer above the table at ``path``, sown."""
    return table_below(path, seeds).layer_part(first, count)


def sow_layer(table: Tablebase, path: str, workers: int) -> list[bytes]:
    """The parts of the layer above ``table`` (written at ``path``), in order: on Ray tasks,
    ``workers`` at a time, or here when ``workers`` is 0."""
    todo = parts(0, table.next_layer_len(), PARTS_PER_WORKER * max(workers, 1))
    if workers == 0:
        return [table.layer_part(a, b - a) for a, b in todo]
    import ray

    # By reference to the installed module (not this file's __main__), so that workers import it
    # and keep their own open table.
    from sowing.ray import tablebase as module

    remote = ray.remote(num_cpus=1)(module.sow_part)
    refs = [remote.remote(path, table.max_seeds, a, b - a) for a, b in todo]
    return ray.get(refs)


def build(
    rules: Rules,
    max_seeds: int,
    out: Path,
    workers: int,
    local_seeds: int,
    threads: int = 0,
    progress=None,
) -> tuple[Tablebase, int | None]:
    """Build the table of ``rules`` to ``max_seeds`` seeds into ``out``, going on from
    ``out.partial`` where a killed run left one; returns the table and the seeds resumed from.
    ``progress(seeds, sowing, joining)`` is told each layer as it is done, with the seconds its
    parts took to sow (on the tasks) and to join and write (here)."""
    partial = Path(str(out) + ".partial")
    resumed = None
    if partial.exists():
        table = Tablebase(partial, rules=rules, mmap=False)
        if table.max_seeds > max_seeds:
            raise ValueError(
                f"{partial} holds the layers to {table.max_seeds} seeds, more than the "
                f"{max_seeds} asked for: build to {table.max_seeds} seeds or more, or remove it"
            )
        resumed = table.max_seeds
    else:
        table = Tablebase.build(rules, min(local_seeds, max_seeds), path=partial, threads=threads)
    while table.max_seeds < max_seeds:
        started = time.perf_counter()
        layer = sow_layer(table, str(partial), workers)
        sown = time.perf_counter()
        table = table.extend(layer, threads=threads)
        table.write(partial)
        if progress is not None:
            progress(table.max_seeds, sown - started, time.perf_counter() - sown)
    table.write(out)
    os.remove(partial)
    return table, resumed


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m sowing.ray.tablebase",
        description="A tablebase built layer by layer, each layer's moves sown on Ray tasks.",
    )
    which = p.add_mutually_exclusive_group()
    which.add_argument("--variant", default=None, help="preset (default en-dodoi-6)")
    which.add_argument("--rules", type=Path, metavar="FILE", help="rules file (JSON or TOML)")
    p.add_argument("--max-seeds", type=int, required=True, help="the most seeds on the board")
    p.add_argument("--out", type=Path, required=True, help="the table file to write")
    p.add_argument(
        "--local-seeds",
        type=int,
        default=8,
        help="layers built in the driver before the tasks take over (default 8)",
    )
    p.add_argument("--threads", type=int, default=0, help="the driver's threads for joining layers (default: one per core)")
    p.add_argument("--address", default=None, help="Ray cluster to join (`auto`: a running one); default: a local one for the run")
    p.add_argument("--workers", type=int, default=2, help="tasks running at once (default 2; 0: here, one after the other)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    return p.parse_args(argv)


def rules_of(args: argparse.Namespace) -> Rules:
    if args.rules is not None:
        return Rules.from_file(args.rules)
    return Rules.preset(args.variant or "en-dodoi-6")


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.workers < 0:
        print("error: --workers must be 0 (here) or more", file=sys.stderr)
        return 2
    if not 0 <= args.local_seeds <= args.max_seeds:
        print(f"error: --local-seeds must be 0 to --max-seeds ({args.max_seeds})", file=sys.stderr)
        return 2
    try:
        rules = rules_of(args)
    except (OSError, ValueError, TypeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    own = args.workers > 0 and args.address is None
    if args.workers > 0:
        import ray

        if own:
            ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
        elif not ray.is_initialized():
            ray.init(address=args.address, include_dashboard=False, log_to_driver=False)
    layers = []

    def progress(seeds: int, sowing: float, joining: float) -> None:
        layers.append({"seeds": seeds, "sowing_seconds": sowing, "joining_seconds": joining})
        if not args.json:
            print(
                f"layer of {seeds} seeds: sown in {sowing:.1f} s, joined in {joining:.1f} s",
                file=sys.stderr,
            )

    try:
        table, resumed = build(
            rules, args.max_seeds, args.out, args.workers, args.local_seeds, args.threads, progress
        )
    except (OSError, ValueError, TypeError, MemoryError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    finally:
        if own:
            import ray

            ray.shutdown()
    seconds = time.perf_counter() - started
    summary = {
        "file": str(args.out),
        "rules": rules.to_dict(),
        "max_seeds": table.max_seeds,
        "positions": len(table),
        "resumed_from": resumed,
        "workers": args.workers,
        "seconds": seconds,
        "layers": layers,
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        where = f"on {args.workers} Ray workers" if args.workers else "here"
        print(
            f"{len(table)} positions to {table.max_seeds} seeds written to {args.out} "
            f"({seconds:.1f} s, layers above {args.local_seeds} seeds sown {where})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
