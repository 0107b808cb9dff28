"""Self-play on Ray (sowing.ray): two actors and a learner train for a few iterations on a local
cluster, checkpoint as `sowing train` does (az:RUN plays it), and a resumed run ends where an
uninterrupted one does. Skipped where Ray is not installed (it is an optional extra)."""

import csv
import json

import numpy as np
import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("torch")

import sowing  # noqa: E402
from sowing import _safetensors  # noqa: E402
from sowing.ray import train  # noqa: E402

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
    return _safetensors.load(run / f"iter-{iteration:06d}" / "weights.safetensors")


def test_two_actors_and_a_learner_train_and_resume_exactly(cluster, tmp_path):
    whole, split = tmp_path / "whole", tmp_path / "split"
    assert train.main([*TINY, "--iterations", "3", "--out", str(whole)]) == 0
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
    # Only the newest checkpoint keeps what resuming needs.
    assert (whole / "iter-000003" / "trainer.pt").is_file()
    assert not (whole / "iter-000002" / "trainer.pt").exists()
    with open(whole / "metrics.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["iteration"] for r in rows] == ["1", "1", "2", "2", "3"]
    # The checkpoint plays from Python as az:RUN.
    agent = sowing.agents.from_spec(f"az:{whole}")
    state = sowing.State.initial("en-dodoi-6")
    assert agent.choose(state) in state.legal_moves()

    assert train.main([*TINY, "--iterations", "2", "--out", str(split)]) == 0
    assert train.main(["--resume", str(split), "--iterations", "3"]) == 0
    a, b = weights(whole, 3), weights(split, 3)
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    resumed = json.loads((split / "iter-000003" / "meta.json").read_text())["history"]
    for x, y in zip(history, resumed):
        assert (x["positions"], x["policy_loss"], x["value_loss"]) == (
            y["positions"],
            y["policy_loss"],
            y["value_loss"],
        )


def test_bad_runs_are_refused_before_any_work(tmp_path, capsys):
    assert train.main(["--variant", "en-dodoi-6", "--actors", "0", "--iterations", "1"]) == 2
    assert "--actors must be at least 1" in capsys.readouterr().err
    assert train.main(["--variant", "en-dodoi-6"]) == 2
    assert "--iterations or --minutes" in capsys.readouterr().err
    assert train.main(["--resume", str(tmp_path / "nothing"), "--iterations", "1"]) == 2
    assert "no checkpoint" in capsys.readouterr().err
