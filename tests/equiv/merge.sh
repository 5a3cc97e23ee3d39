#!/usr/bin/env bash
# Merged calendars checked by independent readers: the engine merges corpus pairs and triples
# and the hand-made conflicting feeds (crates/engine/tests/merge), and python icalendar with
# recurring-ical-events checks each output against the merge rules worked out from the inputs.
# Uses the virtualenv of tests/equiv/setup.sh; exits non-zero on any mismatch.
set -euo pipefail
source "$(dirname "$0")/setup.sh"

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
HEARTH_MERGE_OUT="$out" HEARTH_ICS_CORPUS="$corpus" \
    cargo test --quiet --locked -p hearth-engine --test engine_merge
exec "$venv/bin/python" "$root/tests/equiv/merge.py" "$out"
