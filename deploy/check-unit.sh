#!/usr/bin/env bash
# Checks deploy/hearth.service: systemd parses it without a warning, and the sandbox's exposure
# score from `systemd-analyze security` is at most MAX_EXPOSURE (default 1.5). Skips, with a
# message and status 0, where systemd-analyze is missing (macOS, minimal containers).
set -euo pipefail
cd "$(dirname "$0")/.."

unit=deploy/hearth.service
max="${MAX_EXPOSURE:-1.5}"

if ! command -v systemd-analyze >/dev/null 2>&1; then
  echo "check-unit: skipped, systemd-analyze is not installed here"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# `verify` also checks that ExecStart's binary exists; point it at one that does, so an unknown or
# misspelt directive is the only thing it can complain about.
sed 's#^ExecStart=[^ ]*#ExecStart=/bin/true#' "$unit" > "$work/hearth.service"
warnings="$(systemd-analyze verify "$work/hearth.service" 2>&1 || true)"
if [ -n "$warnings" ]; then
  echo "check-unit: systemd-analyze verify complains about $unit:" >&2
  echo "$warnings" >&2
  exit 1
fi

# --offline (systemd 250+) reads the file instead of asking a running systemd.
report="$(systemd-analyze security --offline=true --no-pager "$unit" 2>&1)" || {
  echo "$report" >&2
  echo "check-unit: systemd-analyze security failed (it needs systemd 250 or newer for --offline)" >&2
  exit 1
}
score="$(printf '%s\n' "$report" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')"
if [ -z "$score" ]; then
  echo "$report" >&2
  echo "check-unit: no exposure level in the output above" >&2
  exit 1
fi
if awk -v s="$score" -v m="$max" 'BEGIN { exit !(s > m) }'; then
  printf '%s\n' "$report" | grep -v '✓' >&2
  echo "check-unit: exposure $score is above $max; the directives marked ✗ above are what is open" >&2
  exit 1
fi
echo "check-unit: $unit parses cleanly; exposure $score (at most $max)"
