#!/usr/bin/env bash
# rdcc-conform as a user runs it: the real binary, real scenario files, real exit codes; the
# reports it writes, read back with xmllint (JUnit) and tshark (the pcaps).
# Usage: cli_test.sh RDCC_CONFORM SOURCE_DIR
set -uo pipefail
conform=$1
src=$2
. "$src/tools/test/lib.sh"
scenarios="$src/conformance/scenarios"

# ---- the whole suite against the reference endpoints ---------------------------------------
check "suite passes" run 0 "$conform" --iut reference --scenarios "$scenarios" --jobs 2 \
  --report "$work/r"
check "summary line" grep -qE '^[0-9]+ passed, 0 failed, 0 inconclusive, 0 unsupported, [0-9]+ skipped$' "$work/out"
check "summary.txt" grep -qE '^[0-9]+ passed, 0 failed' "$work/r/summary.txt"
for f in junit.xml results.json coverage.md coverage.json; do
  check "report $f" test -s "$work/r/$f"
done
total=$(find "$scenarios" -name '*.scn' | wc -l)
check "junit is XML" xmllint --noout "$work/r/junit.xml"
check "junit has every scenario" test "$(xmllint --xpath 'count(//testcase)' "$work/r/junit.xml")" -eq "$total"
check "junit requirement properties" test "$(xmllint --xpath 'count(//property[@name="requirement"])' "$work/r/junit.xml")" -gt 0
check "coverage lists a requirement" contains "$work/r/coverage.md" "| RDCC-ERR-05 |"

# Every pcap read back by tshark: as many frames as the tester saw packets (results.json).
names=$(sed -n 's/^      "name": "\(.*\)",$/\1/p' "$work/r/results.json")
counts=$(sed -n 's/^      "packets": \([0-9]*\),$/\1/p' "$work/r/results.json")
check "results.json names and counts" test "$(echo "$names" | wc -l)" -eq "$(echo "$counts" | wc -l)"
paste <(echo "$names") <(echo "$counts") > "$work/pairs"
pcaps=0
while read -r name packets; do
  pcap="$work/r/scenarios/$name.pcap"
  [ -f "$pcap" ] || continue
  pcaps=$((pcaps + 1))
  frames=$(tshark -r "$pcap" -T fields -e frame.number 2>/dev/null | wc -l)
  udp=$(tshark -r "$pcap" -Y 'udp && ip' -T fields -e frame.number 2>/dev/null | wc -l)
  check "pcap $name: $frames frames == $packets packets" test "$frames" -eq "$packets"
  check "pcap $name: all UDP/IPv4" test "$udp" -eq "$packets"
  check "events $name" test -s "$work/r/scenarios/$name.events.jsonl"
done < "$work/pairs"
check "pcaps found" test "$pcaps" -gt 0
# The checksums udp_frame writes are right (tshark validates them when asked).
bad=$(tshark -r "$work/r/scenarios/receiver-assoc-idempotent.pcap" -o udp.check_checksum:TRUE \
  -Y 'udp.checksum.status == "Bad"' -T fields -e frame.number 2>/dev/null | wc -l)
check "udp checksums good" test "$bad" -eq 0

# ---- a failing scenario: exit 1, the expected and the actual message ----------------------
mkdir -p "$work/fail"
cat > "$work/fail/wrong.scn" <<'SCN'
scenario wrong-grant-limit
role receiver
checks RDCC-GRANT-07
send ASSOC_REQUEST sender_nonce=1 capabilities=STATUS line_rate=100000
expect ASSOC_ACCEPT within 1ms -> assoc=association_id epoch=epoch
defaults association_id=$assoc epoch=$epoch
send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE binding_value=1
expect CREDIT_GRANT within 1ms grant_limit=4096
SCN
check "fail exits 1" run 1 "$conform" --iut reference:receiver --scenarios "$work/fail" --report "$work/rf"
check "fail line" contains "$work/out" "FAIL         wrong-grant-limit: grant_limit was 8192, wanted = 4096"
check "fail expected" contains "$work/out" "expected: CREDIT_GRANT grant_limit=4096 within 1ms"
check "fail actual" contains "$work/out" 'actual:   {"type":"CREDIT_GRANT"'
check "fail summary" contains "$work/out" "0 passed, 1 failed, 0 inconclusive, 0 unsupported, 0 skipped"
check "junit failure" test "$(xmllint --xpath 'count(//testcase/failure)' "$work/rf/junit.xml")" -eq 1
check "results verdict" contains "$work/rf/results.json" '"verdict": "fail"'

# ---- parse errors and usage: exit 2 --------------------------------------------------------
mkdir -p "$work/bad"
printf 'scenario b\nrole receiver\nchecks RDCC-GRANT-07\nexpect CREDIT_GRANT grant_limt=1\n' > "$work/bad/b.scn"
check "parse error exits 2" run 2 "$conform" --iut reference:receiver --scenarios "$work/bad"
check "parse error names file:line:col" contains "$work/err" "$work/bad/b.scn:4:21: unknown field 'grant_limt' of CREDIT_GRANT"
check "no --iut exits 2" run 2 "$conform" --scenarios "$scenarios"
check "bad --iut exits 2" run 2 "$conform" --iut reference:switch --scenarios "$scenarios"
check "bad --iut names it" contains "$work/err" "ROLE must be receiver, sender or crn, not 'switch'"
check "bad tolerance exits 2" run 2 "$conform" --iut reference --tolerance-rel ten --scenarios "$scenarios"
check "no scenarios exits 2" run 2 "$conform" --iut reference --scenarios "$work/empty-dir"

# ---- --list and --filter -------------------------------------------------------------------
check "list" run 0 "$conform" --list --scenarios "$scenarios"
check "list names" contains "$work/out" "receiver-assoc-idempotent  [receiver]  checks RDCC-ASSOC-01"
check "filter by requirement" run 0 "$conform" --iut reference --scenarios "$scenarios" --filter RDCC-ERR-05
check "filter ran one" contains "$work/out" "1 passed, 0 failed"
check "filter by tag and glob" run 0 "$conform" --iut reference:receiver --scenarios "$scenarios" --filter malformed --filter 'crn-*'
check "filter ran the receiver's malformed ones" contains "$work/out" "3 passed, 0 failed"

# ---- exec: an IUT that cannot run the scenario is "unsupported" -----------------------------
check "exec 127" run 0 "$conform" --iut 'exec:exit 127' --role receiver --scenarios "$work/fail"
check "exec 127 unsupported" contains "$work/out" "0 passed, 0 failed, 0 inconclusive, 1 unsupported"
check "exec says unsupported" run 0 "$conform" --role receiver --scenarios "$work/fail" \
  --iut 'exec:read l; echo "{\"ok\":false,\"error\":\"unsupported\",\"detail\":\"no receiver here\"}"'
check "exec unsupported reason" contains "$work/out" "UNSUPPORTED  wrong-grant-limit: the IUT said unsupported: no receiver here"

finish conformance_cli
