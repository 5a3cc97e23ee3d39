#!/usr/bin/env bash
# Time-zone repair against independent tools: repairs the shared ICS corpus (and a feed with one
# event in each of 24 zones) through tests/tz_corpus.rs, then checks the results with python
# icalendar and recurring-ical-events (tests/equiv/check_repaired.py). Sets up its own virtualenv
# once (HEARTH_EQUIV_VENV, default target/equiv-venv); exits non-zero on any failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

venv="${HEARTH_EQUIV_VENV:-$root/target/equiv-venv}"
corpus="${HEARTH_ICS_CORPUS:-$root/../shared/ics-corpus/files}"
icalendar_version="7.3.0"
recurring_version="3.8.2"

if ! "$venv/bin/python" -c "import icalendar, recurring_ical_events, sys; sys.exit(icalendar.__version__ != '$icalendar_version')" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        "icalendar==$icalendar_version" "recurring-ical-events==$recurring_version"
fi

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
HEARTH_REPAIRED_OUT="$out" HEARTH_ICS_CORPUS="$corpus" cargo test --quiet --locked --test tz_corpus
"$venv/bin/python" "$root/tests/equiv/check_repaired.py" "$out" "$corpus"
