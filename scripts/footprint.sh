#!/usr/bin/env bash
# Footprint budgets, checked like tests (`make footprint`, part of `make test`): the release
# binary at most 12,000,000 bytes, and its idle memory at most 10 MB (10,240 kB of VmRSS) after a
# start on a fresh data directory and the visit the issue names: GET /healthz, the landing page /
# and the deck list /flashcards, each page with the scripts, styles and preloads its HTML names,
# asked for as Chromium asks (Accept-Encoding: gzip, deflate, br, zstd). Prints both figures
# either way; fails when either is over. The server listens on a port the kernel picks
# (--listen 127.0.0.1:0), read from its "listening on" line, so nothing races for a port or sleeps.
# Usage: scripts/footprint.sh [BINARY] (default target/release/hearth, or $HEARTH_BIN);
# FOOTPRINT_SMAPS=1 also prints where the idle RSS is (smaps_rollup, and each mapping over 200 kB).
set -euo pipefail
cd "$(dirname "$0")/.."

bin="${1:-${HEARTH_BIN:-target/release/hearth}}"
max_bytes="${FOOTPRINT_MAX_BYTES:-12000000}"
max_rss_kb="${FOOTPRINT_MAX_RSS_KB:-10240}"
accept='gzip, deflate, br, zstd'

[ -x "$bin" ] || { echo "footprint: $bin is missing: run make build" >&2; exit 1; }

data=$(mktemp -d)
log="$data/server.log"
pid=""
cleanup() {
    if [ -n "$pid" ]; then
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    rm -rf "$data"
}
trap cleanup EXIT

HEARTH_LOG=info HEARTH_LOG_FORMAT=text "$bin" serve --listen 127.0.0.1:0 --data-dir "$data/db" \
    >"$log" 2>&1 &
pid=$!

# Ready when it has logged its address (the listener is bound before that line is written).
origin=""
for _ in $(seq 600); do
    origin=$(grep -o 'listening on http://[0-9.:]*' "$log" | head -n1 | sed 's/listening on //' || true)
    [ -n "$origin" ] && break
    kill -0 "$pid" 2>/dev/null || { echo "footprint: the server exited:" >&2; cat "$log" >&2; exit 1; }
    sleep 0.1
done
[ -n "$origin" ] || { echo "footprint: the server did not start within 60 s:" >&2; cat "$log" >&2; exit 1; }

# get PATH: fetches like a browser, fails on anything but 200.
get() {
    curl -fsS --max-time 30 --compressed -o "$data/body" -H "Accept-Encoding: $accept" "$origin$1" \
        || { echo "footprint: GET $1 failed" >&2; exit 1; }
}

get /healthz
assets=0
for page in / /flashcards; do
    get "$page"
    # What the page's HTML makes a browser fetch before anything runs: its scripts, styles,
    # module preloads and icons (same-origin paths only).
    for path in $(grep -oE '(src|href)="/[^"]+"' "$data/body" | sed -E 's/^(src|href)="//; s/"$//' \
        | grep -E '\.(js|mjs|css|svg|png|ico|webmanifest|woff2)$' | sort -u); do
        get "$path"
        assets=$((assets + 1))
    done
done

rss_kb=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$pid/status")
if [ -n "${FOOTPRINT_SMAPS:-}" ]; then
    grep -E "^(Rss|Anonymous|Shared_Clean|Private_Clean|Private_Dirty)" "/proc/$pid/smaps_rollup" >&2
    awk '/^[0-9a-f]+-/ { m = $0 } /^Rss:/ { if ($2 > 200) print $2 " kB " m }' "/proc/$pid/smaps" >&2
fi
bytes=$(stat -c %s "$bin")

status=0
verdict() { if [ "$1" -le "$2" ]; then echo ok; else echo OVER; fi; }
bytes_verdict=$(verdict "$bytes" "$max_bytes")
rss_verdict=$(verdict "$rss_kb" "$max_rss_kb")
[ "$bytes_verdict" = ok ] || status=1
[ "$rss_verdict" = ok ] || status=1
printf 'footprint: binary %s bytes (budget %s): %s\n' "$bytes" "$max_bytes" "$bytes_verdict"
printf 'footprint: idle RSS %s kB after /healthz, /, /flashcards and their %d assets (budget %s kB): %s\n' \
    "$rss_kb" "$assets" "$max_rss_kb" "$rss_verdict"
exit "$status"
