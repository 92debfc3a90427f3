-- wrk: GET /v1/passes/{passType}/{serial} for random serials, with each pass's ApplePass token.
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

function init(args)
    math.randomseed(os.time() * 100 + (seed or 0))
end

function request()
    local pass = passes[math.random(#passes)]
    return wrk.format("GET", "/v1/passes/" .. passType .. "/" .. pass[1], { ["Authorization"] = "ApplePass " .. pass[2] })
end
