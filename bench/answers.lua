-- wrk script for bench/server.sh: every answer's status counted, so a run that was not served as
-- it claims to measure fails (a 429 is not a served feed), and, with "forwarded", each request
-- names another visitor in X-Forwarded-For, as visitors behind a reverse proxy on the same machine
-- are (Hearth started with --trust-loopback true). The addresses are from 198.18.0.0/15, the range
-- RFC 2544 sets aside for benchmarks: they are only header text, no packet goes to them.
-- Usage: wrk -s bench/answers.lua URL -- EXPECTED_STATUS [forwarded]

local threads = {}
local next_id = 0

function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

function init(args)
  expected = tonumber(args[1]) or 200
  forwarded = args[2] == "forwarded"
  -- 16,384 visitors, each thread starting elsewhere among them.
  visitor = (id * 8191) % 16384
  good, bad, bad_status = 0, 0, 0
end

function request()
  if forwarded then
    visitor = (visitor + 1) % 16384
    wrk.headers["X-Forwarded-For"] = string.format("198.18.%d.%d", math.floor(visitor / 256), visitor % 256)
  end
  return wrk.format()
end

function response(status, headers, body)
  if status == expected then
    good = good + 1
  else
    bad = bad + 1
    bad_status = status
  end
end

function done(summary, latency, requests)
  local all_good, all_bad, seen = 0, 0, ""
  for _, thread in ipairs(threads) do
    all_good = all_good + thread:get("good")
    all_bad = all_bad + thread:get("bad")
    local status = thread:get("bad_status")
    if status ~= 0 then seen = seen .. " " .. status end
  end
  io.write(string.format("answers: %d expected, %d other%s\n", all_good, all_bad,
    seen ~= "" and (" (status" .. seen .. ")") or ""))
end
