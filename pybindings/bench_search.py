#!/usr/bin/env python3
"""Speed of the Rust search driven from Python (`sowing.search`, `sowing.ray`), side by side in
one run (`make bench`). Each figure is the median of `--rounds` timed rounds, printed with the
machine's load average, since the machine may be shared.

1. Python leaves against Rust leaves: 256 positions searched together, 64 simulations, the
   leaves valued by a numpy `evaluate` (`obs @ W`, `tanh(obs @ w)`) against the same search with
   `LinearEvaluator(W, w)`, the same arithmetic in Rust. Target: the Python search keeps at least
   half the simulations/s.
2. Self-play with a PyTorch network on the CPU: `sowing.search.self_play` at 64 simulations with
   `sowing.nn.PolicyValueNet` (the network of `sowing train`, 64 wide, 2 blocks), 256 games, 128
   at once, on 1 worker and on 2, against the self-play positions/s that `sowing train` reports
   (`metrics.csv`) with its defaults (the same games, one worker per core). Target: the better
   of the two Python figures at least 50%. Needs the
   `sowing` binary built with the torch feature (`make build`); the comparison is left out,
   saying so, where it is missing.
3. Ray: self-play positions/s of 2 actors against 1 on a local cluster, the same games (the
   weights from the object store, the samples back through it), and the share of the wall time
   the actors spent playing. Target: at least 1.6x on two cores. Left out, saying so, where Ray
   is not installed.
4. What scaling out moves (docs/scaling.md): the learner's AdamW steps/s on one CPU thread at
   batch 256 and 4096, for the network of en-dodoi-6 (64 wide, 2 blocks) and a larger one
   (en-dodoi-10, 128 wide, 4 blocks); the bytes of one sample and of the weights, which the
   object store carries.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import sowing
from sowing import State
from sowing.search import LinearEvaluator, Search, input_length, self_play

ROOT = Path(__file__).resolve().parent.parent
VARIANT = "en-dodoi-6"


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def median(values: list[float]) -> float:
    return float(np.median(values))


def positions(count: int, seed: int) -> list[State]:
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        s = State.initial(VARIANT)
        for _ in range(int(rng.integers(0, 20))):
            nxt = s.play(int(rng.choice(s.legal_moves())))
            if nxt.is_over():
                break
            s = nxt
        out.append(s)
    return out


def python_against_rust(rounds: int) -> tuple[float, float]:
    """Simulations/s of the search with numpy leaves and with Rust leaves."""
    n, d = 6, input_length(6)
    rng = np.random.default_rng(0)
    policy = (rng.standard_normal((d, n)) * 0.1).astype(np.float32)
    value = (rng.standard_normal(d) * 0.1).astype(np.float32)

    def evaluate(obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return obs @ policy, np.tanh(obs @ value)

    states = positions(256, 1)
    simulations = 64
    searches = {
        "python": Search(evaluate, simulations=simulations),
        "rust": Search(LinearEvaluator(policy, value), simulations=simulations),
    }
    times: dict[str, list[float]] = {name: [] for name in searches}
    # Rounds alternate between the two, so that a burst of another job's load hits both alike.
    for r in range(rounds + 1):
        for name, search in searches.items():
            start = time.perf_counter()
            search(states, seed=r)
            if r > 0:
                times[name].append(time.perf_counter() - start)
    rates = {name: len(states) * simulations / median(t) for name, t in times.items()}
    return rates["python"], rates["rust"]


def torch_self_play(rounds: int, threads: int, games: int) -> float:
    """Positions/s of Python-driven self-play with the PyTorch network of `sowing train`."""
    import torch

    from sowing.nn import PolicyValueNet

    torch.manual_seed(0)
    torch.set_num_threads(1)
    net = PolicyValueNet(6, hidden=64, blocks=2).eval()
    evaluate = net.evaluator()
    self_play(VARIANT, evaluate, games=4, simulations=8)
    rates = []
    for r in range(rounds):
        start = time.perf_counter()
        samples = self_play(
            VARIANT, evaluate, games=games, simulations=64, parallel_games=128, threads=threads,
            seed=r,
        )
        rates.append(len(samples) / (time.perf_counter() - start))
    return median(rates)


def sowing_train(rounds: int, games: int) -> float | None:
    """The self-play positions/s `sowing train` reports for the same settings, or None."""
    binary = ROOT / "target" / "release" / "sowing"
    if not binary.is_file():
        return None
    rates = []
    for r in range(rounds):
        out = Path(tempfile.mkdtemp(prefix="sowing-bench-"))
        try:
            done = subprocess.run(
                [
                    str(binary), "train", "--variant", VARIANT, "--iterations", "1",
                    "--games-per-iteration", str(games), "--eval-games", "0",
                    "--seed", str(r), "--out", str(out / "run"),
                ],
                capture_output=True, text=True,
            )  # fmt: skip
            if done.returncode != 0:
                if "unrecognized subcommand" in done.stderr:
                    return None
                raise RuntimeError(done.stderr)
            with open(out / "run" / "metrics.csv") as f:
                rates.append(float(next(csv.DictReader(f))["positions_per_sec"]))
        finally:
            shutil.rmtree(out, ignore_errors=True)
    return median(rates)


def _spin(seconds: float) -> int:
    """Count loops of pure Python for `seconds`: CPU time and nothing else."""
    start = time.perf_counter()
    loops = 0
    while time.perf_counter() - start < seconds:
        loops += 1
    return loops


def _warm() -> None:
    """Import what a self-play job needs, so that no timed job pays for it."""
    import torch  # noqa: F401

    import sowing.nn  # noqa: F401


def _play_share(job: tuple[int, int, int]) -> int:
    """Self-play of games `first..first + count` with a fresh PyTorch network, in a process of
    its own; the positions played."""
    import torch

    from sowing.nn import PolicyValueNet

    first, count, seed = job
    torch.set_num_threads(1)
    torch.manual_seed(0)
    net = PolicyValueNet(6, hidden=64, blocks=2).eval()
    samples = self_play(
        VARIANT, net.evaluator(), games=count, first_game=first, simulations=64,
        parallel_games=64, seed=seed,
    )
    return len(samples)


def plain_processes(rounds: int, games: int) -> tuple[float, float, float]:
    """The same self-play in 1 and in 2 plain processes, without Ray, and a loop of pure Python
    in 2 processes against 1: what the machine gives two workers now, the ceiling of the Ray
    figure."""
    import multiprocessing

    out = []
    with multiprocessing.get_context("spawn").Pool(2, initializer=_warm) as pool:
        spin = [sum(pool.map(_spin, [2.0] * k)) for k in (1, 2)]
        for k in (1, 2):
            rates = []
            for r in range(rounds):
                share = [games * i // k for i in range(k + 1)]
                jobs = [(share[i], share[i + 1] - share[i], r + 1) for i in range(k)]
                start = time.perf_counter()
                count = sum(pool.map(_play_share, jobs))
                rates.append(count / (time.perf_counter() - start))
            out.append(median(rates))
    return out[0], out[1], spin[1] / spin[0]


def ray_actors(rounds: int, games: int) -> tuple[float, float, float] | None:
    """Self-play positions/s of 1 and of 2 Ray actors, and the share of the 2 actors' wall time
    spent in self-play; None without Ray."""
    try:
        import ray

        from sowing.ray import train
    except ImportError:
        return None
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        args = train.Args(variant=VARIANT, iterations=1)
        rules = sowing.Rules.preset(VARIANT)
        weights = ray.put(train.state_dict_arrays(train.make_net(rules, args)))
        actors = [train.SelfPlayActor.remote(rules.to_json(), args) for _ in range(2)]
        ray.get([a.play.remote(weights, 0, 0, 2)[1] for a in actors])
        out = []
        busy = []
        for k in (1, 2):
            rates = []
            for r in range(rounds):
                share = [games * i // k for i in range(k + 1)]
                start = time.perf_counter()
                played = [
                    actors[i].play.remote(weights, r + 1, share[i], share[i + 1] - share[i])
                    for i in range(k)
                ]
                parts = ray.get([part for part, _ in played])
                wall = time.perf_counter() - start
                reports = ray.get([report for _, report in played])
                count = sum(len(p["value"]) for p in parts)
                rates.append(count / wall)
                busy.append(np.mean([rep["seconds"] for rep in reports]) / wall)
            out.append(median(rates))
        return out[0], out[1], median(busy[rounds:])
    finally:
        ray.shutdown()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games", type=int, default=256, help="self-play games per round")
    parser.add_argument("--skip", nargs="*", default=[], choices=["leaves", "torch", "ray", "learner"])
    a = parser.parse_args()
    print(f"{os.cpu_count()} cores; load average at start {load()}; medians of {a.rounds} rounds")
    failed = False
    if "leaves" not in a.skip:
        py, rust = python_against_rust(a.rounds)
        ok = py >= 0.5 * rust
        failed |= not ok
        print(
            f"1. search, 256 positions x 64 simulations: numpy leaves {py:,.0f} sims/s, Rust leaves "
            f"{rust:,.0f} sims/s: {py / rust:.2f}x (target >= 0.5) {'ok' if ok else 'MISSED'} "
            f"[load {load()}]"
        )
    if "torch" not in a.skip:
        one, two = (torch_self_play(a.rounds, t, a.games) for t in (1, 2))
        py = max(one, two)
        train = sowing_train(a.rounds, a.games)
        figures = f"Python + PyTorch {one:,.0f} positions/s on 1 worker, {two:,.0f} on 2"
        if train is None:
            print(
                f"2. self-play, 64 simulations: {figures}; sowing train not compared: build it "
                f"with the torch feature (make build) [load {load()}]"
            )
        else:
            ok = py >= 0.5 * train
            failed |= not ok
            print(
                f"2. self-play, 64 simulations: {figures}, sowing train {train:,.0f}: "
                f"{py / train:.2f}x (target >= 0.5) {'ok' if ok else 'MISSED'} [load {load()}]"
            )
    if "ray" not in a.skip:
        rated = ray_actors(a.rounds, a.games)
        if rated is None:
            print("3. Ray: not installed (pip install 'sowing[ray]'), left out")
        else:
            one, two, busy = rated
            ok = two >= 1.6 * one
            failed |= not ok
            print(
                f"3. Ray self-play, 64 simulations: 1 actor {one:,.0f} positions/s, 2 actors "
                f"{two:,.0f} positions/s: {two / one:.2f}x (target >= 1.6) "
                f"{'ok' if ok else 'MISSED'}; the 2 actors played {busy:.0%} of the wall time "
                f"[load {load()}]"
            )
            alone, pair, spin = plain_processes(a.rounds, a.games)
            print(
                f"   the same self-play in plain processes, no Ray: 1 process {alone:,.0f} "
                f"positions/s, 2 processes {pair:,.0f}: {pair / alone:.2f}x; a loop of pure "
                f"Python in 2 processes: {spin:.2f}x one. What this machine gives two workers "
                f"now [load {load()}]"
            )
    if "learner" not in a.skip:
        for line in learner_figures(a.rounds):
            print(line)
    return 1 if failed else 0


def learner_figures(rounds: int) -> list[str]:
    """The learner's steps/s and the sizes the object store carries."""
    import torch

    from sowing import _safetensors
    from sowing.nn import PolicyValueNet, state_dict_arrays

    torch.set_num_threads(1)
    torch.manual_seed(0)
    lines = []
    for variant, holes, hidden, blocks in (("en-dodoi-6", 6, 64, 2), ("en-dodoi-10", 10, 128, 4)):
        net = PolicyValueNet(holes, hidden, blocks)
        optimizer = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
        d = net.input.in_features
        rates = []
        for batch in (256, 4096):
            x = torch.rand(batch, d)
            x[:, -holes:] = 1
            target = torch.softmax(torch.rand(batch, holes), -1)
            value = torch.rand(batch) * 2 - 1

            def step() -> None:
                logits, v = net(x)
                loss = -(target * torch.log_softmax(logits, -1)).sum(-1).mean()
                loss = loss + (v - value).square().mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

            step()
            times = []
            for _ in range(rounds):
                steps = 20 if batch == 256 else 4
                start = time.perf_counter()
                for _ in range(steps):
                    step()
                times.append((time.perf_counter() - start) / steps)
            rates.append(1 / median(times))
        weights = len(_safetensors.dumps(state_dict_arrays(net)))
        sample = 4 * (d + holes + 1)
        lines.append(
            f"4. learner, {variant} network ({hidden} wide, {blocks} blocks), one CPU thread: "
            f"{rates[0]:,.0f} steps/s at batch 256, {rates[1]:,.0f} at batch 4096; a sample is "
            f"{sample} bytes, the weights {weights:,} bytes [load {load()}]"
        )
    return lines


if __name__ == "__main__":
    sys.exit(main())
