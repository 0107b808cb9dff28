#!/usr/bin/env bash
# Refuses, before anything is written, a step that needs more free disk than there is:
# `scripts/need-disk.sh WHAT GB FOLDER [GB FOLDER ...]`, GB gigabytes in FOLDER's filesystem.
# Folders on one disk add up. The Makefile runs it before an install of the virtual environment
# that brings torch anew (the first, or one after requirements.txt changed its pin; see
# scripts/torch-in-venv.sh): pip unpacks torch and its CUDA packages in TMPDIR (2.7 GB at most,
# measured) while it writes them into .venv (5.0 GB; 7.6 GB at once where both are on one disk;
# a GB here is 2^30 bytes). Once pip runs out of space it stops half-way with an OSError and
# leaves a partial environment.
set -euo pipefail
usage() {
    echo "usage: scripts/need-disk.sh WHAT GB FOLDER [GB FOLDER ...]" \
        "(GB a whole number of gigabytes)" >&2
    exit 2
}
[ $# -ge 3 ] && [ $(($# % 2)) -eq 1 ] || usage
what=$1
shift
declare -A need=() holding=()
disks=()
while [ $# -gt 0 ]; do
    gb=$1 folder=$2
    shift 2
    [[ $gb =~ ^[0-9]+$ ]] || usage
    if ! [ -d "$folder" ]; then
        echo "scripts/need-disk.sh: no folder $folder" >&2
        exit 2
    fi
    folder=$(cd "$folder" && pwd)
    disk=$(df -P "$folder" | awk 'NR == 2 { print $6 }')
    if [ -z "${need[$disk]+set}" ]; then
        disks+=("$disk")
        need[$disk]=0
        holding[$disk]=$folder
    else
        holding[$disk]="${holding[$disk]} and $folder"
    fi
    need[$disk]=$((need[$disk] + 10#$gb))
done
for disk in "${disks[@]}"; do
    free_kb=$(df -Pk "$disk" | awk 'NR == 2 { print $4 }')
    free_gb=$((free_kb / 1048576))
    if [ "$free_gb" -lt "${need[$disk]}" ]; then
        echo "$what needs about ${need[$disk]} GB free on the disk holding ${holding[$disk]}," \
            "and $free_gb GB are free: free some space (old build folders, virtual environments," \
            "clones) and run make again" >&2
        exit 1
    fi
done
