#!/usr/bin/env bash
# The receiver's cost per control message while most of its queued messages are parked (the
# link's rate all held: docs/ns3.md, a 1,024-host all-to-all), in instructions (callgrind:
# load-independent), at N senders with one queued message each.
#
#   reference/bench/callgrind_parked.sh BUILD_DIR [N...]      (default 64 1024)
#
# Only control_message_with_parked of reference_bench is measured (--toggle-collect): one
# SENDER_STATUS arrives and the receiver makes its grant pass; the set-up is not counted.
set -euo pipefail
build=${1:?usage: callgrind_parked.sh BUILD_DIR [N...]}
shift
bench=$build/reference/reference_bench
[ -x "$bench" ] || { echo "callgrind_parked.sh: $bench not built (--target reference_bench)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "callgrind_parked.sh: valgrind not installed (scripts/setup.sh)" >&2; exit 2; }
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(64 1024)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf '%8s %10s %14s %14s\n' senders messages instructions instr/message
for n in "${sizes[@]}"; do
  out=$work/callgrind.$n
  valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect='*control_message_with_parked*' \
    "$bench" --benchmark_filter="BM_ControlMessageWithParked/$n\$" --benchmark_min_time="${RDCC_CALLGRIND_MIN_TIME:-0.3}" \
    >"$work/bench.$n" 2>"$work/valgrind.$n" || { cat "$work/valgrind.$n" >&2; exit 1; }
  read -r instructions calls < <(awk '
    /^summary:/ { total = $2 }
    /^c?fn=\([0-9]+\) .*control_message_with_parked/ { match($0, /\([0-9]+\)/); id = substr($0, RSTART, RLENGTH) }
    /^cfn=/ { callee = $0; sub(/^cfn=/, "", callee); sub(/ .*/, "", callee) }
    /^calls=/ { if (id != "" && callee == id) { split($0, c, /[= ]/); calls += c[2] } }
    END { print total, calls }' "$out")
  [ "${calls:-0}" -gt 0 ] || { echo "callgrind_parked.sh: no call recorded at $n" >&2; exit 1; }
  awk -v n="$n" -v ir="$instructions" -v k="$calls" 'BEGIN { printf "%8d %10d %14d %14.0f\n", n, k, ir, ir / k }'
done
