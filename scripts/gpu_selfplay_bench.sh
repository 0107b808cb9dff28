#!/usr/bin/env bash
# Self-play speed of the trainer on a GPU (and on the CPU, for comparison): positions per second
# at 64 PUCT simulations per move on en-dodoi-6, for a few batch sizes (games played at once, whose
# leaves go through the network in one forward pass). Takes a few minutes; needs the project venv
# (make venv) and a CUDA build of torch==2.13.0 in it.
#
#   scripts/gpu_selfplay_bench.sh            # build, then measure
#   SOWING=path/to/sowing scripts/gpu_selfplay_bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${SOWING:-}" ]; then
    make build >/dev/null
    SOWING=./target/release/sowing
fi
python=.venv/bin/python
"$python" -c 'import torch; print("torch", torch.__version__, "cuda available:", torch.cuda.is_available(),
      torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")'
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-6s %8s %8s %12s\n' device workers games positions/s
measure() { # device workers games
    local run="$out/$1-$2-$3" hide=()
    # An empty CUDA_VISIBLE_DEVICES hides the GPU for the CPU rows.
    [ "$1" = cpu ] && hide=(env CUDA_VISIBLE_DEVICES=)
    "${hide[@]}" "$SOWING" train --variant en-dodoi-6 --iterations 1 --seed 0 --simulations 64 \
        --games-per-iteration "$3" --parallel-games "$3" --threads "$2" --eval-games 0 \
        --out "$run" 2>"$run.log" >/dev/null
    grep -q "on $1 " "$run.log" || { echo "$1 was not used: $(head -1 "$run.log")" >&2; return; }
    printf '%-6s %8s %8s %12s\n' "$1" "$2" "$3" "$(awk -F, 'NR == 2 { print $5 }' "$run/metrics.csv")"
}
if "$python" -c 'import sys, torch; sys.exit(not torch.cuda.is_available())'; then
    for games in 256 1024 4096; do
        for workers in 1 2; do
            measure cuda "$workers" "$games"
        done
    done
else
    echo "no GPU visible to torch: measuring the CPU only" >&2
fi
for workers in 1 2; do
    measure cpu "$workers" 256
done
