#!/usr/bin/env bash
# `make bench`: every benchmark, one after the other (they share two cores): the server against
# nginx, the server under attack, `hearth remap` end to end, the engine's criterion benchmarks,
# the flashcard tool at scale in Chromium, and Lighthouse on every screen (mobile and desktop).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "### server (bench/server.sh)"
bash bench/server.sh
echo
echo "### attacks: memory and /healthz under hostile clients (bench/attack.sh)"
bash bench/attack.sh
echo
echo "### what metrics cost at 50 requests a second (bench/metrics.sh)"
bash bench/metrics.sh
echo
echo "### hearth remap, one core (bench/remap.sh)"
SKIP_BUILD= bash bench/remap.sh
echo
echo "### engine, criterion (crates/engine/benches/engine.rs), ending with the ratios engine / ical"
cargo bench --locked -p hearth-engine --bench engine -- --noplot
echo
echo "### merge: peak memory of three feeds against their inputs (crates/engine/tests/merge_memory.rs)"
cargo test --release --locked -q -p hearth-engine --test merge_memory -- --nocapture 2>&1 | grep -E '^merge peak|test result'
echo
echo "### flashcards at scale, the size of a sync vault, and Lighthouse on every screen, in Chromium (ui/e2e/bench)"
bin="${HEARTH_BIN:-$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/hearth}"
# Lighthouse drives Debian's Chromium (CHROME_PATH); nothing downloads a browser.
(cd ui && HEARTH_BIN="$bin" CHROME_PATH="${CHROME_PATH:-/usr/bin/chromium}" npx vitest run --config e2e/bench/vitest.config.ts)
