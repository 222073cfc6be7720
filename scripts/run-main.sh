#!/usr/bin/env bash
# The main job on a fresh Debian machine: install what is needed, build, decode the spec's
# appendix, then run the conformance suite against the reference endpoint of each role and
# print the report summary. Reports: build/conformance-report/<role>/ (summary.txt, junit.xml,
# results.json, coverage.md, coverage.json, scenarios/<name>.pcap and .events.jsonl).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/compiler-cache.sh
cmake --preset default
cmake --build --preset default -j "$(nproc)"
./build/default/tools/rdcc decode --input docs/examples/appendix.hex

report=build/conformance-report
rm -rf "$report"
status=0
for role in receiver sender crn; do
  echo
  echo "== rdcc-conform --iut reference:$role"
  ./build/default/conformance/rdcc-conform --iut "reference:$role" --strict --jobs "$(nproc)" \
    --report "$report/$role" || status=$?
done

echo
echo "== conformance report summary ($report)"
for role in receiver sender crn; do
  uncovered=$(grep -c '"id"' <(sed -n '/"uncovered_wire_musts"/,$p' "$report/$role/coverage.json") || true)
  printf '%-9s %s; %s wire-testable MUSTs of the role without a scenario (coverage.md)\n' \
    "$role:" "$(tail -n 1 "$report/$role/summary.txt")" "$uncovered"
done
exit "$status"
