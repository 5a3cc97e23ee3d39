#!/usr/bin/env bash
# Radicale from PyPI (radicale==3.9.0) in a venv under target/ (made once, checked every time):
# the real CalDAV server of tests/caldav.rs and of the editor's CalDAV e2e test. Prints the path
# of its program; fails when it cannot be installed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="${HEARTH_CALDAV_VENV:-$root/target/caldav-venv}"
version="3.9.0"
installed() { "$venv/bin/python" -c "import radicale, sys; sys.exit(radicale.VERSION != '$version')" 2>/dev/null; }
if ! installed; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "radicale==$version" >&2
fi
installed || { echo "caldav: no Radicale $version in $venv" >&2; exit 1; }
[ -x "$venv/bin/radicale" ] || { echo "caldav: $venv/bin/radicale is missing" >&2; exit 1; }
echo "$venv/bin/radicale"
