#!/usr/bin/env bash
# The tester against what is not the IUT, and an IUT that dies (issue 30 item 6; the
# reliability audit's rows 4.3 and 4.4), through exec: on loopback:
#  - a third party (another process, another UDP port) sends junk to the tester's RDCC and data
#    ports while the conforming reference receiver runs: its datagrams are foreign, dropped and
#    counted in every report, never judged (no fail, no warn);
#  - an IUT killed by SIGSEGV, and one that exits with status 3, in the middle of a scenario
#    (a SHOULD-level one, whose silence would otherwise be a warning): an error in every report
#    (console, JUnit <error>, results.json with the signal or status, index.html) and exit
#    status 3, never a pass or a warning.
# Usage: hostile_iut_test.sh RDCC_CONFORM SOURCE_DIR RDCC
set -uo pipefail
conform=$1
src=$2
rdcc=$3
. "$src/tools/test/lib.sh"
scenarios="$src/conformance/scenarios/receiver"
catalog="$src/conformance/catalog/requirements.json"
receiver="$rdcc receiver --address 127.0.0.1 --budget 4194304 --unscheduled-budget 1048576 \
--link-capacity 100000 --unscheduled-limit 65536 --start-jitter 10 --backlog-threshold 1048576 \
--grant-lifetime 1000 --credit-unit 4096 --d-max 20 --base-rtt 10 --rtt-target 50 --crn 127.0.0.1 \
--unscheduled-dscp 8 --rdcc-port {rdcc_port} --data-port {data_port} --upper-tester stdio {config}"
# A loaded host: the exec: suite's tolerance.
tolerance=(--tolerance-abs 20ms --tolerance-rel 10%)

# ---- a third party's junk --------------------------------------------------------------------
# The IUT command starts a third party beside the node: 64 random octets to each of the tester's
# ports from a socket of its own, every 2 ms for 3 s (bounded), then, 1 s later (junk is
# waiting on the tester's sockets by then), the reference receiver.
cat >"$work/junk.py" <<'PY'
import os, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
end = time.monotonic() + 3
while time.monotonic() < end:
    for port in sys.argv[1:]:
        s.sendto(os.urandom(64), ("127.0.0.1", int(port)))
    time.sleep(0.002)
PY
py=/usr/bin/python3
[ -x "$py" ] || py=python3
third_party="exec:$py $work/junk.py {tester_port} {tester_data_port} & sleep 1; exec $receiver"
check "third party: the suite passes" run 0 "$conform" --role receiver --iut "$third_party" \
  --scenarios "$scenarios" --catalog "$catalog" "${tolerance[@]}" --jobs 2 \
  --filter receiver-assoc-idempotent --filter receiver-msg-done-after-data \
  --filter receiver-circuit-breaker --filter receiver-credit-never-reduced --report "$work/tp"
check "third party: no fail, no warn" grep -qE '^4 passed, 0 warned, 0 failed, 0 inconclusive' "$work/out"
check "third party: the console notes the foreign datagrams" \
  grep -qE "note: +[0-9]+ datagrams from sources that are not the IUT's \(127\.0\.0\.1:[0-9]+" "$work/tp/summary.txt"
check "third party: counted in results.json" \
  jq -e '[.scenarios[].foreign_datagrams.count] | all(. > 0)' "$work/tp/results.json" >/dev/null
check "third party: a JUnit property" \
  test "$(xmllint --xpath 'count(//property[@name="foreign_datagrams"])' "$work/tp/junit.xml")" -eq 4
check "third party: in index.html" contains "$work/tp/index.html" "dropped unjudged"

# ---- an IUT that dies in the middle of a scenario ----------------------------------------------
# receiver-idle-association-kept checks a SHOULD: the tester waits, and a dead IUT's silence
# would be a warning. The node (the command's shell, replaced by it) is killed 0.5 s in, by
# SIGSEGV as a crash would end it.
crash="exec:sh -c 'sleep 0.5; kill -SEGV \$PPID' & exec $receiver"
check "crash: exit status 3 (an error)" run 3 "$conform" --role receiver --iut "$crash" \
  --scenarios "$scenarios" --catalog "$catalog" --filter receiver-idle-association-kept --report "$work/crash"
check "crash: the console names the signal" \
  grep -qF "INCONCLUSIVE receiver-idle-association-kept: the IUT was killed by signal 11 (SIGSEGV) during the scenario" "$work/out"
check "crash: never warned" grep -qE '^0 passed, 0 warned, 0 failed, 1 inconclusive' "$work/out"
check "crash: a JUnit error" \
  test "$(xmllint --xpath 'count(//testcase/error[@type="iut_exited"])' "$work/crash/junit.xml")" -eq 1
check "crash: JUnit counts it" \
  test "$(xmllint --xpath 'string(/testsuites/@errors)' "$work/crash/junit.xml")" = 1
check "crash: results.json has the signal" \
  jq -e '.scenarios[0].iut_exit.signal == 11 and .scenarios[0].verdict == "inconclusive"' \
  "$work/crash/results.json" >/dev/null
check "crash: index.html names it" contains "$work/crash/index.html" "the IUT was killed by signal 11 (SIGSEGV) during the scenario"
# Exit status 3, 0.5 s in, no signal (the node is ended first; the command's shell exits 3).
exits="exec:timeout -s KILL 0.5 $receiver; exit 3"
check "exit 3: exit status 3" run 3 "$conform" --role receiver --iut "$exits" \
  --scenarios "$scenarios" --catalog "$catalog" --filter receiver-idle-association-kept --report "$work/exit"
check "exit 3: the console names the status" contains "$work/out" "the IUT exited with status 3 during the scenario"
check "exit 3: results.json has the status" \
  jq -e '.scenarios[0].iut_exit.status == 3' "$work/exit/results.json" >/dev/null
# As the audit ran it: timeout --preserve-status exits 139 when the signal killed the node.
timeout_segv="exec:timeout --preserve-status -s SEGV 0.5 $receiver"
check "timeout -s SEGV: exit status 3" run 3 "$conform" --role receiver --iut "$timeout_segv" \
  --scenarios "$scenarios" --catalog "$catalog" --filter receiver-idle-association-kept
check "timeout -s SEGV: the status read as the shell's for the signal" contains "$work/out" \
  "the IUT exited with status 139 (a shell's status for a command killed by signal 11, SIGSEGV) during the scenario"

finish hostile_iut
