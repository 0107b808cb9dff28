# Sowing: `make demo` runs the main job, `make test` runs every test. Both set up what they need
# on a fresh machine: the Python environment (.venv, with torch for libtorch) comes from
# requirements.txt.
CARGO ?= cargo
PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python

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

build:
	$(CARGO) build --release --workspace

test: venv python
	$(CARGO) test --workspace
	$(VPY) -m pytest -q pybindings/tests

# The main job. For now: the presets, random-play statistics of each, and the engine's throughput.
demo: build
	./target/release/sowing variants
	./target/release/sowing random --variant all --games 10000
	./target/release/sowing bench

bench: python
	$(CARGO) bench --workspace
	$(VPY) pybindings/bench.py

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
