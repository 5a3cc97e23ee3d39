#!/usr/bin/env bash
# Installs what cross builds and the qemu check need from Debian's own packages, since a new
# machine or CI starts without them. Idempotent: does nothing when everything is there.
#
#   deploy/cross-setup.sh aarch64   Rust (rustc-web) + arm64 std + aarch64 gcc and glibc
#   deploy/cross-setup.sh armv7     the same for armhf, when Debian's armhf std matches rustc-web
#   deploy/cross-setup.sh qemu      qemu-user and Debian's arm64 glibc, to run the aarch64 binary here
#
# Exit status 3 means "not possible with Debian's packages here" (armhf std of another version);
# the caller then says that `cross` is needed.
set -euo pipefail

# need_root [(NOTE)] PACKAGE...: stops with the command to run when we are not root.
need_root() {
  if [ "$(id -u)" -ne 0 ]; then
    local note=""
    case "${1:-}" in "("*) note=" $1"; shift ;; esac
    echo "cross-setup: missing packages: $*" >&2
    echo "cross-setup: run as root, or: sudo apt-get install --no-install-recommends $*$note" >&2
    exit 1
  fi
}

# "installed" when dpkg has the package (NAME or NAME:ARCH) fully installed.
installed() {
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" = "installed" ]
}

# apt-get update, tolerating an index of some other architecture or suite failing to download
# (a mirror mid-sync): what matters is whether the packages we ask for can be found afterwards.
apt_updated=0
apt_update() {
  [ "$apt_updated" = 1 ] && return 0
  DEBIAN_FRONTEND=noninteractive apt-get update -qq || echo "cross-setup: apt-get update reported errors; going on with the indexes it has" >&2
  apt_updated=1
}

add_arch() {
  if ! dpkg --print-foreign-architectures | grep -qx "$1"; then
    echo "cross-setup: dpkg --add-architecture $1"
    dpkg --add-architecture "$1"
    apt_updated=0
  fi
}

install_missing() {
  local missing=()
  for p in "$@"; do installed "$p" || missing+=("$p"); done
  [ "${#missing[@]}" -eq 0 ] && return 0
  need_root "${missing[@]}"
  apt_update
  echo "cross-setup: apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# Version of an installed package, or the version apt would install.
pkg_version() {
  local v
  v="$(dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true)"
  [ -n "$v" ] || v="$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p' | grep -v '(none)' || true)"
  echo "$v"
}

# libstd-rust-web-dev is Multi-Arch: same, so a foreign std installs only at exactly the host
# compiler's version. Checks that before touching anything.
std_matches() {
  local arch="$1" host std
  host="$(pkg_version rustc-web)"
  std="$(pkg_version "libstd-rust-web-dev:$arch")"
  if [ -n "$host" ] && [ "$host" = "$std" ]; then
    return 0
  fi
  echo "cross-setup: Debian's libstd-rust-web-dev:$arch is ${std:-not available} but rustc-web is ${host:-not available}" >&2
  return 1
}

setup_aarch64() {
  local pkgs=(rustc-web cargo-web libstd-rust-web-dev:arm64 gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
  local missing=()
  for p in "${pkgs[@]}"; do installed "$p" || missing+=("$p"); done
  [ "${#missing[@]}" -eq 0 ] && std_matches arm64 2>/dev/null && return 0
  need_root "(after: dpkg --add-architecture arm64 && apt-get update)" "${missing[@]:-libstd-rust-web-dev:arm64}"
  add_arch arm64
  apt_update
  install_missing rustc-web cargo-web
  std_matches arm64 || exit 3
  install_missing "${pkgs[@]}"
}

setup_armv7() {
  local pkgs=(rustc-web cargo-web libstd-rust-web-dev:armhf gcc-arm-linux-gnueabihf libc6-dev-armhf-cross)
  local missing=()
  for p in "${pkgs[@]}"; do installed "$p" || missing+=("$p"); done
  [ "${#missing[@]}" -eq 0 ] && std_matches armhf 2>/dev/null && return 0
  need_root "(after: dpkg --add-architecture armhf && apt-get update)" "${missing[@]:-libstd-rust-web-dev:armhf}"
  local added=0
  if ! dpkg --print-foreign-architectures | grep -qx armhf; then added=1; fi
  add_arch armhf
  apt_update
  install_missing rustc-web cargo-web
  if ! std_matches armhf; then
    # Leave the machine as it was: a foreign architecture whose indexes fail to download makes
    # every later `apt-get update` report errors.
    if [ "$added" = 1 ] && [ -z "$(dpkg-query -W -f='${binary:Package}\n' 2>/dev/null | grep ':armhf$' || true)" ]; then
      dpkg --remove-architecture armhf
    fi
    exit 3
  fi
  install_missing "${pkgs[@]}"
}

setup_qemu() {
  # libc6:arm64 rather than the cross sysroot: it comes with libstd-rust-web-dev:arm64 anyway,
  # and qemu-aarch64 -L / then gets a loader and libc of the same build.
  if ! installed qemu-user || ! installed libc6:arm64; then
    need_root qemu-user libc6:arm64
    add_arch arm64
    install_missing qemu-user libc6:arm64
  fi
}

[ "$#" -gt 0 ] || { echo "usage: $0 aarch64|armv7|qemu ..." >&2; exit 2; }
for what in "$@"; do
  case "$what" in
    aarch64) setup_aarch64 ;;
    armv7) setup_armv7 ;;
    qemu) setup_qemu ;;
    *) echo "cross-setup: unknown part '$what' (aarch64, armv7 or qemu)" >&2; exit 2 ;;
  esac
done
