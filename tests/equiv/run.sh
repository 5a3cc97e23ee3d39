#!/usr/bin/env bash
# Independent-parser equivalence check for the calendar engine (python icalendar from PyPI).
# Uses the virtualenv of tests/equiv/setup.sh, builds hearth
# unless HEARTH_BIN names a binary, and exits non-zero on any mismatch.
set -euo pipefail
source "$(dirname "$0")/setup.sh"

bin="${HEARTH_BIN:-}"
if [ -z "$bin" ]; then
    cargo build --quiet --bin hearth
    bin="${CARGO_TARGET_DIR:-$root/target}/debug/hearth"
fi

exec "$venv/bin/python" "$root/tests/equiv/equiv.py" "$bin" "$corpus"
