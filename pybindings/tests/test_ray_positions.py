"""Exact positions labelled on Ray (sowing.ray.positions): on a local cluster with 2 workers the
file is byte for byte the one the library writes in one process (and `sowing positions`, where
the binary is built), with a small table of a 2x3 game; bad arguments are refused with a clear
message, and generated sizes raise a ValueError, TypeError or MemoryError, never a panic.
Skipped where Ray is not installed."""

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ray = pytest.importorskip("ray")

import sowing  # noqa: E402
from sowing import PositionsLabelling, Rules  # noqa: E402
from sowing.ray import positions  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RULES = Rules(holes=3, seeds=3)  # 18 seeds: everything settles fast
ARGS = ["--count", "40", "--seed", "3", "--agents", "alphabeta:2,greedy", "--opening", "2"]


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("positions")
    (d / "r3.json").write_text(RULES.to_json())
    sowing.Tablebase.build(RULES, 6, path=d / "t6.tb")
    return d


def one_process(files, out):
    """The set as one process makes it: every batch whole, on 2 threads."""
    labelling = PositionsLabelling(
        rules_file=str(files / "r3.json"),
        seed=3,
        agents=["alphabeta:2", "greedy"],
        opening=2,
        tablebase=str(files / "t6.tb"),
    )
    collector = labelling.collector(40, str(out))
    while (games := collector.next_games()) is not None:
        collector.add(labelling.label(*games, threads=2))
    return json.loads(collector.finish())


def test_two_ray_workers_write_the_file_of_one_process(cluster, files, capsys):
    ray_out, one_out = files / "ray.jsonl", files / "one.jsonl"
    common = ["--rules", str(files / "r3.json"), *ARGS, "--tablebase", str(files / "t6.tb")]
    code = positions.main([*common, "--out", str(ray_out), "--workers", "2", "--address", "auto", "--json"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    report = one_process(files, one_out)
    assert ray_out.read_bytes() == one_out.read_bytes()
    assert summary["count"] == report["count"] == 40
    assert summary["games"] == report["games"]
    assert sum(p["search"] for p in report["phases"]) > 10, "the search labelled some"
    header = json.loads(ray_out.read_text().splitlines()[0])
    assert header["made_by"]["command"] == "sowing positions" and header["count"] == 40
    for build in ("release", "debug"):
        binary = ROOT / "target" / build / "sowing"
        if binary.exists():
            cli_out = files / f"cli-{build}.jsonl"
            subprocess.run(
                [binary, "positions", *common, "--threads", "2", "--out", cli_out],
                check=True,
                capture_output=True,
            )
            assert cli_out.read_bytes() == ray_out.read_bytes(), f"target/{build}/sowing"


def test_the_parts_of_a_range(cluster):
    assert positions.parts(0, 10, 3) == [(0, 4), (4, 7), (7, 10)]
    assert positions.parts(5, 7, 8) == [(5, 6), (6, 7)]


@pytest.mark.parametrize(
    ("extra", "want"),
    [
        (["--agents", "greedy"], "agents takes two agent specs"),
        (["--agents", "greedy,wizard"], 'unknown agent "wizard"'),
        (["--nodes", "0"], "nodes must be at least 1"),
        (["--count", "0"], "count must be at least 1"),
        (["--table-bits", "40"], "table_bits must be 10 to 30"),
        (["--mid-game", "101"], "mid_game must be a share of the games in percent, 0 to 100"),
        (["--phases", "40-10"], "phases: \"40-10\" is not a window of phases"),
        (["--phases", "10-40", "--mid-game", "5"], "phases must be left out when a mid-game share is given"),
        (["--tablebase", "/no/such.tb"], "/no/such.tb"),
        (["--variant", "no-such-game"], "no-such-game"),
        (["--workers", "0"], "--workers must be at least 1"),
    ],
)
def test_bad_arguments_are_refused_clearly(tmp_path, capsys, extra, want):
    out = tmp_path / "p.jsonl"
    assert positions.main(["--count", "5", "--out", str(out), *extra]) == 2
    assert want in capsys.readouterr().err
    assert not out.exists()


def test_the_table_of_other_rules_and_the_out_file_are_checked(files, tmp_path):
    with pytest.raises(ValueError, match="holes"):
        PositionsLabelling("en-dodoi-6", tablebase=str(files / "t6.tb")).collector(5, str(tmp_path / "p"))
    labelling = PositionsLabelling(rules_file=str(files / "r3.json"), tablebase=str(files / "t6.tb"))
    with pytest.raises(ValueError, match="--tablebase"):
        labelling.collector(5, str(files / "t6.tb"))
    with pytest.raises(ValueError, match="variant or a rules_file"):
        PositionsLabelling("en-dodoi-6", rules_file=str(files / "r3.json"))


def test_a_mid_game_share_is_written_in_the_header(tmp_path):
    labelling = PositionsLabelling(RULES, agents=["greedy", "alphabeta:1"], mid_game=40)
    c = labelling.collector(4, str(tmp_path / "m.jsonl"))
    while (games := c.next_games()) is not None:
        c.add(labelling.label(*games))
    c.finish()
    header = json.loads((tmp_path / "m.jsonl").read_text().splitlines()[0])
    assert header["made_by"]["mid_game"] == 40


def test_a_window_of_phases_is_drawn_from_and_written_in_the_header(tmp_path):
    labelling = PositionsLabelling(RULES, agents=["greedy", "alphabeta:1"], phases="10-40")
    c = labelling.collector(4, str(tmp_path / "w.jsonl"))
    while (games := c.next_games()) is not None:
        c.add(labelling.label(*games))
    c.finish()
    lines = (tmp_path / "w.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["made_by"]["phases"] == "10-40"
    start = 2 * RULES.holes * RULES.seeds
    for line in lines[1:]:
        seeds = sum(json.loads(line)["board"])
        assert 10 * start <= 100 * seeds < 40 * start, line


def test_a_collector_refuses_what_does_not_fit(tmp_path):
    labelling = PositionsLabelling(RULES, agents=["greedy", "greedy"])
    c = labelling.collector(3, str(tmp_path / "p.jsonl"))
    with pytest.raises(ValueError, match="fewer than its count"):
        c.finish()
    start, end = c.next_games()
    with pytest.raises(ValueError, match="not the outcomes"):
        c.add("nonsense")
    with pytest.raises(TypeError, match="outcomes are the text"):
        c.add(b"[]")
    with pytest.raises(ValueError, match="game order"):
        c.add(labelling.label(end, end + 2))
    c.add(labelling.label(start, end))
    while (games := c.next_games()) is not None:
        c.add(labelling.label(*games))
    assert json.loads(c.finish())["count"] == 3
    with pytest.raises(ValueError, match="has finished"):
        c.next_games()


def test_searches_beyond_the_memory_are_refused_in_pythons_words():
    # A proof tree of up to 2^62 positions a search fits no machine: the advice names the
    # keywords of this call, not the command line's flags.
    labelling = PositionsLabelling(RULES, agents=["greedy", "random"], nodes=2**62)
    with pytest.raises(MemoryError) as e:
        labelling.label(0, 2, threads=1)
    assert "give a smaller nodes= or table_bits=, or fewer threads=" in str(e.value)
    assert "--" not in str(e.value)


SIZES = st.one_of(st.integers(-3, 6), st.integers(-(2**70), 2**70), st.sampled_from([2**64 - 1, 2**64]))


@settings(derandomize=True, max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    start=SIZES,
    length=SIZES,
    threads=SIZES,
    count=SIZES,
    nodes=st.sampled_from([-1, 0, 1, 1000, 2**64 - 1, 2**64]),
    table_bits=st.sampled_from([-1, 0, 9, 10, 12, 31, 2**40]),
    opening=st.sampled_from([-1, 0, 3, 2000, 2**32]),
)
def test_generated_sizes_never_panic(start, length, threads, count, nodes, table_bits, opening):
    try:
        labelling = PositionsLabelling(
            RULES, agents=["greedy", "random"], nodes=nodes, table_bits=table_bits, opening=opening
        )
        end = start + length if isinstance(length, int) and 0 <= length <= 6 else length
        labelling.label(start, end, threads=threads)
        labelling.collector(count, "/nonexistent-dir/p.jsonl")
    except (ValueError, TypeError, MemoryError) as e:
        assert str(e)
