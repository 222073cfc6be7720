#!/usr/bin/env bash
# The scale figures of docs/ns3.md ("Scale, and the engines' speed"): all-to-all dispatch rounds
# of 4 KiB on the 1,024-host leaf-spine of docs/examples/ns3/all-to-all-1024.json, with
# `"hosts"` taking part, and the 1,023-to-1 incast; the invariant checker on every receiver.
# Per run: wall and CPU seconds, ns-3 events, events per wall second and per CPU second (on a
# shared machine the CPU figure is the one to compare), peak RSS, completion, violations.
# Not a ctest: figures, not pass or fail.
#   ns3/bench/scale.sh RDCC [HOSTS ...]        # default: 64 128 256, then the incast
# Each run under `timeout` (SCALE_TIMEOUT, default 3600 s): a run stopped by it prints "timeout".
set -eu
rdcc=$1
shift
src=$(cd "$(dirname "$0")/../.." && pwd)
hosts=("$@")
[ ${#hosts[@]} -gt 0 ] || hosts=(64 128 256 incast)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-10s %9s %9s %11s %10s %10s %9s %10s %9s %10s\n' run messages wall_s cpu_s events \
  events/s events/cpu_s peak_MB done_us violations
for h in "${hosts[@]}"; do
  if [ "$h" = incast ]; then
    cp "$src/docs/examples/ns3/incast-1023.json" "$work/run.json"
  else
    jq ".workload.hosts = $h" "$src/docs/examples/ns3/all-to-all-1024.json" >"$work/run.json"
  fi
  if ! /usr/bin/time -f '%U %S %e %M' -o "$work/time" timeout "${SCALE_TIMEOUT:-3600}" \
      "$rdcc" sim "$work/run.json" --engine ns3 --json >"$work/out.json"; then
    [ -s "$work/out.json" ] || { printf '%-10s timeout or failure (see above)\n' "$h"; continue; }
  fi
  read -r user sys wall rss_kb <"$work/time"
  jq -r --arg run "$h" --arg cpu "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" --arg wall "$wall" --arg rss "$rss_kb" \
    '[$run, .outcome.messages, $wall, $cpu, .events, (.events / ($wall|tonumber) | round),
      (.events / ($cpu|tonumber) | round), (($rss|tonumber) / 1024 | round), .last_finished_us,
      .violation_count] | @tsv' "$work/out.json" |
    awk -F'\t' '{ printf "%-10s %9s %9s %11s %10s %10s %9s %10s %9s %10s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }'
done
