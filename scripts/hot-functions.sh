#!/usr/bin/env bash
# Writes link/hot-functions.txt: the functions of the release binary that run in the visit the
# footprint budget measures (scripts/visit.sh: the start, /healthz, / and /flashcards with their
# assets), which build.rs has the linker lay out side by side at the start of .text. The kernel
# maps a binary's code in runs of pages around each page that runs (fault-around, and read-ahead
# on a cold start), so code that runs spread over the whole .text made most of it resident: 5.3 of
# its 6.4 MB, against 1.6 MB with these functions together (`make footprint`).
#
# Run it (`make hot-functions`) when make footprint's RSS climbs after a change to what the visit
# runs: a function that is new or renamed since the list was made is laid out with the rest, as it
# was before the list, so a stale list costs memory, never correctness. Needs valgrind.
# Steps: a release link that keeps its symbol table (`cargo rustc -- -C strip=none`: the same code
# and the same symbol names as `make build`, which strips them), the visit under callgrind, the
# names it ran that the binary defines; then `cargo build --release` again for the stripped binary.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v valgrind >/dev/null || { echo "hot-functions: needs valgrind (apt-get install valgrind)" >&2; exit 1; }

out=link/hot-functions.txt
bin=target/release/hearth
cargo rustc --release --locked --bin hearth -- -C strip=none
work=$(mktemp -d)
cp "$bin" "$work/hearth"

# Every function the binary defines (text symbols), by name.
nm --defined-only "$work/hearth" | awk '$2 ~ /^[tTwW]$/ { print $3 }' | LC_ALL=C sort -u >"$work/defined"

# shellcheck source=scripts/visit.sh
. scripts/visit.sh
visit_start "$work/hearth" valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/callgrind.out"
visit_pages
visit_stop

# callgrind names a function once as "fn=(id) name" (or cfn=, for a callee) and by its id after.
sed -nE 's/^c?fn=\([0-9]+\) (.+)$/\1/p' "$work/callgrind.out" | LC_ALL=C sort -u >"$work/ran"
{
    echo "# The functions that run in make footprint's visit, for the linker to lay out together:"
    echo "# written by scripts/hot-functions.sh (make hot-functions), read by build.rs. Do not edit."
    LC_ALL=C comm -12 "$work/ran" "$work/defined"
} >"$out"
echo "hot-functions: $(grep -vc '^#' "$out") of $(wc -l <"$work/defined") functions in $out"
rm -rf "$work"

# Back to the stripped binary make build makes.
cargo build --release --locked
