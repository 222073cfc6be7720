#!/usr/bin/env bash
# The built-in simulator's speed against the fabric's size: N-to-1 incasts on the star, N
# senders sharing 512 MiB (512 MiB / N each: 8 x 64 MiB ... 8,192 x 64 KiB), so that every row
# moves the same data packets and the cost per packet is comparable across N.
#
#   reference/sim/bench/scale.sh RDCC [N...]                  (default 8 64 1024 8192)
#   RDCC_SCALE_CALLGRIND=1 reference/sim/bench/scale.sh RDCC [N...]
#
# Prints per N: the packets delivered (control and data), the run's wall time (rdcc sim's
# wall_s: the run, not the building of the network), packets per second, and the cost per packet
# in microseconds of wall time. With RDCC_SCALE_CALLGRIND=1 also the instructions per packet
# under callgrind (load-independent, the firm figure on a shared machine), collected in
# Network::run_until_* only; RDCC_SCALE_TOTAL_MIB (default 512) sets the data moved. Not a ctest:
# figures, not pass or fail.
set -euo pipefail
rdcc=${1:?usage: scale.sh RDCC [N...]}
shift
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(8 64 1024 8192)
total=$((${RDCC_SCALE_TOTAL_MIB:-512} << 20))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf '%6s %10s %12s %9s %12s %10s %14s\n' senders length packets wall_s packets/s us/packet \
  instr/packet
for n in "${sizes[@]}"; do
  length=$((total / n))
  max_assocs=$((n > 1024 ? n : 1024))
  cat >"$work/incast-$n.json" <<JSON
{"seed": 1, "link": {"rate_mbps": 100000, "delay_us": 1}, "queue": {"capacity": 1073741824},
 "workload": {"kind": "incast", "senders": $n, "length": $length},
 "receiver": {"budget": 2097152, "unscheduled_budget": 524288, "max_associations": $max_assocs}}
JSON
  "$rdcc" sim "$work/incast-$n.json" --json >"$work/out-$n.json" ||
    { echo "scale.sh: rdcc sim failed at $n senders" >&2; exit 1; }
  read -r packets wall finished < <(jq -r \
    '"\(.network.control_delivered + .network.data_packets_delivered) \(.wall_s) \(.finished)"' \
    "$work/out-$n.json")
  instr=-
  if [ "${RDCC_SCALE_CALLGRIND:-0}" = 1 ]; then
    valgrind --tool=callgrind --callgrind-out-file="$work/cg-$n" \
      --toggle-collect='*Network::run_until_done*' --toggle-collect='*Network::run_until_idle*' \
      "$rdcc" sim "$work/incast-$n.json" --json >/dev/null 2>"$work/cg-$n.err" ||
      { cat "$work/cg-$n.err" >&2; exit 1; }
    ir=$(awk '/^summary:/ { print $2 }' "$work/cg-$n")
    instr=$(awk -v ir="$ir" -v p="$packets" 'BEGIN { printf "%.0f", ir / p }')
  fi
  awk -v n="$n" -v len="$length" -v p="$packets" -v w="$wall" -v i="$instr" -v f="$finished" 'BEGIN {
    printf "%6d %10d %12d %9.3f %12.0f %10.3f %14s%s\n", n, len, p, w, p / w, w * 1e6 / p, i,
      f == "true" ? "" : "  NOT FINISHED" }'
done
