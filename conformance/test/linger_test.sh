#!/usr/bin/env bash
# After a scenario's last step, on real sockets, the tester lingers for the window tolerance and
# shows what arrives to the invariant checker: a sender's late answer to the last stimulus is
# judged. sender-sequence-numbers without its closing silence ends right after the stale grant;
# the node with the mutant sender-stale-accepted sends under it, which only the linger sees.
# Usage: linger_test.sh RDCC_CONFORM SOURCE_DIR RDCC
set -uo pipefail
conform=$1
src=$2
rdcc=$3
. "$src/tools/test/lib.sh"
catalog="$src/conformance/catalog/requirements.json"
role=sender
. "$src/conformance/test/exec_iut.sh"
mkdir -p "$work/scn/sender"
sed '/^silence 1ms$/d' "$src/conformance/scenarios/sender/sequence-numbers.scn" \
  >"$work/scn/sender/sequence-numbers.scn"
check "the copy ends with the stale grant and its ignore" \
  test "$(grep -c '^silence' "$work/scn/sender/sequence-numbers.scn")" -eq 0
play() {  # play IUT EXPECTED_STATUS
  run "$2" "$conform" --role sender --strict --tolerance-abs 20ms --tolerance-rel 10% \
    --scenarios "$work/scn" --catalog "$catalog" --iut "$1" --filter sender-sequence-numbers
}
play "$iut" 0
check "the reference node passes" contains "$work/out" "PASS         sender-sequence-numbers"
play "$iut --mutant sender-stale-accepted" 1
check "the mutant's late data fails the checker" contains "$work/out" "invariant 'RDCC-GRANT-03' violated"
check "named as data beyond its Grant Limit" contains "$work/out" "sent with Grant Limit 8192"
finish linger
