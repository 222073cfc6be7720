#!/usr/bin/env bash
# The receiver's cost per grant decision in instructions (callgrind: load-independent), at 10,
# 1,000 and 100,000 pending messages, against log2 of the pending count (issue 3: the cost must
# grow no faster than logarithmically).
#
#   reference/bench/callgrind.sh BUILD_DIR [PENDING...]     e.g. build/default
#
# Only arrive_one_credit_unit of reference_bench is measured (--toggle-collect): one Credit
# Unit arrives, the receiver makes its grant decision and sends the grant; the set-up of the
# pending messages is not counted. Prints one row per pending count; "growth" is the cost
# against the first row's, next to log2(n) against the first row's log2; "per_doubling" is the
# cost added per doubling of n since the previous row: constant when the cost is a + b*log2(n),
# growing when it is super-logarithmic.
set -euo pipefail
build=${1:?usage: callgrind.sh BUILD_DIR [PENDING...]}
shift
bench=$build/reference/reference_bench
[ -x "$bench" ] || { echo "callgrind.sh: $bench not built (cmake --build $build --target reference_bench)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind not installed (scripts/setup.sh)" >&2; exit 2; }
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10 1000 100000)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf '%10s %10s %14s %16s %8s %8s %10s %13s\n' pending arrivals instructions instr/decision \
  log2_n growth log_growth per_doubling
base_cost='' base_log='' prev_cost='' prev_log=''
for n in "${sizes[@]}"; do
  out=$work/callgrind.$n
  valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect='*arrive_one_credit_unit*' \
    "$bench" --benchmark_filter="BM_GrantDecision/$n\$" --benchmark_min_time="${RDCC_CALLGRIND_MIN_TIME:-0.3}" \
    >"$work/bench.$n" 2>"$work/valgrind.$n" || { cat "$work/valgrind.$n" >&2; exit 1; }
  grep -q 'grants_per_arrival=1 ' "$work/bench.$n" ||
    { echo "callgrind.sh: not one grant decision per arrival at $n:" >&2; cat "$work/bench.$n" >&2; exit 1; }
  # Instructions collected, and the calls of arrive_one_credit_unit (by its compressed id).
  read -r instructions arrivals < <(awk '
    /^summary:/ { total = $2 }
    /^c?fn=\([0-9]+\) .*arrive_one_credit_unit/ { match($0, /\([0-9]+\)/); id = substr($0, RSTART, RLENGTH) }
    /^cfn=/ { callee = $0; sub(/^cfn=/, "", callee); sub(/ .*/, "", callee) }
    /^calls=/ { if (id != "" && callee == id) { split($0, c, /[= ]/); calls += c[2] } }
    END { print total, calls }' "$out")
  [ "${arrivals:-0}" -gt 0 ] || { echo "callgrind.sh: no call of arrive_one_credit_unit recorded at $n" >&2; exit 1; }
  cost=$(awk -v ir="$instructions" -v k="$arrivals" 'BEGIN { printf "%.6f", ir / k }')
  lg=$(awk -v n="$n" 'BEGIN { printf "%.6f", log(n) / log(2) }')
  [ -n "$base_cost" ] || { base_cost=$cost; base_log=$lg; }
  awk -v n="$n" -v ir="$instructions" -v k="$arrivals" -v c="$cost" -v lg="$lg" -v bc="$base_cost" \
      -v bl="$base_log" -v pc="$prev_cost" -v pl="$prev_log" 'BEGIN {
    slope = pc == "" || lg == pl ? "-" : sprintf("%.0f", (c - pc) / (lg - pl))
    printf "%10d %10d %14d %16.0f %8.2f %8.2f %10.2f %13s\n", n, k, ir, c, lg, c / bc, lg / bl, slope }'
  prev_cost=$cost prev_log=$lg
done
