-- wrk: GET /v1/devices/{device}/registrations/{passType}?passesUpdatedSince={tag} as phones do
-- after a push, for random known devices with the tag each last received.
-- Env: DEVICE_BENCH_DEVICES (device<TAB>tag lines), DEVICE_BENCH_PASS_TYPE.
local devices = {}
local passType = os.getenv("DEVICE_BENCH_PASS_TYPE")
for line in io.lines(os.getenv("DEVICE_BENCH_DEVICES")) do
    local device, tag = line:match("^([^\t]+)\t([^\t]+)$")
    if device then devices[#devices + 1] = { device, tag } end
end

local threads = 0
function setup(thread)
    threads = threads + 1
    thread:set("seed", threads)
end

function init(args)
    math.randomseed(os.time() * 100 + (seed or 0))
end

function request()
    local device = devices[math.random(#devices)]
    return wrk.format("GET", "/v1/devices/" .. device[1] .. "/registrations/" .. passType .. "?passesUpdatedSince=" .. device[2])
end
