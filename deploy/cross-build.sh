#!/usr/bin/env bash
# Builds the release binary for a Raspberry Pi target and writes it, with its SHA-256, to dist/:
#   deploy/cross-build.sh aarch64-unknown-linux-gnu      (Pi 3/4/5 with a 64-bit OS, ARM VPS)
#   deploy/cross-build.sh armv7-unknown-linux-gnueabihf  (32-bit Raspberry Pi OS)
# Uses `cross` when it and a container engine are present; otherwise Debian's cross toolchain
# (rustc-web, the foreign std and gcc), installed on demand by deploy/cross-setup.sh.
# The UI must be built first (`make ui`): the binary embeds ui/dist.
# Environment: CROSS_BUILDER=cross|debian forces a builder; CARGO_TARGET_DIR (default target/pi)
# keeps these builds apart from the host's target/, which other builds may hold locked.
set -euo pipefail
cd "$(dirname "$0")/.."

target="${1:?usage: deploy/cross-build.sh TARGET-TRIPLE}"
case "$target" in
  aarch64-unknown-linux-gnu) part=aarch64 gnu=aarch64-linux-gnu ;;
  armv7-unknown-linux-gnueabihf) part=armv7 gnu=arm-linux-gnueabihf ;;
  *) echo "cross-build: unsupported target $target" >&2; exit 2 ;;
esac
TARGET_UPPER="$(echo "$target" | tr 'a-z-' 'A-Z_')"
target_lower="$(echo "$target" | tr '-' '_')"

if [ ! -f ui/dist/index.html ]; then
  echo "cross-build: ui/dist is missing; run 'make ui' first (the binary embeds it)" >&2
  exit 1
fi

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target/pi}"
# build.rs stamps the version with the git revision; compute it here so a build inside a
# container (no git, or a repository owned by another user) gets it too.
HEARTH_GIT_REV="$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
export HEARTH_GIT_REV
# Bundled SQLite is C: build it for the baseline ARMv8-A so it runs on a Pi 3/4 (Cortex-A53/A72)
# whatever the build machine's compiler would otherwise assume.
if [ "$part" = aarch64 ]; then
  export CFLAGS_aarch64_unknown_linux_gnu="${CFLAGS_aarch64_unknown_linux_gnu:--march=armv8-a}"
fi

container_engine() {
  { command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; } ||
    { command -v podman >/dev/null 2>&1 && podman info >/dev/null 2>&1; }
}

builder="${CROSS_BUILDER:-}"
if [ -z "$builder" ]; then
  if command -v cross >/dev/null 2>&1 && container_engine; then builder=cross; else builder=debian; fi
fi

started=$(date +%s)
case "$builder" in
  cross)
    echo "cross-build: $target with cross"
    # deploy/Cross.toml passes the variables above into the build container.
    CROSS_CONFIG="$PWD/deploy/Cross.toml" cross build --release --locked --target "$target"
    ;;
  debian)
    status=0
    bash deploy/cross-setup.sh "$part" || status=$?
    if [ "$status" = 3 ]; then
      echo "cross-build: $target needs 'cross' (cargo install cross) and a container engine (docker or podman):" >&2
      echo "cross-build: Debian's standard library for it does not match Debian's Rust compiler here." >&2
      exit 3
    elif [ "$status" != 0 ]; then
      exit "$status"
    fi
    echo "cross-build: $target with Debian's $(/usr/bin/rustc --version) and ${gnu}-gcc"
    # Debian's cargo and rustc by full path: a rustup toolchain earlier in PATH has no std for the
    # target. Linker, C compiler and archiver are the Debian cross tools.
    env RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc \
      "CARGO_TARGET_${TARGET_UPPER}_LINKER=${gnu}-gcc" \
      "CC_${target_lower}=${gnu}-gcc" \
      "AR_${target_lower}=${gnu}-ar" \
      /usr/bin/cargo build --release --locked --target "$target"
    ;;
  *) echo "cross-build: CROSS_BUILDER must be cross or debian" >&2; exit 2 ;;
esac

mkdir -p dist
out="dist/hearth-$target"
cp "$CARGO_TARGET_DIR/$target/release/hearth" "$out.tmp"
mv "$out.tmp" "$out"
(cd dist && sha256sum "hearth-$target" > "hearth-$target.sha256")
echo "cross-build: wrote $out ($(stat -c %s "$out") bytes) and $out.sha256 in $(( $(date +%s) - started ))s"
