"""``python -m sowing.ray.train``: the iteration of ``sowing train`` with its self-play dealt to
Ray actors (see ``sowing.ray``), read top to bottom: the settings, the actors and the learner,
one iteration, then starting and resuming.

The settings are ``sowing train``'s own (``sowing_train::TrainConfig``, read through the
binding): the same defaults, checks and config file (``--config FILE``, TOML or JSON), each flag
of ``sowing train`` an override here; ``--actors``, ``--address`` and ``--learner-gpus`` say
where it runs. Checkpoints are written by the Rust writer of ``sowing train`` (``meta.json``
with its digests, ``weights.safetensors``, retention by ``--keep-last`` and ``--keep-every``),
so ``az:RUN`` and ``sowing arena`` play them; ``trainer.pt`` (PyTorch's AdamW and the replay
buffer) in the newest lets ``--resume`` go on exactly, with the settings ``sowing train``
lets a resumed run change. Not run here: ``--tablebase``, ``--overlap``, ``--reanalyse`` and
``--init-from`` (refused), and the accuracy on exact positions (not measured: ``accuracy`` stays
empty).

Every random choice is fixed by ``--seed``: the initial weights, each game's stream (seed,
iteration, game number), the training batches (seed, iteration); on the CPU a resumed run goes
on as an uninterrupted one would.
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

from .._sowing import (
    CHECKPOINT_TRAINER,
    RESUME_CHANGES,
    Rules,
    newest_checkpoint,
    read_checkpoint,
    run_train_config,
    train_config,
    train_config_names_in,
    validate_train_config,
    write_checkpoint,
)
from ..nn import PolicyValueNet, state_dict_arrays
from ..search import NetworkAgent, rate, rate_baselines, self_play

TRAINER = CHECKPOINT_TRAINER
"""The optimiser and the replay buffer (``trainer.pt``), in the newest checkpoint only."""

RAY = "sowing.ray"
"""The ``trainer`` of this driver's checkpoints."""

TRAINING = 2
"""The purpose of the training batches' random streams (self-play's is 1, as in Rust)."""


class Args:
    """The run's settings (``sowing train``'s, a dict by name, with attribute access) and where
    it runs (``actors``, ``address``, ``learner_gpus``; not the run's, so not recorded)."""

    def __init__(self, settings: dict[str, Any], actors: int = 2, address: str | None = None,
                 learner_gpus: float = 0.0) -> None:
        self.settings = dict(settings)
        self.actors = actors
        self.address = address
        self.learner_gpus = learner_gpus

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["settings"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __getstate__(self) -> dict[str, Any]:
        return self.__dict__

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def baseline_specs(self) -> list[str]:
        return [b.strip() for b in self.baselines.split(",") if b.strip()]

    def recorded(self) -> dict[str, Any]:
        """The settings as ``meta.json`` records them (without the machine's ``threads``)."""
        return {k: v for k, v in self.settings.items() if k != "threads"}

    def check(self) -> None:
        """Refuse settings that cannot train, with ``sowing train``'s checks and messages, and
        those this driver does not run, naming the flag."""
        validate_train_config(self.settings)
        if self.actors < 1:
            raise ValueError("--actors must be at least 1")
        if self.games_per_iteration < self.actors:
            raise ValueError("--games-per-iteration must be at least --actors")
        if self.learner_gpus < 0:
            raise ValueError("--learner-gpus must be 0 or more")
        unsupported_flags = (
            ("tablebase", self.tablebase),
            ("overlap", self.overlap),
            ("reanalyse", self.reanalyse),
            ("init-from", self.init_from),
        )
        for flag, unsupported in unsupported_flags:
            if unsupported:
                raise ValueError(
                    f"--{flag} is not run by the Ray trainer; train with sowing train for it"
                )

    def out_dir(self) -> Path:
        if self.out is not None:
            return Path(self.out)
        if self.variant is None:
            raise ValueError("--variant is required (or --resume DIR)")
        return Path(f"runs/ray-{self.variant}-s{self.seed}")


# The types of the settings whose default is None, for the command line.
_NONE_DEFAULTS = {
    "iterations": int,
    "minutes": float,
    "threads": int,
    "reanalyse_simulations": int,
    "span": int,
}


def parse_args(argv: list[str] | None = None) -> tuple[Args, str | None, list[str]]:
    """The command line: the run's settings (``--config FILE``'s, under the flags given), the
    ``--resume`` directory, and the names of the settings given (by the file or the flags)."""
    defaults = train_config()
    parser = argparse.ArgumentParser(
        prog="python -m sowing.ray.train",
        description=(__doc__ or "").split("\n\n")[0],
    )
    parser.add_argument("--config", help="settings to start from (TOML or JSON), as sowing train --config")
    parser.add_argument("--resume", help="continue the run in this directory from its newest checkpoint")
    parser.add_argument("--actors", type=int, default=2, help="self-play actors, one CPU each (default 2)")
    parser.add_argument(
        "--address",
        help="Ray cluster to join (auto: the one ray start began here); default: a local one",
    )
    parser.add_argument("--learner-gpus", type=float, default=0.0, help="GPUs for the learner (default 0)")
    for name, default in defaults.items():
        if name in ("eval_positions_digest", "init_from_digest"):
            continue
        kind = _NONE_DEFAULTS.get(name, str) if default is None else type(default)
        parser.add_argument(
            "--" + name.replace("_", "-"),
            type=_boolean if kind is bool else kind,
            dest=name,
            default=None,
            help=f"as sowing train --{name.replace('_', '-')} (default: {default})",
        )
    given = vars(parser.parse_args(argv))
    config, resume = given.pop("config"), given.pop("resume")
    place = {k: given.pop(k) for k in ("actors", "address", "learner_gpus")}
    flags = {k: v for k, v in given.items() if v is not None}
    settings = train_config(flags, file=config)
    names = set(flags) | (set(train_config_names_in(config)) if config else set())
    return Args(settings, **place), resume, sorted(names)


def _boolean(text: str) -> bool:
    if text.lower() in ("true", "1", "yes"):
        return True
    if text.lower() in ("false", "0", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def make_net(rules: Rules, args: Args) -> PolicyValueNet:
    return PolicyValueNet(rules.holes, args.hidden, args.blocks, args.lookahead, args.net, args.span)


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
            margin_weight=a.margin_weight,
            parallel_games=a.parallel_games,
            lookahead=a.lookahead,
            root=a.root,
            considered=a.considered,
            full_fraction=a.full_fraction,
            fast_simulations=a.fast_simulations,
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
        # AdamW as the Rust trainer's (train/src/adam.rs): betas 0.9 and 0.999, eps 1e-8.
        self.optimizer = torch.optim.AdamW(
            self.net.parameters(),
            lr=args.lr,
            weight_decay=args.weight_decay,
            betas=(0.9, 0.999),
            eps=1e-8,
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
            "accuracy": None,
            "policy_accuracy": None,
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
        """The checkpoint of the current iteration, written by the Rust writer of ``sowing
        train``: the previous one's trainer state removed, retention applied."""
        meta = {
            "iteration": self.iteration,
            "rules": json.loads(self.rules.to_json()),
            "net": {
                "holes": self.rules.holes,
                "hidden": self.args.hidden,
                "blocks": self.args.blocks,
                "lookahead": self.args.lookahead,
                "body": self.args.net,
            },
            "args": self.args.recorded(),
            "history": self.history,
            "baseline_elo": self.baseline_elo or {},
            "seconds": self.seconds,
            "trainer": RAY,
        }
        weights, state = ray.get([self.learner.weights.remote(), self.learner.state.remote()])
        folder = write_checkpoint(
            str(self.dir),
            meta,
            weights,
            files={TRAINER: state},
            keep_last=self.args.keep_last,
            keep_every=self.args.keep_every,
        )
        write_metrics(self.dir, self.history)
        return Path(folder)


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


def start(args: Args, resume: str | None = None, given: list[str] = ()) -> Run:
    """A new run, or the run of ``resume`` from its newest checkpoint: its settings from there,
    but for those a resumed ``sowing train`` run may change (``RESUME_CHANGES``), taken from
    ``args`` when given; any other setting given that differs from the run's is refused."""
    saved = None
    if resume is not None:
        folder, meta, _ = read_checkpoint(resume)
        folder = Path(folder)
        if meta.get("trainer") != RAY:
            raise ValueError(f"{folder} is not a checkpoint of sowing.ray; sowing train resumes it")
        newest = newest_checkpoint(str(folder.parent))
        if newest is not None and Path(newest) != folder:
            raise ValueError(
                f"{folder} is not the newest checkpoint of its run ({newest} is): resume the run"
            )
        if not (folder / TRAINER).is_file():
            raise ValueError(f"{folder} has no {TRAINER}: only the newest iteration can be resumed")
        kept = run_train_config(meta["args"])
        for name in given:
            if name in RESUME_CHANGES or name == "out":
                continue
            if args.settings.get(name) != kept.get(name):
                raise ValueError(
                    f"--{name.replace('_', '-')} {args.settings.get(name)} was given with --resume, "
                    f"but the run in {folder.parent} has {kept.get(name)}, and a resumed run keeps "
                    "its own settings (only --iterations, --minutes, --threads, --keep-last and "
                    "--keep-every may change on --resume)"
                )
        for name in RESUME_CHANGES:
            if name in given or name in ("iterations", "minutes", "threads"):
                kept[name] = args.settings.get(name)
        kept["out"] = str(folder.parent)
        args = Args(kept, args.actors, args.address, args.learner_gpus)
        saved = (folder / TRAINER).read_bytes()
    args.check()
    run_dir = args.out_dir()
    if saved is None and newest_checkpoint(str(run_dir)) is not None:
        raise ValueError(
            f"{run_dir} already holds a run; continue it with --resume {run_dir} or choose another --out"
        )
    rules = Rules.preset(args.variant)
    # A network that cannot be built for the board (a --span narrower than it) is refused here,
    # before the run's folder or Ray.
    make_net(rules, args)
    if saved is None:
        run_dir.mkdir(parents=True, exist_ok=True)
        recorded = {k: v for k, v in args.recorded().items() if k != "eval_positions_digest"}
        (run_dir / "config.json").write_text(json.dumps(recorded, indent=2))
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
        args, resume, given = parse_args(argv)
        run = start(args, resume, given)
    except ValueError as e:
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
