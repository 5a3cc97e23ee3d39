#!/usr/bin/env bash
# Filters that judge each occurrence, checked against recurring-ical-events: the engine runs the
# corpus's recurring files through a weekdays-only config and one with a window
# (crates/engine/tests/engine_occurrences.rs), and tests/equiv/occurrences.py expands input and
# output and compares the occurrences kept with those the rules keep. Uses the virtualenv of
# tests/equiv/setup.sh; exits non-zero on any mismatch.
set -euo pipefail
source "$(dirname "$0")/setup.sh"

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
HEARTH_OCCURRENCES_OUT="$out" HEARTH_ICS_CORPUS="$corpus" \
    cargo test --quiet --locked -p hearth-engine --test engine_occurrences corpus
exec "$venv/bin/python" "$root/tests/equiv/occurrences.py" "$corpus" "$out"
