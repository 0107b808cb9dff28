# Sowing: `make demo` runs the main job, `make test` runs every test. Both set up what they need
# on a fresh machine: the Python environment (.venv, with torch for libtorch) comes from
# requirements.txt.
CARGO ?= cargo
PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python

.PHONY: all venv build test demo bench lint

all: build

# The virtual environment, rebuilt when requirements.txt changes.
venv: $(VENV)/.installed
$(VENV)/.installed: requirements.txt
	test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet -r requirements.txt
	touch $@

build:
	$(CARGO) build --release --workspace

test: venv
	$(CARGO) test --workspace

demo: build
	./target/release/sowing variants

bench:
	$(CARGO) bench --workspace

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
