-- wrk: check in every ticket of CHECKIN_BENCH_CODES (serial<TAB>code lines) once. Each wrk thread
-- takes every n-th code and its connections are the scanners; a thread stops once all its codes
-- were answered 200. (wrk still waits out its -d duration, so its Requests/sec means nothing
-- here: bench/checkin.sh times the check-ins by the server's own records.)
-- Env: CHECKIN_BENCH_CODES, CHECKIN_BENCH_TOKEN (a scanner token), CHECKIN_BENCH_THREADS.
local common = dofile("bench/device-common.lua")
local codes = common.pairs_from("CHECKIN_BENCH_CODES")
local token = os.getenv("CHECKIN_BENCH_TOKEN")
local threads = tonumber(os.getenv("CHECKIN_BENCH_THREADS"))

local index = 0
setup = function(thread)
    thread:set("id", index)
    index = index + 1
end

local mine, next_code, answered = {}, 1, 0

init = function(args)
    for position = 1 + id, #codes, threads do mine[#mine + 1] = codes[position][2] end
end

local gates = { "North", "South", "East", "West" }

function request()
    -- Past the last code a thread starts over (409s, not counted) until all its codes were
    -- answered 200: a code whose request wrk made but never sent (it calls request() once more
    -- than it sends) is sent again that way.
    local code = mine[(next_code - 1) % #mine + 1]
    next_code = next_code + 1
    local headers = { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json" }
    return wrk.format("POST", "/admin/v1/checkins", headers, '{"code":"' .. code .. '","gate":"' .. gates[next_code % 4 + 1] .. '"}')
end

function response(status, headers, body)
    if status == 200 then
        answered = answered + 1
    elseif status ~= 409 then
        io.write(string.format("checkin.lua: answered %d: %s\n", status, body))
    end
    if answered >= #mine then wrk.thread:stop() end
end

done = function(summary, latency, requests)
    io.write(string.format("checkin.lua: %d requests\n", summary.requests))
end
