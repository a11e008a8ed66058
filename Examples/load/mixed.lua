-- A mixed workload for wrk against the example server: 70% reads (pages of books, loans searched through
-- their member and book), 30% writes (new books, changed books), each write one transaction.
-- Run by run.sh, which seeds 500 books and 50 members first.
local counter = 0
local json = { ["Content-Type"] = "application/json" }

local function mixed()
    counter = counter + 1
    local pick = math.random(100)
    if pick <= 40 then
        return wrk.format("GET", "/books?offset=" .. math.random(0, 480) .. "&limit=20"), "read"
    elseif pick <= 70 then
        return wrk.format("GET", "/loans?member=Member%20" .. math.random(1, 50) .. "&title=Book&limit=20"), "read"
    elseif pick <= 85 then
        local body = '{"title":"Load ' .. counter .. '","author":"wrk","year":2026}'
        return wrk.format("POST", "/books", json, body), "write"
    else
        local body = '{"year":' .. math.random(1900, 2026) .. '}'
        return wrk.format("PATCH", "/books/" .. math.random(1, 500), json, body), "write"
    end
end

request = function()
    return (mixed())
end

-- With RECORDS set and one connection per thread (as many threads as connections, so that each thread's
-- responses answer its requests in order), every request is written to RECORDS.<thread>: when it was sent and
-- answered (wall clock, ms), its kind and its status. The cluster test reads them to find the failover window.
local records = os.getenv("RECORDS")
if records then
    local ffi = require("ffi")
    ffi.cdef [[
        typedef struct { long tv_sec; long tv_nsec; } dbb_timespec;
        int clock_gettime(int clock, dbb_timespec *t);
    ]]
    local now = ffi.new("dbb_timespec")
    local function milliseconds()
        ffi.C.clock_gettime(0, now)
        return tonumber(now.tv_sec) * 1000 + tonumber(now.tv_nsec) / 1e6
    end
    local threads = 0
    setup = function(thread)
        threads = threads + 1
        thread:set("number", threads)
    end
    local file, sent, kind
    init = function(args)
        file = io.open(records .. "." .. number, "w")
        file:setvbuf("line")
    end
    request = function()
        local text
        text, kind = mixed()
        sent = milliseconds()
        return text
    end
    response = function(status, headers, body)
        file:write(string.format("%.1f %.1f %s %d\n", sent, milliseconds(), kind, status))
    end
end

done = function(summary, latency, requests)
    local errors = summary.errors
    io.write(string.format(
        "RESULT requests=%d seconds=%.1f rps=%.0f p50_ms=%.2f p99_ms=%.2f non2xx=%d socket_errors=%d\n",
        summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
        latency:percentile(50) / 1000, latency:percentile(99) / 1000, errors.status,
        errors.connect + errors.read + errors.write + errors.timeout))
end
