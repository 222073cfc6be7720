#!/bin/sh
# The longer run of random conforming variants: N (default 250) policies of one seed (default
# 1) against every scenario of every role, in process (virtual time). Prints each variant's
# verdicts, each FAIL shrunk to the draws that cause it, and the totals; exit 1 on any FAIL.
#   conformance/bench/random_variants.sh build/default/conformance/rdcc-conform [N] [SEED]
set -eu
conform=${1:?usage: random_variants.sh RDCC_CONFORM [N] [SEED]}
n=${2:-250}
seed=${3:-1}
report=${RDCC_REPORT:-$(mktemp -d)}
mkdir -p "$report"
start=$(date +%s)
status=0
"$conform" --iut reference --random-variants "$n" --seed "$seed" --jobs 2 --report "$report" \
  >"$report/console.txt" 2>&1 || status=$?
grep -E '^(FAILED|    FAIL|      shrunk|      reproduce)' "$report/console.txt" || true
tail -n 2 "$report/console.txt"
echo "random variants: $n policies of seed $seed in $(( $(date +%s) - start )) s; report $report"
exit "$status"
