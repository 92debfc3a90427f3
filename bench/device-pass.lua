-- wrk: GET /v1/passes/{passType}/{serial} for random serials, with each pass's ApplePass token.
-- Env: DEVICE_BENCH_TOKENS (serial<TAB>token lines), DEVICE_BENCH_PASS_TYPE.
local common = dofile("bench/device-common.lua")
local passes = common.pairs_from("DEVICE_BENCH_TOKENS")
local passType = os.getenv("DEVICE_BENCH_PASS_TYPE")

common.seed_threads()

function request()
    local pass = passes[math.random(#passes)]
    return wrk.format("GET", "/v1/passes/" .. passType .. "/" .. pass[1], { ["Authorization"] = "ApplePass " .. pass[2] })
end
