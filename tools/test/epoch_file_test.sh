#!/usr/bin/env bash
# rdcc receiver --epoch-file: a receiver node restarted many times never takes the Epoch of the
# incarnation before it ("A receiver that loses its state (for example, after a restart) MUST
# use a different Epoch"), and here none repeats at all; a file that holds no Epoch is refused
# with the file and what it holds named.
# Usage: epoch_file_test.sh RDCC_BINARY [RESTARTS]
set -u
rdcc=$1
restarts=${2:-100}
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nodes_lib.sh"

file="$work/epoch"
params=(--address 127.0.0.1 --budget 4194304 --unscheduled-budget 1048576 --link-capacity 2000
        --unscheduled-limit 65536 --start-jitter 50 --backlog-threshold 1048576
        --grant-lifetime 50000 --credit-unit 4096 --d-max 1000)
port=$(free_port)
data=$(free_port)
# Starts the node, reads the Epoch of its ready line, stops it (SIGKILL: a crash, no clean exit).
# The ports stay free between starts only as long as no other process takes them: under
# `ctest -j` another test's socket may be given one by the kernel, and the node then cannot bind
# it. Such a start (it exits, printing no ready line) is tried again on new ports, at most twice,
# and said on stderr.
start_once() {
  local attempt epoch
  for attempt in 1 2 3; do
    # The redirection below truncates the file in the child, which may run after the wait loop
    # has read the last start's ready line: no file until the child makes it.
    rm -f "$work/node.err"
    "$rdcc" receiver "${params[@]}" --rdcc-port "$port" --data-port "$data" \
      --epoch-file "$file" >"$work/node.out" 2>"$work/node.err" &
    local pid=$!
    # Up to 10 s: a sanitized node on a loaded host (ctest -j2 under ASan) can take seconds.
    for _ in $(seq 1000); do
      grep -q '"ready".*"epoch":[0-9]*}' "$work/node.err" 2>/dev/null && break
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.01
    done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    epoch=$(sed -n 's/.*"ready".*"epoch":\([0-9]*\).*/\1/p' "$work/node.err")
    if [ -n "$epoch" ]; then
      echo "$epoch"
      return
    fi
    echo "epoch_file: start $attempt printed no Epoch: $(head -c 300 "$work/node.err")" >&2
    port=$(free_port)
    data=$(free_port)
  done
}

: >"$work/epochs"
for _ in $(seq "$restarts"); do start_once >>"$work/epochs"; done
check "every start printed its Epoch" lines "$work/epochs" "$restarts"
check "every Epoch is non-zero" test "$(grep -c '^0$' "$work/epochs")" -eq 0
check "no Epoch repeats over $restarts restarts" test "$(sort -u "$work/epochs" | wc -l)" -eq "$restarts"
prev_differs() { awk 'NR > 1 && $1 == p { bad = 1 } { p = $1 } END { exit bad }' "$work/epochs"; }
check "each Epoch differs from the one before" prev_differs
check "the file holds the last Epoch" test "$(cat "$file")" = "$(tail -1 "$work/epochs")"

# The Epoch after 65535 is 1, never 0.
echo 65535 >"$file"
check "after 65535 comes 1" test "$(start_once)" = 1
# A file that holds no Epoch: refused, nothing served.
echo 'not an epoch' >"$file"
check "a bad file is refused" run 2 "$rdcc" receiver "${params[@]}" --rdcc-port "$port" \
  --data-port "$data" --epoch-file "$file"
check "the refusal names the file and its content" contains "$work/err" "--epoch-file: '$file' holds 'not an epoch', not an Epoch (1..65535)"
echo 0 >"$file"
check "Epoch 0 in the file is refused" run 2 "$rdcc" receiver "${params[@]}" --rdcc-port "$port" \
  --data-port "$data" --epoch-file "$file"
check "--epoch with --epoch-file is refused" run 2 "$rdcc" receiver "${params[@]}" \
  --rdcc-port "$port" --data-port "$data" --epoch 7 --epoch-file "$file"
check "the refusal says why" contains "$work/err" "--epoch-file: given with --epoch"
finish epoch_file
