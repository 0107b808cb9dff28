"""Self-play on Ray (sowing.ray): two actors and a learner train for a few iterations on a local
cluster with `sowing train`'s settings (its config file too), checkpoint through its Rust writer
(retention included; az:RUN plays the run from Python, and `sowing arena` from Rust where the
command is built with torch), and a resumed run ends where an uninterrupted one does. Skipped
where Ray is not installed (it is an optional extra)."""

import csv
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("torch")

import sowing  # noqa: E402
from sowing._sowing import read_checkpoint  # noqa: E402
from sowing.ray import train  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

TINY = [
    "--variant", "en-dodoi-6",
    "--actors", "2",
    "--games-per-iteration", "6",
    "--parallel-games", "3",
    "--simulations", "8",
    "--hidden", "16",
    "--blocks", "1",
    "--batch-size", "32",
    "--eval-games", "2",
    "--eval-every", "2",
    "--eval-simulations", "8",
    "--baselines", "random,greedy",
]  # fmt: skip


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def weights(run, iteration):
    return read_checkpoint(str(run / f"iter-{iteration:06d}"))[2]


def sowing_command():
    """The `sowing` command of this checkout built with torch (az: agents), if there is one."""
    for profile in ("release", "debug"):
        path = ROOT / "target" / profile / "sowing"
        if path.is_file():
            help = subprocess.run([path, "train", "--help"], capture_output=True, text=True)
            if help.returncode == 0:
                return path
    return None


def test_two_actors_and_a_learner_train_and_resume_exactly(cluster, tmp_path):
    whole, split = tmp_path / "whole", tmp_path / "split"
    retention = ["--keep-last", "2", "--keep-every", "2"]
    assert train.main([*TINY, *retention, "--iterations", "3", "--out", str(whole)]) == 0
    meta = json.loads((whole / "iter-000003" / "meta.json").read_text())
    assert meta["trainer"] == "sowing.ray" and meta["iteration"] == 3
    history = meta["history"]
    assert [m["iteration"] for m in history] == [1, 2, 3]
    assert all(m["games"] == 6 and m["positions"] > 6 * 5 for m in history)
    assert history[-1]["buffer"] == sum(m["positions"] for m in history)
    # Rated after the first iteration and every second, against each baseline.
    assert [bool(m["eval"]) for m in history] == [True, True, False]
    assert [r["opponent"] for r in history[0]["eval"]] == ["random", "greedy"]
    assert meta["baseline_elo"]["random"] == 0.0
    # Only the newest checkpoint keeps what resuming needs; retention keeps the newest two and
    # every second.
    assert (whole / "iter-000003" / "trainer.pt").is_file()
    assert not (whole / "iter-000002" / "trainer.pt").exists()
    assert sorted(p.name for p in whole.glob("iter-*")) == ["iter-000002", "iter-000003"]
    # The run's settings are sowing train's, as its config file holds them.
    config = json.loads((whole / "config.json").read_text())
    assert config["hidden"] == 16 and config["keep_last"] == 2 and config["lr"] == 0.002
    assert meta["args"]["simulations"] == 8 and "threads" not in meta["args"]
    with open(whole / "metrics.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["iteration"] for r in rows] == ["1", "1", "2", "2", "3"]
    # The checkpoint plays from Python as az:RUN.
    agent = sowing.agents.from_spec(f"az:{whole}")
    state = sowing.State.initial("en-dodoi-6")
    assert agent.choose(state) in state.legal_moves()

    # The same settings from a config file; the resumed run refuses a setting of its own changed.
    config_file = tmp_path / "tiny.TOML"
    config_file.write_text("\ufeffhidden = 16\nblocks = 1\nsimulations = 8\n")
    rest = TINY[:8] + TINY[14:]
    assert "--hidden" not in rest and "--simulations" not in rest
    assert train.main(["--config", str(config_file), *rest, "--iterations", "2", "--out", str(split)]) == 0
    assert train.main(["--resume", str(split), "--iterations", "3", "--hidden", "32"]) == 2
    assert train.main(["--resume", str(split), "--iterations", "3", "--keep-last", "1"]) == 0
    assert sorted(p.name for p in split.glob("iter-*")) == ["iter-000003"]
    a, b = weights(whole, 3), weights(split, 3)
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    resumed = json.loads((split / "iter-000003" / "meta.json").read_text())["history"]
    for x, y in zip(history, resumed):
        assert (x["positions"], x["policy_loss"], x["value_loss"]) == (
            y["positions"],
            y["policy_loss"],
            y["value_loss"],
        )


def test_sowing_arena_plays_a_ray_run_and_sowing_train_does_not_resume_it(cluster, tmp_path):
    command = sowing_command()
    if command is None:
        pytest.skip("the sowing command is not built with torch (make build)")
    run = tmp_path / "run"
    assert train.main([*TINY, "--iterations", "1", "--eval-games", "0", "--out", str(run)]) == 0
    played = subprocess.run(
        [command, "arena", "--variant", "en-dodoi-6", "--agents", f"az:{run}:4,random",
         "--games", "2", "--threads", "1", "--json"],
        capture_output=True, text=True, env={**os.environ, "RUST_BACKTRACE": "0"},
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    assert f"az:{run}" in played.stdout
    resumed = subprocess.run(
        [command, "train", "--resume", str(run), "--iterations", "2"], capture_output=True, text=True
    )
    assert resumed.returncode != 0
    assert "python -m sowing.ray.train --resume" in resumed.stderr


def test_bad_runs_are_refused_before_any_work(tmp_path, capsys):
    assert train.main(["--variant", "en-dodoi-6", "--actors", "0", "--iterations", "1"]) == 2
    assert "--actors must be at least 1" in capsys.readouterr().err
    assert train.main(["--variant", "en-dodoi-6"]) == 2
    assert "--iterations or --minutes" in capsys.readouterr().err
    assert train.main(["--resume", str(tmp_path / "nothing"), "--iterations", "1"]) == 2
    assert "no checkpoint" in capsys.readouterr().err
    assert train.main(["--variant", "en-dodoi-6", "--iterations", "1", "--lr", "5"]) == 2
    assert "--lr must be at most 1" in capsys.readouterr().err
    assert train.main(["--variant", "en-dodoi-6", "--iterations", "1", "--overlap", "true"]) == 2
    assert "--overlap is not run by the Ray trainer" in capsys.readouterr().err
    assert train.main(["--variant", "en-dodoi-6", "--iterations", "1", "--reanalyse", "0.5"]) == 2
    assert "--reanalyse is not run by the Ray trainer" in capsys.readouterr().err
    assert train.main(["--variant", "en-dodoi-6", "--iterations", "1", "--reanalyse", "-1"]) == 2
    assert "--reanalyse must be between 0 and 16" in capsys.readouterr().err
    assert train.main(["--variant", "en-dodoi-6", "--iterations", "1", "--init-from", "x"]) == 2
    assert "--init-from is not run by the Ray trainer" in capsys.readouterr().err
    assert train.main(["--variant", "en-dodoi-6", "--iterations", "1", "--span", "40"]) == 2
    assert "--span must be 1 to 16" in capsys.readouterr().err
    assert train.main(["--variant", "en-dodoi-6", "--iterations", "1", "--span", "4"]) == 2
    assert "span must be 6 to 16" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('{"hiden": 3}')
    assert train.main(["--config", str(bad), "--iterations", "1"]) == 2
    assert 'unknown setting "hiden"' in capsys.readouterr().err
