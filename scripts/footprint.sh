#!/usr/bin/env bash
# Footprint budgets, checked like tests (`make footprint`, part of `make test`): the release
# binary at most 12,000,000 bytes, and its idle memory at most 10 MB (10,240 kB of VmRSS) after a
# start on a fresh data directory and the visit the issue names (scripts/visit.sh: GET /healthz,
# the landing page / and the deck list /flashcards with what each page makes a browser fetch).
# Prints both figures either way; fails when either is over.
# Usage: scripts/footprint.sh [BINARY] (default target/release/hearth, or $HEARTH_BIN);
# FOOTPRINT_SMAPS=1 also prints where the idle RSS is (smaps_rollup, and each mapping over 200 kB).
set -euo pipefail
cd "$(dirname "$0")/.."

bin="${1:-${HEARTH_BIN:-target/release/hearth}}"
max_bytes="${FOOTPRINT_MAX_BYTES:-12000000}"
max_rss_kb="${FOOTPRINT_MAX_RSS_KB:-10240}"

[ -x "$bin" ] || { echo "footprint: $bin is missing: run make build" >&2; exit 1; }

# shellcheck source=scripts/visit.sh
. scripts/visit.sh
visit_start "$bin"
visit_pages
pid=$visit_pid
assets=$visit_assets

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
