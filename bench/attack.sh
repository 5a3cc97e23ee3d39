#!/usr/bin/env bash
# Attack benchmark (issues 11, 12, 22 and 33): examples/attack/ starts the release binary once per
# attack (with the environment of deploy/hearth.service), attacks it from loopback addresses
# while probing /healthz from 127.0.0.2, and prints per attack: peak RSS, RSS afterwards, the
# worst /healthz latency and failures, what legitimate clients got meanwhile, and each target met
# or MISSED (peak RSS <= 200 MB and every probe answered for all of them, plus each attack's own).
# It reports; a missed target is not a failure. Usage: bench/attack.sh (after `make build`).
#   ATTACKS=regex,slowloris,...  a subset, by attack name or group (default: all, ~10 minutes):
#     issue 11: regex (regex-render, regex-publish), amplify, cache (cache-40x3MB, cold-200k),
#               slots, slow (slow-upstream)
#     issue 12: slowloris, flood (publish-flood)
#     issue 33: neighbours (neighbours-bytes, neighbours-engine, neighbours-quotas,
#               neighbours-keys): 4 IPv4 addresses and 16 /64s of one /48 attack one resource
#               while a subscriber, a learner reading and writing, a new learner, an editor (and
#               the owner) keep asking
#     issue 22: proxy-slow, slow-uploads (slow-uploads, slow-uploads-key), nonreading
#               (nonreading-vault, nonreading-feed), sync-flood, conn-table (conn-table,
#               conn-table-v6: as root only, it adds 2001:db8:48:N::1 to lo and removes them
#               after; otherwise its row says why it was skipped), engine-saturated, quota-race,
#               household
#     issue 33: history (history-render, history-storage), metrics (metrics-conns), reflector
#               (reflector, reflector-v6: 16 /64s of one /48 named through X-Forwarded-For)
#   SCALE=0.1       smaller counts and shorter holds while developing (default 1: the issues' scale)
#   RSS_CAP_MB=6144 the server is killed above this, so an undefended build cannot take the machine
#   HEARTH_BIN=PATH another server binary (default: target/release/hearth)
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-target}"
bin="${HEARTH_BIN:-$target/release/hearth}"
[ -x "$bin" ] || { echo "bench: $bin is missing: run make build" >&2; exit 1; }

cargo build --release --locked --quiet --example attack
# The attacker holds 1,500 connections at once (slowloris) and 544 from 17 addresses (conn-table);
# each server gets its own limit (the slowloris run starts it under `ulimit -n 1024`, systemd's
# default).
ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
# As deploy/hearth.service runs it (the unit's Environment=): two malloc arenas, large buffers mapped.
export MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072
HEARTH_BIN="$bin" exec "$target/release/examples/attack"
