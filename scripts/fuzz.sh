#!/usr/bin/env bash
# Runs the fuzz targets one after another, each seeded: `parse` with the shared ICS corpus,
# `template` with fuzz/seeds/template. The fuzz crate builds the engine alone (crates/engine),
# so neither the server nor the UI is needed. Needs cargo-fuzz (`cargo install cargo-fuzz
# --locked`); without a nightly toolchain the stable compiler is told to accept nightly flags
# (RUSTC_BOOTSTRAP=1). The corpora grow in fuzz/corpus/<target> (not committed); crashes land in
# fuzz/artifacts/<target>. The build goes to CARGO_TARGET_DIR when set, else fuzz/target.
#   FUZZ_TIME      seconds per target (default 1800)
#   FUZZ_LOG_DIR   where fuzz-<target>.log goes (default fuzz/logs)
#   FUZZ_SANITIZER address (default) or none; when the AddressSanitizer build does not link
#                  (a stable toolchain without its runtime), the script falls back to none
#   HEARTH_ICS_CORPUS  the seed feeds (default ../shared/ics-corpus/files); without them `parse`
#                  starts from its dictionary alone
# Usage: scripts/fuzz.sh [parse] [template]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

time_per_target="${FUZZ_TIME:-1800}"
log_dir="${FUZZ_LOG_DIR:-$root/fuzz/logs}"
sanitizer="${FUZZ_SANITIZER:-address}"
feeds="${HEARTH_ICS_CORPUS:-$root/../shared/ics-corpus/files}"
targets=("$@")
[ "${#targets[@]}" -eq 0 ] && targets=(parse template)

if ! command -v cargo-fuzz >/dev/null; then
    echo "fuzz: cargo-fuzz is missing: cargo install cargo-fuzz --locked" >&2
    exit 1
fi
mkdir -p "$log_dir" fuzz/corpus/parse fuzz/corpus/template
if compgen -G "$feeds/*.ics" >/dev/null; then
    cp "$feeds"/*.ics fuzz/corpus/parse/
else
    echo "fuzz: no seed feeds in $feeds (set HEARTH_ICS_CORPUS): parse starts from its dictionary"
fi
cp fuzz/seeds/template/* fuzz/corpus/template/
# Where cargo puts the fuzz binaries: a relative CARGO_TARGET_DIR counts from here, as cargo's.
target_dir="$(realpath -m "${CARGO_TARGET_DIR:-fuzz/target}")"

export RUSTC_BOOTSTRAP=1
triple="$(rustc -vV | sed -n 's/^host: //p')"
# Build first (all targets), so the fuzzing time is all fuzzing.
if ! cargo fuzz build --sanitizer "$sanitizer" >"$log_dir/fuzz-build.log" 2>&1; then
    if [ "$sanitizer" != address ]; then
        tail -20 "$log_dir/fuzz-build.log" >&2
        exit 1
    fi
    echo "fuzz: the AddressSanitizer build failed (see $log_dir/fuzz-build.log); using none"
    sanitizer=none
    cargo fuzz build --sanitizer "$sanitizer" >>"$log_dir/fuzz-build.log" 2>&1
fi
for target in "${targets[@]}"; do
    extra=()
    # Inputs past 64 KiB are slow to mutate; larger seeds are read up to that length.
    [ "$target" = parse ] && extra=(-dict=fuzz/ics.dict -max_len=65536)
    [ "$target" = template ] && extra=(-max_len=4096)
    echo "fuzz: $target for ${time_per_target}s, log in $log_dir/fuzz-$target.log"
    status=0
    mkdir -p "fuzz/artifacts/$target"
    # The binary built above, run directly: `cargo fuzz run` would rebuild from a work tree
    # that may have changed since.
    "$target_dir/$triple/release/$target" "fuzz/corpus/$target" \
        -artifact_prefix="fuzz/artifacts/$target/" -max_total_time="$time_per_target" \
        -timeout=10 -print_final_stats=1 "${extra[@]}" \
        >"$log_dir/fuzz-$target.log" 2>&1 || status=$?
    echo "fuzz: $target finished with status $status; corpus $(ls "fuzz/corpus/$target" | wc -l) inputs"
done
