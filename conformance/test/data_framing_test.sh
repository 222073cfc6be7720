#!/usr/bin/env bash
# A vendor's opaque data framing (docs/data-transport.md, "A vendor's framing") end to end, with
# docs/examples/framing/vendor-16.json (an 8-octet binding value, then an 8-octet offset, no
# magic, the payload the rest of the datagram):
#  - bad framing files are bad usage (exit 2) for every command, naming the file and the field;
#  - nodes: `rdcc sender` -> `rdcc receiver` on loopback, both with the framing: messages DONE;
#    a receiver without it counts the sender's packets as malformed and finishes nothing;
#  - suite: receiver scenarios with data through exec: (`rdcc receiver --data-framing`) and
#    `rdcc-conform --data-framing` pass; the tester without the framing gets no MSG_DONE (inconclusive);
#  - capture: the suite's pcap of the in-process reference with the framing, checked by
#    `rdcc pcap check --data-framing`: every data packet read and related, no finding.
# Usage: data_framing_test.sh RDCC_CONFORM SOURCE_DIR RDCC
set -uo pipefail
conform=$1
src=$2
rdcc=$3
. "$src/tools/test/lib.sh"
framing="$src/docs/examples/framing/vendor-16.json"
scenarios="$src/conformance/scenarios/receiver"
catalog="$src/conformance/catalog/requirements.json"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT

# ---- bad framing files: exit 2, the file and the field named ---------------------------------
echo '{"header_length": 16, "byte_order": "big", "binding_value": {"offset": 0, "size": 4},
 "offset": {"offset": 8, "size": 8}, "payload_length": "rest"}' >"$work/short.json"
echo '{"header_length": 12, "byte_order": "big", "binding_value": {"offset": 0, "size": 8},
 "offset": {"offset": 8, "size": 8}, "payload_length": "rest"}' >"$work/beyond.json"
echo '{"header_length": 16, "byte_order": "middle", "binding_value": {"offset": 0, "size": 8},
 "offset": {"offset": 8, "size": 8}, "payload_length": "rest"}' >"$work/order.json"
echo '{"header_length": 16, "byte_order": "big", "binding_value": {"offset": 0, "size": 8},
 "offset": {"offset": 4, "size": 8}, "payload_length": "rest"}' >"$work/overlap.json"
echo '{"header_length": 16,' >"$work/broken.json"
check "conform: a 4-octet binding value" run 2 "$conform" --iut reference:receiver --data-framing "$work/short.json" --scenarios "$scenarios" --catalog "$catalog"
check "conform: file and field named" contains "$work/err" "short.json: field \"binding_value.size\": 4 octets; expected 8"
node_params=(--budget 4194304 --unscheduled-budget 1048576 --link-capacity 2000 --unscheduled-limit 65536
             --start-jitter 50 --backlog-threshold 1048576 --grant-lifetime 50000 --credit-unit 4096
             --d-max 1000 --base-rtt 200 --grant-window 262144)
check "receiver: a field beyond the header" run 2 "$rdcc" receiver --address 127.0.0.1 --rdcc-port 5 --data-port 6 "${node_params[@]}" --data-framing "$work/beyond.json"
check "receiver: file and field named" contains "$work/err" "beyond.json: field \"offset\": octets 8..16 lie beyond the header_length 12"
check "sender: a bad byte order" run 2 "$rdcc" sender --address 127.0.0.1 --rdcc-port 5 --data-port 6 --line-rate 10 --data-framing "$work/order.json"
check "sender: file and field named" contains "$work/err" "order.json: field \"byte_order\": expected \"big\" or \"little\""
check "pcap check: overlapping fields" run 2 "$rdcc" pcap check "$src/pcaps/sim_all_types.pcap" --port 50000 --data-port 50001 --budget 4MiB --data-framing "$work/overlap.json"
check "pcap check: file and field named" contains "$work/err" "overlap.json: field \"offset\": overlaps binding_value"
check "pcap stats: not JSON" run 2 "$rdcc" pcap stats "$src/pcaps/sim_all_types.pcap" --port 50000 --data-framing "$work/broken.json"
check "pcap stats: the file named" contains "$work/err" "broken.json: not valid JSON"
check "a missing file" run 2 "$rdcc" receiver --address 127.0.0.1 --rdcc-port 5 --data-port 6 "${node_params[@]}" --data-framing "$work/none.json"
check "a missing file named" contains "$work/err" "none.json: cannot open"

# ---- nodes on loopback -------------------------------------------------------------------------
free_port() {  # a dynamic UDP port no socket uses now
  local p
  while :; do
    p=$((49152 + RANDOM % 16384))
    if [ -z "$(ss -Huan "sport = :$p")" ]; then echo "$p"; return; fi
  done
}
wait_for() {  # wait_for FILE TEXT: at most 10 s
  local i
  for i in $(seq 1 500); do
    grep -qF -- "$2" "$1" 2>/dev/null && return 0
    sleep 0.02
  done
  return 1
}
rdcc_port=$(free_port)
data_port=$(free_port)
while [ "$data_port" = "$rdcc_port" ]; do data_port=$(free_port); done
receiver_opts=(--address 127.0.0.1 --rdcc-port "$rdcc_port" --data-port "$data_port" "${node_params[@]}")
sender_opts=(--address 127.0.0.2 --rdcc-port "$rdcc_port" --data-port "$data_port" --line-rate 2000
             --to "127.0.0.1:$rdcc_port" --send 1048576 --send 2048 --exit-when-done --timeout 5000)
"$rdcc" receiver "${receiver_opts[@]}" --data-framing "$framing" 2>"$work/r.err" &
receiver=$!
pids+=("$receiver")
check "nodes: receiver ready" wait_for "$work/r.err" '"event":"ready"'
check "nodes: 1 MiB scheduled and 2 KiB unscheduled in vendor-16 framing complete" \
  run 0 "$rdcc" sender "${sender_opts[@]}" --data-framing "$framing"
check "nodes: both DONE" test "$(tail -n 1 "$work/err" | jq -c '[.messages[].state]')" = '["DONE","DONE"]'
kill -TERM "$receiver"; wait "$receiver"
check "nodes: the receiver read every packet, none malformed" \
  test "$(tail -n 1 "$work/r.err" | jq '.stats.data.malformed == 0 and .stats.data.packets > 256')" = true
# The project's framing on the receiver: the vendor's packets do not decode, nothing finishes.
"$rdcc" receiver "${receiver_opts[@]}" 2>"$work/r2.err" &
receiver=$!
pids+=("$receiver")
check "nodes, framings disagree: receiver ready" wait_for "$work/r2.err" '"event":"ready"'
check "nodes, framings disagree: the sender does not finish" \
  run 1 "$rdcc" sender "${sender_opts[@]}" --data-framing "$framing"
kill -TERM "$receiver"; wait "$receiver"
check "nodes, framings disagree: the receiver counted the packets malformed" \
  test "$(tail -n 1 "$work/r2.err" | jq '.stats.data.malformed > 0')" = true

# ---- the suite through exec: ------------------------------------------------------------------
filters=(--filter receiver-msg-done-after-data --filter receiver-final-only-at-length
         --filter receiver-misbehaving-sender --filter receiver-sequence-wraparound
         --filter receiver-class-and-weight-treat-as)
iut="exec:$rdcc receiver --address 127.0.0.1 --budget 4194304 --unscheduled-budget 1048576 \
--link-capacity 100000 --unscheduled-limit 65536 --start-jitter 10 --backlog-threshold 1048576 \
--grant-lifetime 1000 --credit-unit 4096 --d-max 20 --base-rtt 10 --rtt-target 50 \
--crn 127.0.0.1 --unscheduled-dscp 8 --rdcc-port {rdcc_port} --data-port {data_port} \
--upper-tester stdio {config} --data-framing $framing"
tolerance=(--tolerance-abs 20ms --tolerance-rel 10% --retries 2)
check "suite, exec: with the framing" run 0 "$conform" --role receiver --jobs 2 "${tolerance[@]}" \
  --scenarios "$scenarios" --catalog "$catalog" "${filters[@]}" --data-framing "$framing" --iut "$iut"
check "suite, exec: 5 passed, none failed" contains "$work/out" "5 passed, 0 warned, 0 failed, 0 inconclusive"
# Data in a framing the node does not read never counts, so no MSG_DONE comes: the spec sets no
# deadline for it, so the run is inconclusive (exit 3), not passed.
check "suite, exec: the tester in the project's framing sees no MSG_DONE (inconclusive)" run 3 "$conform" --role receiver \
  --jobs 2 "${tolerance[@]}" --scenarios "$scenarios" --catalog "$catalog" \
  --filter receiver-msg-done-after-data --iut "$iut"

# ---- a capture: the in-process reference's pcap -------------------------------------------------
check "suite, reference: with the framing" run 0 "$conform" --iut reference:receiver \
  --scenarios "$scenarios" --catalog "$catalog" --filter receiver-msg-done-after-data \
  --data-framing "$framing" --report "$work/ref"
pcap=$(find "$work/ref" -name 'receiver-msg-done-after-data*.pcap' | head -n 1)
check "suite, reference: its pcap written" test -s "$pcap"
check "pcap check with the framing: no finding" run 0 "$rdcc" pcap check "$pcap" --port 50000 \
  --data-port 50001 --budget 4MiB --data-framing "$framing"
check "pcap check with the framing: every data packet read and related" \
  contains "$work/err" "0 findings in 7 RDCC packets and 2 data packets (0 not related to a request)"
check "pcap check without it: the packets do not decode" run 0 "$rdcc" pcap check "$pcap" \
  --port 50000 --data-port 50001 --budget 4MiB
check "pcap check without it: said in a note" contains "$work/err" "does not decode"

finish data_framing_test
