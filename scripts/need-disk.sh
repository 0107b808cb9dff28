#!/usr/bin/env bash
# Refuses, before anything is written, a step that needs more free disk than the folder's
# filesystem has: `scripts/need-disk.sh GB FOLDER WHAT`. The Makefile runs it before the first
# install of the virtual environment, whose torch wheel and CUDA packages take about 5 GB; pip,
# once it runs out of space, stops half-way with an OSError and leaves a partial environment.
set -euo pipefail
if [ $# -ne 3 ] || ! [[ $1 =~ ^[0-9]+$ ]]; then
    echo "usage: scripts/need-disk.sh GB FOLDER WHAT (GB a whole number of gigabytes)" >&2
    exit 2
fi
need_gb=$1 folder=$2 what=$3
if ! [ -d "$folder" ]; then
    echo "scripts/need-disk.sh: no folder $folder" >&2
    exit 2
fi
free_kb=$(df -Pk "$folder" | awk 'NR == 2 { print $4 }')
free_gb=$((free_kb / 1048576))
if [ "$free_gb" -lt "$need_gb" ]; then
    echo "$what needs about $need_gb GB free on the disk holding $(cd "$folder" && pwd)," \
        "and $free_gb GB are free: free some space (old build folders, virtual environments," \
        "clones) and run make again" >&2
    exit 1
fi
