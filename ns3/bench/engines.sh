#!/usr/bin/env bash
# Both engines of `rdcc sim` on the same scenarios (one switch, so that reference/sim can run
# them): wall time, the engine's events per second and packets delivered per second, and the
# completion each finds. The events are not the same unit (docs/ns3.md): ns-3 counts several
# per packet and hop. Not a ctest: figures, not pass or fail.
#   ns3/bench/engines.sh RDCC [SOURCE_DIR]
set -eu
rdcc=$1
src=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/incast-1023.json" <<'JSON'
{"seed": 1, "link": {"rate_mbps": 100000, "delay_us": 1}, "queue": {"capacity": 67108864},
 "workload": {"kind": "incast", "senders": 1023, "length": 65536},
 "receiver": {"budget": 2097152, "unscheduled_budget": 524288, "max_associations": 2048}}
JSON
printf '%-16s %-6s %10s %12s %12s %12s %14s\n' scenario engine wall_s events events/s packets/s last_done_us
for scenario in "$src/docs/examples/sim/incast-8.json" "$src/docs/examples/sim/incast-64.json" "$work/incast-1023.json"; do
  for engine in sim ns3; do
    "$rdcc" sim "$scenario" --engine "$engine" --json >"$work/out.json"
    jq -r --arg s "$(basename "$scenario" .json)" --arg e "$engine" \
      '[$s, $e, .wall_s, .events, .events_per_s,
        ((.network.control_delivered + .network.data_packets_delivered) / .wall_s), .last_finished_us] |
       "\(.[0])\t\(.[1])\t\(.[2]*1000|round/1000)\t\(.[3])\t\(.[4]|round)\t\(.[5]|round)\t\(.[6])"' "$work/out.json" |
      awk -F'\t' '{ printf "%-16s %-6s %10s %12s %12s %12s %14s\n", $1, $2, $3, $4, $5, $6, $7 }'
  done
done
