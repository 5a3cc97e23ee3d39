#!/usr/bin/env bash
# Proves the aarch64 binary runs: under qemu-aarch64 (or natively on an ARM64 machine) it prints
# its version, serves on a free loopback port with a temporary data directory, answers /healthz,
# /readyz and /, publishes a calendar whose upstream feed is served on loopback and serves the
# hosted feed, takes an online backup, and stops cleanly on SIGTERM.
#   deploy/pi-check.sh [BINARY]     (default dist/hearth-aarch64-unknown-linux-gnu; `make pi-check`)
set -euo pipefail
cd "$(dirname "$0")/.."

bin="${1:-dist/hearth-aarch64-unknown-linux-gnu}"
[ -x "$bin" ] || { echo "pi-check: $bin is missing; run 'make pi' first" >&2; exit 1; }
for tool in curl python3; do
  command -v "$tool" >/dev/null 2>&1 || { echo "pi-check: needs $tool" >&2; exit 1; }
done

say() { echo "pi-check: $*"; }
fail() { echo "pi-check: FAILED: $*" >&2; [ -s "${work:-/nonexistent}/serve.log" ] && { echo "--- hearth's log:" >&2; tail -n 30 "$work/serve.log" >&2; }; exit 1; }

# --- How to run an aarch64 program here ---------------------------------------------------
if [ "$(uname -m)" = aarch64 ]; then
  run=()
else
  bash deploy/cross-setup.sh qemu
  # -L: where the aarch64 dynamic loader and glibc are. The loader and libc.so.6 must come from
  # the same package: Debian's libc6:arm64 (multiarch, in /) when installed, else the cross
  # sysroot. Mixing the two (the sysroot's loader finding the multiarch libc) hangs in the first
  # pthread_create.
  if [ -e /lib/ld-linux-aarch64.so.1 ]; then
    run=(qemu-aarch64 -L /)
  else
    run=(qemu-aarch64 -L /usr/aarch64-linux-gnu)
  fi
fi

# What the binary is and which glibc it needs (it runs on systems with that glibc or newer).
if command -v readelf >/dev/null 2>&1; then
  machine="$(readelf -h "$bin" | sed -n 's/^ *Machine: *//p')"
  [ "$machine" = AArch64 ] || fail "$bin is built for '$machine', not AArch64"
  glibc="$(readelf -V "$bin" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -t. -k1,1 -k2,2n -k3,3n -u | tail -n 1)"
  say "$bin: AArch64, $(stat -c %s "$bin") bytes, needs ${glibc:-an unknown} glibc or newer"
fi

work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# --- 1. --version ---------------------------------------------------------------------------
version="$("${run[@]}" "$bin" --version)" || fail "--version exited non-zero"
case "$version" in hearth\ *) say "--version: $version" ;; *) fail "--version printed '$version'" ;; esac

# --- 2. An upstream calendar on loopback ------------------------------------------------------
mkdir -p "$work/upstream" "$work/data"
printf '%s\r\n' \
  'BEGIN:VCALENDAR' 'VERSION:2.0' 'PRODID:-//Hearth//pi-check//EN' \
  'BEGIN:VEVENT' 'UID:pi-check-1@hearth' 'DTSTAMP:20250101T090000Z' \
  'DTSTART:20250106T090000Z' 'DTEND:20250106T100000Z' \
  'SUMMARY:Team meeting' 'LOCATION:Room 4' 'DESCRIPTION:Weekly sync' \
  'END:VEVENT' 'END:VCALENDAR' > "$work/upstream/team.ics"
up_port="$(free_port)"
python3 -m http.server "$up_port" --bind 127.0.0.1 --directory "$work/upstream" >"$work/upstream.log" 2>&1 &
pids+=($!)

# --- 3. serve, and the time to the first answered request -------------------------------------
port="$(free_port)"
base="http://127.0.0.1:$port"
start_ns=$(date +%s%N)
"${run[@]}" "$bin" serve --listen "127.0.0.1:$port" --data-dir "$work/data" --allow-private-feeds \
  >"$work/serve.log" 2>&1 &
serve_pid=$!
pids+=("$serve_pid")
deadline=$(( $(date +%s) + 60 ))
until curl -fsS -o /dev/null "$base/healthz" 2>/dev/null; do
  kill -0 "$serve_pid" 2>/dev/null || fail "hearth serve exited before answering"
  [ "$(date +%s)" -lt "$deadline" ] || fail "no answer from $base/healthz within 60 s"
  sleep 0.02
done
startup_ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
say "serve: first answered request (/healthz) ${startup_ms} ms after start${run:+ (under qemu-aarch64)}"

# --- 4. health, readiness and the page ----------------------------------------------------------
status() { curl -sS -o "$work/body" -w '%{http_code}' "$@"; }
[ "$(status "$base/healthz")" = 200 ] || fail "/healthz"
[ "$(status "$base/readyz")" = 200 ] || fail "/readyz: $(cat "$work/body")"
say "/healthz and /readyz: 200"
[ "$(status "$base/")" = 200 ] || fail "/ answered $(cat "$work/body")"
grep -qi '<!doctype html' "$work/body" || fail "/ is not the HTML page"
grep -q 'id="root"' "$work/body" || fail "/ has no application root"
say "/: 200, the embedded page ($(stat -c %s "$work/body") bytes)"

# --- 5. publish a calendar, then fetch its hosted feed ----------------------------------------
# Runs once the publishing API exists (anything but 404 at POST /api/calendars).
cal_id="pi-check-$$"
body="$(python3 - "$cal_id" "http://127.0.0.1:$up_port/team.ics" <<'EOF'
import json, sys
print(json.dumps({
    "id": sys.argv[1],
    "name": "Pi check",
    "url": sys.argv[2],
    "mapping": {
        "SUMMARY": "Pi: ${SUMMARY}",
        "DESCRIPTION": "${DESCRIPTION}",
        "LOCATION": "${LOCATION}",
        "DTSTART": "${DTSTART}",
        "DTEND": "${DTEND}",
    },
}))
EOF
)"
code="$(status -X POST -H 'Content-Type: application/json' --data "$body" "$base/api/calendars")"
if [ "$code" = 404 ]; then
  say "hosted feed: skipped, POST /api/calendars is not there yet (404)"
else
  case "$code" in 200 | 201) ;; *) fail "publishing answered $code: $(cat "$work/body")" ;; esac
  read -r hosted token < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["hostedUrl"], d.get("editToken",""))' "$work/body") ||
    fail "publish answer has no hostedUrl: $(cat "$work/body")"
  [ -n "$token" ] || fail "the first publish of an id gave no editToken"
  # The hosted address is built from the request; fetch its path from our server.
  path="/${hosted#*://*/}"
  [ "$(status -D "$work/headers" "$base$path")" = 200 ] || fail "GET $path: $(cat "$work/body")"
  grep -qi '^content-type: text/calendar' "$work/headers" || fail "GET $path is not text/calendar"
  tr -d '\r' < "$work/body" | grep -qx 'SUMMARY:Pi: Team meeting' || fail "GET $path lacks the remapped SUMMARY"
  tr -d '\r' < "$work/body" | grep -qx 'LOCATION:Room 4' || fail "GET $path lacks LOCATION"
  etag="$(sed -n 's/^[Ee][Tt][Aa][Gg]: *//p' "$work/headers" | tr -d '\r')"
  if [ -n "$etag" ]; then
    [ "$(status -H "If-None-Match: $etag" "$base$path")" = 304 ] || fail "GET $path with its ETag did not answer 304"
  fi
  say "hosted feed: published $hosted, served it remapped${etag:+ (and 304 on its ETag)}"
fi

# --- 6. online backup while serving, then a clean stop ----------------------------------------
"${run[@]}" "$bin" backup --data-dir "$work/data" "$work/copy.db" >/dev/null || fail "hearth backup"
[ -s "$work/copy.db" ] || fail "hearth backup wrote nothing"
say "backup: $(stat -c %s "$work/copy.db") bytes while serving"
kill -TERM "$serve_pid"
stop_status=0
timeout 15 tail --pid="$serve_pid" -f /dev/null || fail "hearth did not stop within 15 s of SIGTERM"
wait "$serve_pid" || stop_status=$?
[ "$stop_status" = 0 ] || fail "hearth exited with status $stop_status on SIGTERM"
say "SIGTERM: stopped cleanly"
say "passed"
