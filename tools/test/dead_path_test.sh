#!/usr/bin/env bash
# A dead data path on real nodes: rdcc sender -> rdcc receiver on loopback, the sender's data
# going to a UDP port where nothing listens (a misconfiguration, a firewall). Every message
# stalls; after the first second the control channel carries at most 25 messages per second
# per stalled message, both directions together (the sender's request timer backs off to
# 100 ms and a grant that adds no credit does not restart it; the receiver answers each
# re-request at most once).
# Usage: dead_path_test.sh RDCC_BINARY [MESSAGES [SECONDS]]   (defaults: 4 messages, 4 s)
set -u
rdcc=$1
messages=${2:-4}
seconds=${3:-4}
. "$(dirname "$0")/lib.sh"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT

. "$(dirname "$0")/nodes_lib.sh"

rdcc_port=$(free_port)
data_port=$(free_port)
dead_port=$(free_port)  # nothing listens here
"$rdcc" receiver --address 127.0.0.1 --rdcc-port "$rdcc_port" --data-port "$data_port" --budget 4194304 \
  --unscheduled-budget 1048576 --link-capacity 10000 --unscheduled-limit 65536 --start-jitter 50 \
  --backlog-threshold 1048576 --grant-lifetime 1000 --credit-unit 8192 --d-max 100 --base-rtt 50 \
  2>"$work/receiver.err" &
receiver=$!
pids+=("$receiver")
check "receiver ready" wait_for "$work/receiver.err" '"event":"ready"'

sends=()
for _ in $(seq 1 "$messages"); do sends+=(--send 1000000); done
check "the stalled sender times out" run 1 timeout $((seconds + 20)) "$rdcc" sender --address 127.0.0.2 \
  --rdcc-port "$rdcc_port" --data-port "$dead_port" --line-rate 10000 --to "127.0.0.1:$rdcc_port" \
  "${sends[@]}" --exit-when-done --timeout $((seconds * 1000)) --events "$work/sender.jsonl"
check "nothing completed" test "$(tail -n 1 "$work/err" | jq '[.messages[] | select(.state == "DONE")] | length')" -eq 0

# The control messages the sender sent and received after its first second, by type.
jq -rs --argjson n "$messages" '
  (map(.time_ns) | min) as $t0 | (map(.time_ns) | max) as $t1
  | [.[] | select((.event == "tx" or .event == "rx") and .time_ns >= $t0 + 1000000000)] as $later
  | ($later | length) as $count
  | (($t1 - $t0 - 1000000000) / 1e9) as $span
  | "\($count) \($span) \($count / $span / $n) \([$later[] | .event + " " + .type] | group_by(.) | map("\(.[0]): \(length)") | join(", "))"
' "$work/sender.jsonl" >"$work/rate"
read -r count span per_message detail <"$work/rate"
echo "dead data path, $messages messages, after the first second: $count control messages in $span s," \
  "$per_message per second per message ($detail)"
check "at most 25 control messages per second per stalled message" \
  awk -v r="$per_message" 'BEGIN { exit !(r <= 25) }'
check "the sender still asks" awk -v c="$count" 'BEGIN { exit !(c > 0) }'
kill -TERM "$receiver" && wait "$receiver"
finish dead_path
