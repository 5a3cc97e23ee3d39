#!/usr/bin/env bash
# The corpus with calendar options (a realistic config, with and without a window) through
# python icalendar and recurring-ical-events: the output reads, holds the events the engine
# kept, and expands. Uses the virtualenv of
# tests/equiv/setup.sh and exits non-zero on any mismatch.
set -euo pipefail
source "$(dirname "$0")/setup.sh"

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
HEARTH_OPTIONS_OUT="$out" HEARTH_ICS_CORPUS="$corpus" \
    cargo test --quiet --locked -p hearth-engine --test engine_corpus realistic_config
exec "$venv/bin/python" "$root/tests/equiv/options.py" "$corpus" "$out"
