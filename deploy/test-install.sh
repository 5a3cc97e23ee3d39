#!/usr/bin/env bash
# Tests deploy/install.sh in a throw-away root (DESTDIR), since systemd cannot run here:
# a first install, a second one that changes nothing and keeps the owner's settings, an upgrade,
# an uninstall that keeps the data and settings, and the refusals. systemctl must never be called.
set -euo pipefail
cd "$(dirname "$0")/.."

passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   - $*"; }
not_ok() { failed=$((failed + 1)); echo "FAIL - $*"; }
check() { local what="$1"; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
root="$work/root"
mkdir -p "$root" "$work/bin"

# A systemctl that fails the test when called: DESTDIR installs must leave systemd alone.
printf '#!/bin/sh\necho "systemctl $*" >> "%s/systemctl.calls"\nexit 1\n' "$work" > "$work/bin/systemctl"
chmod +x "$work/bin/systemctl"
export PATH="$work/bin:$PATH"

# Stand-in binaries: what install.sh does with them does not depend on their being hearth.
fake() { printf '#!/bin/sh\necho "hearth %s (test)"\n' "$1" > "$2"; chmod +x "$2"; }
fake 1.0.0 "$work/hearth-1"
fake 2.0.0 "$work/hearth-2"

run_install() { DESTDIR="$root" bash deploy/install.sh "$@" > "$work/out" 2>&1; }
mode() { stat -c %a "$1"; }
# Every file under the root with its mode and checksum: "nothing changed" means this is equal.
snapshot() { (cd "$root" && find . -type f -exec sh -c 'printf "%s %s " "$(stat -c %a "$1")" "$1"; sha256sum < "$1"' _ {} \; | sort); }

# --- first install -----------------------------------------------------------------------------
check "first install succeeds" run_install "$work/hearth-1"
check "binary at /usr/local/bin/hearth, mode 755" test "$(mode "$root/usr/local/bin/hearth")" = 755
check "binary is the one given" cmp -s "$work/hearth-1" "$root/usr/local/bin/hearth"
check "unit installed as shipped, mode 644" sh -c "cmp -s deploy/hearth.service '$root/etc/systemd/system/hearth.service' && test \$(stat -c %a '$root/etc/systemd/system/hearth.service') = 644"
check "settings created from the example" cmp -s deploy/hearth.env.example "$root/etc/hearth/hearth.env"
check "settings are private (mode 600)" test "$(mode "$root/etc/hearth/hearth.env")" = 600
check "README installed where the unit's Documentation= points" test -f "$root/usr/local/share/doc/hearth/README.md"
check "prints the address" grep -q 'listens on http://127.0.0.1:8080' "$work/out"
check "prints how to read the logs" grep -q 'journalctl -u hearth' "$work/out"
check "says systemctl was skipped" grep -q 'systemctl skipped' "$work/out"

# --- second install: idempotent, owner's settings kept -----------------------------------------
printf 'HEARTH_OWNER_NAME=Ada Lovelace\nHEARTH_LISTEN=0.0.0.0:9000\n' >> "$root/etc/hearth/hearth.env"
mkdir -p "$root/var/lib/private/hearth"
echo "database" > "$root/var/lib/private/hearth/hearth.db"
before="$(snapshot)"
check "second install succeeds" run_install "$work/hearth-1"
check "second install changes no file" test "$before" = "$(snapshot)"
check "second install reports nothing changed" grep -q 'binary: /usr/local/bin/hearth (unchanged)' "$work/out"
check "owner's settings kept" grep -q '^HEARTH_OWNER_NAME=Ada Lovelace$' "$root/etc/hearth/hearth.env"
check "address read from the settings" grep -q 'listens on http://.*:9000' "$work/out"
check "no temporary files left" test -z "$(find "$root" -name '*.new.*')"

# --- upgrade ------------------------------------------------------------------------------------
check "upgrade succeeds" run_install "$work/hearth-2"
check "upgrade replaces the binary" cmp -s "$work/hearth-2" "$root/usr/local/bin/hearth"
check "upgrade keeps the settings" grep -q '^HEARTH_OWNER_NAME=Ada Lovelace$' "$root/etc/hearth/hearth.env"
check "upgrade keeps the data" grep -qx database "$root/var/lib/private/hearth/hearth.db"

# --- refusals -------------------------------------------------------------------------------------
printf 'not a program' > "$work/notexec"
check "refuses a file that is not executable" sh -c "! DESTDIR='$root' bash deploy/install.sh '$work/notexec' >/dev/null 2>&1"
check "refuses a missing file" sh -c "! DESTDIR='$root' bash deploy/install.sh '$work/missing' >/dev/null 2>&1"
check "refuses no argument" sh -c "! DESTDIR='$root' bash deploy/install.sh >/dev/null 2>&1"
check "refused installs changed nothing" cmp -s "$work/hearth-2" "$root/usr/local/bin/hearth"

# --- uninstall ----------------------------------------------------------------------------------
check "uninstall succeeds" run_install --uninstall
check "uninstall removes the binary" test ! -e "$root/usr/local/bin/hearth"
check "uninstall removes the unit" test ! -e "$root/etc/systemd/system/hearth.service"
check "uninstall removes the docs" test ! -e "$root/usr/local/share/doc/hearth"
check "uninstall keeps the data" grep -qx database "$root/var/lib/private/hearth/hearth.db"
check "uninstall keeps the settings" grep -q '^HEARTH_OWNER_NAME=Ada Lovelace$' "$root/etc/hearth/hearth.env"
check "uninstall says how to delete the rest" grep -q 'rm -rf /var/lib/private/hearth' "$work/out"
check "uninstall twice is fine" run_install --uninstall
check "reinstall after uninstall keeps the settings" sh -c "DESTDIR='$root' bash deploy/install.sh '$work/hearth-1' >/dev/null && grep -q '^HEARTH_OWNER_NAME=Ada Lovelace\$' '$root/etc/hearth/hearth.env'"

# --- the Litestream variant --------------------------------------------------------------------
lroot="$work/lroot"
mkdir -p "$lroot"
run_l() { DESTDIR="$lroot" bash deploy/install.sh "$@" > "$work/out" 2>&1; }
check "--litestream install succeeds" run_l --litestream "$work/hearth-1"
check "--litestream installs the Litestream unit as hearth.service" cmp -s deploy/hearth-litestream.service "$lroot/etc/systemd/system/hearth.service"
check "--litestream installs litestream.yml, mode 644" sh -c "cmp -s deploy/litestream.yml '$lroot/etc/hearth/litestream.yml' && test \$(stat -c %a '$lroot/etc/hearth/litestream.yml') = 644"
check "--litestream asks for the replica's address" grep -q 'set HEARTH_REPLICA_URL' "$work/out"
check "--litestream says Litestream is not in the root" grep -q 'litestream: /usr/bin/litestream is not in' "$work/out"
printf 'HEARTH_REPLICA_URL=s3://bucket/hearth?endpoint=http://nas:9000\n' >> "$lroot/etc/hearth/hearth.env"
echo "# mine" >> "$lroot/etc/hearth/litestream.yml"
check "--litestream again succeeds" run_l --litestream "$work/hearth-1"
check "--litestream names the replica without its query" grep -q 'replica:  s3://bucket/hearth (Litestream' "$work/out"
check "--litestream keeps an edited litestream.yml" grep -q '^# mine$' "$lroot/etc/hearth/litestream.yml"
check "--litestream leaves the shipped one beside it" cmp -s deploy/litestream.yml "$lroot/etc/hearth/litestream.yml.example"
check "a plain install puts the plain unit back" sh -c "DESTDIR='$lroot' bash deploy/install.sh '$work/hearth-1' >/dev/null && cmp -s deploy/hearth.service '$lroot/etc/systemd/system/hearth.service'"
check "--litestream without a binary is refused" sh -c "! DESTDIR='$lroot' bash deploy/install.sh --litestream >/dev/null 2>&1"
check "uninstall keeps litestream.yml" sh -c "DESTDIR='$lroot' bash deploy/install.sh --uninstall >/dev/null && test -f '$lroot/etc/hearth/litestream.yml' && test ! -e '$lroot/etc/hearth/litestream.yml.example'"

check "systemctl was never called" test ! -e "$work/systemctl.calls"

echo "test-install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
