"""A tablebase built in parts (Tablebase.layer_part and extend) and on Ray (sowing.ray.tablebase):
a table extended from parts is the table built through, byte for byte; on a local cluster with
2 workers the file is the one of one process and of a plain build; a killed build goes on from
its partial table and gives the same file; bad parts and arguments are refused with a clear
message, and generated ones raise ValueError, TypeError or MemoryError, never a panic. The Ray
tests are skipped where Ray is not installed."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sowing import Rules, Tablebase

RULES = Rules.preset("en-dodoi-6")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The plain build's file to 10 seeds, and its bytes."""
    d = tmp_path_factory.mktemp("tb")
    Tablebase.build(RULES, 10, path=d / "plain.tb")
    return d, (d / "plain.tb").read_bytes()


def test_a_table_extended_from_parts_is_the_table_built_through(built, tmp_path):
    d, plain = built
    table = Tablebase.build(RULES, 6)
    while table.max_seeds < 10:
        n = table.next_layer_len()
        cuts = [0, n // 4, n // 4, n - 1, n]  # one part empty, one of a single position
        table = table.extend([table.layer_part(a, b - a) for a, b in zip(cuts, cuts[1:])], threads=2)
    table.write(tmp_path / "parts.tb")
    assert (tmp_path / "parts.tb").read_bytes() == plain


@pytest.mark.parametrize(
    ("call", "want"),
    [
        (lambda t: t.layer_part(-1, 5), "first must be 0 to"),
        (lambda t: t.layer_part(0, 10**9), "count must be 0 to"),
        (lambda t: t.layer_part(0, "5"), "count"),
        (lambda t: t.extend([]), "the parts cover 0 of the layer's"),
        (lambda t: t.extend([b"garbage"]), "part 0: not a layer part of a tablebase"),
        (lambda t: t.extend([t.layer_part(0, 3), t.layer_part(2, t.next_layer_len() - 2)]), "in order"),
        (lambda t: t.extend(["text"]), "is not an instance of 'bytes'"),
        (lambda t: t.extend([t.layer_part(0, t.next_layer_len())], threads=-1), "threads must be"),
        (lambda t: t.extend([Tablebase.build("en-dodoi-7", 4).layer_part(0, 10)]), "other rules"),
        (lambda t: t.extend([Tablebase.build(RULES, 3).layer_part(0, 10)]), "layer of 4 seeds"),
    ],
)
def test_bad_parts_are_refused_clearly(call, want):
    table = Tablebase.build(RULES, 4)
    with pytest.raises((ValueError, TypeError)) as e:
        call(table)
    assert want in str(e.value)


SIZES = st.one_of(st.integers(-3, 3000), st.integers(-(2**70), 2**70), st.sampled_from([2**64 - 1, 2**64]))


@settings(derandomize=True, max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    first=SIZES,
    count=SIZES,
    cuts=st.lists(st.integers(0, 400), max_size=4),
    flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=6),
    threads=SIZES,
)
def test_generated_parts_never_panic(first, count, cuts, flips, threads):
    table = Tablebase.build(RULES, 5)
    try:
        part = bytearray(table.layer_part(first, count))
        for at, v in flips:
            if part:
                part[at % len(part)] = v
        pieces = [bytes(part[a:b]) for a, b in zip([0, *sorted(cuts)], [*sorted(cuts), len(part)])]
        table.extend(pieces, threads=threads)
    except (ValueError, TypeError, MemoryError) as e:
        assert str(e)


# The Ray driver.

ray = pytest.importorskip("ray")

from sowing.ray import tablebase  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_two_ray_workers_write_the_file_of_one_process(cluster, built, tmp_path, capsys):
    _, plain = built
    common = ["--variant", "en-dodoi-6", "--max-seeds", "10", "--local-seeds", "6", "--json"]
    out = tmp_path / "ray.tb"
    assert tablebase.main([*common, "--out", str(out), "--workers", "2", "--address", "auto"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert [layer["seeds"] for layer in summary["layers"]] == [7, 8, 9, 10]
    assert summary["resumed_from"] is None
    assert out.read_bytes() == plain
    here = tmp_path / "here.tb"
    assert tablebase.main([*common, "--out", str(here), "--workers", "0"]) == 0
    assert here.read_bytes() == plain
    assert not (tmp_path / "ray.tb.partial").exists()


def test_a_killed_build_goes_on_from_its_partial_table(cluster, built, tmp_path, capsys):
    _, plain = built
    out = tmp_path / "t.tb"
    # What a build killed after its layer of 8 seeds leaves: the table to 8 as the partial.
    Tablebase.build(RULES, 8, path=tmp_path / "t.tb.partial")
    args = ["--variant", "en-dodoi-6", "--max-seeds", "10", "--out", str(out), "--json"]
    assert tablebase.main([*args, "--workers", "2", "--address", "auto"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["resumed_from"] == 8
    assert [layer["seeds"] for layer in summary["layers"]] == [9, 10]
    assert out.read_bytes() == plain
    # A partial of other rules is refused, and left as it was.
    Tablebase.build("en-dodoi-7", 5, path=tmp_path / "t.tb.partial")
    assert tablebase.main([*args, "--workers", "0"]) == 2
    assert "other rules" in capsys.readouterr().err
    assert (tmp_path / "t.tb.partial").exists()


@pytest.mark.parametrize(
    ("extra", "want"),
    [
        (["--workers", "-1"], "--workers must be 0"),
        (["--local-seeds", "12"], "--local-seeds must be 0 to --max-seeds (10)"),
        (["--variant", "no-such-game"], "no-such-game"),
        (["--rules", "/no/such.json"], "/no/such.json"),
    ],
)
def test_bad_arguments_to_the_driver_are_refused_clearly(capsys, tmp_path, extra, want):
    args = ["--max-seeds", "10", "--out", str(tmp_path / "x.tb"), "--workers", "0"]
    assert tablebase.main([*args, *extra]) == 2
    assert want in capsys.readouterr().err
