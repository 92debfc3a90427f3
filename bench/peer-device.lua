-- wrk: the device API of another pass web service, measured beside ours by bench/device-peer.sh.
-- The peer holds PEER_PASSES passes of PEER_PASS_TYPE and PEER_PASSES devices; pass i has serial
-- string.format(PEER_SERIAL_FORMAT, i) and ApplePass token string.format(PEER_TOKEN_FORMAT, i),
-- device j is string.format(PEER_DEVICE_FORMAT, j) and holds registrations.
-- PEER_SCENARIO: register (a new device for a random pass: 201), pass (a random pass with its
-- token: 200), list (a random device's changed serials since PEER_SINCE: 200).
local common = dofile("bench/device-common.lua")

local scenario = os.getenv("PEER_SCENARIO")
local passType = os.getenv("PEER_PASS_TYPE")
local count = tonumber(os.getenv("PEER_PASSES"))
local serialFormat = os.getenv("PEER_SERIAL_FORMAT")
local tokenFormat = os.getenv("PEER_TOKEN_FORMAT")
local deviceFormat = os.getenv("PEER_DEVICE_FORMAT")
local since = os.getenv("PEER_SINCE")

common.seed_threads()

local sequence = 0

local function hex(digits)
    local out = {}
    for i = 1, digits do out[i] = string.format("%x", math.random(0, 15)) end
    return table.concat(out)
end

function request()
    local i = math.random(0, count - 1)
    local serial = string.format(serialFormat, i)
    local auth = { ["Authorization"] = "ApplePass " .. string.format(tokenFormat, i) }
    if scenario == "register" then
        sequence = sequence + 1
        local device = "bench" .. hex(16) .. string.format("%08x", sequence)
        auth["Content-Type"] = "application/json"
        return wrk.format("POST", "/v1/devices/" .. device .. "/registrations/" .. passType .. "/" .. serial, auth,
            '{"pushToken":"' .. hex(64) .. '"}')
    elseif scenario == "pass" then
        return wrk.format("GET", "/v1/passes/" .. passType .. "/" .. serial, auth)
    else
        return wrk.format("GET", "/v1/devices/" .. string.format(deviceFormat, i) .. "/registrations/" .. passType
            .. "?passesUpdatedSince=" .. since)
    end
end
