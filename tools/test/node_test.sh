#!/usr/bin/env bash
# rdcc receiver / sender / crn as processes on real UDP sockets on loopback: association, a
# 4 MiB message, unscheduled messages, RoCEv2, a receiver restart through the upper tester,
# an 8-to-1 incast through rdcc crn, counters on SIGUSR1 and exit, and configuration errors.
# Usage: node_test.sh RDCC_BINARY
set -u
rdcc=$1
. "$(dirname "$0")/lib.sh"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT

. "$(dirname "$0")/nodes_lib.sh"
stop() {  # stop PID: SIGTERM, then wait for its clean exit (status 0)
  kill -TERM "$1" && wait "$1"
}

rdcc_port=$(free_port)
data_port=$(free_port)
roce_port=$(free_port)
params=(--budget 4194304 --unscheduled-budget 1048576 --link-capacity 2000 --unscheduled-limit 65536
        --start-jitter 50 --backlog-threshold 1048576 --grant-lifetime 50000 --credit-unit 4096
        --d-max 1000 --base-rtt 200 --grant-window 262144 --unscheduled-dscp 8)
sender_params=(--rdcc-port "$rdcc_port" --data-port "$data_port" --line-rate 2000
               --unscheduled-dscp 8 --class-dscp 10,12,26,28,34,36,38,40 --exit-when-done --timeout 20000)

# ---- configuration errors name the option or key, the value and why ---------------------------
check "missing RDCC port" run 2 "$rdcc" receiver --address 127.0.0.1 --data-port 5 "${params[@]}"
check "missing RDCC port is named" contains "$work/err" "--rdcc-port is required"
check "G_u above G" run 2 "$rdcc" receiver --address 127.0.0.1 --rdcc-port 5 --data-port 6 "${params[@]}" --unscheduled-budget 8388608
check "G_u above G names both" contains "$work/err" "--unscheduled-budget: 8388608 is larger than --budget 4194304"
check "bad address" run 2 "$rdcc" receiver --address 127.0.0.300 --rdcc-port 5 --data-port 6 "${params[@]}"
check "bad address is named" contains "$work/err" "--address: '127.0.0.300' is not an IP address"
echo '{"address": "127.0.0.1", "rdcc-port": 5, "data-port": 6, "budgett": 1}' >"$work/typo.json"
check "unknown config key" run 2 "$rdcc" receiver --config "$work/typo.json"
check "unknown config key is named with its file" contains "$work/err" "typo.json: key 'budgett' is not an option of rdcc receiver"
echo '{"address": "127.0.0.1", "rdcc-port": 5,' >"$work/broken.json"
check "broken config" run 2 "$rdcc" receiver --config "$work/broken.json"
check "broken config names file and place" contains "$work/err" "broken.json: not JSON"
echo '{"address": "127.0.0.1", "rdcc-port": 5, "data-port": 6, "credit-unit": 0}' >"$work/range.json"
check "config value out of range" run 2 "$rdcc" receiver --config "$work/range.json" "${params[@]:0:10}"
check "out of range names the option" contains "$work/err" "--credit-unit"
check "wrong number of class DSCPs" run 2 "$rdcc" sender --address 127.0.0.2 --rdcc-port 5 --data-port 6 --line-rate 10 --class-dscp 1,2,3
check "class DSCPs named" contains "$work/err" "--class-dscp: 3 values given"
check "upper tester not on loopback" run 2 "$rdcc" sender --address 127.0.0.2 "${sender_params[@]}" --upper-tester tcp:10.1.2.3:5
check "upper tester address named" contains "$work/err" "not a loopback address"

# ---- one description of the configuration (config_schema.hpp): a flag, a --config key named
# as the option and one named as the configuration's key reach the same member; a value out of
# range is refused with the range whichever way it comes; --print-config reads back -----------
at=(--address 127.0.0.1 --rdcc-port 5 --data-port 6 "${params[@]}")
holds() { jq -e "$1" "$work/out" >/dev/null; }  # holds JQ-CONDITION: of the last run's output
pending() { holds '.max_pending_per_association == 7'; }
check "flag --max-pending: print-config" run 0 "$rdcc" receiver "${at[@]}" --max-pending 7 --print-config
check "flag --max-pending reaches max_pending_per_association" pending
echo '{"max-pending": 7}' >"$work/by-option.json"
check "config key max-pending: print-config" run 0 "$rdcc" receiver --config "$work/by-option.json" "${at[@]}" --print-config
check "config key max-pending reaches max_pending_per_association" pending
echo '{"max_pending_per_association": 7, "opaque_binding": false, "capabilities": ["POOL"]}' >"$work/by-key.json"
check "config key max_pending_per_association: print-config" run 0 "$rdcc" receiver --config "$work/by-key.json" "${at[@]}" --print-config
check "config key max_pending_per_association reaches the member" pending
check "config keys of a list option and of names reach theirs" \
  holds '.opaque_binding == false and .rocev2_binding == true and .capabilities == "POOL"'
cp "$work/out" "$work/printed.json"
check "print-config reads back as --config" run 0 "$rdcc" receiver --config "$work/printed.json" --address 127.0.0.1 --rdcc-port 5 --data-port 6 --print-config
check "print-config reads back the same" cmp -s "$work/out" "$work/printed.json"
check "flag out of range" run 2 "$rdcc" receiver "${at[@]}" --max-pending 0
check "flag out of range: the option and the range" contains "$work/err" "--max-pending: 0 is outside 1..16777216"
echo '{"max-pending": 0}' >"$work/bad-option.json"
check "config key by option out of range" run 2 "$rdcc" receiver --config "$work/bad-option.json" "${at[@]}"
check "config key by option out of range: the range" contains "$work/err" "--max-pending: 0 is outside 1..16777216"
echo '{"max_pending_per_association": 0}' >"$work/bad-key.json"
check "config key out of range" run 2 "$rdcc" receiver --config "$work/bad-key.json" "${at[@]}"
check "config key out of range: the file, key and range" contains "$work/err" "bad-key.json: key 'max_pending_per_association': 0 is outside 1..16777216"
check "sender flag out of range" run 2 "$rdcc" sender --address 127.0.0.2 --rdcc-port 5 --data-port 6 --line-rate 10 --unscheduled-dscp 64
check "sender flag out of range: the range" contains "$work/err" "--unscheduled-dscp: 64 is outside 0..63"
check "crn: --no-suggest-rate and repeated DSCPs" run 0 "$rdcc" crn --address 127.0.0.1 --rdcc-port 5 --listen 127.0.0.1:7 --forward-to 127.0.0.1:8 --reporter-id 3 --service-rate 10 --queue-capacity 100 --queue-threshold 10 --unscheduled-dscp 8 --unscheduled-dscp 10 --no-suggest-rate --print-config
check "crn: the settings read" holds '.suggest_rate == false and .unscheduled_dscp == [8, 10] and .reporter_id == 3'

check "unknown mutant" run 2 "$rdcc" receiver --address 127.0.0.1 --rdcc-port 5 --data-port 6 "${params[@]}" --mutant grant-everything
check "unknown mutant is named with the role's mutants" contains "$work/err" "--mutant: 'grant-everything' is not a receiver mutant; these are: grant-beyond-length,"
check "a sender mutant is not a receiver's" run 2 "$rdcc" receiver --address 127.0.0.1 --rdcc-port 5 --data-port 6 "${params[@]}" --mutant sender-exceeds-grant
check "role mismatch is named" contains "$work/err" "'sender-exceeds-grant' is not a receiver mutant"

# ---- a receiver from a config file; a sender with command-line flags ------------------------
cat >"$work/receiver.json" <<JSON
{"address": "127.0.0.1", "rdcc-port": $rdcc_port, "data-port": $data_port, "rocev2": true,
 "rocev2-port": $roce_port, "budget": 4194304, "unscheduled-budget": 1048576, "link-capacity": 2000,
 "unscheduled-limit": 65536, "start-jitter": 50, "backlog-threshold": 1048576, "grant-lifetime": 50000,
 "credit-unit": 4096, "d-max": 1000, "base-rtt": 200, "grant-window": 262144, "unscheduled-dscp": 8,
 "epoch": 1}
JSON
"$rdcc" receiver --config "$work/receiver.json" --events "$work/events.jsonl" 2>"$work/receiver.err" &
receiver=$!
pids+=("$receiver")
check "receiver ready" wait_for "$work/receiver.err" '"event":"ready"'
check "ready line names the addresses" contains "$work/receiver.err" "\"rdcc\":\"127.0.0.1:$rdcc_port\",\"data\":\"127.0.0.1:$data_port\",\"epoch\":1"

check "4 MiB scheduled and 2 KiB unscheduled complete" run 0 "$rdcc" sender --address 127.0.0.2 "${sender_params[@]}" \
  --to "127.0.0.1:$rdcc_port" --class 2 --send 4194304 --send 2048
check "both DONE" json_check "$work/err" '[.messages[].state] == ["DONE", "DONE"] and .reason == "done"'
check "association established" json_check "$work/err" '.stats.sender.associations_established == 1'
check "unscheduled octets" json_check "$work/err" '.stats.sender.unscheduled_octets == 2048' 

check "RoCEv2 message completes" run 0 "$rdcc" sender --address 127.0.0.3 "${sender_params[@]}" \
  --to "127.0.0.1:$rdcc_port" --binding rocev2 --rocev2-port "$roce_port" --rocev2-qpn 291 --send 1048576
check "RoCEv2 DONE" json_check "$work/err" '.messages[0].state == "DONE" and .stats.data.rocev2_packets > 0' 

kill -USR1 "$receiver"
check "SIGUSR1 prints counters" wait_for "$work/receiver.err" '"event":"stats"'
grep -F '"event":"stats"' "$work/receiver.err" >"$work/usr1.json"
check "receiver counted the RoCEv2 octets with good ICRCs" json_check "$work/usr1.json" \
  '.stats | .data.rocev2_packets > 0 and .data.rocev2_bad_icrc == 0 and .receiver.scheduled_octets == 4194304 + 1048576' 
check "receiver exits cleanly on SIGTERM" stop "$receiver"
check "exit line with counters" json_check "$work/receiver.err" '.event == "exit" and .reason == "SIGTERM" and .stats.receiver.msg_done_sent >= 3'
jq -s '[.[] | select(.event == "association_accepted")] | length' "$work/events.jsonl" >"$work/accepted"
check "event log is JSON lines with the association" test "$(cat "$work/accepted")" -ge 1

# ---- receiver restart through the upper tester (TCP on loopback) ----------------------------
"$rdcc" receiver --config "$work/receiver.json" 2>"$work/r1.err" &
receiver=$!
pids+=("$receiver")
check "first receiver ready" wait_for "$work/r1.err" '"event":"ready"'
"$rdcc" sender --address 127.0.0.4 --rdcc-port "$rdcc_port" --data-port "$data_port" --line-rate 2000 \
  --upper-tester tcp:127.0.0.1:0 2>"$work/ut.err" &
sender=$!
pids+=("$sender")
check "sender ready" wait_for "$work/ut.err" '"upper_tester":"127.0.0.1:'
ut_port=$(head -n 1 "$work/ut.err" | jq -r '.upper_tester | split(":")[1]')
exec 3<>"/dev/tcp/127.0.0.1/$ut_port"
ask() {  # ask REQUEST: one line out, one line back (10 s at most)
  echo "$1" >&3
  IFS= read -r -t 10 reply <&3
  echo "$reply" >"$work/reply"
}
ask '{"op":"hello"}'
check "hello" json_check "$work/reply" '.ok == true and .role == "sender" and .implementation == "rdcc-reference" and .version == "0.1.0" and (.ops | index("submit")) != null and .modes == ["scheduled", "unscheduled"] and has("unscheduled_dscp")' 
ask "{\"op\":\"submit\",\"receiver\":\"127.0.0.1:$rdcc_port\",\"length\":262144,\"class\":2}"
check "submit" json_check "$work/reply" '.ok and .handle == 1' 
ask '{"op":"wait","handle":1,"timeout_ms":10000}'
check "first message done" json_check "$work/reply" '.state == "DONE"' 
check "first receiver stops" stop "$receiver"
jq '.epoch = 2' "$work/receiver.json" >"$work/receiver2.json"
"$rdcc" receiver --config "$work/receiver2.json" 2>"$work/r2.err" &
receiver=$!
pids+=("$receiver")
check "restarted receiver ready with a new Epoch" wait_for "$work/r2.err" '"epoch":2'
ask "{\"op\":\"submit\",\"receiver\":\"127.0.0.1:$rdcc_port\",\"length\":1048576}"
ask '{"op":"wait","handle":2,"timeout_ms":10000}'
check "message after the restart done" json_check "$work/reply" '.state == "DONE"' 
ask "{\"op\":\"association\",\"receiver\":\"127.0.0.1:$rdcc_port\"}"
check "sender took the new Epoch" json_check "$work/reply" '.established and .epoch == 2' 
ask '{"op":"stats"}'
check "sender re-established" json_check "$work/reply" '.stats.sender.re_establishments >= 1' 
ask '{"op":"submit","length":5}'
check "bad request names the key" json_check "$work/reply" '.error == "bad_request" and .detail == "missing key '"'receiver'"'"' 
exec 3>&-
check "sender stops" stop "$sender"

# stdio mode: requests on standard input, answers on standard output, in order; the end of
# the input ends the sender once every request has its answer.
printf '%s\n' '{"op":"hello","id":1}' \
  "{\"op\":\"submit\",\"receiver\":\"127.0.0.1:$rdcc_port\",\"length\":65536,\"id\":2}" \
  '{"op":"wait","handle":1,"timeout_ms":10000,"id":3}' '{"op":"hello","bogus":1,"id":4}' >"$work/requests"
check "stdio upper tester" run 0 "$rdcc" sender --address 127.0.0.6 --rdcc-port "$rdcc_port" \
  --data-port "$data_port" --line-rate 2000 --upper-tester stdio <"$work/requests"
check "four answers in order" test "$(jq -c .id "$work/out" | tr '\n' ' ')" = "1 2 3 4 "
check "the wait saw DONE" json_check <(sed -n 3p "$work/out") '.state == "DONE"'
check "the bad key is named" json_check "$work/out" '.detail == "unknown key '"'bogus'"' for op hello"'
check "end of input ends the sender" contains "$work/err" '"reason":"end of input"' 
check "receiver stops" stop "$receiver"

# ---- a mutant receiver: every grant with Pacing Rate zero, which the sender must ignore ------
"$rdcc" receiver --config "$work/receiver.json" --mutant zero-pacing-rate 2>"$work/rm.err" &
receiver=$!
pids+=("$receiver")
check "mutant receiver ready" wait_for "$work/rm.err" '"event":"ready"'
check "no message completes under zero-rate grants" run 1 "$rdcc" sender --address 127.0.0.5 \
  "${sender_params[@]}" --to "127.0.0.1:$rdcc_port" --send 262144 --timeout 1500
check "the sender ignored the zero-rate grants" json_check "$work/err" \
  '.reason == "timeout" and .stats.sender.grants_ignored > 0 and .stats.data.octets == 0'
check "mutant receiver stops" stop "$receiver"

# ---- 8-to-1 incast through rdcc crn ---------------------------------------------------------
crn_port=$(free_port)
"$rdcc" receiver --config "$work/receiver.json" --link-capacity 1000 --crn 127.0.0.1 2>"$work/r3.err" &
receiver=$!
pids+=("$receiver")
"$rdcc" crn --address 127.0.0.1 --rdcc-port "$rdcc_port" --listen "127.0.0.1:$crn_port" \
  --forward-to "127.0.0.1:$data_port" --reporter-id 7 --service-rate 1000 --queue-capacity 1048576 \
  --queue-threshold 262144 --unscheduled-dscp 8 2>"$work/crn.err" &
crn=$!
pids+=("$crn")
check "receiver ready for the incast" wait_for "$work/r3.err" '"event":"ready"'
check "crn ready" wait_for "$work/crn.err" '"event":"ready"'
senders=()
for i in 2 3 4 5 6 7 8 9; do
  "$rdcc" sender --address "127.0.0.$i" "${sender_params[@]}" --crn 127.0.0.1 --data-via "127.0.0.1:$crn_port" \
    --to "127.0.0.1:$rdcc_port" --class 2 --send 524288 2>"$work/s$i.err" &
  senders+=($!)
done
ok=0
for p in "${senders[@]}"; do wait "$p" && ok=$((ok + 1)); done
check "all eight senders completed" test "$ok" -eq 8
check "crn exits cleanly" stop "$crn"
check "no tail drops, queue below capacity" json_check "$work/crn.err" \
  '.stats.queue | .tail_drops == 0 and .max_occupancy < 1048576 and .forwarded > 0' 
check "receiver stops after the incast" stop "$receiver"
# A NACKed segment that was only late arrives twice; the second copy, after its message completed,
# is late data of that message, never data of no message.
check "every octet attributed to its sender" json_check "$work/r3.err" \
  '.stats.receiver | .scheduled_octets == 8 * 524288 and .unattributed_data_octets == 0' 

finish rdcc_node
