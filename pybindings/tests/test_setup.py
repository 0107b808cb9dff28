"""The set-up's own check: scripts/need-disk.sh, which the Makefile runs before the first install
of the virtual environment, refuses a step the disks cannot hold with a sentence that says how
much is needed and how much is free (folders on one disk adding up), and refuses its own bad
arguments."""

import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "need-disk.sh"


def need(*args):
    return subprocess.run(
        ["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=30
    )


REFUSAL = (
    r"the Python environment needs about (\d+) GB free on the disk holding (.+), "
    r"and (\d+) GB are free: free some space \(old build folders, virtual environments, "
    r"clones\) and run make again\n"
)


def free_gb(folder):
    """Whole gigabytes free on `folder`'s disk, as the script counts them."""
    out = subprocess.run(["df", "-Pk", str(folder)], capture_output=True, text=True, check=True)
    return int(out.stdout.splitlines()[1].split()[3]) // 1048576


def test_room_enough_passes_silently(tmp_path):
    done = need("a step", "0", str(tmp_path))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_too_little_room_is_refused_with_the_figures(tmp_path):
    done = need("the Python environment", "1000000000", str(tmp_path))
    assert done.returncode == 1
    m = re.fullmatch(REFUSAL, done.stderr)
    assert m, done.stderr
    assert (m.group(1), m.group(2)) == ("1000000000", str(tmp_path))
    assert int(m.group(3)) < 1000000000


def test_folders_on_one_disk_add_up(tmp_path):
    # Two folders of one disk: half its free room each passes; all of it each adds up to twice
    # what the disk has, and is refused with the sum and both folders named.
    a, b = tmp_path / "venv", tmp_path / "tmp"
    a.mkdir()
    b.mkdir()
    free = free_gb(tmp_path)
    half = str(free // 2)
    for folder in (a, b):
        assert need("the Python environment", half, str(folder)).returncode == 0
    done = need("the Python environment", str(free), str(a), str(free), str(b))
    assert done.returncode == 1
    m = re.fullmatch(REFUSAL, done.stderr)
    assert m, done.stderr
    assert (int(m.group(1)), m.group(2)) == (2 * free, f"{a} and {b}")


def test_bad_arguments_are_refused(tmp_path):
    here = str(tmp_path)
    for args in [
        (),
        ("x",),
        ("x", "7"),
        ("x", "7", here, "3"),
        ("x", "seven", here),
        ("x", "-1", here),
        ("x", "7", here, "2.5", here),
    ]:
        done = need(*args)
        assert done.returncode == 2, args
        usage = "usage: scripts/need-disk.sh WHAT GB FOLDER [GB FOLDER ...]"
        assert done.stderr.startswith(usage), args
    absent = tmp_path / "absent"
    done = need("x", "1", here, "1", str(absent))
    assert (done.returncode, done.stderr) == (2, f"scripts/need-disk.sh: no folder {absent}\n")


def test_the_makefile_checks_before_the_first_install():
    makefile = (ROOT / "Makefile").read_text()
    rule = makefile.split("$(VENV)/.installed: requirements.txt\n", 1)[1]
    lines = rule.splitlines()
    # The check comes before the environment is made, and only where there is none yet; it asks
    # for room in the project's folder and in pip's temporary folder.
    assert lines[0].startswith("\ttest -x $(VPY) || scripts/need-disk.sh ")
    assert lines[0].endswith(' 6 . 3 "$${TMPDIR:-/tmp}"')
    assert "-m venv" in lines[1]
