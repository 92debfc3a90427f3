-- wrk: GET /v1/passes/{passType}/{serial} for random serials, with each pass's ApplePass token.
-- Env: DEVICE_BENCH_TOKENS (serial<TAB>token lines), DEVICE_BENCH_PASS_TYPE,
--      DEVICE_BENCH_IF_MODIFIED_SINCE (an HTTP date sent as If-Modified-Since, or "now": the time
--      wrk starts, after every pass's last change, so that every answer is a 304, a phone finding
--      its pass current).
local common = dofile("bench/device-common.lua")
local passes = common.pairs_from("DEVICE_BENCH_TOKENS")
local passType = os.getenv("DEVICE_BENCH_PASS_TYPE")
local ifModifiedSince = os.getenv("DEVICE_BENCH_IF_MODIFIED_SINCE")
if ifModifiedSince == "now" then ifModifiedSince = os.date("!%a, %d %b %Y %H:%M:%S GMT") end

common.seed_threads()

function request()
    local pass = passes[math.random(#passes)]
    local headers = { ["Authorization"] = "ApplePass " .. pass[2] }
    if ifModifiedSince and ifModifiedSince ~= "" then headers["If-Modified-Since"] = ifModifiedSince end
    return wrk.format("GET", "/v1/passes/" .. passType .. "/" .. pass[1], headers)
end
