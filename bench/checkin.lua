-- wrk: check in every ticket of CHECKIN_BENCH_CODES (serial<TAB>code lines) once. Each wrk thread
-- takes every n-th code and its connections are the scanners; a thread stops once all its codes
-- were answered, so wrk's Requests/sec is check-ins per second over the time they took.
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

local mine, next_code, answered, refused = {}, 1, 0, 0

init = function(args)
    for position = 1 + id, #codes, threads do mine[#mine + 1] = codes[position][2] end
end

local gates = { "North", "South", "East", "West" }

function request()
    -- Past the last code a thread repeats it (a 409, not counted) until its answers are in.
    local code = mine[math.min(next_code, #mine)]
    next_code = next_code + 1
    local headers = { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json" }
    return wrk.format("POST", "/admin/v1/checkins", headers, '{"code":"' .. code .. '","gate":"' .. gates[next_code % 4 + 1] .. '"}')
end

function response(status, headers, body)
    if status == 200 then answered = answered + 1 else refused = refused + 1 end
    if answered >= #mine then wrk.thread:stop() end
end

done = function(summary, latency, requests)
    io.write(string.format("checkin.lua: %d requests\n", summary.requests))
end
