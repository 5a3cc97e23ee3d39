#!/usr/bin/env bash
# The corpus with calendar options (a realistic config, with and without a window) through
# python icalendar and recurring-ical-events: the output reads, holds the events the engine
# kept, and expands. Sets up its own virtualenv once (HEARTH_EQUIV_VENV, default
# target/equiv-venv, shared with run.sh) and exits non-zero on any mismatch.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

venv="${HEARTH_EQUIV_VENV:-$root/target/equiv-venv}"
corpus="${HEARTH_ICS_CORPUS:-$root/../shared/ics-corpus/files}"
icalendar_version="7.3.0"
rie_version="3.8.2"

if ! "$venv/bin/python" -c "import icalendar, recurring_ical_events, sys; sys.exit(icalendar.__version__ != '$icalendar_version')" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        "icalendar==$icalendar_version" "recurring-ical-events==$rie_version"
fi

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
HEARTH_OPTIONS_OUT="$out" HEARTH_ICS_CORPUS="$corpus" \
    cargo test --quiet --locked --test engine_corpus realistic_config
exec "$venv/bin/python" "$root/tests/equiv/options.py" "$corpus" "$out"
