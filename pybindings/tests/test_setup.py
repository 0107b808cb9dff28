"""The set-up's own check: scripts/need-disk.sh, which the Makefile runs before an install of the
virtual environment that brings torch anew, refuses a step the disks cannot hold with a sentence
that says how much is needed and how much is free (folders on one disk adding up), and refuses
its own bad arguments; scripts/torch-in-venv.sh says whether the environment already holds the
torch that requirements.txt pins, so that only such installs are checked."""

import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "need-disk.sh"
TORCH_IN_VENV = ROOT / "scripts" / "torch-in-venv.sh"


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


def test_the_makefile_checks_before_an_install_that_brings_torch():
    makefile = (ROOT / "Makefile").read_text()
    rule = makefile.split("$(VENV)/.installed: requirements.txt\n", 1)[1]
    lines = rule.splitlines()
    # The check comes before the environment is made, and only where it lacks the pinned torch
    # (none yet, or another version); it asks for room in the project's folder and in pip's
    # temporary folder.
    assert lines[0].startswith(
        "\tscripts/torch-in-venv.sh $(VPY) requirements.txt || scripts/need-disk.sh "
    )
    assert lines[0].endswith(' 6 . 3 "$${TMPDIR:-/tmp}"')
    assert "-m venv" in lines[1]


def torch_in_venv(*args):
    return subprocess.run(
        ["bash", str(TORCH_IN_VENV), *map(str, args)], capture_output=True, text=True, timeout=60
    )


def fake_python(folder, version):
    """A stand-in interpreter that reports `version` as its torch's, or has none (`None`)."""
    path = folder / "python"
    body = "exit 1" if version is None else f"echo {version}"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


def test_torch_at_the_pinned_version_needs_no_check(tmp_path):
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("# comment\nnumpy>=1.26\ntorch==2.13.0  # libtorch\npytest>=8\n")
    for installed, answer in [
        ("2.13.0", 0),
        ("2.13.0+cpu", 0),
        ("2.12.1", 1),
        ("2.13.01", 1),
        (None, 1),
    ]:
        done = torch_in_venv(fake_python(tmp_path, installed), requirements)
        assert (done.returncode, done.stderr) == (answer, ""), installed
    # No interpreter yet (the first install), or no pin to compare with: checked.
    assert torch_in_venv(tmp_path / "absent", requirements).returncode == 1
    unpinned = tmp_path / "unpinned.txt"
    unpinned.write_text("torch>=2.13\n")
    assert torch_in_venv(fake_python(tmp_path, "2.13.0"), unpinned).returncode == 1


def test_the_project_environment_holds_its_pinned_torch():
    # make test installs the environment first: a second make finds nothing to check.
    done = torch_in_venv(ROOT / ".venv" / "bin" / "python", ROOT / "requirements.txt")
    assert (done.returncode, done.stderr) == (0, "")


def test_torch_in_venv_refuses_bad_arguments(tmp_path):
    usage = "usage: scripts/torch-in-venv.sh PYTHON REQUIREMENTS\n"
    for args in [(), ("x",), ("x", "y", "z")]:
        done = torch_in_venv(*args)
        assert (done.returncode, done.stderr) == (2, usage), args
    absent = tmp_path / "absent.txt"
    done = torch_in_venv("python3", absent)
    assert (done.returncode, done.stderr) == (2, f"scripts/torch-in-venv.sh: no file {absent}\n")
