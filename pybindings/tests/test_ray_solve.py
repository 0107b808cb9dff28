"""A position's exact result with its subtrees settled apart (sowing.SubtreeSplit and
sowing.ray.solve): on a local cluster with 2 workers the answer is the one of one process, and
both equal the whole game's table on a 2x3 game and the tablebase's results where it holds the
root; a split settled in parts gives the same results as whole; bad arguments are refused with a
clear message, and generated sizes and results raise ValueError, TypeError or MemoryError, never
a panic. The Ray tests are skipped where Ray is not installed."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sowing
from sowing import Rules, State, SubtreeSplit

RULES = Rules(holes=3, seeds=2)  # 12 seeds: a table holds the whole game


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("solve")
    (d / "r3.json").write_text(RULES.to_json())
    sowing.Tablebase.build(RULES, 12, path=d / "whole.tb")
    sowing.Tablebase.build(RULES, 4, path=d / "t4.tb")
    return d


FLIP = {"win": "loss", "draw": "draw", "loss": "win"}


def truth(files, state):
    """Each move's result for the mover, by the whole game's table."""
    table = sowing.Tablebase(str(files / "whole.tb"))
    moves = []
    for a in state.legal_moves():
        child = state.play(a)
        if child.is_over():
            w = child.winner()
            result = "draw" if w is None else ("win" if w == state.to_move() else "loss")
        else:
            result = FLIP[table.probe(child).result]
        moves.append({"action": a, "result": result})
    return moves


@pytest.mark.parametrize("depth", [1, 2, 4])
def test_a_split_settles_the_start_as_the_whole_game_table_says(files, depth):
    start = State.initial(RULES)
    split = SubtreeSplit(start, depth, tablebase=str(files / "t4.tb"))
    results = split.settle(0, len(split), threads=2)
    assert all(r is not None for r in results)
    # In parts, in any order of parts: the same results.
    half = len(split) // 2
    assert split.settle(half, len(split)) + split.settle(0, half) == results[half:] + results[:half]
    answer = split.combine(results)
    assert answer["moves"] == truth(files, start)
    best = max(answer["moves"], key=lambda m: ["loss", "draw", "win"].index(m["result"]))
    assert answer["result"] == best["result"]
    assert answer["settled"] == answer["frontier"] == len(split)


def test_unsettled_positions_leave_only_what_depends_on_them():
    split = SubtreeSplit(State.initial("en-dodoi-6"), 1, nodes=1)
    answer = split.combine([None] * len(split))
    assert answer["result"] is None and answer["settled"] == 0
    assert all(m["result"] is None for m in answer["moves"])


@pytest.mark.parametrize(
    ("call", "want"),
    [
        (lambda: SubtreeSplit(State.initial("en-dodoi-6"), 0), "depth must be 1 to 6 plies"),
        (lambda: SubtreeSplit(State.initial("en-dodoi-6"), 7), "depth must be 1 to 6 plies"),
        (lambda: SubtreeSplit(State.initial("en-dodoi-6"), 1, nodes=0), "nodes must be at least 1"),
        (lambda: SubtreeSplit(State.initial("en-dodoi-6"), 1, table_bits=31), "table_bits must be 10 to 30"),
        (lambda: SubtreeSplit(State.initial("en-dodoi-6"), 1).settle(0, 7), "end must be 0 to 6"),
        (lambda: SubtreeSplit(State.initial("en-dodoi-6"), 1).combine(["win"]), "1 results for a frontier of 6"),
        (lambda: SubtreeSplit(State.initial("en-dodoi-6"), 1).combine(["won"] * 6), "results[0] is \"won\""),
        (lambda: SubtreeSplit(State.initial("en-dodoi-6"), 1).combine("win"), "results is 'win'"),
        (
            lambda: SubtreeSplit(State.initial("en-dodoi-6"), 1, tablebase="/no/such.tb").settle(0, 1),
            "/no/such.tb",
        ),
    ],
)
def test_bad_arguments_are_refused_clearly(call, want):
    with pytest.raises((ValueError, TypeError)) as e:
        call()
    assert want in str(e.value)


def test_a_table_of_other_rules_is_refused(files):
    split = SubtreeSplit(State.initial("en-dodoi-6"), 1, tablebase=str(files / "t4.tb"))
    with pytest.raises(ValueError, match="holes"):
        split.settle(0, 1)


def test_searches_beyond_the_memory_are_refused_in_pythons_words():
    split = SubtreeSplit(State.initial("en-dodoi-6"), 1, nodes=2**62)
    with pytest.raises(MemoryError) as e:
        split.settle(0, 1)
    assert "give a smaller nodes= or table_bits=, or fewer threads=" in str(e.value)
    assert "--" not in str(e.value)


SIZES = st.one_of(st.integers(-3, 8), st.integers(-(2**70), 2**70), st.sampled_from([2**64 - 1, 2**64]))
RESULT = st.one_of(st.sampled_from(["win", "draw", "loss", None, "", "Win", 1, 0.5, b"win"]), st.text(max_size=4))


@settings(derandomize=True, max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    depth=SIZES,
    start=SIZES,
    end=SIZES,
    threads=SIZES,
    nodes=st.sampled_from([-1, 0, 1, 1000, 2**64 - 1, 2**64]),
    table_bits=st.sampled_from([-1, 0, 9, 10, 12, 31, 2**40]),
    results=st.one_of(st.lists(RESULT, max_size=40), RESULT),
)
def test_generated_arguments_never_panic(depth, start, end, threads, nodes, table_bits, results):
    try:
        split = SubtreeSplit(State.initial(RULES), depth, nodes=nodes, table_bits=table_bits)
        split.settle(start, end, threads=threads)
        split.combine(results)
    except (ValueError, TypeError, MemoryError) as e:
        assert str(e)


# The Ray driver.

ray = pytest.importorskip("ray")

from sowing.ray import solve  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_two_ray_workers_give_the_answer_of_one_process(cluster, files, capsys):
    common = ["--rules", str(files / "r3.json"), "--depth", "3", "--tablebase", str(files / "t4.tb"), "--json"]
    assert solve.main([*common, "--workers", "2", "--address", "auto"]) == 0
    on_ray = json.loads(capsys.readouterr().out)
    assert solve.main([*common, "--workers", "0"]) == 0
    here = json.loads(capsys.readouterr().out)
    for answer in (on_ray, here):
        answer.pop("seconds")
    assert on_ray == here
    assert on_ray["moves"] == truth(files, State.initial(RULES))
    assert on_ray["settled"] == on_ray["frontier"] > 10


def test_the_position_after_moves_is_solved(cluster, files, capsys):
    args = ["--rules", str(files / "r3.json"), "--moves", "0", "--depth", "2", "--workers", "0", "--json"]
    assert solve.main(args) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["moves"] == truth(files, State.initial(RULES).play(0))


@pytest.mark.parametrize(
    ("extra", "want"),
    [
        (["--depth", "0"], "depth must be 1 to 6"),
        (["--nodes", "0"], "nodes must be at least 1"),
        (["--table-bits", "40"], "table_bits must be 10 to 30"),
        (["--tablebase", "/no/such.tb"], "/no/such.tb"),
        (["--variant", "no-such-game"], "no-such-game"),
        (["--moves", "0,x"], "--moves takes actions"),
        (["--moves", "9"], "9"),
        (["--workers", "-1"], "--workers must be 0"),
        (["--rules", "/no/such.json"], "/no/such.json"),
    ],
)
def test_bad_arguments_to_the_driver_are_refused_clearly(capsys, extra, want):
    assert solve.main(extra) == 2
    assert want in capsys.readouterr().err
