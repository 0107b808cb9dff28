"""The set-up's own check: scripts/need-disk.sh, which the Makefile runs before the first install
of the virtual environment, refuses a step the disk cannot hold with a sentence that says how
much is needed and how much is free, and refuses its own bad arguments."""

import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "need-disk.sh"


def need(*args):
    return subprocess.run(
        ["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=30
    )


def test_room_enough_passes_silently(tmp_path):
    done = need("0", str(tmp_path), "a step")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_too_little_room_is_refused_with_the_figures(tmp_path):
    done = need("1000000000", str(tmp_path), "the Python environment")
    assert done.returncode == 1
    m = re.fullmatch(
        r"the Python environment needs about 1000000000 GB free on the disk holding (\S+), "
        r"and (\d+) GB are free: free some space \(old build folders, virtual environments, "
        r"clones\) and run make again\n",
        done.stderr,
    )
    assert m, done.stderr
    assert m.group(1) == str(tmp_path)
    assert int(m.group(2)) < 1000000000


def test_bad_arguments_are_refused(tmp_path):
    for args in [(), ("7",), ("seven", str(tmp_path), "x"), ("-1", str(tmp_path), "x")]:
        done = need(*args)
        assert done.returncode == 2, args
        assert done.stderr.startswith("usage: scripts/need-disk.sh GB FOLDER WHAT"), args
    absent = tmp_path / "absent"
    done = need("1", str(absent), "x")
    assert (done.returncode, done.stderr) == (2, f"scripts/need-disk.sh: no folder {absent}\n")


def test_the_makefile_checks_before_the_first_install():
    makefile = (ROOT / "Makefile").read_text()
    rule = makefile.split("$(VENV)/.installed: requirements.txt\n", 1)[1]
    lines = rule.splitlines()
    # The check comes before the environment is made, and only where there is none yet.
    assert lines[0].startswith("\ttest -x $(VPY) || scripts/need-disk.sh ")
    assert "-m venv" in lines[1]
