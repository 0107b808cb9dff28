#!/usr/bin/env python3
"""Table layers sown per second on Ray (`sowing.ray.tablebase`, `make bench`): en-dodoi-6 to 16
seeds (layers to 8 built in the driver), first with 1 Ray worker, then with 2, on a local cluster;
the files checked equal to a plain build's, and the seconds of the layers of 13 to 16 seeds given
apart for sowing their parts (on the workers) and joining them (the driver), with the machine's
load average, since the machine may be shared. Target: 2 workers sow at least 1.6x as fast as
one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import ray

import sowing
from sowing.ray import tablebase


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    rules = sowing.Rules.preset("en-dodoi-6")
    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / "plain.tb"
        sowing.Tablebase.build(rules, 16, path=plain)
        seconds, same = {}, True
        for workers in (1, 2):
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
            layers: list[tuple[int, float, float]] = []
            out = Path(tmp) / f"ray-{workers}.tb"
            try:
                tablebase.build(rules, 16, out, workers, 8, progress=lambda k, s, j: layers.append((k, s, j)))
            finally:
                ray.shutdown()
            same &= out.read_bytes() == plain.read_bytes()
            top = [layer for layer in layers if layer[0] >= 13]
            seconds[workers] = (sum(s for _, s, _ in top), sum(j for _, _, j in top))
        ratio = seconds[1][0] / seconds[2][0]
        print(
            f"Ray table build, en-dodoi-6 to 16 seeds, layers 13-16: sown in {seconds[1][0]:.2f} s "
            f"on 1 worker, {seconds[2][0]:.2f} s on 2: {ratio:.2f}x (target >= 1.6) "
            f"{'ok' if ratio >= 1.6 else 'BELOW'}; joined on the driver in {seconds[1][1]:.2f} s and "
            f"{seconds[2][1]:.2f} s; files {'equal to a plain build' if same else 'DIFFER'} [load {load()}]"
        )


if __name__ == "__main__":
    main()
