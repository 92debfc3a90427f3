-- wrk: GET /v1/devices/{device}/registrations/{passType}?passesUpdatedSince={tag} as phones do
-- after a push, for random known devices with the tag each last received.
-- Env: DEVICE_BENCH_DEVICES (device<TAB>tag lines), DEVICE_BENCH_PASS_TYPE.
local common = dofile("bench/device-common.lua")
local devices = common.pairs_from("DEVICE_BENCH_DEVICES")
local passType = os.getenv("DEVICE_BENCH_PASS_TYPE")

common.seed_threads()

function request()
    local device = devices[math.random(#devices)]
    return wrk.format("GET", "/v1/devices/" .. device[1] .. "/registrations/" .. passType .. "?passesUpdatedSince=" .. device[2])
end
