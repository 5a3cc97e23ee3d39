#!/usr/bin/env bash
# `make bench`: every benchmark, one after the other (they share two cores): the server against
# nginx, `hearth remap` end to end, and the engine's criterion benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "### server (bench/server.sh)"
bash bench/server.sh
echo
echo "### hearth remap, one core (bench/remap.sh)"
SKIP_BUILD= bash bench/remap.sh
echo
echo "### engine, criterion (benches/engine.rs)"
cargo bench --bench engine -- --noplot
