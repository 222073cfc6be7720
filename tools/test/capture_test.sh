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

. "$(dirname "$0")/capture_lib.sh"

# ---- the reference sender and receiver: every data packet counted, nothing found -------------
check "capture of sender -> receiver" capture clean --data-source-port "$source_port"
check "all three messages DONE" json_check "$work/clean.sender" '[.messages[].state] == ["DONE", "DONE", "DONE"]'
check "the ready line names the data source port" contains "$work/clean.sender" "\"data\":\"127.0.0.2:$source_port\""
sent_packets=$(tail -n 1 "$work/clean.sender" | jq '.stats.data.packets')
sent_octets=$(tail -n 1 "$work/clean.sender" | jq '.stats.data.octets')
check "pcap check: no finding" run 0 "$rdcc" pcap check "$work/clean.pcapng" "${check_args[@]}"
# What was found, if anything: to tell a fault from a loaded host's timing in a CI log.
grep '^RDCC-' "$work/out" | sed 's/^/    finding: /' >&2
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
