-- wrk script for bench/serve_memory.sh: every request a query string never
-- sent before, in three kinds (one request in three each):
--   a 16 KB parameter no page reads (over the 4 KB target limit: 414),
--   a 3 KB parameter no page reads (dropped: one cache entry for all),
--   a unique 2 KB author filter (a page of its own, built and cached).
-- The day comes from the environment (BENCH_DAY).
local day = os.getenv("BENCH_DAY") or "2026-09-01"
local big = string.rep("q", 16384)
local mid = string.rep("z", 3000)
local small = string.rep("y", 2000)
local n = 0
local id = 0

setup = function(thread)
  id = id + 1
  thread:set("tid", id)
end

request = function()
  n = n + 1
  local u = tid .. "-" .. n
  local k = n % 3
  if k == 0 then
    return wrap("/day/" .. day .. "?x" .. u .. "=" .. big)
  elseif k == 1 then
    return wrap("/day/" .. day .. "?utm_" .. u .. "=" .. mid)
  end
  return wrap("/day/" .. day .. "?authors=a" .. u .. small)
end

function wrap(path)
  return wrk.format("GET", path)
end

local statuses = {}
response = function(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

done = function(summary, latency, requests)
  io.write(string.format("requests %d, errors: connect %d read %d write %d status %d timeout %d\n",
    summary.requests, summary.errors.connect, summary.errors.read, summary.errors.write,
    summary.errors.status, summary.errors.timeout))
end
