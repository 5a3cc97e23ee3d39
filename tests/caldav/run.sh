#!/usr/bin/env bash
# CalDAV sources against a real CalDAV server: Radicale from PyPI (radicale==3.9.0, in a venv
# under target/), which the Rust tests of tests/caldav.rs start themselves on loopback with
# htpasswd logins and seed (MKCALENDAR, PUT): discovery, a published calendar's events within its
# window and after a change, a wrong password's words, the editor's preview. Nothing is skipped:
# if Radicale cannot be installed or started, this fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

radicale="$(bash tests/caldav/venv.sh)"
export HEARTH_RADICALE="$radicale"
cargo test --locked --test caldav -- --include-ignored
