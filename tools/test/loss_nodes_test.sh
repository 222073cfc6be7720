#!/usr/bin/env bash
# Data loss on real nodes (loopback only), issue 18:
#  1. four senders through `rdcc crn` whose queue is small enough to tail-drop (the receiver
#     grants four times the rate the switch serves): data is lost, the opaque transport's NACKs
#     recover it, every message completes;
#  2. the receiver is killed with SIGKILL while data is in flight - after its counters show
#     8 MB received of 80 MB, a fixed point of the transfer, not a time - and restarted with a
#     new Epoch: the sender re-establishes and finishes every message.
# Usage: loss_nodes_test.sh RDCC_BINARY
set -u
rdcc=$1
. "$(dirname "$0")/lib.sh"
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$work"' EXIT

. "$(dirname "$0")/nodes_lib.sh"

rdcc_port=$(free_port)
data_port=$(free_port)
crn_port=$(free_port)
receiver_params=(--address 127.0.0.1 --rdcc-port "$rdcc_port" --data-port "$data_port" --budget 4194304
  --unscheduled-budget 1048576 --unscheduled-limit 65536 --start-jitter 50 --backlog-threshold 1048576
  --grant-lifetime 5000 --credit-unit 8192 --d-max 1000 --base-rtt 200 --grant-window 262144)
sender_params=(--rdcc-port "$rdcc_port" --data-port "$data_port" --line-rate 2000
  --to "127.0.0.1:$rdcc_port" --exit-when-done --timeout 30000)

# ---- 1. tail drops in rdcc crn --------------------------------------------------------------
"$rdcc" receiver "${receiver_params[@]}" --link-capacity 4000 --crn 127.0.0.1 2>"$work/r1.err" &
receiver=$!
pids+=("$receiver")
"$rdcc" crn --address 127.0.0.1 --rdcc-port "$rdcc_port" --listen "127.0.0.1:$crn_port" \
  --forward-to "127.0.0.1:$data_port" --reporter-id 7 --service-rate 1000 --queue-capacity 65536 \
  --queue-threshold 32768 2>"$work/crn.err" &
crn=$!
pids+=("$crn")
check "receiver ready" wait_for "$work/r1.err" '"event":"ready"'
check "crn ready" wait_for "$work/crn.err" '"event":"ready"'
senders=()
for i in 2 3 4 5; do
  "$rdcc" sender --address "127.0.0.$i" "${sender_params[@]}" --crn 127.0.0.1 \
    --data-via "127.0.0.1:$crn_port" --send 1048576 --send 1048576 2>"$work/s$i.err" &
  senders+=($!)
done
ok=0
for p in "${senders[@]}"; do wait "$p" && ok=$((ok + 1)); done
check "every sender completed through the dropping switch" test "$ok" -eq 4
kill -TERM "$crn" && wait "$crn"
check "the switch dropped data" json_check "$work/crn.err" '.stats.queue.tail_drops > 0'
resent=0
for i in 2 3 4 5; do
  resent=$((resent + $(tail -n 1 "$work/s$i.err" | jq '.stats.sender.resent_octets')))
done
check "lost octets were resent after NACKs" test "$resent" -gt 0
kill -TERM "$receiver" && wait "$receiver"
check "the receiver sent NACKs and counted every octet once" json_check "$work/r1.err" \
  '.stats.receiver | .nacks_sent > 0 and .scheduled_octets == 8 * 1048576'
echo "through rdcc crn: $(tail -n 1 "$work/crn.err" | jq -c '.stats.queue | {tail_drops, forwarded}'), $resent octets resent"

# ---- 2. SIGKILL the receiver while data is in flight, restart it -----------------------------
"$rdcc" receiver "${receiver_params[@]}" --link-capacity 1000 --epoch 1 2>"$work/r2.err" &
receiver=$!
pids+=("$receiver")
check "receiver ready" wait_for "$work/r2.err" '"event":"ready"'
sends=()
for _ in $(seq 1 40); do sends+=(--send 2000000); done
"$rdcc" sender --address 127.0.0.6 "${sender_params[@]}" "${sends[@]}" 2>"$work/s6.err" &
sender=$!
pids+=("$sender")
# The fixed point: 8 MB counted by the receiver (SIGUSR1 prints its counters), at most 20 s.
received=0
for _ in $(seq 1 2000); do
  kill -USR1 "$receiver"
  sleep 0.01
  received=$(grep -F '"event":"stats"' "$work/r2.err" | tail -n 1 | jq '.stats.data.octets // 0')
  [ "${received:-0}" -ge 8000000 ] && break
done
kill -KILL "$receiver"
wait "$receiver" 2>/dev/null
check "killed after 8 MB, before the 80 MB were done" test "$received" -ge 8000000 -a "$received" -lt 80000000
check "the sender was still sending" kill -0 "$sender"
"$rdcc" receiver "${receiver_params[@]}" --link-capacity 1000 --epoch 2 2>"$work/r3.err" &
receiver=$!
pids+=("$receiver")
check "restarted receiver ready" wait_for "$work/r3.err" '"event":"ready"'
wait "$sender"
check "the sender finished every message after the restart" test $? -eq 0
check "40 messages DONE, the association re-established" json_check "$work/s6.err" \
  '([.messages[] | select(.state == "DONE")] | length) == 40 and .stats.sender.re_establishments >= 1'
kill -TERM "$receiver" && wait "$receiver"
finish loss_nodes
