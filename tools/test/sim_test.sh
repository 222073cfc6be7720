#!/usr/bin/env bash
# rdcc sim as a user runs it: the example descriptions of docs/examples/sim, the real binary, its
# pcap read back by `rdcc pcap check` and tshark, its events by jq, its plot by xmllint; faulty
# endpoints (mutants) caught; every kind of bad description named with its key and exit status 2.
#   sim_test.sh RDCC SOURCE_DIR
set -u
rdcc=$1
src=$2
ex=$src/docs/examples/sim
source "$(dirname "$0")/lib.sh"
json() { jq -e "$1" "$work/out" >/dev/null; }

# The 8-to-1 incast of 4 MiB: every message done, within 5% of the ideal, credit within G.
check "incast: exit 0" run 0 "$rdcc" sim "$ex/incast-8.json" --json
check "incast: every message done" json '.finished and ([.messages[] | select(.state == "DONE")] | length) == 8'
check "incast: no violation" json '.violations == []'
check "incast: within 5% of the ideal" json '.receivers[0].ratio > 1 and .receivers[0].ratio < 1.05'
check "incast: peak credit within G" json '.receivers[0].peak_credit <= .receivers[0].budget'
check "incast: every octet delivered" json '.network.data_octets_delivered == 33554432'

# 1% of the data packets lost: the opaque transport's NACKs recover them (docs/data-transport.md,
# "Loss recovery"); the summary and --json report the loss and the octets resent.
check "lossy data: exit 0" run 0 "$rdcc" sim "$ex/lossy-data.json" --json
check "lossy data: every message done, no violation" json '.finished and .violations == [] and ([.messages[] | select(.state == "DONE")] | length) == 8'
check "lossy data: lost, NACKed and resent" \
  json '.network | .data_lost > 0 and .nacks_sent > 0 and .resent_octets > 0 and .resent_share > 0 and .resent_share < 0.05'
check "lossy data: summary" run 0 "$rdcc" sim "$ex/lossy-data.json"
check "lossy data: summary names resent octets and their share" grep -q 'resent_octets=[1-9][0-9]* resent_share=0\.0' "$work/out"

# Same seed, same bytes; another seed, another run (the lossy example draws impairments).
run 0 "$rdcc" sim "$ex/lossy-control.json" --pcap "$work/a.pcap" --events "$work/a.jsonl" --svg "$work/a.svg" --json
cp "$work/out" "$work/a.json"
check "lossy: exit 0, impairments happened" \
  jq -e '.finished and .violations == [] and .network.control_lost > 0 and .network.control_duplicated > 0' "$work/a.json" >/dev/null
run 0 "$rdcc" sim "$ex/lossy-control.json" --pcap "$work/b.pcap" --events "$work/b.jsonl" --svg "$work/b.svg" --json
check "same seed: the same pcap byte for byte" cmp -s "$work/a.pcap" "$work/b.pcap"
check "same seed: the same trace hash" test "$(jq .trace_hash "$work/a.json")" = "$(jq .trace_hash "$work/out")"
run 0 "$rdcc" sim "$ex/lossy-control.json" --seed 8 --json
check "another seed: another run" test "$(jq .trace_hash "$work/a.json")" != "$(jq .trace_hash "$work/out")"

# The outputs are what other tools read.
check "events: JSON lines with time, endpoint, event" \
  jq -e -s 'length > 1000 and all(.[]; has("time_ns") and has("endpoint") and has("event"))' "$work/a.jsonl"  >/dev/null
check "svg: well-formed XML" xmllint --noout "$work/a.svg"
check "svg: G in human units" grep -q '>G = 1 MiB</text>' "$work/a.svg"
frames=$(jq '.network.control_delivered + .network.data_packets_delivered + .network.nacks_delivered' "$work/a.json")
if command -v tshark >/dev/null; then
  tshark -r "$work/a.pcap" -T fields -e frame.number >"$work/frames" 2>"$work/err"
  check "pcap: tshark reads every delivered packet ($frames)" lines "$work/frames" "$frames"
fi

# On a network without impairments the capture passes the passive check (with loss and
# reordering a capture taken where packets are delivered cannot show what each endpoint saw).
run 0 "$rdcc" sim "$ex/incast-8.json" --pcap "$work/i.pcap"
check "pcap: rdcc pcap check finds nothing" run 0 "$rdcc" pcap check "$work/i.pcap" --port 50000 --data-port 50001 --budget 2097152
run 0 "$rdcc" sim "$ex/incast-8.json" --json
counted="0 findings in $(jq .network.control_delivered "$work/out") RDCC packets and $(jq .network.data_packets_delivered "$work/out") data packets"
run 0 "$rdcc" pcap check "$work/i.pcap" --port 50000 --data-port 50001 --budget 2097152
check "pcap: every frame checked ($counted)" contains "$work/err" "$counted"

# With data loss the receiver NACKs (docs/data-transport.md, "Loss recovery"), to the sender's
# RDCC port: the capture tools count them as the data transport's, never as malformed RDCC.
run 0 "$rdcc" sim "$ex/lossy-data.json" --json --pcap "$work/lossy.pcap"
nacks=$(jq .network.nacks_delivered "$work/out")
check "lossy data: the receiver NACKed ($nacks)" test "$nacks" -gt 0
check "lossy data: pcap stats counts every NACK, nothing undecodable" run 0 "$rdcc" pcap stats "$work/lossy.pcap" --port 50000 --data-port 50001 --json
check "lossy data: stats' capture figures" jq -e ".capture | .nacks == $nacks and .decode_errors == 0 and .malformed_frames == 0" "$work/out"
check "lossy data: pcap check reads no NACK as RDCC" run 0 "$rdcc" pcap check "$work/lossy.pcap" --port 50000 --data-port 50001 --budget 2097152
check "lossy data: pcap check counts the NACKs" contains "$work/err" ", $nacks NACKs, of "
check "lossy data: no version note" lacks "$work/err" "version"

# With loss, copies and reordering of control messages, the strict check blames the endpoints
# for what the path did; --network-effects discards what the receivers discard.
run 1 "$rdcc" pcap check "$work/a.pcap" --port 50000 --data-port 50001 --budget 1048576
check "lossy pcap, strict: stale Sequence Numbers reported" contains "$work/out" "which it sent before (an identical copy)"
# The invariant checker keeps 1,000 violations at a time; check takes them after every packet,
# so a capture with more reports them all (here a G of 64 KiB against the receiver's 2 MiB, in
# the 64-sender incast: one finding per grant, the later data of each message counted in a note).
run 0 "$rdcc" sim "$ex/incast-64.json" --pcap "$work/incast64.pcap"
budget_findings=$("$rdcc" pcap check "$work/incast64.pcap" --port 50000 --data-port 50001 --budget 65536 --json | grep -c '"rule":"RDCC-BUDGET-01"' || true)
check "G below the receiver's: more than 1,000 budget findings, every one reported ($budget_findings)" test "$budget_findings" -gt 1000
# (D_max 10 us: the simulator's reorder delay is 5 us.)
check "lossy pcap, --network-effects: no finding" \
  run 0 "$rdcc" pcap check "$work/a.pcap" --port 50000 --data-port 50001 --budget 1048576 --network-effects --d-max 10
check "lossy pcap, --network-effects: data seen before its request is related to it" \
  contains "$work/err" "data packets (0 not related to a request)"
check "lossy pcap, --network-effects: the discarded counted" contains "$work/err" "control messages not newer than their originator's last"

# ... but data that no announced window covers is still a finding under --network-effects.
jq '.senders[0].mutants = ["unscheduled-sent-not-length"] | .messages = [{"from": "*", "length": 8192}]' \
  "$ex/incast-8.json" >"$work/unannounced.json"
check "mutant unscheduled-sent-not-length: exit 1" run 1 "$rdcc" sim "$work/unannounced.json" --pcap "$work/u.pcap"
run 1 "$rdcc" pcap check "$work/u.pcap" --port 50000 --data-port 50001 --budget 2097152 --network-effects
check "mutant unscheduled-sent-not-length: the capture check finds it" contains "$work/out" "RDCC-UNSCHED-02"

# A receiver that sends pool grants to senders that did not advertise POOL: the reference
# senders ignore them (so the run itself is clean), the capture check names it once per
# association and counts the rest.
jq '.receivers[0].mutants = ["pool-grant-without-capability"] | .senders[0].capabilities = ["STATUS"]' \
  "$ex/incast-8.json" >"$work/pool.json"
# The simulator runs the same rule (the one InvariantChecker): exit 1, the same ID.
check "mutant pool-grant-without-capability: the run finds it" run 1 "$rdcc" sim "$work/pool.json" --pcap "$work/pool.pcap"
check "mutant pool-grant-without-capability: the run names RDCC-GRANT-08" contains "$work/out" " RDCC-GRANT-08: "
check "mutant pool-grant-without-capability: the capture check finds it" \
  run 1 "$rdcc" pcap check "$work/pool.pcap" --port 50000 --data-port 50001 --budget 2097152
check "one RDCC-GRANT-08 per association (8)" test "$(grep -c '^RDCC-GRANT-08 ' "$work/out")" -eq 8
check "nothing else found" test "$(grep -c '^RDCC-' "$work/out")" -eq 8
check "the later pool grants counted" contains "$work/err" "later pool grants on associations already reported (RDCC-GRANT-08) not shown"

# A run with a restart, a CRN and a cancelled message: the cancelled one is ABORTED, the rest DONE.
check "restart: exit 0" run 0 "$rdcc" sim "$ex/crn-restart.json" --json
check "restart: 9 done, 1 aborted" json '([.messages[] | select(.state == "DONE")] | length) == 9 and .messages[9].state == "ABORTED"'
check "restart: the abort counted and named" json '.outcome.done == 9 and .outcome.aborted == 1 and .outcome.aborts[0].reason == "APPLICATION_ABORT"'

# More senders than the receiver's max_associations: the refused ones are ABORTED once their
# eight ASSOC_REQUESTs are all refused (docs/spec-notes.md, "ASSOC_REFUSED ends the association
# procedure, not the first time it arrives"), and the summary counts them and names the caps
# (it said "every message finished"). Exit 1.
jq '.receivers[0].max_associations = 3' "$ex/incast-8.json" >"$work/caps.json"
check "cap: exit 1" run 1 "$rdcc" sim "$work/caps.json"
check "cap: DONE and ABORTED counted" contains "$work/out" "8 messages: 3 DONE, 5 ABORTED, 0 unfinished"
check "cap: the reason and the cap named" contains "$work/out" \
  "ABORTED 5 (ASSOC_REFUSED): receiver receiver refused 40 ASSOC_REQUESTs at its caps max_associations = 3, max_associations_per_host = 256"
check "rocev2: exit 0, every message done" run 0 "$rdcc" sim "$ex/rocev2.json" --json
check "rocev2: no violation" json '.violations == [] and ([.messages[] | select(.binding == "rocev2")] | length) == 4'

# A faulty receiver is caught by the invariant checker: exit 1, the rule named.
# (G small enough to bind: with the example's 2 MiB the per-message windows never reach it.)
jq '.receivers[0] += {"budget": 262144, "unscheduled_budget": 65536, "mutants": ["budget-not-enforced"]}' \
  "$ex/incast-8.json" >"$work/mutant.json"
check "mutant: exit 1" run 1 "$rdcc" sim "$work/mutant.json"
check "mutant: the budget violation named" contains "$work/out" " RDCC-BUDGET-01: "
jq '.receivers[0].mutants = ["grant-beyond-length"]' "$ex/incast-8.json" >"$work/mutant.json"
check "mutant grant-beyond-length: exit 1" run 1 "$rdcc" sim "$work/mutant.json" --json
check "mutant grant-beyond-length: the rule named" json '[.violations[].rule] | index("RDCC-GRANT-07") != null'

# Bad descriptions: exit 2 and the file, the key's path and what is wrong.
bad() {  # bad NAME JQ-FILTER EXPECTED-MESSAGE
  jq "$2" "$ex/incast-8.json" >"$work/bad.json"
  check "$1: exit 2" run 2 "$rdcc" sim "$work/bad.json"
  check "$1: says '$3'" contains "$work/err" "$3"
}
bad "unknown key" '.receivers[0].budgett = 1' "bad.json: receivers[0].budgett: unknown key"
bad "wrong type" '.receivers[0].budget = "2M"' 'receivers[0].budget: expected an unsigned integer, got "2M"'
bad "negative" '.link.delay_us = -1' "link.delay_us: expected an unsigned integer, got -1"
bad "probability" '.impairments = {"control": {"loss": 1.5}}' "impairments.control.loss: expected a probability in [0, 1], got 1.5"
bad "out of range" '.receivers[0].credit_unit = 0' "receivers[0].credit_unit: 0 is outside 1..65507"
bad "capability" '.senders[0].capabilities = ["POOL", "FAST"]' "senders[0].capabilities: 'FAST' is not one of POOL, STATUS, CRN"
bad "wrong type of a Bool" '.senders[0].allow_unscheduled = 1' "senders[0].allow_unscheduled: expected true or false, got 1"
bad "no such sender" '.messages[0].from = "nobody"' 'messages[0].from: "nobody" names no sender'
bad "no such receiver" '.messages[0].to = 3' "messages[0].to: 3 names no receiver"
bad "G_u above G" '.receivers[0].unscheduled_budget = 4194304' "receivers[0].unscheduled_budget: 4194304 is larger than budget 2097152"
bad "no receivers" 'del(.receivers)' "receivers: required: at least one receiver"
bad "unknown mutant" '.receivers[0].mutants = ["no-such-fault"]' 'receivers[0].mutants[0]: "no-such-fault" is not a receiver mutant'
bad "same Epoch" '.actions = [{"at_us": 5, "restart_receiver": {"epoch": 1}}]' "actions[0].restart_receiver.epoch: a restarted receiver MUST use a different Epoch"
bad "cancel of nothing" '.actions = [{"at_us": 5, "cancel": 8}]' "actions[0].cancel: 8 is not a submitted message (0..7)"
printf '{\n  "seed": 1,\n  "receivers": [}\n' >"$work/syntax.json"
check "syntax error: exit 2" run 2 "$rdcc" sim "$work/syntax.json"
check "syntax error: line and column" contains "$work/err" "syntax.json:3:17: syntax error"
check "missing file: exit 2" run 2 "$rdcc" sim "$work/none.json"
check "missing file: named" contains "$work/err" "none.json: cannot be read"

finish sim_test
