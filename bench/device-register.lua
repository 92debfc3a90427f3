-- wrk: POST a registration of a random new device for a random pass (each one a 201 upsert).
-- Env: DEVICE_BENCH_TOKENS (serial<TAB>token lines), DEVICE_BENCH_PASS_TYPE.
local passes = {}
local passType = os.getenv("DEVICE_BENCH_PASS_TYPE")
for line in io.lines(os.getenv("DEVICE_BENCH_TOKENS")) do
    local serial, token = line:match("^([^\t]+)\t([^\t]+)$")
    if serial then passes[#passes + 1] = { serial, token } end
end

local threads = 0
function setup(thread)
    threads = threads + 1
    thread:set("seed", threads)
end

local function hex(count)
    local digits = {}
    for i = 1, count do digits[i] = string.format("%x", math.random(0, 15)) end
    return table.concat(digits)
end

function init(args)
    math.randomseed(os.time() * 100 + (seed or 0))
end

function request()
    local pass = passes[math.random(#passes)]
    local path = "/v1/devices/" .. hex(32) .. "/registrations/" .. passType .. "/" .. pass[1]
    local headers = { ["Authorization"] = "ApplePass " .. pass[2], ["Content-Type"] = "application/json" }
    return wrk.format("POST", path, headers, '{"pushToken":"' .. hex(64) .. '"}')
end
