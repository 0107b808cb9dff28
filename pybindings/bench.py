#!/usr/bin/env python3
"""Speed of the `sowing` Python package, measured side by side in one run (`make bench`).

1. Batched self-play: `sowing.vector.SelfPlayVec` with 4096 games, masked random actions chosen
   with numpy, against Gymnasium's `SyncVectorEnv` over the single environment
   (`gymnasium.make("sowing/<variant>-v0")`) with the same number of games and the same action
   rule. A SelfPlayVec step is one move in every game; a SyncVectorEnv step is the agent's move
   and the random opponent's reply, so both steps/s and moves/s are shown.
2. One game at a time in a plain Python loop: `State.legal_moves()` and `State.play()` against
   OpenSpiel's `pyspiel` loop (`legal_actions()`, `apply_action()`) over its own `oware` game, the
   same board of 2x6 holes with 4 seeds. OpenSpiel (`open_spiel` on PyPI) is installed into this
   interpreter's environment if it is missing; if that fails the output says so.
3. With `--busy`, instead: threads on a busy machine. SelfPlayVec with 1024 games, the default
   threads against `threads=1`, first idle, then beside one spinning process (`sh -c 'while :;
   do :; done'`, started here and killed after); each figure is the median of `--rounds` rounds,
   and the default threads must keep at least 0.9 times the one-thread figure when a core is busy.

Targets (2-core machine): SelfPlayVec at least 3 million steps/s and 20x SyncVectorEnv; the
State loop at least as many moves/s as pyspiel's oware loop. Figures on a shared machine are
noisy: each is the best of a few timed rounds.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import subprocess
import sys
import time
from collections.abc import Callable

import gymnasium as gym
import numpy as np

import sowing
from sowing.vector import SelfPlayVec


def best_rate(run: Callable[[float], tuple[int, float]], rounds: int, seconds: float) -> float:
    """The best of `rounds` rates; `run(seconds)` returns (units done, seconds taken)."""
    rates = []
    for _ in range(rounds):
        done, took = run(seconds)
        rates.append(done / took)
    return max(rates)


def median_rate(run: Callable[[float], tuple[int, float]], rounds: int, seconds: float) -> float:
    """The median of `rounds` rates: on a shared machine the best round flatters and the worst
    catches another job's burst."""
    return float(np.median([done / took for done, took in (run(seconds) for _ in range(rounds))]))


def masked_random(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of the bool array `masks` (int64; a row with no
    legal action gets the last action, which autoreset ignores).

    Draws one uniform number per game, picks the k-th legal action with k uniform below the
    row's count, and finds it with one pass over the columns: several times faster than an
    argmax over a matrix of random scores, whose per-row loop dominates at 8 columns.
    """
    cols = np.ascontiguousarray(masks.view(np.uint8).T)
    count = cols.sum(axis=0, dtype=np.uint8)
    k = (rng.random(masks.shape[0]) * count).astype(np.uint8)
    seen = np.zeros_like(k)
    action = np.zeros(masks.shape[0], dtype=np.int64)
    for col in cols:
        seen += col
        action += seen <= k
    return np.minimum(action, masks.shape[1] - 1, out=action)


def selfplay(variant: str, num_envs: int, threads: int = 0) -> Callable[[float], tuple[int, float]]:
    vec = SelfPlayVec(variant, num_envs, seed=0, threads=threads)
    rng = np.random.default_rng(0)
    masks = vec.reset().masks

    def run(seconds: float) -> tuple[int, float]:
        nonlocal masks
        steps, start = 0, time.perf_counter()
        while (took := time.perf_counter() - start) < seconds:
            for _ in range(10):
                masks = vec.step(masked_random(masks, rng)).masks
            steps += 10 * num_envs
        return steps, took

    run(0.2)  # warm up the worker threads and the allocator
    return run


def sync_vector(variant: str, num_envs: int) -> Callable[[float], tuple[int, float]]:
    envs = gym.vector.SyncVectorEnv(
        [lambda: gym.make(f"sowing/{variant}-v0", opponent="random")] * num_envs
    )
    rng = np.random.default_rng(0)
    _, infos = envs.reset(seed=0)
    masks = infos["action_mask"]

    def run(seconds: float) -> tuple[int, float]:
        nonlocal masks
        steps, start = 0, time.perf_counter()
        while (took := time.perf_counter() - start) < seconds:
            # A game being autoreset has no legal move; its action is ignored.
            _, _, _, _, infos = envs.step(masked_random(masks, rng))
            masks = infos["action_mask"]
            steps += num_envs
        return steps, took

    return run


def state_loop(variant: str) -> Callable[[float], tuple[int, float]]:
    rules = sowing.Rules(variant)
    choice = random.Random(0).choice

    def run(seconds: float) -> tuple[int, float]:
        moves, start = 0, time.perf_counter()
        while (took := time.perf_counter() - start) < seconds:
            state = sowing.State.initial(rules)
            while not state.is_over():
                state = state.play(choice(state.legal_moves()))
                moves += 1
        return moves, took

    return run


def pyspiel_loop(pyspiel) -> Callable[[float], tuple[int, float]]:
    game = pyspiel.load_game("oware")
    choice = random.Random(0).choice

    def run(seconds: float) -> tuple[int, float]:
        moves, start = 0, time.perf_counter()
        while (took := time.perf_counter() - start) < seconds:
            state = game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(choice(state.legal_actions()))
                moves += 1
        return moves, took

    return run


def load_pyspiel(install: bool):
    """pyspiel, installing open_spiel from PyPI if it is missing; (module or None, note)."""
    try:
        return importlib.import_module("pyspiel"), ""
    except ImportError:
        if not install:
            return None, "pyspiel is not installed (run without --no-install to install open_spiel)"
    print("installing open_spiel from PyPI into", sys.prefix, "...", flush=True)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "open_spiel"],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return None, f"open_spiel could not be installed: {last}"
    importlib.invalidate_caches()
    try:
        return importlib.import_module("pyspiel"), ""
    except ImportError as e:
        return None, f"open_spiel was installed but pyspiel does not import: {e}"


def busy_neighbour(variant: str, num_envs: int, rounds: int, seconds: float) -> dict[str, float]:
    """SelfPlayVec steps/s with the default threads and with one, idle and then beside one process
    that spins on a core; the spinning process is killed before this returns."""
    figures = {}
    for busy in (False, True):
        spinner = subprocess.Popen(["sh", "-c", "while :; do :; done"]) if busy else None
        try:
            for threads in (0, 1):
                key = f"{'busy' if busy else 'idle'}_threads_{threads or 'default'}"
                figures[key] = median_rate(selfplay(variant, num_envs, threads), rounds, seconds)
        finally:
            if spinner is not None:
                spinner.kill()
                spinner.wait()
    return figures


def report_busy(args: argparse.Namespace) -> None:
    n = 1024 if args.num_envs is None else args.num_envs
    print(f"threads on a busy machine: SelfPlayVec {args.variant}, {n} games, "
          f"median of {args.rounds} rounds of {args.seconds} s")
    f = busy_neighbour(args.variant, n, args.rounds, args.seconds)
    print(f"{'':<28}{'default threads':>16}{'threads=1':>16}{'ratio':>8}")
    for state in ("idle", "busy"):
        a, b = f[f"{state}_threads_default"], f[f"{state}_threads_1"]
        label = "idle" if state == "idle" else "one spinning process beside"
        print(f"{label:<28}{a:16,.0f}{b:16,.0f}{a / b:7.2f}x")
    ok = f["busy_threads_default"] >= 0.9 * f["busy_threads_1"]
    print(f"{'met    ' if ok else 'NOT met'}  default threads >= 0.9x threads=1 beside a busy core")
    if args.json:
        print(json.dumps({"variant": args.variant, "num_envs": n, **f}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="en-dodoi-8", help="preset for the batched figures")
    parser.add_argument("--loop-variant", default="en-dodoi-6",
                        help="preset for the State loop (en-dodoi-6 has oware's 2x6 board, 4 seeds)")
    parser.add_argument("--num-envs", type=int, default=None,
                        help="games in the batch (default 4096; 1024 with --busy)")
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one timed round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-install", action="store_true", help="do not pip install open_spiel")
    parser.add_argument("--json", action="store_true", help="print one JSON object at the end")
    parser.add_argument("--busy", action="store_true",
                        help="measure only the threads figures, idle and beside one busy core")
    args = parser.parse_args()
    if args.busy:
        report_busy(args)
        return

    n = 4096 if args.num_envs is None else args.num_envs
    print(f"batched: {args.variant}, {n} games, masked random actions chosen with numpy")
    vec_rate = best_rate(selfplay(args.variant, n), args.rounds, args.seconds)
    # SyncVectorEnv is slow; fewer rounds of the same length still take tens of seconds.
    sync_rate = best_rate(sync_vector(args.variant, n), max(1, args.rounds - 1), args.seconds)
    print(f"single game loop: {args.loop_variant} (sowing.State) vs oware (pyspiel), random moves")
    state_rate = best_rate(state_loop(args.loop_variant), args.rounds, args.seconds)
    pyspiel, note = load_pyspiel(not args.no_install)
    spiel_rate = best_rate(pyspiel_loop(pyspiel), args.rounds, args.seconds) if pyspiel else None

    rows = [
        ("SelfPlayVec steps/s (1 move each)", vec_rate, "SyncVectorEnv steps/s (2 moves each)", sync_rate),
        ("SelfPlayVec moves/s", vec_rate, "SyncVectorEnv moves/s", 2 * sync_rate),
        ("sowing.State loop moves/s", state_rate, "pyspiel oware loop moves/s", spiel_rate),
    ]
    print()
    print(f"{'sowing':<36}{'':>14}   {'reference':<38}{'':>14}   ratio")
    for left, a, right, b in rows:
        ratio = f"{a / b:7.1f}x" if b else "    n/a"
        b_text = f"{b:14,.0f}" if b else f"{'n/a':>14}"
        print(f"{left:<36}{a:14,.0f}   {right:<38}{b_text}   {ratio}")
    if note:
        print(note)
    print()
    checks = [
        ("SelfPlayVec >= 3,000,000 steps/s", vec_rate >= 3e6),
        ("SelfPlayVec >= 20x SyncVectorEnv steps/s", vec_rate >= 20 * sync_rate),
        ("State loop >= pyspiel oware loop", spiel_rate is not None and state_rate >= spiel_rate),
    ]
    for what, ok in checks:
        print(f"{'met    ' if ok else 'NOT met'}  {what}")
    if args.json:
        print(json.dumps({
            "variant": args.variant,
            "num_envs": n,
            "selfplayvec_steps_per_sec": vec_rate,
            "syncvectorenv_steps_per_sec": sync_rate,
            "state_loop_variant": args.loop_variant,
            "state_loop_moves_per_sec": state_rate,
            "pyspiel_oware_moves_per_sec": spiel_rate,
            "pyspiel_note": note or None,
        }))


if __name__ == "__main__":
    main()
