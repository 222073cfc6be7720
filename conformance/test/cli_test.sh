#!/usr/bin/env bash
# rdcc-conform as a user runs it: the real binary, real scenario files, real exit codes; the
# reports it writes, read back with xmllint (JUnit) and tshark (the pcaps).
# Usage: cli_test.sh RDCC_CONFORM SOURCE_DIR RDCC
set -uo pipefail
conform=$1
src=$2
rdcc=$3
. "$src/tools/test/lib.sh"
scenarios="$src/conformance/scenarios"

# ---- the whole suite against the reference endpoints ---------------------------------------
catalog="$src/conformance/catalog/requirements.json"
check "suite passes" run 0 "$conform" --iut reference --strict --scenarios "$scenarios" --jobs 2 \
  --catalog "$catalog" --report "$work/r"
check "summary line" grep -qE '^[0-9]+ passed, 0 warned, 0 failed, 0 inconclusive, 0 unsupported, 0 skipped$' "$work/out"
check "summary.txt" grep -qE '^[0-9]+ passed, 0 warned, 0 failed' "$work/r/summary.txt"
for f in junit.xml results.json coverage.md coverage.json; do
  check "report $f" test -s "$work/r/$f"
done
# Every file, and the twelve explore episodes the suite plays against a receiver, a sender and a
# CRN each (--explore-episodes).
total=$(( $(find "$scenarios" -name '*.scn' | wc -l) + 36 ))
check "junit is XML" xmllint --noout "$work/r/junit.xml"
check "each explore episode's scenario text is in the report" \
  test "$(grep -o '"source":' "$work/r/results.json" | wc -l)" -eq 36
check "junit has every scenario" test "$(xmllint --xpath 'count(//testcase)' "$work/r/junit.xml")" -eq "$total"
check "junit requirement properties" test "$(xmllint --xpath 'count(//property[@name="requirement"])' "$work/r/junit.xml")" -gt 0
# The project version (CMakeLists.txt) in --version, the JUnit suite's properties and results.json.
version=$(sed -n 's/^project(rdcc VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
check "--version" run 0 "$conform" --version
check "--version names the project version" grep -qx "rdcc-conform $version" "$work/out"
check "junit rdcc_version property" test "$(xmllint --xpath 'string(//testsuite/properties/property[@name="rdcc_version"]/@value)' "$work/r/junit.xml")" = "$version"
check "results.json rdcc_version" contains "$work/r/results.json" "\"rdcc_version\": \"$version\""
# Without --scenarios and --catalog, from a folder outside the tree: the build's own source tree.
check "defaults from another cwd" run 0 env -C "$work" "$conform" --iut reference:crn --strict
check "defaults: the CRN scenarios and episodes" grep -qx "$(( $(find "$scenarios/crn" -name '*.scn' | wc -l) + 12 )) passed, 0 warned, 0 failed, 0 inconclusive, 0 unsupported, 0 skipped" "$work/out"
check "defaults: the catalog found" lacks "$work/err" "no catalog"
check "coverage: a requirement with its scenario" grep -qE '^\| RDCC-ERR-05 \| MUST \| any \| wire \| pass \| .*receiver-bad-version-discarded \(pass\)' "$work/r/coverage.md"
check "coverage: uncovered wire MUSTs listed" contains "$work/r/coverage.md" "## Wire-testable MUSTs without a scenario"
check "coverage json" contains "$work/r/coverage.json" '"uncovered_wire_musts"'

# A requirement ID the catalog does not have is a parse error naming it.
mkdir -p "$work/unknown-id"
printf 'scenario u\nrole receiver\nchecks RDCC-ERR-99\nwait 1ms\n' > "$work/unknown-id/u.scn"
check "unknown ID exits 2" run 2 "$conform" --iut reference --scenarios "$work/unknown-id" --catalog "$catalog"
check "unknown ID named" contains "$work/err" "u.scn:3:8: unknown requirement ID 'RDCC-ERR-99' (not in the catalog)"
check "bad catalog exits 2" run 2 "$conform" --iut reference --scenarios "$scenarios" --catalog "$work/none.json"

# Every pcap read back by tshark: as many frames as the tester saw packets (results.json).
# One tshark run over all of them (mergecap keeps every frame), and one per file for two.
names=$(sed -n 's/^      "name": "\(.*\)",$/\1/p' "$work/r/results.json")
counts=$(sed -n 's/^      "packets": \([0-9]*\),$/\1/p' "$work/r/results.json")
check "results.json names and counts" test "$(echo "$names" | wc -l)" -eq "$(echo "$counts" | wc -l)"
total_packets=0
for c in $counts; do total_packets=$((total_packets + c)); done
check "packets seen" test "$total_packets" -gt 20
for name in $names; do
  check "pcap $name" test -s "$work/r/scenarios/$name.pcap"
  check "events $name" test -s "$work/r/scenarios/$name.events.jsonl"
done
mergecap -a -w "$work/all.pcap" "$work"/r/scenarios/*.pcap
frames=$(tshark -r "$work/all.pcap" -Y 'udp && ip' -T fields -e frame.number 2>/dev/null | wc -l)
check "tshark: $frames UDP/IPv4 frames == $total_packets packets" test "$frames" -eq "$total_packets"
for name in receiver-msg-done-after-data sender-scheduled-waits-for-credit; do
  packets=$(paste <(echo "$names") <(echo "$counts") | awk -v n="$name" '$1 == n { print $2 }')
  frames=$(tshark -r "$work/r/scenarios/$name.pcap" -o udp.check_checksum:TRUE \
    -Y 'udp.checksum.status == "Good"' -T fields -e frame.number 2>/dev/null | wc -l)
  check "tshark $name: $frames frames with good UDP checksums == $packets packets" \
    test "$frames" -eq "$packets"
done

# Without --strict, a scenario that checks only a MAY is skipped, with the reason; one that
# checks only a SHOULD runs (a failure would be a WARN).
check "not strict" run 0 "$conform" --iut reference:receiver --scenarios "$scenarios" \
  --catalog "$catalog" --filter receiver-idle-association-removed --filter receiver-idle-association-kept
check "skipped with reason" contains "$work/out" "SKIPPED      receiver-idle-association-removed: checks only MAY-level requirements (RDCC-ASSOC-05 MAY): behaviour the IUT may not have chosen; run with --strict"
check "a SHOULD-only scenario runs" contains "$work/out" "1 passed, 0 warned, 0 failed, 0 inconclusive, 0 unsupported, 1 skipped"

# A mutant is caught: the invariant checker cites the rule (one scenario: the whole suite under
# mutants is the kill matrix's test).
check "mutant fails" run 1 "$conform" --iut reference:receiver --scenarios "$scenarios" \
  --mutant grant-beyond-length --filter receiver-final-only-at-length
check "mutant caught by the invariant" contains "$work/out" "invariant 'RDCC-GRANT-07' violated"
check "unknown mutant exits 2" run 2 "$conform" --iut reference:receiver --scenarios "$scenarios" --mutant no-such-fault
check "unknown mutant named" contains "$work/err" "unknown mutant 'no-such-fault' (--list-mutants lists them)"
check "list mutants" run 0 "$conform" --list-mutants
check "list mutants names one" contains "$work/out" "grant-beyond-length  [receiver]"
check "mutant of another role exits 2" run 2 "$conform" --iut reference:sender --scenarios "$scenarios" --mutant grant-beyond-length

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
check "fail exits 1" run 1 "$conform" --iut reference:receiver --scenarios "$work/fail" --catalog "$catalog" --report "$work/rf"
check "fail line" contains "$work/out" "FAIL         wrong-grant-limit: grant_limit was 8192, wanted = 4096"
check "fail expected" contains "$work/out" "expected: CREDIT_GRANT grant_limit=4096 within 1ms"
check "fail actual" contains "$work/out" 'actual:   {"type":"CREDIT_GRANT"'
check "fail cites the spec" contains "$work/out" 'checks:   RDCC-GRANT-07 MUST NOT, Credit Requests and Grants, rule 5: "'
check "fail names its pcap" contains "$work/out" "pcap:     $work/rf/scenarios/wrong-grant-limit.pcap"
check "summary cites the spec" contains "$work/rf/summary.txt" 'checks:   RDCC-GRANT-07 MUST NOT, Credit Requests and Grants, rule 5: "'
check "summary names the pcap" contains "$work/rf/summary.txt" "pcap:     scenarios/wrong-grant-limit.pcap"
check "junit cites the spec" contains "$work/rf/junit.xml" "checks: RDCC-GRANT-07 MUST NOT, Credit Requests and Grants, rule 5: &quot;"
check "results cite the spec" contains "$work/rf/results.json" '"section": "Credit Requests and Grants"'
check "fail summary" contains "$work/out" "0 passed, 0 warned, 1 failed, 0 inconclusive, 0 unsupported, 0 skipped"
check "fail names its level" contains "$work/out" "wanted = 4096 [MUST NOT]"
check "results name the level" contains "$work/rf/results.json" '"level": "MUST NOT"'

# ---- nothing within the patience: inconclusive, exit 3 ---------------------------------------
mkdir -p "$work/quiet"
cat > "$work/quiet/quiet.scn" <<'SCN'
scenario no-answer-to-nothing
role receiver
checks RDCC-GRANT-07
send ASSOC_REQUEST sender_nonce=1 capabilities=STATUS line_rate=100000
expect ASSOC_ACCEPT within 1ms -> assoc=association_id epoch=epoch
expect CREDIT_GRANT within 1ms
SCN
check "inconclusive exits 3" run 3 "$conform" --iut reference:receiver --scenarios "$work/quiet" --catalog "$catalog" --patience 20ms
check "inconclusive names the patience" contains "$work/out" "no CREDIT_GRANT within the tester's patience of 20ms (the spec sets no deadline)"
check "inconclusive summary" contains "$work/out" "0 passed, 0 warned, 0 failed, 1 inconclusive"
mkdir -p "$work/bound"
sed -e 's/no-answer-to-nothing/a-bound-exceeded/' -e 's/expect CREDIT_GRANT within 1ms/expect CREDIT_GRANT by 1ms/' \
  "$work/quiet/quiet.scn" > "$work/bound/bound.scn"
check "a stated bound exceeded exits 1" run 1 "$conform" --iut reference:receiver --scenarios "$work/bound" --catalog "$catalog"
check "a stated bound names itself" contains "$work/out" "nothing arrived by 1ms, a time the spec states"
check "bad --patience exits 2" run 2 "$conform" --iut reference:receiver --scenarios "$work/quiet" --catalog "$catalog" --patience soon

# ---- a failed SHOULD: WARN, exit 0; FAIL under --strict ------------------------------------
mkdir -p "$work/warn"
cat > "$work/warn/should.scn" <<'SCN'
scenario should-warns
role receiver
checks RDCC-SEC-03 RDCC-SEC-04
send ASSOC_REQUEST sender_nonce=1 capabilities=STATUS line_rate=100000
expect ASSOC_ACCEPT within 1ms -> assoc=association_id epoch=epoch
defaults association_id=$assoc epoch=$epoch
send CREDIT_REQUEST message_id=1 message_length=8192 binding_kind=OPAQUE binding_value=1
expect CREDIT_GRANT within 1ms grant_limit=4096 checks RDCC-SEC-04
SCN
check "warn exits 0" run 0 "$conform" --iut reference:receiver --scenarios "$work/warn" --catalog "$catalog" --report "$work/rw"
check "warn line" contains "$work/out" "WARN         should-warns: grant_limit was 8192, wanted = 4096 [SHOULD]"
check "warn cites the SHOULD only" contains "$work/out" 'checks:   RDCC-SEC-04 SHOULD, Security Considerations: "'
check "warn does not cite the MUST" lacks "$work/out" 'RDCC-SEC-03 MUST'
check "warn summary" contains "$work/out" "0 passed, 1 warned, 0 failed, 0 inconclusive, 0 unsupported, 0 skipped"
check "warn summary.txt" contains "$work/rw/summary.txt" "0 passed, 1 warned, 0 failed"
check "warn junit is XML" xmllint --noout "$work/rw/junit.xml"
check "warn junit: no failure" test "$(xmllint --xpath 'count(//failure)' "$work/rw/junit.xml")" -eq 0
check "warn junit: suite counts no failure" test "$(xmllint --xpath 'string(//testsuite/@failures)' "$work/rw/junit.xml")" = 0
check "warn junit: the warning in system-out" test "$(xmllint --xpath 'count(//testcase/system-out[starts-with(., "WARN (SHOULD): grant_limit was 8192")])' "$work/rw/junit.xml")" -eq 1
check "warn junit: warning property" test "$(xmllint --xpath 'count(//property[@name="warning"])' "$work/rw/junit.xml")" -eq 1
check "warn results verdict" contains "$work/rw/results.json" '"verdict": "warn"'
check "warn results summary" contains "$work/rw/results.json" '"warned": 1'
check "warn coverage: the SHOULD warned" grep -qE '^\| RDCC-SEC-04 \| SHOULD \| receiver \| wire \| warn \| should-warns \(warn\)' "$work/rw/coverage.md"
check "warn coverage: the MUST not reached" grep -qE '^\| RDCC-SEC-03 \| MUST \| receiver \| wire \| not passed \| should-warns \(inconclusive\)' "$work/rw/coverage.md"
check "strict: the warn is a fail" run 1 "$conform" --iut reference:receiver --strict --scenarios "$work/warn" --catalog "$catalog"
check "strict fail line" contains "$work/out" "FAIL         should-warns: grant_limit was 8192, wanted = 4096 [SHOULD]"
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
with_id=$(grep -l '^checks.* RDCC-ERR-05\b' -r "$scenarios" | wc -l)
check "filter by requirement" run 0 "$conform" --iut reference --scenarios "$scenarios" --filter RDCC-ERR-05 \
  --explore-episodes 0
check "filter ran those checking it" contains "$work/out" "$with_id passed, 0 warned, 0 failed"
# The explore episodes are scenarios of the run like the files: --filter selects them too.
check "filter selects explore episodes" run 0 "$conform" --iut reference --scenarios "$scenarios" \
  --filter explore
check "filter ran the thirty-six episodes" contains "$work/out" "36 passed, 0 warned, 0 failed"
# A folder of one's own gets no episodes unless asked.
mkdir -p "$work/own" && cp "$scenarios/receiver/bad-version-discarded.scn" "$work/own/"
check "own folder" run 0 "$conform" --iut reference --scenarios "$work/own"
check "own folder: its one file" contains "$work/out" "1 passed, 0 warned, 0 failed"
check "own folder with episodes" run 0 "$conform" --iut reference --scenarios "$work/own" \
  --explore-episodes 2
check "own folder: its file and two episodes per role" contains "$work/out" "7 passed, 0 warned, 0 failed"
check "filter by name" run 0 "$conform" --iut reference --scenarios "$scenarios" --filter receiver-bad-version-discarded
check "filter ran one" contains "$work/out" "1 passed, 0 warned, 0 failed"
malformed=$(grep -lE '^tags.* malformed( |$)' "$scenarios"/receiver/*.scn | wc -l)
check "filter by tag and glob" run 0 "$conform" --iut reference:receiver --scenarios "$scenarios" --filter malformed --filter 'crn-*'
check "filter ran the receiver's malformed ones" contains "$work/out" "$malformed passed, 0 warned, 0 failed"

# ---- exec: an IUT that cannot run the scenario is "unsupported" -----------------------------
check "exec 127" run 0 "$conform" --iut 'exec:exit 127' --role receiver --scenarios "$work/fail"
check "exec 127 unsupported" contains "$work/out" "0 passed, 0 warned, 0 failed, 0 inconclusive, 1 unsupported"
mkdir -p "$work/upper"
printf 'scenario needs-upper\nrole sender\nchecks RDCC-MODE-02\nupper submit length=4096\nexpect ASSOC_REQUEST within 1ms\n' > "$work/upper/u.scn"
check "exec says unsupported" run 0 "$conform" --role sender --scenarios "$work/upper" \
  --iut 'exec:read l; echo "{\"ok\":false,\"error\":\"unsupported\",\"detail\":\"no receiver here\"}"'
check "exec unsupported reason" contains "$work/out" "UNSUPPORTED  needs-upper: the IUT said unsupported: no receiver here"

# ---- needs checked before the first step; an IUT that does not answer is one error --------
check "dead IUT exits 2" run 2 "$conform" --iut udp:127.0.0.1:1 --role receiver --scenarios "$scenarios" --catalog "$catalog"
check "dead IUT named" contains "$work/err" "nothing listens at udp:127.0.0.1:1 (ICMP port unreachable)"
check "dead IUT: no verdict per scenario" lacks "$work/out" "FAIL"
check "missing exec: command exits 2" run 2 "$conform" --iut 'exec:/nonexistent/rdcc receiver --rdcc-port {rdcc_port}' --role receiver --scenarios "$scenarios" --catalog "$catalog"
check "missing exec: command named" contains "$work/err" "the IUT's command '/nonexistent/rdcc' is not found"
check "bad --unscheduled-dscp exits 2" run 2 "$conform" --iut reference --unscheduled-dscp 64 --scenarios "$scenarios"
# A sender with no unscheduled DSCP configured (its hello says so): the scenario that checks
# the marking "if one is configured" is unsupported before its first step, not failed.
check "sender without unscheduled DSCP" run 0 "$conform" --role sender --tolerance-abs 20ms \
  --scenarios "$scenarios" --catalog "$catalog" --filter sender-unscheduled-request-first \
  --iut "exec:$rdcc sender --address 127.0.0.1 --rdcc-port {rdcc_port} --data-port {tester_data_port} --line-rate 100000 --upper-tester stdio"
check "sender without unscheduled DSCP: unsupported" contains "$work/out" "UNSUPPORTED  sender-unscheduled-request-first: needs the DSCP the domain configures for unscheduled data"
# The class DSCPs: --class-dscp's errors name the item; the IUT's hello overrides the option, and
# a malformed "class_dscp" in it is refused, named.
check "bad --class-dscp exits 2" run 2 "$conform" --iut reference --class-dscp 0,0,64,0,0,0,0,0 --scenarios "$scenarios"
check "bad --class-dscp named" contains "$work/err" "rdcc-conform: --class-dscp takes DSCPs 0..63: item 3 (class 2) of '0,0,64,0,0,0,0,0' is '64'"
check "short --class-dscp exits 2" run 2 "$conform" --iut reference --class-dscp 0,18 --scenarios "$scenarios"
check "short --class-dscp named" contains "$work/err" "takes eight DSCPs (class 0 to 7) or none: '0,18' has 2"
sender_exec="exec:$rdcc sender --address 127.0.0.1 --rdcc-port {rdcc_port} --data-port {tester_data_port} --line-rate 100000 --unscheduled-dscp 8 --upper-tester stdio"
check "class DSCP from the hello" run 0 "$conform" --role sender --tolerance-abs 20ms \
  --scenarios "$scenarios" --catalog "$catalog" --filter sender-scheduled-class-dscp --class-dscp 0,0,46,0,0,0,0,0 \
  --iut "$sender_exec --class-dscp 0,0,34,0,0,0,0,0"
check "class DSCP from the hello: passed" contains "$work/out" "1 passed, 0 warned, 0 failed"
check "class DSCP declared none" run 0 "$conform" --role sender --tolerance-abs 20ms \
  --scenarios "$scenarios" --catalog "$catalog" --filter sender-scheduled-class-dscp --class-dscp none \
  --iut 'exec:read l; echo "{\"ok\":true,\"role\":\"sender\",\"class_dscp\":null}"; sleep 5'
check "class DSCP declared none: unsupported" contains "$work/out" "UNSUPPORTED  sender-scheduled-class-dscp: needs the DSCP the domain configures for Traffic Class 2"
check "malformed class_dscp in hello: inconclusive" run 3 "$conform" --role sender --scenarios "$work/upper" \
  --iut 'exec:read l; echo "{\"ok\":true,\"role\":\"sender\",\"class_dscp\":[0,1,99]}"; sleep 5'
check "malformed class_dscp in hello named" contains "$work/out" "INCONCLUSIVE needs-upper: the IUT did not start: the IUT's hello has \"class_dscp\": [0,1,99], not eight DSCPs 0..63 (class 0 first) or null"
# A sender that uses scheduled mode for every message declines mode=unscheduled (its hello).
check "scheduled-only sender" run 0 "$conform" --role sender --tolerance-abs 20ms \
  --scenarios "$scenarios" --catalog "$catalog" --filter sender-link-pause-stops-unscheduled \
  --iut "exec:$rdcc sender --address 127.0.0.1 --rdcc-port {rdcc_port} --data-port {tester_data_port} --line-rate 100000 --unscheduled-dscp 8 --scheduled-only --upper-tester stdio"
check "scheduled-only sender: unsupported" contains "$work/out" "UNSUPPORTED  sender-link-pause-stops-unscheduled: needs a message sent in unscheduled mode, which the IUT does not offer (its hello lists modes scheduled)"

# ---- real sockets: the reference receiver as a process (rdcc receiver) -----------------------
# Scenarios that need no reference-only configuration, in real time on loopback; the windows
# get a generous tolerance on a loaded CI machine.
receiver_opts="--address 127.0.0.1 --budget 4194304 --unscheduled-budget 1048576 \
  --link-capacity 100000 --unscheduled-limit 65536 --start-jitter 10 --backlog-threshold 1048576 \
  --grant-lifetime 1000 --credit-unit 4096 --d-max 20 --base-rtt 10 --rtt-target 50"
portable=(--filter receiver-assoc-idempotent --filter receiver-bad-version-discarded
  --filter receiver-unknown-association-error --filter receiver-stale-sequence-discarded
  --filter receiver-length-too-small-discarded --filter receiver-msg-done-after-data
  --filter receiver-grant-final-within-length --filter receiver-unknown-type-outside-association
  --filter receiver-credit-never-reduced)
check "exec: rdcc receiver per scenario" run 0 "$conform" --role receiver --tolerance-abs 20ms \
  --scenarios "$scenarios" "${portable[@]}" --report "$work/rx" \
  --iut "exec:$rdcc receiver $receiver_opts --rdcc-port {rdcc_port} --data-port {data_port}"
check "exec: all passed" contains "$work/out" "9 passed, 0 warned, 0 failed, 0 inconclusive, 0 unsupported, 0 skipped"
frames=$(tshark -r "$work/rx/scenarios/receiver-msg-done-after-data.pcap" -Y 'ip.addr == 127.0.0.1 && udp' \
  -T fields -e frame.number 2>/dev/null | wc -l)
check "exec: the pcap holds the loopback packets" test "$frames" -ge 6
check "exec: no node left running" test "$(pgrep -f "$rdcc receiver $receiver_opts" | wc -l)" -eq 0

# Conforming variants: listed with the sentence that permits each; a real node takes one.
check "list-variants" run 0 "$conform" --list-variants
check "list-variants: name [role] permits: \"...\"" \
  grep -qE '^grant-whole-message \[receiver\] permits: ".+"$' "$work/out"
check "list-variants: a catalog sentence read from the catalog, with its ID" \
  grep -qE '^pacing-bursts \[sender\] permits: "The sender MUST NOT transmit the message faster than the Pacing Rate.+" \(RDCC-GRANT-05\)$' "$work/out"
check "unknown variant exits 2" run 2 "$conform" --iut reference:receiver --scenarios "$scenarios" \
  --variant no-such-variant
check "unknown variant: the known ones listed" contains "$work/err" "unknown variant 'no-such-variant'; these are: grant-whole-message"
check "node: unknown variant is an error" run 2 "$rdcc" receiver $receiver_opts --rdcc-port 1 --data-port 2 \
  --variant no-such-variant
check "node: the role's variants listed" contains "$work/err" "'no-such-variant' is not a receiver variant; these are: grant-whole-message"
check "exec: rdcc receiver --variant first-window-one-credit-unit" run 0 "$conform" --role receiver \
  --tolerance-abs 20ms --scenarios "$scenarios" "${portable[@]}" \
  --iut "exec:$rdcc receiver $receiver_opts --variant first-window-one-credit-unit --rdcc-port {rdcc_port} --data-port {data_port}"
check "exec: the variant passes" contains "$work/out" "9 passed, 0 warned, 0 failed, 0 inconclusive, 0 unsupported, 0 skipped"

# ---- --retries: a failure then a pass is FLAKY, in the console, the reports and exit 4 -------
# The first start of this IUT is a faulty receiver (it grants beyond the message length), every
# later one the reference: the retry passes, and the verdict still shows the failure.
flip="$work/flip-receiver.sh"
cat >"$flip" <<EOF
#!/usr/bin/env bash
if mkdir "$work/flip.first" 2>/dev/null; then exec "$rdcc" receiver "\$@" --mutant grant-beyond-length; fi
exec "$rdcc" receiver "\$@"
EOF
chmod +x "$flip"
check "fail then pass exits 4" run 4 "$conform" --role receiver --tolerance-abs 20ms --retries 1 \
  --scenarios "$scenarios" --filter receiver-grant-final-within-length --report "$work/flaky" \
  --iut "exec:$flip $receiver_opts --rdcc-port {rdcc_port} --data-port {data_port}"
check "flaky: the console verdict" grep -qE '^\[1/1\] FLAKY +receiver-grant-final-within-length: failed on try 1 of 2, then pass on try 2' "$work/out"
check "flaky: the summary" contains "$work/out" "0 passed, 0 warned, 0 failed, 0 inconclusive, 0 unsupported, 0 skipped, 1 flaky"
check "flaky: a JUnit failure" test "$(xmllint --xpath "count(//failure[@type='flaky'])" "$work/flaky/junit.xml")" -eq 1
check "flaky: results.json" grep -q '"flaky": 1' "$work/flaky/results.json"
check "flaky: index.html" contains "$work/flaky/index.html" 'data-verdict="flaky"'
check "flaky: the failing try's capture" test -s "$work/flaky/scenarios/receiver-grant-final-within-length.pcap"

# udp: a node started once; each scenario associates afresh with its own nonce.
port=$((20000 + $$ % 20000))
"$rdcc" receiver $receiver_opts --rdcc-port "$port" --data-port $((port + 1)) 2>"$work/node.err" &
node=$!
for _ in $(seq 100); do grep -q '"ready"' "$work/node.err" && break; sleep 0.05; done
check "udp: a running rdcc receiver" run 0 "$conform" --role receiver --tolerance-abs 20ms \
  --scenarios "$scenarios" --filter receiver-assoc-idempotent --filter receiver-msg-done-after-data \
  --iut "udp:127.0.0.1:$port,data=$((port + 1))"
check "udp: both passed" contains "$work/out" "2 passed, 0 warned, 0 failed"
kill "$node"
wait "$node"

finish conformance_cli
