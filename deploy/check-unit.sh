#!/usr/bin/env bash
# Checks deploy/hearth.service and its Litestream variant deploy/hearth-litestream.service:
# systemd parses each without a warning, the sandbox's exposure score from `systemd-analyze
# security` is at most MAX_EXPOSURE (default 1.5), and the variant differs from the plain unit
# only in how it starts and stops (litestream replicate -exec, KillMode=mixed, NotifyAccess=all),
# never in its sandbox. Skips, with a message and status 0, where systemd-analyze is missing
# (macOS, minimal containers).
set -euo pipefail
cd "$(dirname "$0")/.."

max="${MAX_EXPOSURE:-1.5}"

if ! command -v systemd-analyze >/dev/null 2>&1; then
  echo "check-unit: skipped, systemd-analyze is not installed here"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

check_one() {
  local unit="$1" name
  name="$(basename "$unit")"
  # `verify` also checks that ExecStart's binary exists; point it at one that does, so an unknown or
  # misspelt directive is the only thing it can complain about.
  sed 's#^ExecStart=[^ ]*#ExecStart=/bin/true#' "$unit" > "$work/$name"
  warnings="$(systemd-analyze verify "$work/$name" 2>&1 || true)"
  if [ -n "$warnings" ]; then
    echo "check-unit: systemd-analyze verify complains about $unit:" >&2
    echo "$warnings" >&2
    return 1
  fi

  # --offline (systemd 250+) reads the file instead of asking a running systemd.
  report="$(systemd-analyze security --offline=true --no-pager "$unit" 2>&1)" || {
    echo "$report" >&2
    echo "check-unit: systemd-analyze security failed (it needs systemd 250 or newer for --offline)" >&2
    return 1
  }
  score="$(printf '%s\n' "$report" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')"
  if [ -z "$score" ]; then
    echo "$report" >&2
    echo "check-unit: no exposure level in the output above" >&2
    return 1
  fi
  if awk -v s="$score" -v m="$max" 'BEGIN { exit !(s > m) }'; then
    printf '%s\n' "$report" | grep -v '✓' >&2
    echo "check-unit: exposure $score is above $max; the directives marked ✗ above are what is open" >&2
    return 1
  fi
  echo "check-unit: $unit parses cleanly; exposure $score (at most $max)"
}

# The variant's directives, less those that start and stop it, are the plain unit's.
directives() {
  sed -n '/^\[Service\]/,$p' "$1" | grep -v '^[[:space:]]*#' | grep -v '^[[:space:]]*$' |
    grep -Ev '^(ExecStart|NotifyAccess|KillMode|RestartPreventExitStatus|TimeoutStopSec)=|^Environment=HEARTH_'
}
variant=deploy/hearth-litestream.service
for want in '^ExecStart=/usr/bin/litestream replicate -config /etc/hearth/litestream.yml -restore-if-db-not-exists -exec "/usr/local/bin/hearth serve"$' \
            '^KillMode=mixed$' '^NotifyAccess=all$' '^Environment=HEARTH_DATA_DIR=/var/lib/hearth '; do
  grep -q "$want" "$variant" || { echo "check-unit: $variant lacks $want" >&2; exit 1; }
done
if ! diff <(directives deploy/hearth.service) <(directives "$variant") >&2; then
  echo "check-unit: $variant's sandbox differs from deploy/hearth.service's (above)" >&2
  exit 1
fi
echo "check-unit: $variant differs from the plain unit only in how it starts and stops"

check_one deploy/hearth.service
check_one "$variant"
