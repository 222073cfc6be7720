#!/usr/bin/env bash
# rdcc sim --engine ns3 as a user runs it (docs/ns3.md): the 8-to-1 incast on both engines,
# agreeing within 2% on completion and both within G on the checker's peak credit; RED marking
# CE and a CRN reporting on ns-3; a leaf-spine all-to-all with the checker on every receiver;
# the pcap ns-3 writes read back by `rdcc pcap check`; what ns-3 does not model refused with
# exit 2. Where rdcc was built without ns-3 the test is skipped (exit 77) with the reason.
#   sim_ns3_test.sh RDCC SOURCE_DIR
set -u
rdcc=$1
src=$2
source "$src/tools/test/lib.sh"

"$rdcc" sim "$src/docs/examples/sim/incast-8.json" --engine ns3 --json >"$work/probe" 2>"$work/probe.err"
if grep -q "built without ns-3" "$work/probe.err"; then
  echo "SKIPPED: $(cat "$work/probe.err")"
  exit 77
fi

# The 8-to-1 incast of 4 MiB on both engines.
check "incast-8 sim: exit 0" run 0 "$rdcc" sim "$src/docs/examples/sim/incast-8.json" --json
cp "$work/out" "$work/sim.json"
check "incast-8 ns3: exit 0" run 0 "$rdcc" sim "$src/docs/examples/sim/incast-8.json" --engine ns3 --json
cp "$work/out" "$work/ns3.json"
for e in sim ns3; do
  check "incast-8 $e: every message done, no violation, within G" jq -e \
    '.finished and ([.messages[] | select(.state == "DONE")] | length) == 8 and .violations == [] and
     .receivers[0].peak_credit <= .receivers[0].budget and .network.data_octets_delivered == 33554432' \
    "$work/$e.json" >/dev/null
done
a=$(jq .last_finished_us "$work/sim.json")
b=$(jq .last_finished_us "$work/ns3.json")
echo "incast-8: last DONE at $a us (sim), $b us (ns3)"
check "incast-8: the engines agree within 2% on completion ($a, $b)" \
  awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.02 * a) }'
check "incast-8 ns3: the engine is named" jq -e '.engine == "ns3" and .events > 0' "$work/ns3.json" >/dev/null

# RED marks CE above the threshold; the CRN on the switch reports on the queue disc.
check "ecn: exit 0" run 0 "$rdcc" sim "$src/docs/examples/ns3/incast-16-ecn.json" --engine ns3 --json \
  --events "$work/ecn.jsonl" --pcap "$work/ecn.pcap" --svg "$work/ecn.svg"
cp "$work/out" "$work/ecn.json"
check "ecn: RED marked CE, nothing dropped, no violation" \
  jq -e '.finished and .network.ecn_marked > 0 and .network.tail_drops == 0 and .violation_count == 0' "$work/ecn.json" >/dev/null
check "ecn: the CRN sent reports and the receiver took them" \
  jq -e -s '([.[] | select(.endpoint == "crn" and .event == "report_sent")] | length) > 0 and
            ([.[] | select(.event == "report_received")] | length) > 0' "$work/ecn.jsonl" >/dev/null
check "svg: well-formed" xmllint --noout "$work/ecn.svg"
frames=$(jq '.network.control_delivered + .network.data_packets_delivered' "$work/ecn.json")
check "pcap: rdcc pcap check finds nothing" run 0 "$rdcc" pcap check "$work/ecn.pcap" --port 50000 --data-port 50001 --budget 2097152
check "pcap: every delivered packet captured ($frames)" contains "$work/err" "of $frames frames"

# A leaf-spine (2 leaves, 2 spines, 4 hosts each) running an all-to-all (a dispatch and a combine
# round: 112 messages), each host
# both sender and receiver, the checker on all 8 receivers.
check "leaf-spine all-to-all: exit 0" run 0 "$rdcc" sim "$src/docs/examples/ns3/leaf-spine-all-to-all.json" --engine ns3 --json
cp "$work/out" "$work/leaf-spine.json"
check "leaf-spine all-to-all: 112 messages done, 8 receivers, no violation" \
  jq -e '.finished and .message_count == 112 and (.receivers | length) == 8 and .violation_count == 0 and
         all(.receivers[]; .done == 14 and .peak_credit <= .budget)' "$work/out" >/dev/null
check "leaf-spine: the deterministic simulator refuses it" run 2 "$rdcc" sim "$src/docs/examples/ns3/leaf-spine-all-to-all.json"
check "leaf-spine: ... naming the key" contains "$work/err" "topology: a leaf-spine needs --engine ns3"

# Same seed, same run.
run 0 "$rdcc" sim "$src/docs/examples/ns3/leaf-spine-all-to-all.json" --engine ns3 --json
check "same seed: the same trace hash" test "$(jq .trace_hash "$work/out")" = "$(jq .trace_hash "$work/leaf-spine.json")"

# What ns-3 does not model is refused, naming it.
check "impairments: exit 2" run 2 "$rdcc" sim "$src/docs/examples/sim/lossy-control.json" --engine ns3
check "impairments: named" contains "$work/err" "lossy-control.json: impairments: not modelled by the ns-3 engine"
check "rocev2: exit 2" run 2 "$rdcc" sim "$src/docs/examples/sim/rocev2.json" --engine ns3
check "rocev2: named" contains "$work/err" "binding rocev2: not modelled by the ns-3 engine"
cat >"$work/small.json" <<'JSON'
{"topology": {"kind": "leaf-spine", "leaves": 1, "spines": 1, "hosts_per_leaf": 2},
 "workload": {"kind": "incast", "senders": 4, "length": 4096}}
JSON
check "too many hosts: exit 2" run 2 "$rdcc" sim "$work/small.json" --engine ns3
check "too many hosts: named" contains "$work/err" "topology: 5 hosts do not fit 1 leaves of 2"

finish sim_ns3_test
