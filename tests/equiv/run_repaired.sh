#!/usr/bin/env bash
# Time-zone repair against independent tools: repairs the shared ICS corpus (and a feed with one
# event in each of 24 zones) through crates/engine/tests/tz_corpus.rs, then checks the results
# with python icalendar and recurring-ical-events (tests/equiv/check_repaired.py). Uses the
# virtualenv of tests/equiv/setup.sh; exits non-zero on any failure.
set -euo pipefail
source "$(dirname "$0")/setup.sh"

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
HEARTH_REPAIRED_OUT="$out" HEARTH_ICS_CORPUS="$corpus" cargo test --quiet --locked -p hearth-engine --test tz_corpus
"$venv/bin/python" "$root/tests/equiv/check_repaired.py" "$out" "$corpus"
