#!/usr/bin/env bash
# Server benchmarks, each against nginx on the same machine in the same run: binary size, idle
# memory, the landing page's initial script (gzipped), wrk load (50 connections, 10 s) on
# GET /, a hashed asset, and a published 1,000-event hosted feed (200 and 304 answers); and a
# calendar's agenda page (`"agenda": true`, the same 1,000 events a year ahead, at most 500 shown)
# against that calendar's own hosted feed under the same load.
# Every answer's status is counted (bench/answers.lua): a run with any answer other than the one
# it measures fails the bench, since a refusal is not a page served. Hearth is run as behind a
# reverse proxy on the same machine (--trust-loopback true), each request naming another visitor,
# as the many visitors a load test stands for would be; nginx serves files and ignores the header.
# Everything listens on 127.0.0.1 only. Usage: bench/server.sh (after `make build`); HEARTH_BIN=PATH
# measures another binary (an older build, for a before/after on the same machine).
set -euo pipefail
cd "$(dirname "$0")/.."

bin="${HEARTH_BIN:-target/release/hearth}"
out="$PWD/bench/out"
duration="${DURATION:-10s}"
connections="${CONNECTIONS:-50}"
mkdir -p "$out/feeds"

[ -x "$bin" ] || { echo "bench: $bin is missing: run make build" >&2; exit 1; }
if ! command -v wrk >/dev/null || ! command -v nginx >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk nginx-light >/dev/null
    else
        echo "bench: needs wrk and nginx (apt-get install wrk nginx-light)" >&2
        exit 1
    fi
fi

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for() { for _ in $(seq 100); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.1; done; echo "bench: $1 did not answer" >&2; return 1; }
rss_kb() { awk -v k="$2" '$1 == k":" { print $2 }' "/proc/$1/status"; }

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$data"; }
data=$(mktemp -d)
trap cleanup EXIT

# --- nginx: the UI files, the upstream feed, and later the hosted output as a static file.
nport=$(free_port)
cat > "$out/nginx.conf" <<EOF
daemon off;
worker_processes auto;
pid $out/nginx.pid;
error_log stderr warn;
events { worker_connections 1024; }
http {
    include /etc/nginx/mime.types;
    types { text/calendar ics; }
    access_log off;
    sendfile on;
    tcp_nopush on;
    server {
        listen 127.0.0.1:$nport;
        root $PWD/ui/dist;
        location /feeds/ { alias $out/feeds/; }
        location / { try_files \$uri /index.html; }
    }
}
EOF
nginx -c "$out/nginx.conf" -p "$out" &
pids+=($!)
wait_for "http://127.0.0.1:$nport/"

# --- hearth
hport=$(free_port)
# wrk is one client with $connections connections, more than the per-address cap (32) lets one
# visitor hold; here it stands for many visitors, so the cap is raised above it.
cap=()
if "$bin" serve --help | grep -q -- --max-connections-per-address; then
    cap=(--max-connections-per-address "$((connections + 8))")
fi
HEARTH_LOG=warn "$bin" serve --listen "127.0.0.1:$hport" --data-dir "$data" --allow-private-feeds --feed-ttl 1h --trust-loopback true "${cap[@]}" &
hpid=$!
pids+=($hpid)
wait_for "http://127.0.0.1:$hport/healthz"
# Binary size and idle RSS as `make footprint` measures them (its own server: start, /healthz, /
# and /flashcards with their assets), against the same budgets; over budget is reported here, and
# fails `make test`.
footprint=$(bash scripts/footprint.sh "$bin" || true)

size=$(stat -c %s "$bin")
entry=$(grep -o '/assets/index-[A-Za-z0-9_-]*\.js' ui/dist/index.html | head -n1)
entry_gz=$(gzip -9 -c "ui/dist$entry" | wc -c)
asset="$entry"

# --- a published 1,000-event feed, fetched once (warm cache), also given to nginx
cargo build --release --quiet --example gen_feed
target/release/examples/gen_feed 1000 > "$out/feeds/upstream-1000.ics"
feed_bytes=$(stat -c %s "$out/feeds/upstream-1000.ics")
curl -fsS -o /dev/null -X POST "http://127.0.0.1:$hport/api/calendars" \
    -H 'Content-Type: application/json' \
    --data "{\"id\":\"bench\",\"name\":\"Bench\",\"url\":\"http://127.0.0.1:$nport/feeds/upstream-1000.ics\",\"mapping\":{\"SUMMARY\":\"\${SUMMARY} @ \${LOCATION}\"}}"
curl -fsS -D "$out/hosted.headers" -o "$out/feeds/hosted.ics" "http://127.0.0.1:$hport/cal/bench.ics"
etag=$(awk 'tolower($1) == "etag:" { print $2 }' "$out/hosted.headers" | tr -d '\r')
hosted_bytes=$(stat -c %s "$out/feeds/hosted.ics")

# --- the agenda: the same feed moved a year ahead (its events coming, not past), published with
# "agenda": true and a window of a year ahead; page, JSON and feed fetched once (warm cache).
next_year=$(( $(date -u +%Y) + 1 ))
sed "s/:2024/:$next_year/g" "$out/feeds/upstream-1000.ics" > "$out/feeds/upstream-agenda.ics"
curl -fsS -o /dev/null -X POST "http://127.0.0.1:$hport/api/calendars" \
    -H 'Content-Type: application/json' \
    --data "{\"id\":\"agenda\",\"name\":\"Bench agenda\",\"url\":\"http://127.0.0.1:$nport/feeds/upstream-agenda.ics\",\"mapping\":{},\"agenda\":true,\"window\":{\"futureDays\":366}}"
curl -fsS -o /dev/null "http://127.0.0.1:$hport/cal/agenda.ics"
curl -fsS -D "$out/agenda.headers" -o "$out/agenda.html" "http://127.0.0.1:$hport/cal/agenda"
curl -fsS -o "$out/agenda.json" "http://127.0.0.1:$hport/cal/agenda.json"
agenda_etag=$(awk 'tolower($1) == "etag:" { print $2 }' "$out/agenda.headers" | tr -d '\r')
agenda_events=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["events"]))' "$out/agenda.json")

# wrk NAME URL EXPECTED [HEADER]: prints "NAME req/s p99 answers"; a run with any other answer
# than EXPECTED is reported and fails the bench at the end. Hearth's runs name many visitors.
failed=()
load() {
    local name=$1 url=$2 expected=$3 header=${4:-}
    local args=(-t2 -c"$connections" -d"$duration" --latency -s bench/answers.lua)
    [ -n "$header" ] && args+=(-H "$header")
    local visitors=""
    [[ $name == hearth-* ]] && visitors=forwarded
    local report
    report=$(wrk "${args[@]}" "$url" -- "$expected" $visitors)
    local rps p99 good other
    rps=$(awk '/Requests\/sec:/ { print $2 }' <<<"$report")
    p99=$(awk '$1 == "99%" { print $2 }' <<<"$report")
    good=$(awk '$1 == "answers:" { print $2 }' <<<"$report")
    other=$(awk '$1 == "answers:" { print $4 }' <<<"$report")
    if [ -z "$good" ] || [ "$other" != 0 ]; then
        failed+=("$name: $(grep '^answers:' <<<"$report" || echo 'no count of answers')")
    fi
    printf '%-34s %12s %10s %s\n' "$name" "$rps" "$p99" "$good $expected, $other other"
    echo "$rps" > "$out/rps-$name"
}

echo
echo "== hearth $("$bin" --version | cut -d' ' -f2-) on $(nproc) cores; wrk $connections connections, $duration"
printf 'binary size (stripped, UI inside): %.2f MB (budget <= 12 MB: 12,000,000 bytes)\n' "$(echo "$size / 1000000" | bc -l)"
idle_rss=$(sed -n 's/^footprint: idle RSS \([0-9]*\) kB.*/\1/p' <<<"$footprint")
printf 'idle RSS after /, /flashcards:     %.1f MB (budget <= 10 MB: 10,240 kB)%s\n' "$(echo "${idle_rss:-0} / 1024" | bc -l)" \
    "$(grep -q OVER <<<"$footprint" && echo ' OVER BUDGET' || true)"
printf 'landing page initial JS, gzip -9:  %.1f KB (target <= 80 KB)\n' "$(echo "$entry_gz / 1000" | bc -l)"
printf 'hosted feed: %d events, upstream %.2f MB, remapped %.2f MB\n' 1000 "$(echo "$feed_bytes / 1000000" | bc -l)" "$(echo "$hosted_bytes / 1000000" | bc -l)"
printf 'agenda page: %d events shown, %.0f KB (JSON %.0f KB)\n' "$agenda_events" "$(echo "$(stat -c %s "$out/agenda.html") / 1000" | bc -l)" "$(echo "$(stat -c %s "$out/agenda.json") / 1000" | bc -l)"
echo
printf '%-34s %12s %10s %s\n' "" "req/s" "p99" "answers"
load hearth-index "http://127.0.0.1:$hport/" 200
load nginx-index "http://127.0.0.1:$nport/" 200
load hearth-asset "http://127.0.0.1:$hport$asset" 200
load nginx-asset "http://127.0.0.1:$nport$asset" 200
load hearth-feed-200 "http://127.0.0.1:$hport/cal/bench.ics" 200
load nginx-feed-200 "http://127.0.0.1:$nport/feeds/hosted.ics" 200
load hearth-feed-304 "http://127.0.0.1:$hport/cal/bench.ics" 304 "If-None-Match: $etag"
load hearth-agenda-feed-200 "http://127.0.0.1:$hport/cal/agenda.ics" 200
load hearth-agenda-page-200 "http://127.0.0.1:$hport/cal/agenda" 200
load hearth-agenda-json-200 "http://127.0.0.1:$hport/cal/agenda.json" 200
load hearth-agenda-page-304 "http://127.0.0.1:$hport/cal/agenda" 304 "If-None-Match: $agenda_etag"
peak_rss=$(rss_kb "$hpid" VmHWM)

ratio() { echo "scale=2; $(cat "$out/rps-$1") / $(cat "$out/rps-$2")" | bc; }
echo
echo "hearth / nginx, GET /:            $(ratio hearth-index nginx-index)"
echo "hearth / nginx, hashed asset:     $(ratio hearth-asset nginx-asset)"
echo "hearth / nginx, hosted feed 200:  $(ratio hearth-feed-200 nginx-feed-200) (target >= 0.8)"
echo "hearth hosted feed 304:           $(cat "$out/rps-hearth-feed-304") req/s (target >= 20000)"
echo "agenda page / its hosted feed:    $(ratio hearth-agenda-page-200 hearth-agenda-feed-200) (a view costs what a poll does)"
printf 'hearth peak RSS during the run:   %.1f MB (target <= 60 MB)\n' "$(echo "$peak_rss / 1024" | bc -l)"

# A figure is only what was served: any other answer fails the bench.
if [ ${#failed[@]} -gt 0 ]; then
    echo
    echo "bench: runs with answers other than the ones measured:" >&2
    printf '  %s\n' "${failed[@]}" >&2
    exit 1
fi
