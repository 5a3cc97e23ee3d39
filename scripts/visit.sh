# The visit the footprint budget measures, shared by scripts/footprint.sh (which measures it) and
# scripts/hot-functions.sh (which lists the code it runs): a start on a fresh data directory, then
# GET /healthz, the landing page / and the deck list /flashcards, each page with the scripts,
# styles and preloads its HTML names, asked for as Chromium asks (Accept-Encoding: gzip, deflate,
# br, zstd). Sourced, not run. The server listens on a port the kernel picks (--listen
# 127.0.0.1:0), read from its "listening on" line, so nothing races for a port or sleeps.
#
#   visit_start BIN [WRAPPER...]  starts BIN serve (under WRAPPER, e.g. valgrind, when given);
#                                 sets visit_pid, visit_origin and visit_dir (removed by visit_stop)
#   visit_pages                   the visit; sets visit_assets (how many assets it fetched)
#   visit_stop                    stops the server (SIGTERM: a clean shutdown) and waits for it

visit_pid=""
visit_dir=$(mktemp -d)
visit_stop() {
    if [ -n "$visit_pid" ]; then
        kill "$visit_pid" 2>/dev/null || true
        wait "$visit_pid" 2>/dev/null || true
        visit_pid=""
    fi
    rm -rf "$visit_dir"
}
trap visit_stop EXIT

visit_start() {
    local bin=$1
    shift
    local log="$visit_dir/server.log"
    HEARTH_LOG=info HEARTH_LOG_FORMAT=text "$@" "$bin" serve --listen 127.0.0.1:0 \
        --data-dir "$visit_dir/db" >"$log" 2>&1 &
    visit_pid=$!
    # Ready when it has logged its address (the listener is bound before that line is written).
    # Up to 120 s: under valgrind the start takes tens of seconds.
    visit_origin=""
    for _ in $(seq 1200); do
        visit_origin=$(grep -o 'listening on http://[0-9.:]*' "$log" | head -n1 | sed 's/listening on //' || true)
        [ -n "$visit_origin" ] && return 0
        kill -0 "$visit_pid" 2>/dev/null || { echo "visit: the server exited:" >&2; cat "$log" >&2; exit 1; }
        sleep 0.1
    done
    echo "visit: the server did not start within 120 s:" >&2
    cat "$log" >&2
    exit 1
}

# visit_get PATH: fetches like a browser, fails on anything but 200.
visit_get() {
    curl -fsS --max-time 60 --compressed -o "$visit_dir/body" \
        -H 'Accept-Encoding: gzip, deflate, br, zstd' "$visit_origin$1" \
        || { echo "visit: GET $1 failed" >&2; exit 1; }
}

visit_pages() {
    visit_get /healthz
    visit_assets=0
    local page path
    for page in / /flashcards; do
        visit_get "$page"
        # What the page's HTML makes a browser fetch before anything runs: its scripts, styles,
        # module preloads and icons (same-origin paths only).
        for path in $(grep -oE '(src|href)="/[^"]+"' "$visit_dir/body" | sed -E 's/^(src|href)="//; s/"$//' \
            | grep -E '\.(js|mjs|css|svg|png|ico|webmanifest|woff2)$' | sort -u); do
            visit_get "$path"
            visit_assets=$((visit_assets + 1))
        done
    done
}
