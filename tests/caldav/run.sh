#!/usr/bin/env bash
# CalDAV sources against a real CalDAV server: Radicale from PyPI (radicale==3.9.0, in a venv
# under target/), which the Rust tests of tests/caldav.rs start themselves on loopback with
# htpasswd logins and seed (MKCALENDAR, PUT): discovery, a published calendar's events within its
# window and after a change, a wrong password's words, the editor's preview. Nothing is skipped:
# if Radicale cannot be installed or started, this fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

venv="${HEARTH_CALDAV_VENV:-$root/target/caldav-venv}"
radicale_version="3.9.0"
if ! "$venv/bin/python" -c "import radicale, sys; sys.exit(radicale.VERSION != '$radicale_version')" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "radicale==$radicale_version"
fi
"$venv/bin/python" -c "import radicale, sys; sys.exit(radicale.VERSION != '$radicale_version')" ||
  { echo "caldav test: no Radicale $radicale_version in $venv" >&2; exit 1; }
[ -x "$venv/bin/radicale" ] || { echo "caldav test: $venv/bin/radicale is missing" >&2; exit 1; }

export HEARTH_RADICALE="$venv/bin/radicale"
cargo test --test caldav -- --include-ignored
