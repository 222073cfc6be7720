#!/usr/bin/env bash
# The kill matrix through real nodes: `rdcc-conform --kill-matrix --iut exec:...` starts the
# reference node of ROLE (`rdcc receiver|sender|crn`) unmutated and then once per mutant of its
# role (`--mutant NAME` appended to the command), on loopback in real time, with the timing
# tolerance of the exec: suite. The unmutated node passes every scenario exec: can play, and
# every mutant is killed by at least one but those listed below, each with the reason it may
# survive a real node. Each mutant plays the scenarios that killed it in process (those that
# failed it first, then those it was only silent in), two at a time, until one fails.
# The unmutated run is also the suite through exec: as a vendor runs theirs (a node started
# afresh per scenario, ports passed in, for the receiver the scenario's configuration as options:
# {config}): at least MIN_PASS passes, no failure, warning or inconclusive verdict, and the IUT's
# standard error kept per scenario in its report (DIR/reference/).
# Usage: exec_kill_matrix_test.sh ROLE MIN_PASS RDCC_CONFORM SOURCE_DIR RDCC
set -uo pipefail
role=$1
min_pass=$2
conform=$3
src=$4
rdcc=$5
. "$src/tools/test/lib.sh"
scenarios="$src/conformance/scenarios"
catalog="$src/conformance/catalog/requirements.json"
tolerance=(--tolerance-abs 20ms --tolerance-rel 10% --retries 2)
. "$src/conformance/test/exec_iut.sh"

# Mutants a real node may survive, each with why. Every other mutant of the role must die, and
# each of these still dies in process (the matrix's first line).
declare -A may_survive
case "$role" in
  receiver)
    may_survive[receiver-report-from-unconfigured-crn]="killed when the tester's next grant after \
the report from an unconfigured address comes while the mutant's lowered rate is still in force \
(receiver-report-from-unconfigured-address); its additive increase restores the rate within \
milliseconds, and on a loaded host (CI, -j2) the grant can come later, so three plays in a row \
(--retries 2) do not always fail. Killed on an idle host and in process." ;;
  sender)
    may_survive[sender-report-from-unconfigured-crn]="killed only when the node reads the report \
from an unconfigured address in sender-report-from-unconfigured-address before its random start \
delay (uniform in [0, 1 ms]) ends: on a loaded host it may read it after the data has gone. A \
capture shows the fault only to a check that knows the domain's CRN addresses." ;;
  crn) ;;
esac

# A CRN's matrix plays the suite's twelve explore episodes beside its files: several of its
# mutants (a Suggested Rate not divided by the flows, a 32-bit Congestion Degree) are found by
# the report judge behind them (docs/explore.md, "Against a CRN").
episodes=()
[ "$role" = crn ] && episodes=(--explore-episodes 12)
timeout 600 "$conform" --role "$role" --jobs 2 "${tolerance[@]}" --kill-matrix "${episodes[@]}" \
  --scenarios "$scenarios/$role" --catalog "$catalog" --report "$work/matrix" --iut "$iut" \
  >"$work/out" 2>"$work/err"
status=$?
grep -E '^rdcc-conform: in process|mutants:' "$work/out" >&2
check "the kill matrix through real nodes ran (status $status)" test "$status" -le 1
check "the role's mutants all die in process" \
  grep -qE '^rdcc-conform: in process \(reference:[a-z]+\): ([0-9]+) of \1 ' "$work/out"
# The unmutated node passes every scenario exec: can play (the others are unsupported there);
# what it did not pass is named, with the reason, for the log of a red run.
grep -E -A3 'reference (fail|inconclusive)' "$work/out" >&2
check "the unmutated node passed" lacks "$work/out" "reference fail"
check "the unmutated node: nothing inconclusive" lacks "$work/out" "reference inconclusive"
unmutated_ok() {  # the matrix's summary of the unmutated run: clean, at least $min_pass passed
  local line passed
  line=$(grep -oE 'reference: [0-9]+ passed, [0-9]+ warned, [0-9]+ failed.*' "$work/out" | tail -1)
  echo "  $role through exec: $line" >&2
  passed=${line#reference: }
  passed=${passed%% passed*}
  [[ "$line" == *" 0 warned, 0 failed, 0 inconclusive,"* ]] && [ "${passed:-0}" -ge "$min_pass" ]
}
check "the unmutated node: no warning, no failure, at least $min_pass passed" unmutated_ok
# Its report, as a suite run writes it: every scenario that started the node kept its standard
# error (the ready line at least), and results.json names the file.
kept=$(find "$work/matrix/reference/scenarios" -name '*.iut-stderr.txt' 2>/dev/null | wc -l)
check "the unmutated node's stderr is kept per scenario ($kept)" test "$kept" -ge "$min_pass"
check "its results name the stderr file" contains "$work/matrix/reference/results.json" '.iut-stderr.txt"'
unexpected=0
for m in $(jq -r '.mutants[] | select((.killed_by + .silent_in) | length == 0) | .mutant' "$work/matrix/kill-matrix.json"); do
  if [ -n "${may_survive[$m]:-}" ]; then
    echo "  survived through exec: $m: ${may_survive[$m]}" >&2
  else
    echo "  SURVIVED through exec: $m" >&2
    unexpected=$((unexpected + 1))
  fi
done
check "every other $role mutant was killed through exec:" test "$unexpected" -eq 0
total=$(jq '.mutants | length' "$work/matrix/kill-matrix.json")
killed=$(jq '.killed' "$work/matrix/kill-matrix.json")
echo "  through real nodes: $killed of $total $role mutants killed" >&2
finish "exec_kill_matrix_$role"
