#!/usr/bin/env bash
# What metrics cost (issue 23: under 1% of a core at 50 requests a second): the release server
# with --metrics-listen answers 50 hosted-feed polls a second for DURATION seconds while
# Prometheus-style scrapes come every 5 s; prints the server's CPU over the run as a share of
# one core, and the time one scrape takes. The per-request counting is a few atomic additions;
# this measures the whole server, so the metrics' own share is below the number printed.
# Usage: bench/metrics.sh (after `make build`); HEARTH_BIN=PATH, DURATION=20 (seconds).
set -euo pipefail
cd "$(dirname "$0")/.."

bin="${HEARTH_BIN:-${CARGO_TARGET_DIR:-target}/release/hearth}"
duration="${DURATION:-20}"
[ -x "$bin" ] || { echo "bench: $bin is missing: run make build" >&2; exit 1; }

python3 - "$bin" "$duration" <<'PY'
import http.client, json, os, socket, subprocess, sys, tempfile, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

binary, duration = sys.argv[1], float(sys.argv[2])
feed = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\n" + "".join(
    f"BEGIN:VEVENT\r\nUID:{i}@bench\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20261201T{(i % 10):02d}0000Z\r\nSUMMARY:Event {i}\r\nEND:VEVENT\r\n"
    for i in range(1000)) + "END:VCALENDAR\r\n").encode()

class Upstream(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/calendar")
        self.send_header("Content-Length", str(len(feed)))
        self.end_headers()
        self.wfile.write(feed)
    def log_message(self, *a):
        pass

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

upstream = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
threading.Thread(target=upstream.serve_forever, daemon=True).start()
port, mport = free_port(), free_port()
data = tempfile.mkdtemp()
server = subprocess.Popen([binary, "serve", "--listen", f"127.0.0.1:{port}", "--data-dir", data,
                           "--metrics-listen", f"127.0.0.1:{mport}", "--allow-private-feeds",
                           "--backup-interval", "off"], stderr=subprocess.DEVNULL)
try:
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close(); break
        except OSError:
            time.sleep(0.1)
    c = http.client.HTTPConnection("127.0.0.1", port)
    body = json.dumps({"id": "bench", "name": "Bench", "url": f"http://127.0.0.1:{upstream.server_port}/feed.ics", "mapping": {}})
    c.request("POST", "/api/calendars", body, {"Content-Type": "application/json"})
    assert c.getresponse().status == 201
    def cpu():
        with open(f"/proc/{server.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    poll = http.client.HTTPConnection("127.0.0.1", port)
    scrape = http.client.HTTPConnection("127.0.0.1", mport)
    start_cpu, start = cpu(), time.monotonic()
    sent, scrapes, scrape_time, next_scrape = 0, 0, 0.0, start
    while time.monotonic() - start < duration:
        due = start + sent / 50
        pause = due - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        # Many subscribers (as a proxy on this machine names them), each within its allowance.
        poll.request("GET", "/cal/bench.ics", headers={"User-Agent": "Google-Calendar-Importer",
                                                        "X-Forwarded-For": f"198.51.100.{sent % 200}"})
        r = poll.getresponse(); r.read(); assert r.status == 200
        sent += 1
        if time.monotonic() >= next_scrape:
            t = time.monotonic()
            scrape.request("GET", "/metrics"); r = scrape.getresponse(); text = r.read()
            scrape_time += time.monotonic() - t; scrapes += 1; next_scrape += 5
    used, elapsed = cpu() - start_cpu, time.monotonic() - start
    print(f"metrics: {sent} polls in {elapsed:.1f} s ({sent / elapsed:.1f}/s), {scrapes} scrapes: "
          f"server CPU {100 * used / elapsed:.2f}% of one core in all; one scrape {1000 * scrape_time / max(scrapes, 1):.1f} ms "
          f"({len(text)} bytes)")
finally:
    server.terminate(); server.wait()
PY
