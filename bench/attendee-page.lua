-- wrk: GET /download/{token} for random tickets, as a browser asks for the page or as Wallet asks
-- for the pass (`?format=pkpass`).
-- Env: ATTENDEE_BENCH_PATHS (one /download/{token} path per line), ATTENDEE_BENCH_MODE (page | pkpass).
local common = dofile("bench/device-common.lua")
local paths = {}
for line in io.lines(os.getenv("ATTENDEE_BENCH_PATHS")) do
    if line ~= "" then paths[#paths + 1] = line end
end
local mode = os.getenv("ATTENDEE_BENCH_MODE")
local browser = {
    ["Accept"] = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    ["Accept-Language"] = "ja-JP,ja;q=0.9,en;q=0.8",
}

common.seed_threads()

function request()
    local path = paths[math.random(#paths)]
    if mode == "pkpass" then
        return wrk.format("GET", path .. "?format=pkpass", { ["Accept"] = "application/vnd.apple.pkpass" })
    end
    return wrk.format("GET", path, browser)
end
