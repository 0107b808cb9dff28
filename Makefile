# Sowing: `make demo` runs the main job, `make test` runs every test. Both set up what they need.
CARGO ?= cargo

.PHONY: all build test demo bench lint

all: build

build:
	$(CARGO) build --release --workspace

test:
	$(CARGO) test --workspace

demo: build
	./target/release/sowing variants

bench:
	$(CARGO) bench --workspace

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
