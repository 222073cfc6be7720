-- rdcc.lua: Wireshark dissector for RDCC (Receiver-Driven Credit Control), in Lua, for users
-- who cannot build the C plugin (dissector/c/packet-rdcc.c). Both build the same tree with the
-- same field names ("rdcc." + the codec's JSON keys), the same labels and the same expert
-- info; the tests of dissector/test compare them field for field.
--
-- The spec forbids a default port ("Port Configuration"): set the rdcc.udp.port preference,
-- use Decode As, or turn on the heuristic dissector (preference rdcc.try_heuristic, off by
-- default). The report's addresses have one field per address family
-- (rdcc.source_address_ipv4, rdcc.source_address_ipv6, ...), so that filters are typed.
--
-- Also here: "rdcc_data", the toolkit's opaque data transport (docs/data-transport.md), for
-- Decode As, as in the C plugin; and the C plugin's stats tree, `-z rdcc,tree` (at the end).
--
-- SPDX-License-Identifier: GPL-2.0-or-later

local rdcc = Proto("RDCC", "Receiver-Driven Credit Control")

local HEADER_SIZE = 16
local REPORT_SIZE_IPV6 = 72
local AF_OFFSET = 30
local VERSION = 1

local ASSOC_REQUEST, ASSOC_ACCEPT, CREDIT_REQUEST, CREDIT_GRANT = 1, 2, 3, 4
local SENDER_STATUS, CONGESTION_REPORT, MSG_DONE, CANCEL = 5, 6, 7, 8
local CREDIT_RETURN, ERROR = 9, 10

local FLAG_PARAMETER_UPDATE, FLAG_UPDATE_ACKNOWLEDGMENT = 0x0001, 0x0002
local FLAG_POOL, FLAG_FINAL = 0x0001, 0x0002
local REASON_UNKNOWN_ASSOCIATION = 0x0002
local BINDING_ROCEV2 = 1

-- "RDCC Message Types": names and the size defined for each type (CONGESTION_REPORT: IPv4).
local type_names = {
    [1] = "ASSOC_REQUEST", [2] = "ASSOC_ACCEPT", [3] = "CREDIT_REQUEST", [4] = "CREDIT_GRANT",
    [5] = "SENDER_STATUS", [6] = "CONGESTION_REPORT", [7] = "MSG_DONE", [8] = "CANCEL",
    [9] = "CREDIT_RETURN", [10] = "ERROR",
}
local type_size = { 48, 48, 56, 40, 32, 48, 32, 28, 32, 28 }

local reason_names = {
    [0] = "NO_ERROR", [1] = "ASSOC_REFUSED", [2] = "UNKNOWN_ASSOCIATION",
    [3] = "BUDGET_EXHAUSTED", [4] = "UNSUPPORTED_TYPE", [5] = "MESSAGE_TOO_LARGE",
    [6] = "APPLICATION_ABORT", [7] = "UNSUPPORTED_BINDING",
}
local service_hint_names = { [0] = "NONE", [1] = "LATENCY_SENSITIVE", [2] = "THROUGHPUT_ORIENTED" }
local binding_kind_names = { [0] = "RESERVED", [1] = "ROCEV2", [2] = "OPAQUE" }
local direction_names = { [1] = "TO_RECEIVER", [2] = "TO_SENDER" }
local address_family_names = { [4] = "IPV4", [6] = "IPV6" }
local set_notset = { "Set", "Not set" }

local f = {
    version = ProtoField.uint8("rdcc.version", "Version", base.DEC, nil, 0xF0),
    rsv = ProtoField.uint8("rdcc.rsv", "Rsv", base.HEX, nil, 0x0F, "Reserved bits"),
    type = ProtoField.uint8("rdcc.type", "Type", base.HEX, type_names, nil, "Message type"),
    length = ProtoField.uint16("rdcc.length", "Length", base.DEC, nil, nil,
        "Length of the message in octets, including the header"),
    association_id = ProtoField.uint32("rdcc.association_id", "Association ID", base.HEX),
    epoch = ProtoField.uint16("rdcc.epoch", "Epoch", base.DEC, nil, nil,
        "Incarnation of the receiver's RDCC state"),
    flags = ProtoField.uint16("rdcc.flags", "Flags", base.HEX),
    flags_parameter_update = ProtoField.bool("rdcc.flags.parameter_update", "Parameter Update",
        16, set_notset, FLAG_PARAMETER_UPDATE),
    flags_update_acknowledgment = ProtoField.bool("rdcc.flags.update_acknowledgment",
        "Update Acknowledgment", 16, set_notset, FLAG_UPDATE_ACKNOWLEDGMENT),
    flags_pool = ProtoField.bool("rdcc.flags.pool", "POOL", 16, set_notset, FLAG_POOL,
        "The grant covers the association's pool"),
    flags_final = ProtoField.bool("rdcc.flags.final", "FINAL", 16, set_notset, FLAG_FINAL,
        "Grant Limit equals the message length"),
    sequence_number = ProtoField.uint32("rdcc.sequence_number", "Sequence Number", base.DEC),
    sender_nonce = ProtoField.uint64("rdcc.sender_nonce", "Sender Nonce", base.HEX),
    capabilities = ProtoField.uint32("rdcc.capabilities", "Capabilities", base.HEX),
    capabilities_pool = ProtoField.bool("rdcc.capabilities.pool", "POOL", 32, set_notset,
        0x00000001, "Pool grants supported"),
    capabilities_status = ProtoField.bool("rdcc.capabilities.status", "STATUS", 32, set_notset,
        0x00000002, "SENDER_STATUS supported"),
    capabilities_crn = ProtoField.bool("rdcc.capabilities.crn", "CRN", 32, set_notset,
        0x00000004, "On-path reports are processed"),
    line_rate = ProtoField.uint32("rdcc.line_rate", "Line Rate", base.DEC),
    reserved1 = ProtoField.uint32("rdcc.reserved1", "Reserved 1", base.HEX),
    reserved2 = ProtoField.uint32("rdcc.reserved2", "Reserved 2", base.HEX),
    reserved3 = ProtoField.uint32("rdcc.reserved3", "Reserved 3", base.HEX),
    reserved4 = ProtoField.uint32("rdcc.reserved4", "Reserved 4", base.HEX),
    unscheduled_limit = ProtoField.uint32("rdcc.unscheduled_limit", "Unscheduled Limit (U)",
        base.DEC),
    start_jitter = ProtoField.uint32("rdcc.start_jitter", "Start Jitter (J)", base.DEC),
    backlog_threshold = ProtoField.uint32("rdcc.backlog_threshold", "Backlog Threshold (N_cu)",
        base.DEC),
    grant_lifetime = ProtoField.uint32("rdcc.grant_lifetime", "Grant Lifetime", base.DEC, nil,
        nil, "Default Grant Lifetime of the association"),
    credit_unit = ProtoField.uint32("rdcc.credit_unit", "Credit Unit", base.DEC),
    message_id = ProtoField.uint64("rdcc.message_id", "Message ID", base.HEX),
    message_length = ProtoField.uint64("rdcc.message_length", "Message Length", base.DEC),
    unscheduled_sent = ProtoField.uint64("rdcc.unscheduled_sent", "Unscheduled Sent", base.DEC),
    traffic_class = ProtoField.uint8("rdcc.traffic_class", "Class", base.DEC, nil, nil,
        "Traffic Class"),
    weight = ProtoField.uint8("rdcc.weight", "Weight", base.DEC),
    service_hint = ProtoField.uint8("rdcc.service_hint", "Service Hint", base.DEC,
        service_hint_names),
    binding_kind = ProtoField.uint8("rdcc.binding_kind", "Binding Kind", base.DEC,
        binding_kind_names),
    deadline = ProtoField.uint32("rdcc.deadline", "Deadline", base.DEC),
    binding_value = ProtoField.uint64("rdcc.binding_value", "Binding Value", base.HEX),
    binding_value_destination_qpn = ProtoField.uint24("rdcc.binding_value.destination_qpn",
        "Destination QPN", base.HEX, nil, nil, "Destination queue pair number"),
    binding_value_first_msn = ProtoField.uint24("rdcc.binding_value.first_msn", "First MSN",
        base.DEC, nil, nil, "Message sequence number of the first RDMA message"),
    binding_value_message_count = ProtoField.uint16("rdcc.binding_value.message_count",
        "RDMA Messages", base.DEC, nil, nil, "Number of RDMA messages"),
    grant_limit = ProtoField.uint64("rdcc.grant_limit", "Grant Limit", base.DEC, nil, nil,
        "Cumulative octet offset (exclusive) up to which the sender may transmit"),
    pacing_rate = ProtoField.uint32("rdcc.pacing_rate", "Pacing Rate", base.DEC),
    lifetime = ProtoField.uint32("rdcc.lifetime", "Lifetime", base.DEC),
    unused_credit = ProtoField.uint64("rdcc.unused_credit", "Unused Credit", base.DEC),
    congestion_level = ProtoField.uint8("rdcc.congestion_level", "Congestion Level", base.DEC,
        nil, nil, "0 none .. 255 saturated"),
    reserved = ProtoField.uint16("rdcc.reserved", "Reserved", base.HEX),
    suggested_rate = ProtoField.uint32("rdcc.suggested_rate", "Suggested Rate", base.DEC),
    reporter_id = ProtoField.uint32("rdcc.reporter_id", "Reporter ID", base.HEX),
    queue_depth = ProtoField.uint32("rdcc.queue_depth", "Queue Depth", base.DEC),
    queue_threshold = ProtoField.uint32("rdcc.queue_threshold", "Queue Threshold", base.DEC),
    congestion_degree = ProtoField.uint8("rdcc.congestion_degree", "Congestion Degree",
        base.DEC),
    direction = ProtoField.uint8("rdcc.direction", "Direction", base.DEC, direction_names),
    address_family = ProtoField.uint8("rdcc.address_family", "AF", base.DEC,
        address_family_names, nil, "Address family"),
    protocol = ProtoField.uint8("rdcc.protocol", "Protocol", base.DEC, nil, nil,
        "IP protocol of the data packet"),
    source_port = ProtoField.uint16("rdcc.source_port", "Source Port", base.DEC),
    destination_port = ProtoField.uint16("rdcc.destination_port", "Destination Port", base.DEC),
    source_address_ipv4 = ProtoField.ipv4("rdcc.source_address_ipv4", "Source Address",
        "Source address of the data packet (AF 4)"),
    destination_address_ipv4 = ProtoField.ipv4("rdcc.destination_address_ipv4",
        "Destination Address", "Destination address of the data packet (AF 4)"),
    source_address_ipv6 = ProtoField.ipv6("rdcc.source_address_ipv6", "Source Address",
        "Source address of the data packet (AF 6)"),
    destination_address_ipv6 = ProtoField.ipv6("rdcc.destination_address_ipv6",
        "Destination Address", "Destination address of the data packet (AF 6)"),
    octets_received = ProtoField.uint64("rdcc.octets_received", "Octets Received", base.DEC),
    reason = ProtoField.uint16("rdcc.reason", "Reason", base.HEX, reason_names),
    new_limit = ProtoField.uint64("rdcc.new_limit", "New Limit", base.DEC, nil, nil,
        "Offset beyond which the sender will not transmit"),
    extension = ProtoField.bytes("rdcc.extension", "Octets beyond the defined body"),
    trailing = ProtoField.bytes("rdcc.trailing", "Octets after Length"),
    request_in = ProtoField.framenum("rdcc.request_in", "Request In", base.NONE,
        frametype.REQUEST, nil, "The first CREDIT_REQUEST for this message is in this frame"),
    grant_in = ProtoField.framenum("rdcc.grant_in", "First Grant In", base.NONE,
        frametype.RESPONSE, nil, "The first CREDIT_GRANT for this message is in this frame"),
    done_in = ProtoField.framenum("rdcc.done_in", "MSG_DONE In", base.NONE, frametype.RESPONSE,
        nil, "The MSG_DONE for this message is in this frame"),
    grant_delay = ProtoField.relative_time("rdcc.grant_delay", "Time to First Grant",
        "Time from the first CREDIT_REQUEST to the first CREDIT_GRANT"),
    time_since_request = ProtoField.relative_time("rdcc.time_since_request",
        "Time Since Request", "Time since the first CREDIT_REQUEST for this message"),
}
local field_list = {}
for _, field in pairs(f) do field_list[#field_list + 1] = field end
rdcc.fields = field_list

local G, S = expert.group, expert.severity
local ei = {
    truncated = ProtoExpert.new("rdcc.expert.truncated",
        "Datagram ends before Version, Type or Length", G.MALFORMED, S.ERROR),
    bad_version = ProtoExpert.new("rdcc.expert.bad_version", "Version is not 1",
        G.MALFORMED, S.ERROR),
    unknown_type = ProtoExpert.new("rdcc.expert.unknown_type", "Type is not registered",
        G.MALFORMED, S.ERROR),
    length_too_small = ProtoExpert.new("rdcc.expert.length_too_small",
        "Length is smaller than the size of the type", G.MALFORMED, S.ERROR),
    length_beyond_datagram = ProtoExpert.new("rdcc.expert.length_beyond_datagram",
        "Length is beyond the datagram", G.MALFORMED, S.ERROR),
    bad_address_family = ProtoExpert.new("rdcc.expert.bad_address_family",
        "AF is neither 4 nor 6", G.MALFORMED, S.ERROR),
    reserved_nonzero = ProtoExpert.new("rdcc.expert.reserved_nonzero",
        "Reserved bits are not zero", G.PROTOCOL, S.WARN),
    undefined_flags = ProtoExpert.new("rdcc.expert.undefined_flags", "Undefined flags are set",
        G.PROTOCOL, S.NOTE),
    class_above_7 = ProtoExpert.new("rdcc.expert.class_above_7", "Class is above 7",
        G.PROTOCOL, S.WARN),
    weight_zero = ProtoExpert.new("rdcc.expert.weight_zero", "Weight is zero", G.PROTOCOL,
        S.WARN),
    pacing_rate_zero = ProtoExpert.new("rdcc.expert.pacing_rate_zero", "Pacing Rate is zero",
        G.PROTOCOL, S.WARN),
    pool_message_id = ProtoExpert.new("rdcc.expert.pool_message_id",
        "POOL grant with a non-zero Message ID", G.PROTOCOL, S.WARN),
    message_id_zero = ProtoExpert.new("rdcc.expert.message_id_zero",
        "Message ID zero is reserved", G.PROTOCOL, S.WARN),
    final_below_length = ProtoExpert.new("rdcc.expert.final_below_length",
        "FINAL with a Grant Limit below the message length", G.PROTOCOL, S.WARN),
    grant_beyond_length = ProtoExpert.new("rdcc.expert.grant_beyond_length",
        "Grant Limit beyond the message length", G.PROTOCOL, S.WARN),
    final_missing = ProtoExpert.new("rdcc.expert.final_missing",
        "Grant reaches the message length without FINAL", G.PROTOCOL, S.WARN),
    sequence_not_newer = ProtoExpert.new("rdcc.expert.sequence_not_newer",
        "Sequence Number is not newer than the newest processed", G.SEQUENCE, S.WARN),
    unregistered_value = ProtoExpert.new("rdcc.expert.unregistered_value",
        "Value is not registered", G.PROTOCOL, S.NOTE),
    extension_octets = ProtoExpert.new("rdcc.expert.extension_octets",
        "Length is larger than the size of the type", G.PROTOCOL, S.NOTE),
    trailing_octets = ProtoExpert.new("rdcc.expert.trailing_octets",
        "Octets after Length are not part of the message", G.MALFORMED, S.WARN),
}
local expert_list = {}
for _, e in pairs(ei) do expert_list[#expert_list + 1] = e end
rdcc.experts = expert_list

-- No default port: "Implementations MUST NOT assume a default port value."
rdcc.prefs["udp.port"] = Pref.range("UDP ports", "", "UDP ports that carry RDCC", 65535)
rdcc.prefs.try_heuristic = Pref.bool("Try to find RDCC on any UDP port", false,
    "Look at every UDP datagram for an RDCC message (Version 1, a registered Type, Length " ..
    "equal to the datagram). Off by default: the spec gives RDCC no port, and a datagram of " ..
    "another protocol may pass these checks.")

-- Per-capture state, built by the first pass; every later pass reads what the first pass
-- recorded for the frame, as the C plugin does. Only O(endpoints + associations) of it are
-- tables or strings; what grows with the capture (one entry per message, per linked frame,
-- per finding) is numbers in a fixed set of tables, which the garbage collector scans without
-- chasing a pointer per packet (a table per frame made the cost per packet grow with the
-- capture).
local endpoint_pairs    -- lower endpoint -> higher endpoint -> conversation
local rec_request_frame, rec_request_time, rec_grant_frame, rec_grant_time, rec_done_frame
local rec_length_hi, rec_length_lo   -- of the latest request
local records           -- count of messages
local frame_record      -- frame number -> message record, for linked frames
local not_newer, not_newer_frame     -- frame -> newest processed number and its frame
local grant_length_hi, grant_length_lo   -- grant frame -> requested length, for findings
local analysed_up_to    -- the first pass has analysed every frame up to this one

function rdcc.init()
    endpoint_pairs = {}
    rec_request_frame, rec_request_time, rec_grant_frame, rec_grant_time = {}, {}, {}, {}
    rec_done_frame, rec_length_hi, rec_length_lo = {}, {}, {}
    records = 0
    frame_record, not_newer, not_newer_frame = {}, {}, {}
    grant_length_hi, grant_length_lo = {}, {}
    analysed_up_to = 0
end

-- Test mode only (dissector/test/lua_state_test.sh sets RDCC_LUA_STATE_PROBE): the size of
-- the per-capture state, for the test that holds its tables and strings to
-- O(endpoints + associations) whatever the length of the capture.
if os.getenv("RDCC_LUA_STATE_PROBE") then
    local function walk(t, size)
        size.tables = size.tables + 1
        for k, v in pairs(t) do
            if type(k) ~= "number" then size.other = size.other + 1 end
            if type(v) == "table" then
                walk(v, size)
            elseif type(v) == "number" then
                size.numbers = size.numbers + 1
            else
                size.other = size.other + 1
            end
        end
    end
    _G.rdcc_state_size = function()
        local size = { tables = 0, numbers = 0, other = 0 }
        for _, t in ipairs({ endpoint_pairs, rec_request_frame, rec_request_time,
                             rec_grant_frame, rec_grant_time, rec_done_frame, rec_length_hi,
                             rec_length_lo, frame_record, not_newer, not_newer_frame,
                             grant_length_hi, grant_length_lo }) do
            walk(t, size)
        end
        return size
    end
end

local function hex64(v)
    local text = v:tohex():gsub("^0+", "")
    if text == "" then return "0" end
    return text
end

-- A fractional part of at most three digits, trailing zeros removed (as the C plugin).
local function scaled(value, unit)
    local number = string.format("%.3f", value):gsub("0+$", ""):gsub("%.$", "")
    return number .. " " .. unit
end

local IEC = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" }
local OCTETS, MBPS, MICROS = 1, 2, 3

local function append_unit(item, value, unit, zero_means)
    local human
    local name = "octets"
    local v = value
    if unit == OCTETS then
        if v >= 1024 then
            local i = 1
            v = v / 1024.0
            while i < 6 and v >= 1024.0 do
                v = v / 1024.0
                i = i + 1
            end
            human = scaled(v, IEC[i])
        end
    elseif unit == MBPS then
        name = "Mbit/s"
        if value >= 1000000 then
            human = scaled(v / 1000000.0, "Tbit/s")
        elseif value >= 1000 then
            human = scaled(v / 1000.0, "Gbit/s")
        end
    else
        name = "\xC2\xB5s"
        if value >= 1000000 then
            human = scaled(v / 1000000.0, "s")
        elseif value >= 1000 then
            human = scaled(v / 1000.0, "ms")
        end
    end
    if value == 0 and zero_means then
        item:append_text(" " .. name .. " (" .. zero_means .. ")")
    elseif human then
        item:append_text(" " .. name .. " (" .. human .. ")")
    else
        item:append_text(" " .. name)
    end
end

-- Adds a count, offset, rate or duration; returns its value as a Lua number (exact up to
-- 2^53; the raw 64-bit value is what the field holds) and the item.
local function add_quantity(tree, field, buf, offset, size, unit, zero_means)
    local range = buf(offset, size)
    local item = tree:add(field, range)
    local value
    if size == 8 then value = range:uint64():tonumber() else value = range:uint() end
    append_unit(item, value, unit, zero_means)
    return value, item, range
end

local function add_reserved(tree, field, buf, offset, size)
    local item = tree:add(field, buf(offset, size))
    local value = buf(offset, size):uint()
    if value ~= 0 then
        item:add_proto_expert_info(ei.reserved_nonzero, string.format(
            "Reserved field is 0x%x, not zero (ignored on receipt)", value))
    end
end

local function add_enum(tree, field, buf, offset, size, names, what)
    local item = tree:add(field, buf(offset, size))
    local value = buf(offset, size):uint()
    if names[value] == nil then
        item:add_proto_expert_info(ei.unregistered_value,
            string.format("%s %d is not registered", what, value))
    end
    return value
end

local function add_capabilities(tree, buf)
    local item = tree:add(f.capabilities, buf(24, 4))
    item:add(f.capabilities_pool, buf(24, 4))
    item:add(f.capabilities_status, buf(24, 4))
    item:add(f.capabilities_crn, buf(24, 4))
end

local function dissect_assoc_request(buf, tree)
    tree:add(f.sender_nonce, buf(16, 8))
    add_capabilities(tree, buf)
    add_quantity(tree, f.line_rate, buf, 28, 4, MBPS)
    add_reserved(tree, f.reserved1, buf, 32, 4)
    add_reserved(tree, f.reserved2, buf, 36, 4)
    add_reserved(tree, f.reserved3, buf, 40, 4)
    add_reserved(tree, f.reserved4, buf, 44, 4)
end

local function dissect_assoc_accept(buf, tree)
    tree:add(f.sender_nonce, buf(16, 8))
    add_capabilities(tree, buf)
    add_quantity(tree, f.unscheduled_limit, buf, 28, 4, OCTETS, "unscheduled mode disabled")
    add_quantity(tree, f.start_jitter, buf, 32, 4, MICROS)
    add_quantity(tree, f.backlog_threshold, buf, 36, 4, OCTETS)
    add_quantity(tree, f.grant_lifetime, buf, 40, 4, MICROS)
    add_quantity(tree, f.credit_unit, buf, 44, 4, OCTETS)
end

local function dissect_credit_request(buf, tree)
    local item = tree:add(f.message_id, buf(16, 8))
    if buf(16, 8):uint64() == UInt64(0) then
        item:add_proto_expert_info(ei.message_id_zero, "Message ID zero is reserved")
    end
    add_quantity(tree, f.message_length, buf, 24, 8, OCTETS)
    add_quantity(tree, f.unscheduled_sent, buf, 32, 8, OCTETS)
    local class = buf(40, 1):uint()
    item = tree:add(f.traffic_class, buf(40, 1))
    if class > 7 then
        item:add_proto_expert_info(ei.class_above_7,
            string.format("Class %d is above 7 (treated as 7)", class))
    end
    item = tree:add(f.weight, buf(41, 1))
    if buf(41, 1):uint() == 0 then
        item:add_proto_expert_info(ei.weight_zero, "Weight 0 is outside 1..255 (treated as 1)")
    end
    add_enum(tree, f.service_hint, buf, 42, 1, service_hint_names, "Service Hint")
    local kind = add_enum(tree, f.binding_kind, buf, 43, 1, binding_kind_names, "Binding Kind")
    add_quantity(tree, f.deadline, buf, 44, 4, MICROS, "none")
    item = tree:add(f.binding_value, buf(48, 8))
    if kind == BINDING_ROCEV2 then
        -- "Transport Bindings", RoCEv2: QPN in bits 63..40, first MSN in 39..16, count.
        item:add(f.binding_value_destination_qpn, buf(48, 3))
        item:add(f.binding_value_first_msn, buf(51, 3))
        item:add(f.binding_value_message_count, buf(54, 2))
    end
end

-- "Credit Requests and Grants", rule 5: what a grant's limit says against the requested
-- length (64-bit values as high and low 32 bits), or nil.
local function grant_finding(limit_hi, limit_lo, length_hi, length_lo, final)
    local order = 0
    if limit_hi ~= length_hi then
        order = limit_hi > length_hi and 1 or -1
    elseif limit_lo ~= length_lo then
        order = limit_lo > length_lo and 1 or -1
    end
    if order > 0 then return ei.grant_beyond_length end
    if final and order < 0 then return ei.final_below_length end
    if not final and order == 0 then return ei.final_missing end
    return nil
end

local function dissect_credit_grant(buf, tree, flags, length_hi, length_lo)
    local pool = bit.band(flags, FLAG_POOL) ~= 0
    local final = bit.band(flags, FLAG_FINAL) ~= 0
    local id = buf(16, 8):uint64()
    local item = tree:add(f.message_id, buf(16, 8))
    if pool and id ~= UInt64(0) then
        item:add_proto_expert_info(ei.pool_message_id,
            "POOL grant with Message ID 0x" .. hex64(id) .. ", not zero")
    elseif not pool and id == UInt64(0) then
        item:add_proto_expert_info(ei.message_id_zero,
            "Message ID zero is reserved (and POOL is not set)")
    end
    local _, limit_item, limit_range = add_quantity(tree, f.grant_limit, buf, 24, 8, OCTETS)
    if length_hi then
        -- "Credit Requests and Grants", rule 5 (the first pass kept the length for findings).
        local limit = limit_range:uint64()
        local length = UInt64(length_lo, length_hi)
        local finding = grant_finding(buf(24, 4):uint(), buf(28, 4):uint(), length_hi,
            length_lo, final)
        if finding == ei.grant_beyond_length then
            limit_item:add_proto_expert_info(finding,
                "Grant Limit " .. tostring(limit) .. " is beyond the message length " ..
                tostring(length))
        elseif finding == ei.final_below_length then
            limit_item:add_proto_expert_info(finding,
                "FINAL with Grant Limit " .. tostring(limit) ..
                " below the message length " .. tostring(length))
        elseif finding then
            limit_item:add_proto_expert_info(finding,
                "Grant Limit reaches the message length " .. tostring(limit) .. " without FINAL")
        end
    end
    local rate, rate_item = add_quantity(tree, f.pacing_rate, buf, 32, 4, MBPS)
    if rate == 0 then
        rate_item:add_proto_expert_info(ei.pacing_rate_zero,
            "Pacing Rate 0: the sender must ignore this grant")
    end
    add_quantity(tree, f.lifetime, buf, 36, 4, MICROS, "the association's default")
end

local function dissect_sender_status(buf, tree)
    add_quantity(tree, f.unused_credit, buf, 16, 8, OCTETS)
    tree:add(f.congestion_level, buf(24, 1))
    add_enum(tree, f.service_hint, buf, 25, 1, service_hint_names, "Service Hint")
    add_reserved(tree, f.reserved, buf, 26, 2)
    add_quantity(tree, f.suggested_rate, buf, 28, 4, MBPS, "no suggestion")
end

local function dissect_congestion_report(buf, tree, af)
    tree:add(f.reporter_id, buf(16, 4))
    add_quantity(tree, f.queue_depth, buf, 20, 4, OCTETS)
    add_quantity(tree, f.queue_threshold, buf, 24, 4, OCTETS)
    tree:add(f.congestion_degree, buf(28, 1))
    add_enum(tree, f.direction, buf, 29, 1, direction_names, "Direction")
    tree:add(f.address_family, buf(30, 1))
    tree:add(f.protocol, buf(31, 1))
    tree:add(f.source_port, buf(32, 2))
    tree:add(f.destination_port, buf(34, 2))
    add_quantity(tree, f.suggested_rate, buf, 36, 4, MBPS, "none")
    if af == 6 then
        tree:add(f.source_address_ipv6, buf(40, 16))
        tree:add(f.destination_address_ipv6, buf(56, 16))
    else
        tree:add(f.source_address_ipv4, buf(40, 4))
        tree:add(f.destination_address_ipv4, buf(44, 4))
    end
end

local function dissect_id_and_octets(buf, tree, field)
    tree:add(f.message_id, buf(16, 8))
    add_quantity(tree, field, buf, 24, 8, OCTETS)
end

local function dissect_cancel(buf, tree)
    tree:add(f.message_id, buf(16, 8))
    add_enum(tree, f.reason, buf, 24, 2, reason_names, "Reason")
    add_reserved(tree, f.reserved, buf, 26, 2)
end

local function dissect_error(buf, tree)
    add_enum(tree, f.reason, buf, 16, 2, reason_names, "Reason")
    add_reserved(tree, f.reserved, buf, 18, 2)
    tree:add(f.message_id, buf(20, 8))
end

-- RFC 1982 for 32 bits; exactly 2^31 apart is newer in neither direction.
local function serial_newer(a, b)
    return a ~= b and (a - b) % 4294967296 < 2147483648
end

-- The conversation of the datagram (both directions) and the datagram's direction in it.
local function conversation(pinfo)
    local a = tostring(pinfo.src) .. "/" .. tostring(pinfo.src_port)
    local b = tostring(pinfo.dst) .. "/" .. tostring(pinfo.dst_port)
    local direction = 0
    if b < a then a, b, direction = b, a, 1 end
    local by_b = endpoint_pairs[a]
    if not by_b then
        by_b = {}
        endpoint_pairs[a] = by_b
    end
    local c = by_b[b]
    if not c then
        -- newest / newest_frame: keyed by (association, epoch, direction) as one number.
        c = { newest = {}, newest_frame = {}, messages = {} }
        by_b[b] = c
    end
    return c, direction
end

-- The record of message (association, id_hi:id_lo) in conversation c, created if new.
local function message_record(c, association_id, id_hi, id_lo)
    local by_hi = c.messages[association_id]
    if not by_hi then
        by_hi = {}
        c.messages[association_id] = by_hi
    end
    local by_lo = by_hi[id_hi]
    if not by_lo then
        by_lo = {}
        by_hi[id_hi] = by_lo
    end
    local r = by_lo[id_lo]
    if not r then
        records = records + 1
        r = records
        by_lo[id_lo] = r
        rec_request_frame[r], rec_request_time[r], rec_grant_frame[r] = 0, 0, 0
        rec_grant_time[r], rec_done_frame[r], rec_length_hi[r], rec_length_lo[r] = 0, 0, 0, 0
    end
    return r
end

-- Sequence check and request lookup, done once, in the first pass; later passes read what it
-- recorded. Returns the frame's message record (or nil), the newest processed number and its
-- frame when the Sequence Number is not newer, and for a grant with a finding the requested
-- length (high, low). value_hi/lo: Message Length of a request, Grant Limit of a grant.
local function analyse(pinfo, kind, association_id, epoch, sequence_number, flags, reason,
                       id_hi, id_lo, value_hi, value_lo)
    local n = pinfo.number
    if pinfo.visited or n <= analysed_up_to then
        return frame_record[n], not_newer[n], not_newer_frame[n], grant_length_hi[n],
            grant_length_lo[n]
    end
    analysed_up_to = n

    local c, direction = conversation(pinfo)
    local newest, newest_frame
    -- "Common Header": exempt are ASSOC_REQUEST, ASSOC_ACCEPT, ERROR UNKNOWN_ASSOCIATION and
    -- messages from CRNs.
    local exempt = kind == ASSOC_REQUEST or kind == ASSOC_ACCEPT or kind == CONGESTION_REPORT or
        (kind == ERROR and reason == REASON_UNKNOWN_ASSOCIATION)
    if not exempt then
        local key = (association_id * 65536 + epoch) * 2 + direction
        local state = c.newest[key]
        if not state then
            c.newest[key] = sequence_number
            c.newest_frame[key] = n
        elseif not serial_newer(sequence_number, state) then
            -- A discarded message does not advance the newest processed number.
            newest, newest_frame = state, c.newest_frame[key]
            not_newer[n], not_newer_frame[n] = newest, newest_frame
        else
            c.newest[key] = sequence_number
            c.newest_frame[key] = n
        end
    end

    local linked = id_hi ~= nil and (id_hi ~= 0 or id_lo ~= 0) and
        (kind == CREDIT_REQUEST or kind == MSG_DONE or
         (kind == CREDIT_GRANT and bit.band(flags, FLAG_POOL) == 0))
    if not linked then return nil, newest, newest_frame end
    local r = message_record(c, association_id, id_hi, id_lo)
    frame_record[n] = r
    local length_hi, length_lo
    if kind == CREDIT_REQUEST then
        if rec_request_frame[r] == 0 then
            rec_request_frame[r] = n
            rec_request_time[r] = pinfo.rel_ts
        end
        rec_length_hi[r], rec_length_lo[r] = value_hi, value_lo
    elseif kind == CREDIT_GRANT then
        if rec_request_frame[r] ~= 0 and grant_finding(value_hi, value_lo, rec_length_hi[r],
                rec_length_lo[r], bit.band(flags, FLAG_FINAL) ~= 0) then
            length_hi, length_lo = rec_length_hi[r], rec_length_lo[r]
            grant_length_hi[n], grant_length_lo[n] = length_hi, length_lo
        end
        if rec_grant_frame[r] == 0 then
            rec_grant_frame[r] = n
            rec_grant_time[r] = pinfo.rel_ts
        end
    elseif rec_done_frame[r] == 0 then
        rec_done_frame[r] = n
    end
    return r, newest, newest_frame, length_hi, length_lo
end

-- The difference of two capture-relative times, rounded to the nanosecond.
local function delta(later, earlier)
    local ns = math.floor((later - earlier) * 1e9 + 0.5)
    return NSTime(math.floor(ns / 1e9), ns % 1000000000)
end

-- request-in / grant-in / done-in and the time from the request to the first grant.
local function add_links(tree, pinfo, kind, r)
    if not r then return end
    local request_frame, grant_frame = rec_request_frame[r], rec_grant_frame[r]
    if kind == CREDIT_REQUEST then
        if grant_frame ~= 0 then tree:add(f.grant_in, grant_frame):set_generated() end
        if rec_done_frame[r] ~= 0 then
            tree:add(f.done_in, rec_done_frame[r]):set_generated()
        end
        if request_frame == pinfo.number and grant_frame > request_frame then
            tree:add(f.grant_delay, delta(rec_grant_time[r], rec_request_time[r]))
                :set_generated()
        end
        return
    end
    if request_frame == 0 or request_frame >= pinfo.number then return end
    tree:add(f.request_in, request_frame):set_generated()
    if kind == MSG_DONE and grant_frame ~= 0 and grant_frame < pinfo.number then
        tree:add(f.grant_in, grant_frame):set_generated()
    end
    tree:add(f.time_since_request, delta(pinfo.rel_ts, rec_request_time[r])):set_generated()
end

-- Header fields that the datagram holds, for messages that are discarded.
local function add_partial_header(tree, buf, datagram)
    local version_item = tree:add(f.version, buf(0, 1))
    tree:add(f.rsv, buf(0, 1))
    local type_item, length_item
    if datagram >= 2 then type_item = tree:add(f.type, buf(1, 1)) end
    if datagram >= 4 then length_item = tree:add(f.length, buf(2, 2)) end
    return version_item, type_item, length_item
end

local function dissect(buf, pinfo, tree)
    local datagram = buf:reported_len()
    pinfo.cols.protocol = "RDCC"
    pinfo.cols.info:clear()

    local root = tree:add(rdcc, buf())

    -- "Error Handling and Recovery": the checks in the codec's order (docs/spec-notes.md).
    if datagram == 0 then
        root:add_proto_expert_info(ei.truncated, "Empty datagram: no Version")
        pinfo.cols.info = "Truncated"
        return buf:len()
    end
    local version = bit.rshift(buf(0, 1):uint(), 4)
    local kind = 0
    local length = 0
    if datagram >= 2 then kind = buf(1, 1):uint() end
    if datagram >= 4 then length = buf(2, 2):uint() end
    if datagram < 4 or version ~= VERSION or type_names[kind] == nil then
        local header = root:add(buf(0, math.min(datagram, HEADER_SIZE)), "Common Header")
        local version_item, type_item = add_partial_header(header, buf, datagram)
        if version ~= VERSION then
            version_item:add_proto_expert_info(ei.bad_version, string.format(
                "Version %d is not 1: the message must be discarded", version))
            pinfo.cols.info = string.format("Version %d", version)
        elseif datagram < 2 then
            root:add_proto_expert_info(ei.truncated,
                string.format("Datagram of %d octets ends before Type", datagram))
            pinfo.cols.info = "Truncated"
        elseif type_names[kind] == nil then
            type_item:add_proto_expert_info(ei.unknown_type, string.format(
                "Type 0x%02x is not registered: the message must be discarded", kind))
            pinfo.cols.info = string.format("Unknown type 0x%02x", kind)
        else
            root:add_proto_expert_info(ei.truncated,
                string.format("Datagram of %d octets ends before Length", datagram))
            pinfo.cols.info = "Truncated"
        end
        return buf:len()
    end

    local type_name = type_names[kind]
    local size = type_size[kind]
    if kind == CONGESTION_REPORT and datagram > AF_OFFSET and buf(AF_OFFSET, 1):uint() == 6 then
        size = REPORT_SIZE_IPV6
    end
    root:append_text(", " .. type_name)
    pinfo.cols.info = type_name

    local header = root:add(buf(0, math.min(datagram, HEADER_SIZE)), "Common Header")
    if length < size or length > datagram then
        local _, _, length_item = add_partial_header(header, buf, datagram)
        if length < size then
            length_item:add_proto_expert_info(ei.length_too_small, string.format(
                "Length %d is smaller than %d, the size of %s: the message must be discarded",
                length, size, type_name))
        else
            length_item:add_proto_expert_info(ei.length_beyond_datagram, string.format(
                "Length %d is beyond the %d-octet datagram: the message must be discarded",
                length, datagram))
        end
        pinfo.cols.info:append(" [discarded: bad Length]")
        return buf:len()
    end
    local af = 0
    if kind == CONGESTION_REPORT then
        af = buf(AF_OFFSET, 1):uint()
        if af ~= 4 and af ~= 6 then
            add_partial_header(header, buf, datagram)
            local item = root:add(f.address_family, buf(AF_OFFSET, 1))
            item:add_proto_expert_info(ei.bad_address_family, string.format(
                "AF %d is neither 4 nor 6: the addresses cannot be read", af))
            pinfo.cols.info:append(" [discarded: bad AF]")
            return buf:len()
        end
    end

    root:set_len(length)
    header:add(f.version, buf(0, 1))
    local rsv = bit.band(buf(0, 1):uint(), 0x0F)
    local item = header:add(f.rsv, buf(0, 1))
    if rsv ~= 0 then
        item:add_proto_expert_info(ei.reserved_nonzero,
            string.format("Rsv is 0x%x, not zero (ignored on receipt)", rsv))
    end
    header:add(f.type, buf(1, 1))
    header:add(f.length, buf(2, 2))
    header:add(f.association_id, buf(4, 4))
    header:add(f.epoch, buf(8, 2))
    local association_id = buf(4, 4):uint()
    local epoch = buf(8, 2):uint()
    local flags = buf(10, 2):uint()
    item = header:add(f.flags, buf(10, 2))
    local defined = 0
    if kind == ASSOC_REQUEST then
        item:add(f.flags_update_acknowledgment, buf(10, 2))
        defined = FLAG_UPDATE_ACKNOWLEDGMENT
    elseif kind == ASSOC_ACCEPT then
        item:add(f.flags_parameter_update, buf(10, 2))
        defined = FLAG_PARAMETER_UPDATE
    elseif kind == CREDIT_GRANT then
        item:add(f.flags_pool, buf(10, 2))
        item:add(f.flags_final, buf(10, 2))
        defined = bit.bor(FLAG_POOL, FLAG_FINAL)
    end
    local undefined = bit.band(flags, bit.bnot(defined), 0xFFFF)
    if undefined ~= 0 then
        item:add_proto_expert_info(ei.undefined_flags,
            string.format("Undefined flags 0x%04x set (ignored on receipt)", undefined))
    end
    local sequence_number = buf(12, 4):uint()
    local sequence_item = header:add(f.sequence_number, buf(12, 4))

    -- The message's identity, its length or grant limit (64-bit values as high and low 32
    -- bits) and the reason are needed by the first-pass analysis.
    local id_hi, id_lo, value_hi, value_lo
    local reason = 0
    if kind == CREDIT_REQUEST or kind == CREDIT_GRANT or kind == MSG_DONE then
        id_hi, id_lo = buf(16, 4):uint(), buf(20, 4):uint()
        value_hi, value_lo = buf(24, 4):uint(), buf(28, 4):uint()
    end
    if kind == ERROR then reason = buf(16, 2):uint() end
    local record, newest, newest_frame, length_hi, length_lo = analyse(pinfo, kind,
        association_id, epoch, sequence_number, flags, reason, id_hi, id_lo, value_hi, value_lo)
    if newest then
        sequence_item:add_proto_expert_info(ei.sequence_not_newer, string.format(
            "Sequence Number %d is not newer than %d (frame %d): the message must be discarded",
            sequence_number, newest, newest_frame))
    end

    if kind == ASSOC_REQUEST then
        dissect_assoc_request(buf, root)
    elseif kind == ASSOC_ACCEPT then
        dissect_assoc_accept(buf, root)
    elseif kind == CREDIT_REQUEST then
        dissect_credit_request(buf, root)
    elseif kind == CREDIT_GRANT then
        dissect_credit_grant(buf, root, flags, length_hi, length_lo)
    elseif kind == SENDER_STATUS then
        dissect_sender_status(buf, root)
    elseif kind == CONGESTION_REPORT then
        dissect_congestion_report(buf, root, af)
    elseif kind == MSG_DONE then
        dissect_id_and_octets(buf, root, f.octets_received)
    elseif kind == CANCEL then
        dissect_cancel(buf, root)
    elseif kind == CREDIT_RETURN then
        dissect_id_and_octets(buf, root, f.new_limit)
    else
        dissect_error(buf, root)
    end

    if length > size then
        item = root:add(f.extension, buf(size, length - size))
        item:add_proto_expert_info(ei.extension_octets, string.format(
            "%d octets between the end of %s and Length (ignored)", length - size, type_name))
    end
    if datagram > length then
        item = root:add(f.trailing, buf(length, datagram - length))
        item:add_proto_expert_info(ei.trailing_octets, string.format(
            "%d octets after Length are not part of the message", datagram - length))
    end
    add_links(root, pinfo, kind, record)
    return buf:len()
end

function rdcc.dissector(buf, pinfo, tree)
    return dissect(buf, pinfo, tree)
end

-- RDCC on any UDP port, where the rdcc.try_heuristic preference allows: Version 1, a
-- registered Type, Length equal to the datagram and not smaller than the type's size, and for
-- CONGESTION_REPORT an AF of 4 or 6.
local function heuristic(buf, pinfo, tree)
    local datagram = buf:reported_len()
    if not rdcc.prefs.try_heuristic or buf:len() < HEADER_SIZE then return false end
    if bit.rshift(buf(0, 1):uint(), 4) ~= VERSION then return false end
    local kind = buf(1, 1):uint()
    if kind < ASSOC_REQUEST or kind > ERROR then return false end
    if buf(2, 2):uint() ~= datagram then return false end
    local size = type_size[kind]
    if kind == CONGESTION_REPORT and buf:len() > AF_OFFSET then
        local af = buf(AF_OFFSET, 1):uint()
        if af ~= 4 and af ~= 6 then return false end
        if af == 6 then size = REPORT_SIZE_IPV6 end
    end
    if datagram < size then return false end
    dissect(buf, pinfo, tree)
    return true
end

local udp_port = DissectorTable.get("udp.port")
udp_port:add_for_decode_as(rdcc)
rdcc:register_heuristic("udp", heuristic)

local registered_ports = ""
function rdcc.prefs_changed()
    if registered_ports ~= "" then udp_port:remove(registered_ports, rdcc) end
    registered_ports = rdcc.prefs["udp.port"]
    if registered_ports ~= "" then udp_port:add(registered_ports, rdcc) end
end

-- The toolkit's opaque data transport (docs/data-transport.md): a 24-octet header, then the
-- payload. No port: Decode As (udp.port) or the rdcc_data.udp.port preference. The codec's
-- checks in its order, the first failure shown at its field, as the C plugin does.
local rdcc_data = Proto("RDCC_Data", "RDCC Opaque Data Transport")
local DATA_HEADER_SIZE = 24
local DATA_MAGIC = 0x5244
local DATA_FLAG_LAST, DATA_FLAG_UNSCHEDULED = 0x01, 0x02
local DATA_FLAG_RECOVERS, DATA_FLAG_NACK = 0x04, 0x08
local DATA_FLAGS_DEFINED = 0x0F
local fd = {
    magic = ProtoField.uint16("rdcc_data.magic", "Magic", base.HEX, nil, nil, '0x5244 ("RD")'),
    version = ProtoField.uint8("rdcc_data.version", "Version", base.DEC),
    flags = ProtoField.uint8("rdcc_data.flags", "Flags", base.HEX),
    flags_last = ProtoField.bool("rdcc_data.flags.last", "LAST", 8, set_notset, DATA_FLAG_LAST,
        "The payload ends the message"),
    flags_unscheduled = ProtoField.bool("rdcc_data.flags.unscheduled", "UNSCHEDULED", 8,
        set_notset, DATA_FLAG_UNSCHEDULED, "Sent in unscheduled mode (informative)"),
    flags_recovers = ProtoField.bool("rdcc_data.flags.recovers", "RECOVERS", 8, set_notset,
        DATA_FLAG_RECOVERS, "Its sender resends the octets a NACK names"),
    flags_nack = ProtoField.bool("rdcc_data.flags.nack", "NACK", 8, set_notset, DATA_FLAG_NACK,
        "A NACK, receiver to sender: the payload is (start, end) ranges of missing octets"),
    payload_length = ProtoField.uint32("rdcc_data.payload_length", "Payload Length", base.DEC),
    message_identifier = ProtoField.uint64("rdcc_data.message_identifier",
        "Message Identifier", base.HEX, nil, nil, "The CREDIT_REQUEST's Binding Value"),
    offset = ProtoField.uint64("rdcc_data.offset", "Offset", base.DEC, nil, nil,
        "Octet offset of the first payload octet within the message"),
    payload = ProtoField.bytes("rdcc_data.payload", "Payload"),
    trailing = ProtoField.bytes("rdcc_data.trailing", "Octets after the payload"),
}
rdcc_data.fields = { fd.magic, fd.version, fd.flags, fd.flags_last, fd.flags_unscheduled,
    fd.flags_recovers, fd.flags_nack,
    fd.payload_length, fd.message_identifier, fd.offset, fd.payload, fd.trailing }
local eid = {
    truncated = ProtoExpert.new("rdcc_data.expert.truncated", "Packet ends inside the header",
        G.MALFORMED, S.ERROR),
    bad_magic = ProtoExpert.new("rdcc_data.expert.bad_magic", "Magic is not 0x5244",
        G.MALFORMED, S.ERROR),
    bad_version = ProtoExpert.new("rdcc_data.expert.bad_version", "Version is not 1",
        G.MALFORMED, S.ERROR),
    payload_beyond_packet = ProtoExpert.new("rdcc_data.expert.payload_beyond_packet",
        "Payload Length is beyond the packet", G.MALFORMED, S.ERROR),
    offset_overflow = ProtoExpert.new("rdcc_data.expert.offset_overflow",
        "Offset + Payload Length is above 2^64 - 1", G.MALFORMED, S.ERROR),
    undefined_flags = ProtoExpert.new("rdcc_data.expert.undefined_flags",
        "Undefined flags are set", G.PROTOCOL, S.NOTE),
    trailing_octets = ProtoExpert.new("rdcc_data.expert.trailing_octets",
        "Octets after the payload", G.PROTOCOL, S.NOTE),
}
rdcc_data.experts = { eid.truncated, eid.bad_magic, eid.bad_version, eid.payload_beyond_packet,
    eid.offset_overflow, eid.undefined_flags, eid.trailing_octets }

function rdcc_data.dissector(buf, pinfo, tree)
    local packet = buf:reported_len()
    pinfo.cols.protocol = "RDCC Data"
    pinfo.cols.info:clear()
    local root = tree:add(rdcc_data, buf())
    -- The codec's first check of each field: the packet holds it.
    local function holds(offset, size, name)
        if packet >= offset + size then return true end
        root:add_proto_expert_info(eid.truncated, string.format(
            "Packet of %d octets ends before %s (offset %d)", packet, name, offset))
        pinfo.cols.info = "Truncated"
        return false
    end
    if not holds(0, 2, "Magic") then return buf:len() end
    local magic = buf(0, 2):uint()
    local item = root:add(fd.magic, buf(0, 2))
    if magic ~= DATA_MAGIC then
        item:add_proto_expert_info(eid.bad_magic, string.format(
            "Magic 0x%04x is not 0x5244: not a packet of this transport", magic))
        pinfo.cols.info = string.format("Bad magic 0x%04x", magic)
        return buf:len()
    end
    if not holds(2, 1, "Version") then return buf:len() end
    local version = buf(2, 1):uint()
    item = root:add(fd.version, buf(2, 1))
    if version ~= 1 then
        item:add_proto_expert_info(eid.bad_version, string.format("Version %d is not 1", version))
        pinfo.cols.info = string.format("Version %d", version)
        return buf:len()
    end
    if not holds(3, 1, "Flags") then return buf:len() end
    local flags = buf(3, 1):uint()
    item = root:add(fd.flags, buf(3, 1))
    item:add(fd.flags_last, buf(3, 1))
    item:add(fd.flags_unscheduled, buf(3, 1))
    item:add(fd.flags_recovers, buf(3, 1))
    item:add(fd.flags_nack, buf(3, 1))
    local undefined = bit.band(flags, bit.bnot(DATA_FLAGS_DEFINED), 0xFF)
    if undefined ~= 0 then
        item:add_proto_expert_info(eid.undefined_flags,
            string.format("Undefined flags 0x%02x set (ignored on receipt)", undefined))
    end
    if not holds(4, 4, "Payload Length") or not holds(8, 8, "Message Identifier") or
            not holds(16, 8, "Offset") then
        return buf:len()
    end
    local payload_length = buf(4, 4):uint()
    local length_item = root:add(fd.payload_length, buf(4, 4))
    root:add(fd.message_identifier, buf(8, 8))
    local offset = buf(16, 8):uint64()
    local offset_item = root:add(fd.offset, buf(16, 8))
    local id_hi, id_lo = buf(8, 4):uint(), buf(12, 4):uint()
    local id = id_hi == 0 and string.format("%x", id_lo) or string.format("%x%08x", id_hi, id_lo)
    pinfo.cols.info = string.format("%s id=0x%s offset=%s len=%d%s%s%s",
        bit.band(flags, DATA_FLAG_NACK) ~= 0 and "NACK" or "DATA", id, tostring(offset),
        payload_length, bit.band(flags, DATA_FLAG_LAST) ~= 0 and " LAST" or "",
        bit.band(flags, DATA_FLAG_UNSCHEDULED) ~= 0 and " UNSCHEDULED" or "",
        bit.band(flags, DATA_FLAG_RECOVERS) ~= 0 and " RECOVERS" or "")
    if payload_length > packet - DATA_HEADER_SIZE then
        length_item:add_proto_expert_info(eid.payload_beyond_packet, string.format(
            "Payload Length %d is beyond the %d octets after the header", payload_length,
            packet - DATA_HEADER_SIZE))
        pinfo.cols.info:append(" [payload beyond packet]")
        return buf:len()
    end
    if offset > UInt64.max() - payload_length then
        offset_item:add_proto_expert_info(eid.offset_overflow,
            "Offset + Payload Length is above 2^64 - 1")
        pinfo.cols.info:append(" [offset overflow]")
        return buf:len()
    end
    root:set_len(DATA_HEADER_SIZE + payload_length)
    -- Captures are often cut to a snap length: the payload shows what the capture holds.
    local captured = buf:len() - DATA_HEADER_SIZE
    if payload_length > 0 and captured > 0 then
        item = root:add(fd.payload, buf(DATA_HEADER_SIZE, math.min(payload_length, captured)))
        if captured < payload_length then
            item:append_text(string.format(" (%d of %d octets captured)", captured,
                payload_length))
        end
    end
    if packet > DATA_HEADER_SIZE + payload_length and captured > payload_length then
        local after = packet - DATA_HEADER_SIZE - payload_length
        item = root:add(fd.trailing, buf(DATA_HEADER_SIZE + payload_length,
            math.min(after, captured - payload_length)))
        item:add_proto_expert_info(eid.trailing_octets, string.format(
            "%d octets after the payload are not part of the packet", after))
    end
    return buf:len()
end

rdcc_data.prefs["udp.port"] = Pref.range("UDP ports", "", "UDP ports of the opaque data transport",
    65535)
udp_port:add_for_decode_as(rdcc_data)
local registered_data_ports = ""
function rdcc_data.prefs_changed()
    if registered_data_ports ~= "" then udp_port:remove(registered_data_ports, rdcc_data) end
    registered_data_ports = rdcc_data.prefs["udp.port"]
    if registered_data_ports ~= "" then udp_port:add(registered_data_ports, rdcc_data) end
end

-- Statistics: `tshark -q -z rdcc,tree`, the C plugin's stats tree: messages per type (every
-- message dissected whole: the common header's Association ID is in the tree only then),
-- CREDIT_GRANTs per message, POOL and FINAL, and per association the credit granted, the
-- growth of each message's (or the pool's) Grant Limit, capped at 2^31 - 1 octets a grant as
-- the C plugin's counters are. Count and Percent columns, in the C plugin's layout.
local STATS_TITLE = "RDCC/Messages, grants and credit:"
local STATS_MESSAGES = "Messages by type"
local STATS_GRANTS = "CREDIT_GRANT"
local STATS_CREDIT = "Credit granted (octets) by association"
local STATS_MAX_INCREASE = 2147483647

local function stats_print(sections)
    local width = #"Topic / Item"
    for _, s in ipairs(sections) do
        width = math.max(width, #s.name)
        for name in pairs(s.children) do width = math.max(width, #name + 1) end
    end
    width = width + 2
    local rule = string.rep("-", width + 28)
    local function line(name, count, percent)
        print(string.format("%-" .. width .. "s%-14d%s", name, count, percent))
    end
    print("")
    print(string.rep("=", width + 28))
    print(STATS_TITLE)
    print(string.format("%-" .. width .. "s%-14s%s", "Topic / Item", "Count", "Percent"))
    print(rule)
    for _, s in ipairs(sections) do
        line(s.name, s.count, "100%")
        local names = {}
        for name in pairs(s.children) do names[#names + 1] = name end
        table.sort(names, function(a, b)
            if s.children[a] ~= s.children[b] then return s.children[a] > s.children[b] end
            return a < b
        end)
        for _, name in ipairs(names) do
            local share = s.count > 0 and 100 * s.children[name] / s.count or 0
            line(" " .. name, s.children[name], string.format("%.2f%%", share))
        end
    end
    print("")
    print(rule)
end

-- Field extractors are made when the script loads, before any dissection.
local type_field = Field.new("rdcc.type")
local association_field = Field.new("rdcc.association_id")
local flags_field = Field.new("rdcc.flags")
local message_id_field = Field.new("rdcc.message_id")
local grant_limit_field = Field.new("rdcc.grant_limit")

register_stat_cmd_arg("rdcc,tree", function()
    local messages = { name = STATS_MESSAGES, count = 0, children = {} }
    local grants = { name = STATS_GRANTS, count = 0, children = {} }
    local credit = { name = STATS_CREDIT, count = 0, children = {} }
    local limits = {}   -- "receiver association pool|msg id" -> the highest Grant Limit so far
    local function tick(section, child, amount)
        section.count = section.count + amount
        section.children[child] = (section.children[child] or 0) + amount
    end
    local listener = Listener.new(nil, "rdcc")
    function listener.packet(pinfo)
        local associations = { association_field() }
        if #associations == 0 then return end
        local types = { type_field() }
        local kind = types[#types].value
        tick(messages, type_names[kind], 1)
        if kind ~= CREDIT_GRANT then return end
        local flags_values = { flags_field() }
        local flags = flags_values[#flags_values].value
        local pool = bit.band(flags, FLAG_POOL) ~= 0
        grants.count = grants.count + 1
        tick({ count = 0, children = grants.children }, pool and "POOL" or "per message", 1)
        if bit.band(flags, FLAG_FINAL) ~= 0 then
            tick({ count = 0, children = grants.children }, "FINAL", 1)
        end
        -- A grant travels from the receiver: its source names the receiver.
        local receiver = tostring(pinfo.src)
        local association = associations[#associations].value
        local ids = { message_id_field() }
        local grant_limits = { grant_limit_field() }
        local limit = grant_limits[#grant_limits].value
        local key = string.format("%s %08x %s %s", receiver, association, pool and "pool" or "msg",
            pool and "0" or tostring(ids[#ids].value))
        local more = 0
        if limits[key] == nil or limit > limits[key] then
            more = limits[key] == nil and limit or limit - limits[key]
            more = more > UInt64(STATS_MAX_INCREASE) and STATS_MAX_INCREASE or more:tonumber()
            limits[key] = limit
        end
        tick(credit, string.format("0x%08x at %s", association, receiver), more)
    end
    function listener.draw()
        stats_print({ messages, grants, credit })
    end
    function listener.reset()
        messages.count, messages.children = 0, {}
        grants.count, grants.children = 0, {}
        credit.count, credit.children = 0, {}
        limits = {}
    end
end)
