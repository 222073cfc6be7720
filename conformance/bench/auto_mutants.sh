#!/bin/sh
# Every automatic mutant of the reference's rule code (reference/automutants/) against the
# scenarios of its role, in process: killed, inconclusive, survived (wire-visible, not failed),
# equivalent, crashed; prints the survivors and the mutation score (killed / wire-visible), and
# the score of the faults (killed / wire-visible less the survivors reviewed as legal).
#   conformance/bench/auto_mutants.sh build/default/conformance/rdcc-conform [IDS]
set -eu
conform=${1:?usage: auto_mutants.sh RDCC_CONFORM [IDS, e.g. 1-200]}
report=${RDCC_REPORT:-$(mktemp -d)}
mkdir -p "$report"
start=$(date +%s)
status=0
if [ $# -ge 2 ]; then
  "$conform" --iut reference --auto-mutant-matrix --auto-mutants "$2" --jobs 2 --report "$report" \
    >"$report/console.txt" 2>&1 || status=$?
else
  "$conform" --iut reference --auto-mutant-matrix --jobs 2 --report "$report" \
    >"$report/console.txt" 2>&1 || status=$?
fi
grep -A3 -E '^(survived|inconclusive|crashed) ' "$report/console.txt" | grep -v '^    fails' || true
tail -n 2 "$report/console.txt"
echo "automatic mutants in $(( $(date +%s) - start )) s; report $report"
exit "$status"
