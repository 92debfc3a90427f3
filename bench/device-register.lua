-- wrk: POST a registration of a random new device for a random pass (each one a 201 upsert).
-- Env: DEVICE_BENCH_TOKENS (serial<TAB>token lines), DEVICE_BENCH_PASS_TYPE.
local common = dofile("bench/device-common.lua")
local passes = common.pairs_from("DEVICE_BENCH_TOKENS")
local passType = os.getenv("DEVICE_BENCH_PASS_TYPE")

common.seed_threads()

local function hex(count)
    local digits = {}
    for i = 1, count do digits[i] = string.format("%x", math.random(0, 15)) end
    return table.concat(digits)
end

function request()
    local pass = passes[math.random(#passes)]
    local path = "/v1/devices/" .. hex(32) .. "/registrations/" .. passType .. "/" .. pass[1]
    local headers = { ["Authorization"] = "ApplePass " .. pass[2], ["Content-Type"] = "application/json" }
    return wrk.format("POST", path, headers, '{"pushToken":"' .. hex(64) .. '"}')
end
