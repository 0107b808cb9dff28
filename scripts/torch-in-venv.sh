#!/usr/bin/env bash
# Whether the virtual environment already holds torch at the version requirements.txt pins:
# `scripts/torch-in-venv.sh PYTHON REQUIREMENTS` exits 0 if so, and 1 if not: no PYTHON, no
# torch in it, another version, or no `torch==VERSION` line to compare with. Bad arguments exit 2.
# The Makefile checks the disk (scripts/need-disk.sh) before every install that brings torch and
# its CUDA packages anew, 5 GB: the first one, and a reinstall after requirements.txt changed
# torch's pin (pip keeps the old torch aside until the new one is in). Other reinstalls are small.
set -euo pipefail
if [ $# -ne 2 ]; then
    echo "usage: scripts/torch-in-venv.sh PYTHON REQUIREMENTS" >&2
    exit 2
fi
python=$1 requirements=$2
if ! [ -f "$requirements" ]; then
    echo "scripts/torch-in-venv.sh: no file $requirements" >&2
    exit 2
fi
pin=$(sed -n 's/^[[:space:]]*torch[[:space:]]*==[[:space:]]*\([^[:space:];#]*\).*/\1/p' \
    "$requirements" | head -n 1)
[ -n "$pin" ] && [ -x "$python" ] || exit 1
installed=$("$python" -c 'import importlib.metadata as m; print(m.version("torch"))' \
    2>/dev/null) || exit 1
# A local version label (2.13.0+cpu) is the same release.
[ "${installed%%+*}" = "$pin" ]
