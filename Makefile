# Sowing: `make demo` runs the main job, `make test` runs every test. Both set up what they need
# on a fresh machine: the Python environment (.venv, with torch for libtorch) comes from
# requirements.txt.
CARGO ?= cargo
PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
# tch (feature `torch`) links the libtorch of the venv's torch==2.13.0: torch-sys asks the venv's
# python where it is; the build scripts embed its lib directory as rpath, so no LD_LIBRARY_PATH.
TORCH_ENV := VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH LIBTORCH_USE_PYTORCH=1
# The main job trains on the Maasai game's own board, 2x8 (en-dodoi-8), whose 2-ply openings are
# seldom decided, so a match there measures the players.
DEMO_RUN := runs/demo-en-dodoi-8
DEMO_TRAIN := --variant en-dodoi-8 --minutes 9 --seed 0 --eval-every 20 --hidden 128 --blocks 4
# Matches of 200 games from 2-ply openings, both sides of each: every one of the board's 58
# distinct openings once before any repeats (drawn at random, 200 games held 47 of them).
DEMO_MATCH := --variant en-dodoi-8 --games 200 --seed 3 --opening 2 --distinct-openings

.PHONY: all venv python build test demo bench lint

all: build

# The virtual environment, rebuilt when requirements.txt changes. An install that brings torch
# and its CUDA packages anew (5.0 GB in .venv, and up to 2.7 GB unpacked in TMPDIR on the way,
# measured), the first or one after torch's pin changed, is refused up front where the disks
# cannot hold it.
venv: $(VENV)/.installed
$(VENV)/.installed: requirements.txt
	scripts/torch-in-venv.sh $(VPY) requirements.txt || scripts/need-disk.sh "the Python environment (.venv: torch and its CUDA packages)" 6 . 3 "$${TMPDIR:-/tmp}"
	test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet -r requirements.txt
	touch $@

# The Python package `sowing` (pybindings/), built in release mode into the virtual environment.
python: venv
	VIRTUAL_ENV=$(abspath $(VENV)) $(VENV)/bin/maturin develop --release --quiet -m pybindings/Cargo.toml

build: venv
	$(CARGO) build --release --workspace
	$(TORCH_ENV) $(CARGO) build --release -p sowing-experiments --features torch

test: venv python
	$(CARGO) test --workspace
	$(TORCH_ENV) $(CARGO) test -p sowing-agents --features torch --lib --test 'az_*'
	$(TORCH_ENV) $(CARGO) test -p sowing-train --features torch
	$(TORCH_ENV) $(CARGO) test -p sowing-experiments --features torch --bin sowing --test play_network
	# The sowing command with az: agents, which pybindings/tests/test_ray.py plays a Ray run with.
	$(TORCH_ENV) $(CARGO) build -p sowing-experiments --features torch
	$(VPY) -m pytest -q pybindings/tests

# The main job, under 20 minutes on 2 cores from a built tree (16.9 to 18.6 measured): the engine's
# statistics and throughput and the starts proven exactly; then an AlphaZero-style network trained
# on en-dodoi-8 for nine minutes, played at 50 ms a move against alpha-beta given four times its time, and with
# its policy alone (one simulation, no search) against alpha-beta at 50 ms; the accuracy of the
# four on exact positions (paired: the same positions for each); a quick comparison of the presets,
# opening with which is hardest; and a summary to read in a minute.
demo: build
	./target/release/sowing variants
	./target/release/sowing random --variant all --games 10000
	./target/release/sowing bench --seconds 1
	./target/release/sowing solved --proven
	rm -rf $(DEMO_RUN)
	./target/release/sowing train $(DEMO_TRAIN) --out $(DEMO_RUN)
	./target/release/sowing arena $(DEMO_MATCH) --agents az:$(DEMO_RUN):50ms,alphabeta:200ms \
		--csv $(DEMO_RUN)/arena-4x-time.csv --records $(DEMO_RUN)/games-4x-time
	./target/release/sowing arena $(DEMO_MATCH) --agents az:$(DEMO_RUN):1:solver=0,alphabeta:50ms \
		--csv $(DEMO_RUN)/arena-policy.csv
	./target/release/sowing accuracy --variant en-dodoi-8 --positions 500 --agents \
		az:$(DEMO_RUN):1:solver=0,az:$(DEMO_RUN):50ms,alphabeta:50ms,alphabeta:200ms
	./target/release/sowing compare --variants all --budget 60s --seed 0 --out runs/demo-compare
	@echo
	./target/release/sowing summary --run $(DEMO_RUN) --match $(DEMO_RUN)/arena-4x-time.csv \
		--match $(DEMO_RUN)/arena-policy.csv
	@echo "  variants  runs/demo-compare/report.md (opens with the ranking of the presets)"
	@echo "  next      README.md (Python, Gymnasium, PettingZoo), docs/strength.md, docs/compare.md"

bench: build python
	$(CARGO) bench --workspace
	$(TORCH_ENV) $(CARGO) bench -p sowing-agents --features torch --bench self_play --bench leaf_batch --bench move_time
	$(VPY) pybindings/bench.py
	$(VPY) pybindings/bench_search.py
	$(VPY) pybindings/bench_positions.py
	$(VPY) pybindings/bench_solve.py
	$(VPY) pybindings/bench_tablebase_ray.py

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(TORCH_ENV) $(CARGO) clippy -p sowing-agents -p sowing-train -p sowing-experiments --features torch --all-targets -- -D warnings
