# Everyday commands. `make demo` and `make test` work on a fresh machine with Python 3.11-3.13.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Every dependency, transitive ones included, pinned with hashes (`make lock` regenerates):
# requirements.lock is the product (+ otel) for the Docker image, requirements-test.lock adds
# the test extra for this venv.
LOCK := requirements.lock
TEST_LOCK := requirements-test.lock
UV_VERSION := 0.13.9
COMPILE := $(BIN)/uv pip compile pyproject.toml --quiet --generate-hashes --universal --no-config

.PHONY: install demo test test-fast test-wheel lint bench clean browser ocr soundfont schemas \
	lock starter-ts

# The song's instruments (media/song/synth.py): libfluidsynth3 and the FluidR3 General MIDI
# SoundFont from Debian. As root they are installed; otherwise say what is missing.
SOUNDFONT := /usr/share/sounds/sf2/FluidR3_GM.sf2
soundfont:
	@( [ -f $(SOUNDFONT) ] && ldconfig -p | grep -q libfluidsynth ) || \
		([ "$$(id -u)" = 0 ] && echo "make: installing libfluidsynth3 and fluid-soundfont-gm" \
		"with apt-get (the song's instruments)" && apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libfluidsynth3 fluid-soundfont-gm) || \
		(echo "install libfluidsynth3 and fluid-soundfont-gm (or set FILM_SOUNDFONT)" && false)

$(STAMP): pyproject.toml $(TEST_LOCK) | soundfont
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --require-hashes -r $(TEST_LOCK)
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

# After changing dependencies in pyproject.toml: re-resolve both locks (from PyPI, for every
# platform and Python 3.11-3.13), then `make install`.
lock:
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet uv==$(UV_VERSION)
	$(COMPILE) --extra otel -o $(LOCK)
	$(COMPILE) --extra test -o $(TEST_LOCK)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/filmworker render samples/birthday --out out/birthday

lint: $(STAMP)
	$(BIN)/ruff check .

# The contract's generated files (contract/*.schema.json, names.json, callback.openapi.json,
# codec-vectors.json).
schemas: $(STAMP)
	$(BIN)/python -m app.contract_files

# Debian's tesseract-ocr for the reading tests (the cards read back at phone size; best effort:
# without it they skip). As root it is installed with apt-get, and the line before says so.
ocr:
	@command -v tesseract >/dev/null || ([ "$$(id -u)" = 0 ] && echo "make: installing" \
		"tesseract-ocr with apt-get (the reading tests; without it they skip)" && \
		apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tesseract-ocr) || \
		echo "tesseract unavailable: the reading tests will skip"

# Debian's chromium for the gift page browser tests (best effort: without it they skip). As
# root it is installed with apt-get, and the line before says so.
browser:
	@command -v chromium >/dev/null || ([ "$$(id -u)" = 0 ] && echo "make: installing" \
		"chromium with apt-get (the gift page browser tests; without it they skip)" && \
		apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) || \
		echo "chromium unavailable: browser tests will skip"

# The TypeScript starter's packages from npm (node 18+ and npm; without them its test skips).
starter-ts:
	@if command -v npm >/dev/null; then cd contract/starter-ts && npm ci --no-audit --no-fund \
		--loglevel=error && npm run --silent build; \
	else echo "node/npm unavailable: the TypeScript starter test will skip"; fi

test: $(STAMP) lint browser ocr starter-ts
	$(BIN)/pytest -q -ra -n 2 -m "not wheel"

# The package as users get it (minutes, from PyPI): the wheel installed with requirements.lock
# into a fresh venv outside the source tree renders samples/birthday (tests/test_wheel.py).
test-wheel: $(STAMP)
	$(BIN)/pytest -q -ra -m wheel tests/test_wheel.py

# The quick loop while working (under a minute on a quiet 2-core machine): every test of the
# tests/ tree that needs no dev server or worker process, no render, encode or whole song, no
# OCR, nothing otherwise slow and no benchmark script (the markers in pyproject.toml;
# tests/conftest.py marks e2e, ocr, slow and bench by what a test uses), so a new pure test
# joins it by itself. `make test` runs all of them.
FAST_MARKERS := not e2e and not render and not ocr and not slow and not bench and not wheel
test-fast: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/pytest -q -n 2 -m "$(FAST_MARKERS)"


# Issue 7's benchmark (long; see README "Benchmark"): make bench BENCH_ARGS=--quick
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python -m pip install --quiet --no-deps moviepy==2.2.1
	$(BIN)/python -m pip install --quiet av==18.0.0  # bench.inprocess_encoder only
	$(BIN)/python -m bench.pipeline_bench $(BENCH_ARGS)

clean:
	rm -rf out .filmworker .pytest_cache .ruff_cache
