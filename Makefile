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
DEMO_RUN := runs/demo-en-dodoi-6
# The demo's endgame table: every en-dodoi-6 position of at most 16 seeds (30 MB, 20-40 s to
# build, kept between demos). Self-play learns the endgame from it, and the network plays
# perfectly inside it when it is given one (docs/training-results.md measures both).
DEMO_TB := runs/tb/en-dodoi-6-16.tb
# The Maasai game's own board, 2x8: its 2-ply openings are seldom decided, as en-dodoi-6's are.
DEMO_RUN8 := runs/demo-en-dodoi-8

.PHONY: all venv python build test demo bench lint

all: build

# The virtual environment, rebuilt when requirements.txt changes.
venv: $(VENV)/.installed
$(VENV)/.installed: requirements.txt
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

# The main job: train an AlphaZero-style agent on en-dodoi-6 for ten minutes (a fresh run in
# $(DEMO_RUN), a network of 128 x 4 blocks: the default 64 x 2 stops learning after a minute,
# docs/strength.md; self-play exact inside $(DEMO_TB), evaluated against the baselines and on the
# exact positions every 10 iterations), then play it (64 simulations per move) against greedy and mcts:1000, 200 games
# each: from the start, and from 2 random plies (as evaluation during training does) and 4 (both
# sides of each opening), since the start is a proven South win, which every strong agent
# converts as South and loses as North. Then the network at 50 ms a move, with the table, against
# alphabeta:50ms (200 games from 2 plies), every move of those games reviewed against perfect
# play (who gave results away; the score the openings gave), and the accuracy of both, with and
# without the table, on the 2,000 committed positions. Most of en-dodoi-6's 2-ply openings are
# decided (a forced win for one side), so that match is bounded near 50% by the openings
# (docs/strength.md); en-dodoi-8, the game's own board, is not: a network trained on it for five
# minutes then plays alphabeta:50ms the same way, and both are measured on its 2,000 committed
# positions. The engine's statistics and throughput come first; a quick comparison of the
# presets (`sowing compare`, its summary table printed, the report in runs/demo-compare) ends it.
demo: build
	./target/release/sowing variants
	./target/release/sowing random --variant all --games 10000
	./target/release/sowing bench
	rm -rf $(DEMO_RUN)
	mkdir -p $(dir $(DEMO_TB))
	test -f $(DEMO_TB) || ./target/release/sowing tablebase build --variant en-dodoi-6 \
		--max-seeds 16 --out $(DEMO_TB)
	./target/release/sowing train --variant en-dodoi-6 --minutes 10 --seed 0 --eval-every 10 \
		--hidden 128 --blocks 4 --tablebase $(DEMO_TB) --out $(DEMO_RUN)
	for k in 0 2 4; do \
		./target/release/sowing arena --variant en-dodoi-6 --games 200 --seed 1 --opening $$k \
			--agents az:$(DEMO_RUN):64,greedy,mcts:1000 --csv $(DEMO_RUN)/arena-opening-$$k.csv \
			|| exit 1; \
	done
	./target/release/sowing arena --variant en-dodoi-6 --games 200 --seed 3 --opening 2 \
		--agents az:$(DEMO_RUN):50ms:tb=$(DEMO_TB),alphabeta:50ms --csv $(DEMO_RUN)/arena-50ms.csv \
		--records $(DEMO_RUN)/games-50ms
	./target/release/sowing review --records $(DEMO_RUN)/games-50ms --tablebase $(DEMO_TB)
	./target/release/sowing accuracy --variant en-dodoi-6 --positions 2000 --agents \
		az:$(DEMO_RUN):50ms:tb=$(DEMO_TB),az:$(DEMO_RUN):50ms,alphabeta:50ms,alphabeta:50ms:tb=$(DEMO_TB)
	rm -rf $(DEMO_RUN8)
	./target/release/sowing train --variant en-dodoi-8 --minutes 5 --seed 0 --eval-every 20 \
		--out $(DEMO_RUN8)
	./target/release/sowing arena --variant en-dodoi-8 --games 200 --seed 3 --opening 2 \
		--agents az:$(DEMO_RUN8):50ms,alphabeta:50ms --csv $(DEMO_RUN8)/arena-50ms.csv \
		--records $(DEMO_RUN8)/games-50ms
	./target/release/sowing accuracy --variant en-dodoi-8 --positions 2000 --agents \
		az:$(DEMO_RUN8):50ms,alphabeta:50ms
	@echo "report: $(DEMO_RUN)/metrics.csv; matches: $(DEMO_RUN)/arena-opening-K.csv (K = 0, 2, 4)"
	@echo "en-dodoi-8: $(DEMO_RUN8)/metrics.csv, $(DEMO_RUN8)/arena-50ms.csv"
	@echo "plots:  $(DEMO_RUN)/learning-curve.png (.svg), $(DEMO_RUN)/win-rates.png (.svg)"
	./target/release/sowing compare --variants all --budget 60s --seed 0 --out runs/demo-compare

bench: build python
	$(CARGO) bench --workspace
	$(TORCH_ENV) $(CARGO) bench -p sowing-agents --features torch --bench self_play --bench leaf_batch
	$(VPY) pybindings/bench.py
	$(VPY) pybindings/bench_search.py
	$(VPY) pybindings/bench_positions.py

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(TORCH_ENV) $(CARGO) clippy -p sowing-agents -p sowing-train -p sowing-experiments --features torch --all-targets -- -D warnings
