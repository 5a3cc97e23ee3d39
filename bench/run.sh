#!/usr/bin/env bash
# `make bench`: every benchmark, one after the other (they share two cores): the server against
# nginx, the server under attack, `hearth remap` end to end, the engine's criterion benchmarks,
# and the flashcard tool at scale in Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "### server (bench/server.sh)"
bash bench/server.sh
echo
echo "### attacks: memory and /healthz under hostile clients (bench/attack.sh)"
bash bench/attack.sh
echo
echo "### hearth remap, one core (bench/remap.sh)"
SKIP_BUILD= bash bench/remap.sh
echo
echo "### engine, criterion (benches/engine.rs)"
cargo bench --bench engine -- --noplot
echo
echo "### flashcards at scale in Chromium, and the size of a sync vault (ui/e2e/bench)"
bin="${HEARTH_BIN:-$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/hearth}"
(cd ui && HEARTH_BIN="$bin" npx vitest run --config e2e/bench/vitest.config.ts)
