#!/usr/bin/env bash
# A real capture of the real nodes: dumpcap on lo (a capture filter on this test's ports) while
# `rdcc sender` sends to `rdcc receiver` on loopback, then `rdcc pcap check` and `stats` on it.
# The sender's data leaves from a port of its own (--data-source-port), so every data packet is
# read as data, none as malformed RDCC; the check counts every one and finds nothing, and stats
# count the received octets from the data. The same with a mutant sender gives that mutant's
# finding (multiple-unscheduled: RDCC-UNSCHED-03; sender-ignores-pacing: RDCC-GRANT-05).
# Usage: capture_test.sh RDCC_BINARY
set -u
rdcc=$1
. "$(dirname "$0")/lib.sh"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

. "$(dirname "$0")/nodes_lib.sh"

rdcc_port=$(free_port)
data_port=$(free_port)
source_port=$(free_port)
budget=4194304
d_max=20
receiver_params=(--address 127.0.0.1 --rdcc-port "$rdcc_port" --data-port "$data_port"
  --budget "$budget" --unscheduled-budget 1048576 --link-capacity 100 --unscheduled-limit 65536
  --start-jitter 10 --backlog-threshold 1048576 --grant-lifetime 50000 --credit-unit 4096
  --d-max "$d_max" --base-rtt 10 --grant-window 262144 --unscheduled-dscp 8)
# A long Lifetime: a capture sees when the receiver sent a grant, not when the sender read it
# (docs/spec-notes.md, "A tester on real sockets does not see when a grant was read"), and a
# loaded host may read it late. Grants of 256 KiB, below the 1 MiB message (a sender beyond its
# grant has room to show it), at the receiver's 100 Mbit/s, far below the sender's 10 Gbit/s line
# rate (a sender ignoring its Pacing Rate sends at its line rate). At 100 Mbit/s the pacing
# window (ten Credit Units) is 3.3 ms, long beside the scheduling delays of a loaded 2-core host,
# which at 1 Gbit/s (0.3 ms) could bunch a burst the pacer released on time with the next.

# capture NAME SENDER-OPTIONS...: a receiver and one sender (three messages: 1 MiB and 256 KiB
# scheduled, 2 KiB unscheduled), captured on lo; the sender's exit line in $work/NAME.sender.
capture() {
  local name=$1
  shift
  dumpcap -q -B 64 -i lo -f "udp and (port $rdcc_port or port $data_port)" -w "$work/$name.pcapng" \
    2>"$work/$name.dumpcap" &
  local dumpcap=$!
  pids+=("$dumpcap")
  wait_for "$work/$name.dumpcap" "Capturing on" || return 1
  "$rdcc" receiver "${receiver_params[@]}" 2>"$work/$name.receiver" &
  local receiver=$!
  pids+=("$receiver")
  wait_for "$work/$name.receiver" '"event":"ready"' || return 1
  timeout 30 "$rdcc" sender --address 127.0.0.2 --rdcc-port "$rdcc_port" --data-port "$data_port" \
    --line-rate 10000 --unscheduled-dscp 8 --to "127.0.0.1:$rdcc_port" \
    --send 1048576 --send 262144 --send 2048 --exit-when-done --timeout 5000 "$@" \
    2>"$work/$name.sender"
  kill -TERM "$receiver"
  wait "$receiver"
  # dumpcap writes what it has and exits on SIGINT; a moment first for the last packets (a whole
  # second: on a loaded host dumpcap may not have read the kernel's buffer yet, and a capture
  # that misses the last packets fails the counts below).
  sleep 1
  kill -INT "$dumpcap"
  wait "$dumpcap"
  test -s "$work/$name.pcapng"
}

# The slack: a burst the sender's pacer released on time may leave its socket a little late on
# a loaded host (docs/spec-notes.md, "Pacing is averaged over ten Credit Units: a late wake-up is
# made up, within that window"); 200 us is less than a Credit Unit at 100 Mbit/s.
check_args=(--port "$rdcc_port" --data-port "$data_port" --budget "$budget" --d-max "$d_max"
  --capture-slack 200)

# ---- the reference sender and receiver: every data packet counted, nothing found -------------
check "capture of sender -> receiver" capture clean --data-source-port "$source_port"
check "all three messages DONE" json_check "$work/clean.sender" '[.messages[].state] == ["DONE", "DONE", "DONE"]'
check "the ready line names the data source port" contains "$work/clean.sender" "\"data\":\"127.0.0.2:$source_port\""
sent_packets=$(tail -n 1 "$work/clean.sender" | jq '.stats.data.packets')
sent_octets=$(tail -n 1 "$work/clean.sender" | jq '.stats.data.octets')
check "pcap check: no finding" run 0 "$rdcc" pcap check "$work/clean.pcapng" "${check_args[@]}"
check "pcap check counts every data packet the sender sent ($sent_packets)" \
  grep -qE "0 findings in [0-9]+ RDCC packets and $sent_packets data packets \(0 not related" "$work/err"
check "no data packet read as RDCC" lacks "$work/out" "version"
grep -E "findings in" "$work/err" >&2
check "pcap stats" run 0 "$rdcc" pcap stats "$work/clean.pcapng" --port "$rdcc_port" --data-port "$data_port" --json
jq -c '.receivers[0] | {octets_received, octets_received_data, octets_received_msg_done}' "$work/out" >&2
check "pcap stats: the received octets are the data's ($sent_octets), none from MSG_DONE" \
  json_check <(jq -c . "$work/out") ".receivers[0] | .octets_received_data == $sent_octets and .octets_received_msg_done == 0 and .octets_received == $sent_octets"
check "pcap stats: nothing undecodable" json_check <(jq -c . "$work/out") '.capture.decode_errors == 0 and .capture.malformed_frames == 0'

# ---- a sender with two unscheduled messages outstanding: the capture shows it ---------------
check "capture of a sender sending two messages unscheduled" capture unsched --mutant multiple-unscheduled --send 4096
check "pcap check: a finding" run 1 "$rdcc" pcap check "$work/unsched.pcapng" "${check_args[@]}"
check "the finding is the second unscheduled message (RDCC-UNSCHED-03)" contains "$work/out" "RDCC-UNSCHED-03"
grep -E "^RDCC-|findings in" "$work/out" | head -3 >&2

# ---- a sender that ignores the Pacing Rate: the capture shows it ------------------------------
check "capture of a sender ignoring pacing" capture pacing --mutant sender-ignores-pacing
check "pcap check: a finding" run 1 "$rdcc" pcap check "$work/pacing.pcapng" "${check_args[@]}"
check "the finding is pacing (RDCC-GRANT-05)" contains "$work/out" "RDCC-GRANT-05"
grep -E "^RDCC-|findings in" "$work/out" | head -3 >&2

finish capture
