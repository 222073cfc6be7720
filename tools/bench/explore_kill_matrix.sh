#!/usr/bin/env bash
# Explore alone against every receiver mutant (in process, virtual time): per mutant, whether
# `rdcc-conform --explore` FAILs it, after how many stimuli, the size of the shrunk scenario, and
# whether that scenario on its own fails the mutant, passes the reference and passes every
# receiver variant (--variant-matrix over it). Then the reference and each variant explored with
# the same seed: any FAIL there is a false failure of the oracle or a bug, and is printed.
# A measurement (minutes), not a test: ctest runs a sample (conformance_explore_test).
# Usage: explore_kill_matrix.sh RDCC_CONFORM [SEED] [STEPS] [IUT]
#   IUT: reference:receiver (default), or an exec: command of the receiver node with {mutant}.
set -u
conform=$1
seed=${2:-1}
steps=${3:-400}
iut=${4:-reference:receiver}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
catalog=$(dirname "$0")/../../conformance/catalog/requirements.json

mutants=$("$conform" --list-mutants | awk '/^[a-z0-9-]+  \[receiver\]/ {print $1}')
variants=$("$conform" --list-variants | awk '/\[receiver\]/ {print $1}')
killed=0
total=0
printf '%-40s %-8s %6s %7s %-6s %-6s %-8s\n' mutant explore steps shrunk alone ref variants
for m in $mutants; do
  total=$((total + 1))
  dir="$work/$m"
  "$conform" --iut "$iut" --role receiver --mutant "$m" --explore --seed "$seed" --steps "$steps" \
    --catalog "$catalog" --report "$dir" >"$work/out" 2>&1
  status=$?
  if [ "$status" -ne 1 ]; then
    verdict=$([ "$status" -eq 3 ] && echo inconcl || echo survived)
    printf '%-40s %-8s %6s %7s %-6s %-6s %-8s\n' "$m" "$verdict" - - - - -
    continue
  fi
  killed=$((killed + 1))
  steps_taken=$(sed -n 's/.*FAIL after \([0-9]*\) stimuli.*/\1/p' "$work/out" | head -1)
  shrunk_n=$(sed -n 's/^shrunk to \([0-9]*\) stimuli.*/\1/p' "$work/out" | head -1)
  scn=$(ls "$dir"/*-shrunk.scn)
  mkdir -p "$dir/alone"
  cp "$scn" "$dir/alone/"
  "$conform" --iut reference:receiver --mutant "$m" --scenarios "$dir/alone" --catalog "$catalog" \
    >/dev/null 2>&1
  alone=$([ $? -eq 1 ] && echo FAIL || echo no)
  "$conform" --iut reference:receiver --scenarios "$dir/alone" --catalog "$catalog" >/dev/null 2>&1
  ref=$([ $? -eq 0 ] && echo pass || echo FAIL)
  "$conform" --iut reference --variant-matrix --scenarios "$dir/alone" --catalog "$catalog" \
    >"$work/vm" 2>&1
  var=$([ $? -eq 0 ] && echo pass || echo FAIL)
  printf '%-40s %-8s %6s %7s %-6s %-6s %-8s\n' "$m" killed "$steps_taken" "$shrunk_n" "$alone" \
    "$ref" "$var"
done
echo "explore alone killed $killed of $total receiver mutants (seed $seed, at most $steps stimuli)"

# The conforming IUTs with the same seed: no failure may appear.
for v in "" $variants; do
  name=${v:-reference}
  args=()
  [ -n "$v" ] && args=(--variant "$v")
  "$conform" --iut reference:receiver "${args[@]}" --explore --seed "$seed" --steps "$steps" \
    --catalog "$catalog" >"$work/out" 2>&1
  status=$?
  case $status in
    0) echo "$name: no failure" ;;
    3) echo "$name: no failure, inconclusive: $(grep -m1 inconclusive "$work/out")" ;;
    *) echo "$name: FAIL (a false failure of the oracle or a bug):"; sed -n '/FAIL after/,$p' "$work/out" ;;
  esac
done
