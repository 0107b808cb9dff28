"""``python -m sowing.ray.train``: AlphaZero-style training of the network of ``sowing train``
with its self-play dealt to Ray actors (see ``sowing.ray``), read top to bottom: the run's
arguments, the actors and the learner, one iteration, then starting and resuming.

Every random choice is fixed by ``--seed``: the initial weights, each game's stream (seed,
iteration, game number), the training batches (seed, iteration). The optimiser and the replay
buffer are checkpointed with the weights, so a resumed run goes on as an uninterrupted one would
(on the CPU, with as many actors).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import io
import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import ray
import torch

from .. import _checkpoint, _safetensors
from .._sowing import Rules
from ..nn import PolicyValueNet, state_dict_arrays
from ..search import BASELINES, NetworkAgent, rate, rate_baselines, self_play

TRAINER = "trainer.pt"
"""The optimiser and the replay buffer, in the newest checkpoint only."""

TRAINING = 2
"""The purpose of the training batches' random streams (self-play's is 1, as in Rust)."""


@dataclass
class Args:
    """The run's settings; those shared with ``sowing train`` have its defaults and meaning."""

    variant: str | None = None
    """Preset to train on; required unless --resume."""
    iterations: int | None = None
    """Stop after this many iterations in all (counting those of a resumed run)."""
    minutes: float | None = None
    """Stop starting new iterations once this many minutes of this session have passed."""
    seed: int = 0
    """Seed of every random choice of the run."""
    out: str | None = None
    """Run directory (default runs/ray-VARIANT-sSEED)."""
    resume: str | None = None
    """Continue the run in this directory from its newest checkpoint."""
    actors: int = 2
    """Self-play actors, one CPU each."""
    address: str | None = None
    """Ray cluster to join (``auto``: the one started by ``ray start`` on this machine); default: a
    local cluster started for the run."""
    learner_gpus: float = 0.0
    """GPUs for the learner (0: it trains on a CPU)."""
    hidden: int = 64
    """Width of the network's hidden layers."""
    blocks: int = 2
    """Residual blocks of the network."""
    lookahead: bool = True
    """Give the network the one-move look-ahead features."""
    simulations: int = 64
    """PUCT simulations per self-play move."""
    games_per_iteration: int = 256
    """Self-play games per iteration, dealt evenly to the actors."""
    parallel_games: int = 64
    """Self-play games each actor plays at once (their leaves are evaluated in one batch)."""
    c_puct: float = 0.5
    """PUCT exploration constant, in self-play and when the network plays."""
    dirichlet_alpha: float = 1.0
    """Dirichlet concentration of the root noise."""
    noise_fraction: float = 0.25
    """Weight of the root noise in the priors."""
    temperature_plies: int = 12
    """Plies whose move is drawn in proportion to visits; later moves take the most visited."""
    opening_plies: int = 4
    """Each self-play game starts after 0 to this many uniformly random plies."""
    value_mix: float = 0.5
    """Value target = (1 - m) * game result + m * root search value."""
    replay_capacity: int = 60_000
    """Positions the replay buffer holds."""
    batch_size: int = 256
    """Training batch size."""
    sample_reuse: float = 4.0
    """Times each new position is sampled for training, on average."""
    lr: float = 2e-3
    """AdamW learning rate."""
    weight_decay: float = 1e-4
    """AdamW decoupled weight decay."""
    baselines: str = ",".join(BASELINES)
    """Baselines of the evaluation, comma-separated agent specs."""
    eval_games: int = 20
    """Games against each baseline per evaluation; 0 skips evaluation."""
    eval_every: int = 1
    """Evaluate after the first iteration and every this many."""
    eval_opening: int = 2
    """Uniformly random plies that open each evaluation game."""
    eval_simulations: int = 64
    """PUCT simulations per move of the network in evaluation games."""

    def baseline_specs(self) -> list[str]:
        return [b.strip() for b in self.baselines.split(",") if b.strip()]

    def check(self) -> None:
        """Refuse settings that cannot train, naming the flag and what is allowed."""

        def bad(flag: str, allowed: str) -> None:
            raise ValueError(f"--{flag} must be {allowed}")

        if self.iterations is None and self.minutes is None:
            bad("iterations or --minutes", "given (the training budget)")
        if self.minutes is not None and not (self.minutes > 0 and math.isfinite(self.minutes)):
            bad("minutes", "a positive number")
        if self.actors < 1:
            bad("actors", "at least 1")
        if self.games_per_iteration < self.actors:
            bad("games-per-iteration", "at least --actors")
        if not 2 <= self.hidden <= 4096 or not 0 <= self.blocks <= 64:
            bad("hidden and --blocks", "2 to 4096 and 0 to 64")
        if self.simulations < 1 or self.eval_simulations < 1 or self.parallel_games < 1:
            bad("simulations, --eval-simulations and --parallel-games", "at least 1")
        if not 0 <= self.value_mix <= 1 or not 0 <= self.noise_fraction <= 1:
            bad("value-mix and --noise-fraction", "between 0 and 1")
        if not (self.c_puct > 0 and self.dirichlet_alpha > 0):
            bad("c-puct and --dirichlet-alpha", "positive")
        if not 1 <= self.batch_size <= self.replay_capacity:
            bad("batch-size", "at least 1 and at most --replay-capacity")
        if not (self.sample_reuse > 0 and self.lr > 0 and self.weight_decay >= 0):
            bad("sample-reuse, --lr and --weight-decay", "positive (decay may be 0)")
        if self.eval_every < 1:
            bad("eval-every", "at least 1")

    def out_dir(self) -> Path:
        if self.out is not None:
            return Path(self.out)
        if self.variant is None:
            raise ValueError("--variant is required (or --resume DIR)")
        return Path(f"runs/ray-{self.variant}-s{self.seed}")


def parse_args(argv: list[str] | None = None) -> Args:
    """The command line as ``Args``: one flag per field, its doc the help."""
    parser = argparse.ArgumentParser(
        prog="python -m sowing.ray.train",
        description=(__doc__ or "").split("\n\n")[0],
    )
    docs = _field_docs()
    for f in dataclasses.fields(Args):
        flag = "--" + f.name.replace("_", "-")
        kind = {"int": int, "float": float, "str": str, "bool": _boolean}
        base = str(f.type).replace(" | None", "")
        parser.add_argument(
            flag, type=kind[base], default=f.default, help=docs.get(f.name, ""), dest=f.name
        )
    return Args(**vars(parser.parse_args(argv)))


def _boolean(text: str) -> bool:
    if text.lower() in ("true", "1", "yes"):
        return True
    if text.lower() in ("false", "0", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def _field_docs() -> dict[str, str]:
    """Each field's docstring, read from this file's source."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(Args))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs = {}
    for a, b in zip(body, body[1:]):
        if isinstance(a, ast.AnnAssign) and isinstance(b, ast.Expr):
            docs[a.target.id] = str(b.value.value)  # type: ignore[attr-defined]
    return docs


def make_net(rules: Rules, args: Args) -> PolicyValueNet:
    return PolicyValueNet(rules.holes, args.hidden, args.blocks, args.lookahead)


@ray.remote(num_cpus=1)
class SelfPlayActor:
    """Plays self-play games with the newest weights, one CPU: the tree work in Rust, the network
    in PyTorch on one thread."""

    def __init__(self, rules_json: str, args: Args) -> None:
        torch.set_num_threads(1)
        self.rules = Rules.from_json(rules_json)
        self.args = args
        self.net = make_net(self.rules, args)
        self.net.eval()

    @ray.method(num_returns=2)
    def play(
        self, weights: dict[str, np.ndarray], iteration: int, first: int, games: int
    ) -> tuple[dict, dict]:
        """Games ``first..first + games`` of ``iteration`` with ``weights``: the samples as numpy
        arrays (for the learner), and what the driver reads (South's wins, seconds taken)."""
        started = time.perf_counter()
        self.net.load_arrays(weights)
        a = self.args
        samples = self_play(
            self.rules,
            self.net.evaluator(),
            games=games,
            first_game=first,
            seed=a.seed,
            iteration=iteration,
            simulations=a.simulations,
            c_puct=a.c_puct,
            dirichlet_alpha=a.dirichlet_alpha,
            noise_fraction=a.noise_fraction,
            temperature_plies=a.temperature_plies,
            opening_plies=a.opening_plies,
            value_mix=a.value_mix,
            parallel_games=a.parallel_games,
            lookahead=a.lookahead,
        )
        arrays = {
            "observation": samples.observation,
            "policy": samples.policy,
            "value": samples.value,
        }
        return arrays, {
            "south_wins": samples.south_wins,
            "seconds": time.perf_counter() - started,
        }


class ReplayBuffer:
    """The most recent positions, sampled uniformly: a ring buffer of ``capacity`` rows."""

    def __init__(self, input_len: int, actions: int, capacity: int) -> None:
        self.capacity = capacity
        self.pushed = 0
        self.observation = np.zeros((0, input_len), np.float32)
        self.policy = np.zeros((0, actions), np.float32)
        self.value = np.zeros(0, np.float32)

    def __len__(self) -> int:
        return len(self.value)

    def extend(self, observation: np.ndarray, policy: np.ndarray, value: np.ndarray) -> None:
        """Add rows in order, overwriting the oldest when full."""
        room = self.capacity - len(self)
        if room > 0:
            take = min(room, len(value))
            self.observation = np.concatenate([self.observation, observation[:take]])
            self.policy = np.concatenate([self.policy, policy[:take]])
            self.value = np.concatenate([self.value, value[:take]])
            self.pushed += take
            observation, policy, value = observation[take:], policy[take:], value[take:]
        for o, p, v in zip(observation, policy, value):
            slot = self.pushed % self.capacity
            self.observation[slot], self.policy[slot], self.value[slot] = o, p, v
            self.pushed += 1

    def sample(self, size: int, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        rows = rng.integers(0, len(self), size)
        return self.observation[rows], self.policy[rows], self.value[rows]

    def state(self) -> dict[str, Any]:
        return {
            "capacity": self.capacity,
            "pushed": self.pushed,
            "observation": torch.from_numpy(self.observation),
            "policy": torch.from_numpy(self.policy),
            "value": torch.from_numpy(self.value),
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> ReplayBuffer:
        observation = state["observation"].numpy()
        buffer = cls(observation.shape[1], state["policy"].shape[1], int(state["capacity"]))
        buffer.pushed = int(state["pushed"])
        buffer.observation = observation
        buffer.policy = state["policy"].numpy()
        buffer.value = state["value"].numpy()
        return buffer


# The learner and the evaluation reserve no CPU of Ray's count: they run while the actors wait
# for the next iteration's weights, so on a machine of K cores K actors still fit.
@ray.remote(num_cpus=0)
class Learner:
    """The network being trained, its optimiser and the replay buffer."""

    def __init__(self, rules_json: str, args: Args, saved: bytes | None) -> None:
        torch.set_num_threads(1)
        self.args = args
        rules = Rules.from_json(rules_json)
        torch.manual_seed(args.seed)
        self.device = torch.device("cuda" if args.learner_gpus > 0 else "cpu")
        self.net = make_net(rules, args).to(self.device)
        self.optimizer = torch.optim.AdamW(
            self.net.parameters(), lr=args.lr, weight_decay=args.weight_decay
        )
        self.buffer = ReplayBuffer(self.net.input.in_features, rules.holes, args.replay_capacity)
        if saved is not None:
            state = torch.load(io.BytesIO(saved), weights_only=True)
            self.net.load_state_dict(state["net"])
            self.optimizer.load_state_dict(state["optimizer"])
            self.buffer = ReplayBuffer.from_state(state["buffer"])

    def weights(self) -> dict[str, np.ndarray]:
        return state_dict_arrays(self.net)

    def train(self, iteration: int, *parts: dict) -> dict[str, float]:
        """Add the actors' samples (in actor order) to the buffer and take ``positions *
        sample_reuse / batch_size`` AdamW steps; the mean losses."""
        positions = 0
        for part in parts:
            self.buffer.extend(part["observation"], part["policy"], part["value"])
            positions += len(part["value"])
        a = self.args
        batch = min(a.batch_size, len(self.buffer))
        steps = math.ceil(positions * a.sample_reuse / batch) if batch else 0
        rng = np.random.default_rng([a.seed, TRAINING, iteration])
        policy_sum = value_sum = 0.0
        self.net.train()
        for _ in range(steps):
            obs, target, value_target = (
                torch.from_numpy(x).to(self.device) for x in self.buffer.sample(batch, rng)
            )
            logits, value = self.net(obs)
            policy_loss = -(target * torch.log_softmax(logits, -1)).sum(-1).mean()
            value_loss = (value - value_target).square().mean()
            self.optimizer.zero_grad()
            (policy_loss + value_loss).backward()
            self.optimizer.step()
            policy_sum += policy_loss.item()
            value_sum += value_loss.item()
        self.net.eval()
        return {
            "positions": positions,
            "buffer": len(self.buffer),
            "steps": steps,
            "policy_loss": policy_sum / max(steps, 1),
            "value_loss": value_sum / max(steps, 1),
        }

    def state(self) -> bytes:
        """What resuming needs beyond the weights."""
        out = io.BytesIO()
        torch.save(
            {
                "net": self.net.state_dict(),
                "optimizer": self.optimizer.state_dict(),
                "buffer": self.buffer.state(),
            },
            out,
        )
        return out.getvalue()


@ray.remote(num_cpus=0)
def evaluate(
    rules_json: str,
    args: Args,
    weights: dict[str, np.ndarray],
    iteration: int,
    baseline_elo: dict[str, float] | None,
) -> dict:
    """Rate the network as ``sowing train`` does: matches against the baselines, the Elo."""
    torch.set_num_threads(1)
    rules = Rules.from_json(rules_json)
    net = make_net(rules, args)
    net.load_arrays(weights)
    net.eval()
    agent = NetworkAgent(
        net.evaluator(),
        rules,
        simulations=args.eval_simulations,
        c_puct=args.c_puct,
        lookahead=args.lookahead,
    )
    baselines = args.baseline_specs()
    if baseline_elo is None:
        baseline_elo = rate_baselines(
            rules, baselines, games=args.eval_games, seed=args.seed, opening=args.eval_opening,
            threads=1,
        )
    rating = rate(
        agent,
        rules,
        baselines=baselines,
        games=args.eval_games,
        seed=(args.seed * 1_000_003 + iteration) % 2**64,
        opening=args.eval_opening,
        threads=1,
        baseline_elo=baseline_elo,
    )
    return {
        "eval": [dataclasses.asdict(r) for r in rating.results],
        "elo": rating.elo,
        "elo_interval": rating.interval,
        "baseline_elo": rating.baseline_elo,
    }


@dataclass
class Run:
    """A training run in the driver: its settings, the actors and learner, what it measured."""

    args: Args
    rules: Rules
    dir: Path
    learner: Any
    actors: list[Any]
    iteration: int = 0
    history: list[dict] = field(default_factory=list)
    baseline_elo: dict[str, float] | None = None
    seconds: float = 0.0

    def deal(self) -> list[tuple[int, int]]:
        """Each actor's range of game numbers, ``(first, count)``, as even as they divide."""
        total, k = self.args.games_per_iteration, len(self.actors)
        bounds = [total * i // k for i in range(k + 1)]
        return [(bounds[i], bounds[i + 1] - bounds[i]) for i in range(k)]

    def iterate(self) -> dict:
        """One iteration: self-play on the actors with the newest weights, training, evaluation
        when due, checkpoint. Returns its metrics."""
        started = time.perf_counter()
        a = self.args
        iteration = self.iteration + 1
        weights = self.learner.weights.remote()
        played = [
            actor.play.remote(weights, iteration, first, count)
            for actor, (first, count) in zip(self.actors, self.deal())
        ]
        # The samples go from the actors to the learner through the object store; the driver
        # reads only the small reports.
        reports = ray.get([report for _, report in played])
        play_seconds = time.perf_counter() - started
        trained = ray.get(self.learner.train.remote(iteration, *(part for part, _ in played)))
        south_wins = sum(r["south_wins"] for r in reports)
        metrics = {
            "iteration": iteration,
            "games": a.games_per_iteration,
            "positions": trained["positions"],
            "positions_per_sec": trained["positions"] / max(play_seconds, 1e-9),
            "south_win_rate": south_wins / a.games_per_iteration,
            **{k: trained[k] for k in ("buffer", "steps", "policy_loss", "value_loss")},
            "eval": [],
            "elo": None,
            "elo_interval": None,
        }
        due = iteration == 1 or iteration % a.eval_every == 0
        if a.eval_games > 0 and a.baseline_specs() and due:
            rated = ray.get(
                evaluate.remote(
                    self.rules.to_json(), a, self.learner.weights.remote(), iteration,
                    self.baseline_elo,
                )
            )
            self.baseline_elo = rated.pop("baseline_elo")
            metrics.update(rated)
        self.seconds += time.perf_counter() - started
        metrics["seconds"] = self.seconds
        self.iteration = iteration
        self.history.append(metrics)
        self.save()
        return metrics

    def save(self) -> Path:
        """The checkpoint of the current iteration; the previous one's trainer state removed."""
        meta = {
            "iteration": self.iteration,
            "rules": json.loads(self.rules.to_json()),
            "net": {
                "holes": self.rules.holes,
                "hidden": self.args.hidden,
                "blocks": self.args.blocks,
                "lookahead": self.args.lookahead,
            },
            "args": dataclasses.asdict(self.args),
            "history": self.history,
            "baseline_elo": self.baseline_elo or {},
            "seconds": self.seconds,
            "trainer": "sowing.ray",
        }
        weights, state = ray.get([self.learner.weights.remote(), self.learner.state.remote()])
        folder = _checkpoint.write(
            self.dir,
            meta,
            {_checkpoint.SAFETENSORS: _safetensors.dumps(weights), TRAINER: state},
        )
        previous = _checkpoint.iteration_dir(self.dir, self.iteration - 1) / TRAINER
        if previous.is_file():
            previous.unlink()
        write_metrics(self.dir, self.history)
        return folder


def write_metrics(run: Path, history: list[dict]) -> None:
    """``metrics.csv``: one row per iteration and baseline, as ``sowing train`` writes it."""
    columns = [
        "iteration", "seconds", "games", "positions", "positions_per_sec", "south_win_rate",
        "buffer", "steps", "policy_loss", "value_loss", "opponent", "wins", "draws", "losses",
        "elo", "elo_interval",
    ]
    with open(run / "metrics.csv", "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(columns)
        for m in history:
            for r in m["eval"] or [{}]:
                row = {**m, "opponent": r.get("opponent", ""), **r}
                out.writerow(["" if row.get(c) is None else row.get(c, "") for c in columns])


def start(args: Args) -> Run:
    """A new run, or the run of ``args.resume`` from its newest checkpoint (its settings, except
    the budget and the cluster, from there)."""
    saved = None
    if args.resume is not None:
        folder = _checkpoint.resolve(args.resume)
        meta = _checkpoint.read_meta(folder)
        if meta.get("trainer") != "sowing.ray":
            raise ValueError(f"{folder} is not a checkpoint of sowing.ray; sowing train resumes it")
        if not (folder / TRAINER).is_file():
            raise ValueError(f"{folder} has no {TRAINER}: only the newest iteration can be resumed")
        kept = Args(**meta["args"])
        if args.variant is not None and args.variant != kept.variant:
            raise ValueError(f"{folder} was trained on {kept.variant}, not {args.variant}")
        budget = {k: getattr(args, k) for k in ("iterations", "minutes", "address", "actors")}
        args = dataclasses.replace(kept, **budget, resume=args.resume, out=args.resume)
        saved = (folder / TRAINER).read_bytes()
    args.check()
    run_dir = args.out_dir()
    if saved is None and _checkpoint.newest(run_dir) is not None:
        raise ValueError(
            f"{run_dir} already holds a run; continue it with --resume {run_dir} or choose another --out"
        )
    if args.variant is None:
        raise ValueError("--variant is required (or --resume DIR)")
    rules = Rules.preset(args.variant)
    if not ray.is_initialized():
        ray.init(address=args.address, include_dashboard=False, log_to_driver=False)
    rules_json = rules.to_json()
    options = {"num_gpus": args.learner_gpus} if args.learner_gpus > 0 else {}
    learner = Learner.options(**options).remote(rules_json, args, saved)
    actors = [SelfPlayActor.remote(rules_json, args) for _ in range(args.actors)]
    run = Run(args, rules, run_dir, learner, actors)
    if saved is not None:
        run.iteration = meta["iteration"]
        run.history = meta["history"]
        run.baseline_elo = meta["baseline_elo"] or None
        run.seconds = meta["seconds"]
    return run


def wants_more(run: Run, session: float, last: float) -> bool:
    a = run.args
    if a.iterations is not None and run.iteration >= a.iterations:
        return False
    return a.minutes is None or session + 0.5 * last < a.minutes * 60


def summary(m: dict) -> str:
    line = (
        f"iter {m['iteration']:>3} {m['seconds']:>6.0f}s | {m['games']:>4} games "
        f"{m['positions_per_sec']:>6.0f} pos/s | loss p {m['policy_loss']:.3f} v {m['value_loss']:.3f}"
    )
    if m["elo"] is not None:
        wins = " ".join(f"{r['opponent']} {r['wins']}/{r['wins'] + r['draws'] + r['losses']}" for r in m["eval"])
        line += f" | {wins} | elo {m['elo']:.0f} ± {m['elo_interval']:.0f}"
    return line


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse_args(argv)
        run = start(args)
    except (ValueError, _checkpoint.CheckpointError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(
        f"training {run.args.variant} on {len(run.actors)} Ray actors into {run.dir} "
        f"(iteration {run.iteration} so far)",
        file=sys.stderr,
    )
    session = time.perf_counter()
    last = 0.0
    while wants_more(run, time.perf_counter() - session, last):
        begun = time.perf_counter()
        print(summary(run.iterate()), file=sys.stderr)
        last = time.perf_counter() - begun
    print(f"done: {run.iteration} iterations; checkpoint {run.dir}, metrics {run.dir / 'metrics.csv'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
