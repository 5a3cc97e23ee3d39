#!/usr/bin/env bash
# Attack benchmark (issues 11 and 12): examples/attack/ starts the release binary once per
# attack, attacks it from 127.0.0.1 while probing /healthz from 127.0.0.2, and prints peak RSS,
# RSS afterwards and the worst /healthz latency per attack. It reports; a missed target is not
# a failure. Usage: bench/attack.sh (after `make build`).
#   ATTACKS=regex,amplify,cache,slots,slow,slowloris,flood   a subset (default: all, ~4 minutes)
#   SCALE=0.1       smaller counts while developing (default 1: the scale of the issues)
#   RSS_CAP_MB=6144 the server is killed above this, so an undefended build cannot take the machine
#   HEARTH_BIN=PATH another server binary (default: target/release/hearth)
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-target}"
bin="${HEARTH_BIN:-$target/release/hearth}"
[ -x "$bin" ] || { echo "bench: $bin is missing: run make build" >&2; exit 1; }

cargo build --release --locked --quiet --example attack
# The attacker holds 1,500 connections at once; each server gets its own limit (the slowloris
# run starts it under `ulimit -n 1024`, systemd's default).
ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
# As deploy/hearth.service runs it (the unit's Environment=): two malloc arenas, large buffers mapped.
export MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072
HEARTH_BIN="$bin" exec "$target/release/examples/attack"
