#!/usr/bin/env bash
# scripts/sim-sweep.py on Dask distributed, for real: a dask-scheduler process and two
# dask-worker processes on loopback, the real rdcc, real descriptions.
#   1. a sweep on that cluster (--scheduler): every point in the table and the JSON with its
#      parameters; one worker killed (SIGKILL) while it runs a point: that point is run again by
#      the other worker, and no point is lost;
#   2. a sweep on a local cluster (the default) with a point rdcc refuses (exit 2): reported with
#      its error in the table, the JSON and on standard error, the sweep exits 1, the other point
#      is there.
# Skipped (exit 77) with the reason where Debian's python3-distributed is not installed.
#   sim_sweep_test.sh RDCC SOURCE_DIR PYTHON
set -euo pipefail
rdcc=$1 src=$2 python=${3:-/usr/bin/python3}
sweep=$src/scripts/sim-sweep.py
if ! "$python" -c 'import distributed' 2>/dev/null; then
  echo "SKIPPED: Dask distributed is not installed for $python (scripts/setup.sh: python3-distributed)"
  exit 77
fi
for tool in dask-scheduler dask-worker; do
  command -v "$tool" >/dev/null || { echo "SKIPPED: $tool not found (python3-distributed)"; exit 77; }
done

work=$(mktemp -d)
pids=()
# Workers go before the scheduler (a worker asked to stop while its scheduler is gone may try to
# reach it again), each is given 10 s to close and is then killed: a process that does not
# close never holds the test past its result (CI once printed PASS and timed out here).
cleanup() {
  local i p alive
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null || true; done
  for _ in $(seq 100); do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" -eq 0 ] && break
    sleep 0.1
  done
  for p in "${pids[@]}"; do
    if kill -0 "$p" 2>/dev/null; then
      echo "process $p did not stop within 10 s of SIGTERM: killed" >&2
      kill -KILL "$p" 2>/dev/null || true
    fi
  done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

dask-scheduler --host 127.0.0.1 --port 0 --no-dashboard --scheduler-file "$work/scheduler.json" \
  >"$work/scheduler.log" 2>&1 &
pids+=($!)
for _ in $(seq 300); do [ -s "$work/scheduler.json" ] && break; sleep 0.1; done
[ -s "$work/scheduler.json" ] || { cat "$work/scheduler.log" >&2; fail "no scheduler file"; }
address=$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["address"])' "$work/scheduler.json")

# No nanny: the worker process runs the tasks itself, so each point's rdcc is its child.
start_worker() {
  dask-worker --scheduler-file "$work/scheduler.json" --name "$1" --nthreads 1 --no-nanny \
    --no-dashboard --host 127.0.0.1 >"$work/$1.log" 2>&1 &
  pids+=($!)
  eval "$2=$!"
}
start_worker w1 w1_pid
start_worker w2 w2_pid
"$python" - "$address" <<'PY' || fail "the two workers did not register"
import sys
from distributed import Client
with Client(sys.argv[1], timeout="60s") as c:
    c.wait_for_workers(2, timeout=120)
PY

# 1. Eight points of a 256-to-1 incast (about half a second of CPU each): while w1 runs one, it
# is killed.
cat >"$work/incast.json" <<'JSON'
{"seed": 1, "link": {"rate_mbps": 100000, "delay_us": 1}, "queue": {"capacity": 67108864},
 "workload": {"kind": "incast", "senders": 256, "length": 65536},
 "receiver": {"budget": 2097152, "unscheduled_budget": 524288, "max_associations": 2048}}
JSON
"$python" "$sweep" "$rdcc" "$work/incast.json" --scheduler "$address" \
  --set receiver.budget=1048576,2097152 --set workload.length=32768,65536 --seeds 1,2 \
  --out "$work/cluster.json" >"$work/cluster.tsv" 2>"$work/cluster.err" &
sweep_pid=$!
pids+=($sweep_pid)
killed=''
deadline=$((SECONDS + 300))
while [ -z "$killed" ] && [ "$SECONDS" -lt "$deadline" ] && kill -0 "$sweep_pid" 2>/dev/null; do
  for child in $(pgrep -P "$w1_pid" || true); do
    killed=$(tr '\0' ' ' <"/proc/$child/cmdline" 2>/dev/null | grep -o 'point-[0-9]*' || true)
    if [ -n "$killed" ]; then
      kill -KILL "$w1_pid"
      kill -KILL "$child" 2>/dev/null || true
      break
    fi
  done
  sleep 0.05
done
[ -n "$killed" ] || fail "worker w1 never ran a point"
status=0
wait "$sweep_pid" || status=$?
[ "$status" -eq 0 ] || { cat "$work/cluster.err" >&2; fail "cluster sweep exited $status"; }
index=${killed#point-}
echo "killed w1 while it ran point $index"
"$python" - "$work/cluster.json" "$index" <<'PY' || fail "cluster sweep results"
import json, sys
doc = json.load(open(sys.argv[1]))
killed = int(sys.argv[2])
points = doc["points"]
assert len(points) == 8, f"{len(points)} points, not 8"
seen = set()
for p in points:
    assert p["status"] == 0 and p["finished"], p
    assert set(p["values"]) == {"receiver.budget", "workload.length"}, p
    seen.add((p["values"]["receiver.budget"], p["values"]["workload.length"], p["seed"]))
assert len(seen) == 8, seen
assert points[killed]["worker"] == "w2", f"point {killed} ran on {points[killed]['worker']} after w1 was killed"
print("cluster sweep: 8 points, all finished; point", killed, "run again on w2")
PY
[ "$(wc -l <"$work/cluster.tsv")" -eq 9 ] || { cat "$work/cluster.tsv" >&2; fail "table is not a header and 8 rows"; }
head -1 "$work/cluster.tsv" | grep -q $'^receiver.budget\tworkload.length\tseed\tworker\tstatus' ||
  fail "table header: $(head -1 "$work/cluster.tsv")"

# 2. A local cluster (the default): a point rdcc refuses is reported, never lost.
status=0
"$python" "$sweep" "$rdcc" "$src/docs/examples/sim/incast-8.json" --jobs 2 \
  --set "receivers[0].credit_unit=0,4096" --out "$work/local.json" >"$work/local.tsv" 2>"$work/local.err" ||
  status=$?
[ "$status" -eq 1 ] || { cat "$work/local.err" >&2; fail "local sweep with a bad point exited $status, not 1"; }
grep -q 'point {"receivers\[0\].credit_unit": 0} seed None: exit 2: .*credit_unit: 0 is outside' "$work/local.err" ||
  { cat "$work/local.err" >&2; fail "the bad point's error is not on standard error"; }
"$python" - "$work/local.json" <<'PY' || fail "local sweep results"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["scheduler"] == "local" and doc["failed"] == 1, doc
bad, good = doc["points"]
assert bad["values"] == {"receivers[0].credit_unit": 0} and bad["status"] == 2, bad
assert "0 is outside" in bad["error"], bad
assert good["values"] == {"receivers[0].credit_unit": 4096} and good["status"] == 0 and good["finished"], good
print("local sweep: the bad point reported with its error, the other finished")
PY
[ "$(wc -l <"$work/local.tsv")" -eq 3 ] || { cat "$work/local.tsv" >&2; fail "local table is not a header and 2 rows"; }
echo PASS
