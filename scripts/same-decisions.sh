#!/usr/bin/env bash
# The same decisions, before and after a change to the endpoints' data structures: record what
# a build decides on every example description and in the conformance matrices, then compare two
# records. Everything must be identical but the timing fields (wall time and what is computed
# from it).
#
#   scripts/same-decisions.sh record BUILD_DIR OUT_DIR     e.g. build/default /tmp/before
#   scripts/same-decisions.sh compare BEFORE_DIR AFTER_DIR
#
# record runs, with BUILD_DIR's rdcc and rdcc-conform:
#   - `rdcc sim FILE --json` (the built-in simulator) on every docs/examples/sim and
#     docs/examples/ns3 description (a description the engine refuses is recorded with its
#     exit status and message);
#   - `rdcc sim FILE --engine ns3 --json` on the same, but docs/examples/ns3/all-to-all-1024.json
#     (70 minutes of CPU: docs/ns3.md), each bounded by RDCC_NS3_TIMEOUT seconds (default 300);
#     skipped where rdcc was built without ns-3;
#   - `rdcc-conform --iut reference --kill-matrix` and `--variant-matrix`, with --report (their
#     JSON files, summaries and per-scenario pcaps and event logs).
# compare prints every file that differs (JSON with the timing fields removed and keys sorted;
# other files byte for byte, less the lines that state a wall time) and exits 1 if any does.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
timing='["wall_s", "events_per_s", "wall_ms", "elapsed_ms", "elapsed_s", "duration_s", "cpu_s"]'

record() {
  local build=$1 out=$2
  local rdcc=$build/tools/rdcc conform=$build/conformance/rdcc-conform
  [ -x "$rdcc" ] && [ -x "$conform" ] || { echo "same-decisions: $rdcc or $conform not built" >&2; exit 2; }
  mkdir -p "$out/sim" "$out/ns3"
  local ns3=1
  "$rdcc" sim "$src/docs/examples/sim/incast-8.json" --engine ns3 --json >/dev/null 2>"$out/ns3/probe.err" || {
    grep -q "ns-3" "$out/ns3/probe.err" && ns3=0
  }
  for f in "$src"/docs/examples/sim/*.json "$src"/docs/examples/ns3/*.json; do
    local name
    name=$(basename "$(dirname "$f")")-$(basename "$f" .json)
    echo "same-decisions: sim $name" >&2
    local status=0
    "$rdcc" sim "$f" --json >"$out/sim/$name.json" 2>"$out/sim/$name.err" || status=$?
    echo "$status" >"$out/sim/$name.status"
    [ "$ns3" = 1 ] || continue
    [ "$(basename "$f")" != all-to-all-1024.json ] || continue
    echo "same-decisions: ns3 $name" >&2
    status=0
    timeout "${RDCC_NS3_TIMEOUT:-300}" "$rdcc" sim "$f" --engine ns3 --json >"$out/ns3/$name.json" \
      2>"$out/ns3/$name.err" || status=$?
    echo "$status" >"$out/ns3/$name.status"
  done
  rm -f "$out/ns3/probe.err"
  for matrix in kill variant; do
    echo "same-decisions: $matrix matrix" >&2
    local status=0
    "$conform" --iut reference "--$matrix-matrix" --jobs 2 --report "$out/$matrix-matrix" \
      >"$out/$matrix-matrix.txt" 2>&1 || status=$?
    echo "$status" >"$out/$matrix-matrix.status"
  done
}

# A file as compared: JSON without the timing fields, keys sorted; JSON lines likewise line by
# line; other text less the lines that state a wall time; anything else as it is.
normal() {
  case $1 in
    *.json) jq -S --argjson t "$timing" 'walk(if type == "object" then with_entries(select(.key as $k | $t | index($k) | not)) else . end)' "$1" 2>/dev/null || cat "$1" ;;
    *.jsonl) jq -S -c --argjson t "$timing" 'walk(if type == "object" then with_entries(select(.key as $k | $t | index($k) | not)) else . end)' "$1" 2>/dev/null || cat "$1" ;;
    *.txt | *.err | *.md | *.xml | *.status) grep -Eiv '^report: |wall|elapsed|[0-9.]+ ?s(econds)?\)|time=' "$1" || true ;;
    *) cat "$1" ;;
  esac
}

compare() {
  local a=$1 b=$2 differ=0 same=0
  while IFS= read -r rel; do
    if [ ! -e "$b/$rel" ]; then
      echo "only in $a: $rel"
      differ=$((differ + 1))
    elif cmp -s <(normal "$a/$rel") <(normal "$b/$rel"); then
      same=$((same + 1))
    else
      echo "differs: $rel"
      diff <(normal "$a/$rel") <(normal "$b/$rel") | head -8 || true
      differ=$((differ + 1))
    fi
  done < <(cd "$a" && find . -type f | sort)
  while IFS= read -r rel; do
    [ -e "$a/$rel" ] || { echo "only in $b: $rel"; differ=$((differ + 1)); }
  done < <(cd "$b" && find . -type f | sort)
  echo "same-decisions: $same files identical (timing fields aside), $differ differ"
  [ "$differ" -eq 0 ]
}

case ${1:-} in
  record) record "${2:?BUILD_DIR}" "${3:?OUT_DIR}" ;;
  compare) compare "${2:?BEFORE_DIR}" "${3:?AFTER_DIR}" ;;
  *) echo "usage: same-decisions.sh record BUILD_DIR OUT_DIR | compare BEFORE_DIR AFTER_DIR" >&2; exit 2 ;;
esac
