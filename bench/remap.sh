#!/usr/bin/env bash
# End-to-end throughput of `hearth remap` on one core: generated feeds of 1k/10k/100k events,
# (a) the default mapping and (b) the realistic one: SUMMARY "${SUMMARY} @ ${LOCATION}" and every
# link in DESCRIPTION shown as its host (a capture-group regex, g flag). Beside them, in the same
# run, the peer: the `ical` crate's parser and writer on the same file (crates/engine/examples/
# ical_peer.rs, streaming its properties: its faster way). Prints MB/s, events/s, peak RSS and
# "engine / ical" (x_ical); targets: (a) >= 300 MB/s and 6x the peer, (b) >= 150 MB/s and 3x
# the peer, peak RSS <= 2x the input. Usage: bench/remap.sh [SIZES...]   (SKIP_BUILD=1 reuses the binaries;
# HEARTH_BIN=PATH measures another build)
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-target}"
out=bench/out
runs="${RUNS:-5}"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000)
mkdir -p "$out"

if [ -z "${SKIP_BUILD:-}" ]; then
    cargo build --release --quiet --bin hearth --example gen_feed
    cargo build --release --quiet -p hearth-engine --example ical_peer
fi
bin="${HEARTH_BIN:-$target/release/hearth}"
gen="$target/release/examples/gen_feed"
peer="$target/release/examples/ical_peer"

cat > "$out/mapping-default.json" <<'JSON'
{}
JSON
cat > "$out/mapping-realistic.json" <<'JSON'
{"SUMMARY": "${SUMMARY} @ ${LOCATION}", "DESCRIPTION": "${DESCRIPTION|re:s/https?:\\/\\/([^\\/\\s]+)\\S*/[$1]/g}"}
JSON

pin=(taskset -c 0)
command -v taskset >/dev/null || pin=()

now_ns() { date +%s%N; }

# `PROGRAM ARGS...` timed: the best of $runs runs into $best (ns), its peak RSS into $rss_kb.
measure_program() {
    local program="$1"
    shift
    best=""
    for _ in $(seq "$runs"); do
        t0=$(now_ns)
        "${pin[@]}" "$program" "$@" > /dev/null
        t1=$(now_ns)
        dt=$((t1 - t0))
        if [ -z "$best" ] || [ "$dt" -lt "$best" ]; then best=$dt; fi
    done
    rss_kb=$(/usr/bin/time -f '%M' "${pin[@]}" "$program" "$@" 2>&1 >/dev/null | tail -n1)
}

# `hearth ARGS...` timed as above.
measure() { measure_program "$bin" "$@"; }

printf '%-8s %-10s %10s %9s %10s %12s %10s %8s %8s\n' events mapping input_MB best_ms MB/s events/s peak_MB rss/in x_ical
fail=0
for n in "${sizes[@]}"; do
    feed="$out/feed-$n.ics"
    [ -s "$feed" ] || "$gen" "$n" > "$feed"
    bytes=$(stat -c %s "$feed")
    # The peer first, on the same file in the same run.
    measure_program "$peer" "$feed"
    peer_ns=$best
    awk -v n="$n" -v b="$bytes" -v ns="$best" -v rss="$rss_kb" 'BEGIN {
        s = ns / 1e9;
        printf "%-8d %-10s %10.2f %9.1f %10.1f %12.0f %10.1f %8.2f %8s\n", n, "ical-peer", b / 1e6, s * 1000, b / 1e6 / s, n / s, rss * 1024 / 1e6, rss * 1024 / b, "1.0"
    }'
    for mapping in default realistic; do
        args=(remap --mapping "$out/mapping-$mapping.json" "$feed")
        "$bin" "${args[@]}" > "$out/remapped-$n-$mapping.ics"
        measure "${args[@]}"
        awk -v n="$n" -v m="$mapping" -v b="$bytes" -v ns="$best" -v rss="$rss_kb" -v p="$peer_ns" 'BEGIN {
            s = ns / 1e9; mbs = b / 1e6 / s; ratio = rss * 1024 / b;
            printf "%-8d %-10s %10.2f %9.1f %10.1f %12.0f %10.1f %8.2f %7.1fx\n", n, m, b / 1e6, s * 1000, mbs, n / s, rss * 1024 / 1e6, ratio, p / ns
        }'
        if [ "$n" -ge 10000 ]; then
            target_mbs=300; target_x=6; [ "$mapping" = realistic ] && target_mbs=150 target_x=3
            awk -v b="$bytes" -v ns="$best" -v rss="$rss_kb" -v t="$target_mbs" -v p="$peer_ns" -v x="$target_x" \
                'BEGIN { exit !((b / 1e6) / (ns / 1e9) >= t && rss * 1024 <= 2 * b && p / ns >= x) }' || {
                echo "  ^ below target (${target_mbs} MB/s, ${target_x}x the ical peer, peak RSS <= 2x input)"
                fail=1
            }
        fi
    done
done
# Merged calendars: three generated feeds of the largest size merged and remapped in one run
# (time, MB/s of the three inputs, peak RSS against their total).
n="${sizes[-1]}"
feed="$out/feed-$n.ics"
# Three calendars of their own: the same generated feed with other UIDs.
for k in b c; do
    [ -s "$out/feed-$n-$k.ics" ] || sed "s/^UID:/UID:$k-/" "$feed" > "$out/feed-$n-$k.ics"
done
bytes=$(( $(stat -c %s "$feed") * 3 ))
echo '{"mapping": {}, "sources": [{"prefix": "[Work] "}, {"prefix": "[Home] "}, {"prefix": "[Club] "}]}' > "$out/config-merge.json"
args=(remap --config "$out/config-merge.json" "$feed" "$out/feed-$n-b.ics" "$out/feed-$n-c.ics")
measure "${args[@]}"
awk -v n="$n" -v b="$bytes" -v ns="$best" -v rss="$rss_kb" 'BEGIN {
    s = ns / 1e9; printf "%-8s %-10s %10.2f %9.1f %10.1f %12.0f %10.1f %8.2f\n", "3x" n, "merge", b / 1e6, s * 1000, b / 1e6 / s, 3 * n / s, rss * 1024 / 1e6, rss * 1024 / b
}'
exit "$fail"
