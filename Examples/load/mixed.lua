-- A mixed workload for wrk against the example server: 70% reads (pages of books, loans searched through
-- their member and book), 30% writes (new books, changed books), each write one transaction.
-- Run by run.sh, which seeds 500 books and 50 members first.
local counter = 0
local json = { ["Content-Type"] = "application/json" }

request = function()
    counter = counter + 1
    local pick = math.random(100)
    if pick <= 40 then
        return wrk.format("GET", "/books?offset=" .. math.random(0, 480) .. "&limit=20")
    elseif pick <= 70 then
        return wrk.format("GET", "/loans?member=Member%20" .. math.random(1, 50) .. "&title=Book&limit=20")
    elseif pick <= 85 then
        local body = '{"title":"Load ' .. counter .. '","author":"wrk","year":2026}'
        return wrk.format("POST", "/books", json, body)
    else
        local body = '{"year":' .. math.random(1900, 2026) .. '}'
        return wrk.format("PATCH", "/books/" .. math.random(1, 500), json, body)
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
