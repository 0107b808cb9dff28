"""sowing.Tablebase: values of positions built and read back, the conventions (None above
max_seeds, 0 for a game over, the best move's value is the position's), and every bad input a
clear exception naming the file or the field, never a crash."""

import pickle
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import sowing
from sowing import Rules, State, Tablebase

# 2x4 take, counter-clockwise; seeds per hole do not change the game tree.
RULES = Rules(holes=4, seeds=3)


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    path = tmp_path_factory.mktemp("tb") / "2x4.tb"
    Tablebase.build(RULES, 8, path=path)
    return Tablebase(path, rules=RULES)


def position(board, to_move=0, ply=0):
    """A state of RULES with the seeds off the board captured by South."""
    return State(RULES, board, (RULES.total_seeds - sum(board), 0), to_move, ply)


def test_a_table_built_and_read_back(table):
    assert table.max_seeds == 8
    assert len(table) == 12_870  # C(16, 8): boards of 8 holes with at most 8 seeds
    assert table.rules == RULES
    assert table.path.name == "2x4.tb"
    assert "max_seeds=8" in repr(table)


def test_values_moves_and_probes(table):
    state = position([2, 0, 1, 0, 1, 1, 0, 3])
    value = table.value(state)
    moves = table.move_values(state)
    assert sorted(moves) == state.legal_moves()
    assert max(moves.values()) == value
    probe = table.probe(state)
    assert isinstance(probe, sowing.Probe)
    assert probe.value == value
    assert probe.final_margin == value + state.captured[0] - state.captured[1]
    # Where endless play is out of reach, the bounds are the value and the margin decides.
    if not probe.endless and probe.low == probe.high:
        assert probe.low == value
        expected = "win" if probe.final_margin > 0 else "loss" if probe.final_margin < 0 else "draw"
        assert probe.result == expected
    # North to move on the board turned by a row is the same position.
    north = position([1, 1, 0, 3, 2, 0, 1, 0], to_move=1)
    assert table.probe(north).value == value
    # The ply does not matter.
    assert table.value(position(state.board, ply=300)) == value


def test_positions_outside_the_table_and_games_over(table):
    full = position([3, 3, 1, 0, 1, 1, 0, 3])  # 12 seeds
    assert table.value(full) is None
    assert table.probe(full) is None
    assert table.move_values(full) is None
    ended = position([0, 0, 0, 0, 2, 1, 0, 3])  # South has no move: North swept
    assert ended.is_terminal()
    assert table.value(ended) == 0
    assert table.move_values(ended) == {}


def test_states_of_other_rules_are_refused_naming_the_field(table):
    leave = Rules(holes=4, seeds=3, trigger="leave")
    state = State(leave, [2, 0, 1, 0, 1, 1, 0, 3], (16, 0))
    with pytest.raises(ValueError, match="trigger"):
        table.value(state)
    with pytest.raises(ValueError, match="holes"):
        table.probe(State.initial("en-dodoi-6"))
    with pytest.raises(ValueError, match="max_laps"):
        Tablebase(table.path, rules=RULES.replace(max_laps=5))
    # Seeds per hole and the ply cap may differ.
    same = RULES.replace(seeds=2, max_plies=50)
    board = [2, 0, 1, 0, 1, 1, 0, 3]
    value = Tablebase(table.path, rules=same).value(State(same, board, (8, 0)))
    assert value == table.value(position(board))


def test_damaged_and_missing_files_name_the_file(table, tmp_path):
    data = table.path.read_bytes()
    for at in (0, 9, 20, 30, len(data) // 2, len(data) - 1):
        damaged = bytearray(data)
        damaged[at] ^= 0x41
        path = tmp_path / f"flip-{at}.tb"
        path.write_bytes(bytes(damaged))
        with pytest.raises(ValueError, match=str(path)):
            Tablebase(path)
    cut = tmp_path / "cut.tb"
    cut.write_bytes(data[:-10])
    with pytest.raises(ValueError, match="truncated"):
        Tablebase(cut)
    with pytest.raises(FileNotFoundError, match="nowhere.tb"):
        Tablebase(tmp_path / "nowhere.tb")
    with pytest.raises(OSError, match="cannot write"):
        table.write(tmp_path / "no" / "such" / "dir.tb")


def test_bad_builds_are_clear_errors():
    with pytest.raises(MemoryError, match="the most seeds a table that fits holds is"):
        Tablebase.build("en-dodoi-6", 100)
    with pytest.raises(ValueError, match="0 to 126"):
        Tablebase.build("en-dodoi-6", 200)
    with pytest.raises(ValueError, match="max_seeds must be 0 or more"):
        Tablebase.build("en-dodoi-6", -1)
    with pytest.raises(ValueError, match="threads"):
        Tablebase.build("en-dodoi-6", 2, threads=-2)
    with pytest.raises(ValueError, match="unknown variant"):
        Tablebase.build("oware", 2)


def test_building_releases_the_gil(tmp_path):
    done = threading.Event()
    ticks = 0

    def build():
        Tablebase.build("en-dodoi-6", 11, threads=1)
        done.set()

    thread = threading.Thread(target=build)
    start = time.perf_counter()
    thread.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    thread.join()
    assert time.perf_counter() - start >= 0.3
    # With the GIL held by the build, this thread could not have run during it.
    assert ticks >= 50


def test_a_table_is_mapped_and_shared_by_the_processes_that_open_it(table, tmp_path):
    """The default maps the file read-only: a second process that opens it uses the same pages
    (the kernel counts them as shared), where mmap=False holds a copy of its own."""
    assert table.mapped
    read = Tablebase(table.path, rules=RULES, mmap=False)
    assert not read.mapped
    state = position([2, 0, 1, 0, 1, 1, 0, 3])
    assert read.move_values(state) == table.move_values(state)
    assert pickle.loads(pickle.dumps(table)).mapped
    smaps = Path("/proc/self/smaps")
    if not smaps.exists():
        pytest.skip("no /proc/PID/smaps to read the sharing from")
    child = """
import sys
from pathlib import Path
import sowing
t = sowing.Tablebase(sys.argv[1])
name, shared, inside = str(Path(sys.argv[1]).resolve()), 0, False
for line in Path("/proc/self/smaps").read_text().splitlines():
    first = line.split()[0]
    if "-" in first and not first.endswith(":"):
        inside = line.endswith(name)
    elif inside and first in ("Shared_Clean:", "Shared_Dirty:"):
        shared += int(line.split()[1])
print(t.mapped, shared)
"""
    out = subprocess.run(
        [sys.executable, "-c", child, str(table.path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.split()
    # This process holds the table mapped (the fixture) while the child maps it too.
    assert out[0] == "True"
    assert int(out[1]) > 0, "the child's pages of the table are not shared with this process"
