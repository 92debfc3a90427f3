-- Shared by the device-*.lua wrk scripts: reading the pair files device.sh writes, and per-thread
-- random seeds (wrk runs each thread in its own Lua state).
local common = {}

-- Reads "first<TAB>second" lines of the file named by environment variable `variable`.
function common.pairs_from(variable)
    local rows = {}
    for line in io.lines(os.getenv(variable)) do
        local first, second = line:match("^([^\t]+)\t([^\t]+)$")
        if first then rows[#rows + 1] = { first, second } end
    end
    return rows
end

-- Installs wrk's setup/init so every thread draws its own random sequence.
function common.seed_threads()
    local threads = 0
    setup = function(thread)
        threads = threads + 1
        thread:set("seed", threads)
    end
    init = function(args)
        math.randomseed(os.time() * 100 + (seed or 0))
    end
end

return common
