-- Loaded after rdcc.lua by lua_state_test.sh: prints the size of rdcc.lua's per-capture state
-- once tshark has read the whole capture (a tap's draw runs at the end).
local tap = Listener.new("frame")
function tap.draw()
    local size = _G.rdcc_state_size()
    print(string.format("rdcc.lua state: %d tables, %d numbers, %d other", size.tables,
        size.numbers, size.other))
end
