#!/usr/bin/env bash
# Independent-parser equivalence check for the calendar engine (python icalendar from PyPI).
# Sets up its own virtualenv once (HEARTH_EQUIV_VENV, default target/equiv-venv), builds hearth
# unless HEARTH_BIN names a binary, and exits non-zero on any mismatch.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

venv="${HEARTH_EQUIV_VENV:-$root/target/equiv-venv}"
corpus="${HEARTH_ICS_CORPUS:-$root/../shared/ics-corpus/files}"
icalendar_version="7.3.0"

if ! "$venv/bin/python" -c "import icalendar, sys; sys.exit(icalendar.__version__ != '$icalendar_version')" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "icalendar==$icalendar_version"
fi

bin="${HEARTH_BIN:-}"
if [ -z "$bin" ]; then
    cargo build --quiet --bin hearth
    bin="${CARGO_TARGET_DIR:-$root/target}/debug/hearth"
fi

exec "$venv/bin/python" "$root/tests/equiv/equiv.py" "$bin" "$corpus"
