#!/usr/bin/env bash
# Fuzzes the engine, each target seeded:
#   parse     the parser and the writer (default mapping), seeded with the shared ICS corpus
#   template  templates compiled leniently and rendered, seeded with fuzz/seeds/template
#   merge     1 to 4 feeds merged with prefixes (and UIDs from content), fuzz/seeds/merge plus
#             pairs of corpus feeds
#   remap     a calendar config (JSON, the engine's schema) and its feeds: content UIDs,
#             history, the merge, then filters, the window, occurrences through rrule, overrides,
#             privacy, alarms, properties; fuzz/seeds/remap plus corpus feeds under their configs
#   render    a mapping's templates from one regex budget rendered against parsed events,
#             fuzz/seeds/render plus corpus feeds under its templates
# fuzz/seeds/make_seeds.py writes the merge, remap and render seeds. The fuzz crate builds the
# engine alone (crates/engine), so neither the server nor the UI is needed. Needs cargo-fuzz
# (`cargo install cargo-fuzz --locked`); without a nightly toolchain the stable compiler is told
# to accept nightly flags (RUSTC_BOOTSTRAP=1). The corpora grow in fuzz/corpus/<target> (not
# committed); crashes, hangs and out-of-memory inputs land in fuzz/artifacts/<target>. The
# build goes to CARGO_TARGET_DIR when set, else fuzz/target.
#   FUZZ_TIME      seconds per target (default 3600)
#   FUZZ_JOBS      targets run side by side (default 1: one after another); each is one process
#   FUZZ_NICE      niceness of the fuzzing processes (default 19: out of other work's way)
#   FUZZ_TIMEOUT   seconds one input may take before it counts as a hang (default 10)
#   FUZZ_RSS_MB    memory one target may hold before it counts as out-of-memory (default 2048)
#   FUZZ_LOG_DIR   where fuzz-<target>.log goes (default fuzz/logs)
#   FUZZ_SANITIZER address (default) or none; when the AddressSanitizer build does not link
#                  (a stable toolchain without its runtime), the script falls back to none
#   FUZZ_NO_BUILD  1: run the binaries already built (the build is left to the caller)
#   HEARTH_ICS_CORPUS  the seed feeds (default ../shared/ics-corpus/files); without them the
#                  targets start from their committed seeds and dictionaries alone
# Exits non-zero when any target found a crash, a hang (an input past FUZZ_TIMEOUT) or an
# out-of-memory, and prints one summary line per target (executions, coverage, corpus size).
# Usage: scripts/fuzz.sh [parse] [template] [merge] [remap] [render]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

all_targets=(parse template merge remap render)
time_per_target="${FUZZ_TIME:-3600}"
jobs="${FUZZ_JOBS:-1}"
niceness="${FUZZ_NICE:-19}"
input_timeout="${FUZZ_TIMEOUT:-10}"
rss_mb="${FUZZ_RSS_MB:-2048}"
log_dir="$(realpath -m "${FUZZ_LOG_DIR:-$root/fuzz/logs}")"
sanitizer="${FUZZ_SANITIZER:-address}"
feeds="${HEARTH_ICS_CORPUS:-$root/../shared/ics-corpus/files}"
targets=("$@")
[ "${#targets[@]}" -eq 0 ] && targets=("${all_targets[@]}")
for target in "${targets[@]}"; do
    case " ${all_targets[*]} " in
    *" $target "*) ;;
    *)
        echo "fuzz: no target $target (there are: ${all_targets[*]})" >&2
        exit 2
        ;;
    esac
done

if ! command -v cargo-fuzz >/dev/null; then
    echo "fuzz: cargo-fuzz is missing: cargo install cargo-fuzz --locked" >&2
    exit 1
fi
mkdir -p "$log_dir"

# --- Seeds: the committed ones, then the shared corpus (feeds up to 64 KiB) --------------------
corpus_feeds=()
if compgen -G "$feeds/*.ics" >/dev/null; then
    for f in "$feeds"/*.ics; do
        [ "$(stat -c %s "$f")" -le 65536 ] && corpus_feeds+=("$f")
    done
else
    echo "fuzz: no seed feeds in $feeds (set HEARTH_ICS_CORPUS): the targets start from their seeds"
fi
# The part of a committed seed before its first NUL (a config, or templates).
head_part() { tr '\0' '\n' <"$1" | head -n1 | tr -d '\n'; }
seed() {
    local target="$1"
    mkdir -p "fuzz/corpus/$target"
    [ -d "fuzz/seeds/$target" ] && cp fuzz/seeds/"$target"/* "fuzz/corpus/$target/"
    local n="${#corpus_feeds[@]}" i
    [ "$n" -eq 0 ] && return 0
    case "$target" in
    parse) cp "${corpus_feeds[@]}" fuzz/corpus/parse/ ;;
    merge)
        # Neighbouring corpus feeds as two sources with prefixes (and every third with UIDs
        # from content).
        for ((i = 0; i + 1 < n; i++)); do
            {
                if ((i % 3 == 0)); then printf '\x13'; else printf '\x03'; fi
                printf '[A] \n[B] \0'
                cat "${corpus_feeds[i]}"
                printf '\0'
                cat "${corpus_feeds[i + 1]}"
            } >"fuzz/corpus/merge/corpus-$i"
        done
        ;;
    remap | render)
        # Each corpus feed under one of the committed configs (or templates), in turn.
        local heads=("fuzz/seeds/$target"/*)
        for ((i = 0; i < n; i++)); do
            {
                head_part "${heads[i % ${#heads[@]}]}"
                printf '\0'
                cat "${corpus_feeds[i]}"
            } >"fuzz/corpus/$target/corpus-$i"
        done
        ;;
    esac
}

# --- Build first (all targets), so the fuzzing time is all fuzzing ----------------------------
# Where cargo puts the fuzz binaries: a relative CARGO_TARGET_DIR counts from here, as cargo's.
target_dir="$(realpath -m "${CARGO_TARGET_DIR:-fuzz/target}")"
export RUSTC_BOOTSTRAP=1
triple="$(rustc -vV | sed -n 's/^host: //p')"
if [ "${FUZZ_NO_BUILD:-0}" != 1 ]; then
    if ! cargo fuzz build --sanitizer "$sanitizer" >"$log_dir/fuzz-build.log" 2>&1; then
        if [ "$sanitizer" != address ]; then
            tail -20 "$log_dir/fuzz-build.log" >&2
            exit 1
        fi
        echo "fuzz: the AddressSanitizer build failed (see $log_dir/fuzz-build.log); using none"
        sanitizer=none
        cargo fuzz build --sanitizer "$sanitizer" >>"$log_dir/fuzz-build.log" 2>&1
    fi
fi

# --- One target: run, then classify what it found ---------------------------------------------
dict_for() {
    case "$1" in
    parse | merge) echo fuzz/ics.dict ;;
    remap) cat fuzz/ics.dict fuzz/remap.dict >"$log_dir/remap.dict" && echo "$log_dir/remap.dict" ;;
    render) cat fuzz/ics.dict fuzz/template.dict >"$log_dir/render.dict" && echo "$log_dir/render.dict" ;;
    template) echo fuzz/template.dict ;;
    esac
}
run_target() {
    local target="$1" log="$log_dir/fuzz-$1.log" status=0 max_len=65536
    [ "$target" = template ] && max_len=4096
    local artifacts="fuzz/artifacts/$target"
    mkdir -p "$artifacts"
    local before
    before="$(ls "$artifacts" | sort)"
    local dict
    dict="$(dict_for "$target")"
    # The binary built above, run directly: `cargo fuzz run` would rebuild from a work tree
    # that may have changed since. `timeout` is the backstop should libFuzzer itself stall.
    timeout --kill-after=60 "$((time_per_target + 300))" \
        nice -n "$niceness" "$target_dir/$triple/release/$target" "fuzz/corpus/$target" \
        -artifact_prefix="$artifacts/" -max_total_time="$time_per_target" \
        -timeout="$input_timeout" -rss_limit_mb="$rss_mb" -malloc_limit_mb="$rss_mb" \
        -dict="$dict" -max_len="$max_len" -print_final_stats=1 \
        >"$log" 2>&1 || status=$?
    local found
    found="$(comm -13 <(echo "$before") <(ls "$artifacts" | sort) | grep -E '^(crash|timeout|oom|leak)-' || true)"
    local verdict=clean
    if [ -n "$found" ] || [ "$status" -ne 0 ]; then
        verdict="FAILED (status $status)"
        grep -q 'ERROR: libFuzzer: timeout' "$log" && verdict="HANG (an input past ${input_timeout}s)"
        grep -qE 'ERROR: libFuzzer: (out-of-memory|malloc)' "$log" && verdict="OUT OF MEMORY (past ${rss_mb} MB)"
        grep -qE 'deadly signal|AddressSanitizer|panicked at' "$log" && verdict="CRASH"
    fi
    local last execs
    last="$(grep -E '^#[0-9]+' "$log" | tail -n1 | sed -E 's/^#[0-9]+[[:space:]]+[A-Z]+[[:space:]]+//; s/ exec\/s.*//')"
    execs="$(sed -n 's/^stat::number_of_executed_units: //p' "$log" | tail -n1)"
    echo "fuzz: $target: $verdict; ${execs:-?} executions, ${last:-no stats}; corpus $(ls "fuzz/corpus/$target" | wc -l) inputs; log $log"
    for a in $found; do
        echo "fuzz: $target: found $artifacts/$a"
    done
    [ "$verdict" = clean ]
}

for target in "${targets[@]}"; do
    seed "$target"
done
failed=0
results="$(mktemp -d)"
trap 'rm -rf "$results"' EXIT
running=0
for target in "${targets[@]}"; do
    echo "fuzz: $target for ${time_per_target}s, log in $log_dir/fuzz-$target.log"
    (run_target "$target" >"$results/$target" 2>&1 || touch "$results/$target.failed") &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
done
wait
for target in "${targets[@]}"; do
    cat "$results/$target"
    [ -e "$results/$target.failed" ] && failed=1
done
if [ "$failed" -ne 0 ]; then
    echo "fuzz: a target found a crash, a hang or an out-of-memory: see the lines above" >&2
    exit 1
fi
