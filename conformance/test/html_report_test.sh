#!/usr/bin/env bash
# The report a vendor reads: frame numbers in every verdict (console, summary.txt, JUnit,
# results.json) that name the right frame of the run's pcap; the annotated captures (rdcc pcap
# check --annotate and the report's scenarios/NAME.pcapng) read back by tshark as frame.comment;
# index.html written; the interop matrix over five IUTs (the reference, two variants, two
# mutants). The reports are kept in OUT (the build tree) for conformance_html_browser.
# Usage: html_report_test.sh RDCC_CONFORM SOURCE_DIR RDCC OUT [sanitized]
# With `sanitized` (the ASan + UBSan build) the interop matrix plays five scenarios (the grant
# and scheduled-data ones the two mutants fail) instead of the whole suite five times: the
# matrix and its pages are the same code, and the whole suite runs sanitized elsewhere
# (conformance_suite_reference, and the mutant run below).
set -uo pipefail
conform=$1
src=$2
rdcc=$3
out=$4
matrix_scenarios=()
[ "${5-}" = sanitized ] && matrix_scenarios=(--filter 'receiver-grant-*' --filter 'sender-scheduled-*')
. "$src/tools/test/lib.sh"
scenarios="$src/conformance/scenarios"
catalog="$src/conformance/catalog/requirements.json"
rm -rf "$out"
mkdir -p "$out"

# ---- a failing run: the reference receiver with a mutant --------------------------------------
report="$out/mutant"
check "mutant run fails" run 1 "$conform" --iut reference:receiver --mutant grant-beyond-length \
  --scenarios "$scenarios" --catalog "$catalog" --jobs 2 --report "$report"
cp "$work/out" "$out/mutant-console.txt"
# receiver-grant-final-within-length: the grant beyond the length is frame 4 of its pcap.
name=receiver-grant-final-within-length
check "console: frames" contains "$work/out" "frames:   4 (Wireshark: frame.number in {4})"
check "summary.txt: frames" contains "$report/summary.txt" "frames:   4 (Wireshark: frame.number in {4})"
check "junit: frames" test "$(xmllint --xpath "string(//testcase[@name='$name']/failure)" "$report/junit.xml" | grep -c '^frames: 4 (Wireshark: frame.number in {4})$')" -eq 1
check "results.json: frames" test "$(jq -c ".scenarios[] | select(.name == \"$name\") | .frames" "$report/results.json")" = "[4]"
check "results.json: filter" test "$(jq -r ".scenarios[] | select(.name == \"$name\") | .display_filter" "$report/results.json")" = "frame.number in {4}"
# The frame it names is the grant that went beyond the length (rdcc pcap dump numbers frames as
# Wireshark does), and tshark's display filter selects exactly it.
check "frame 4 is the actual grant" run 0 "$rdcc" pcap dump --heuristic "$report/scenarios/$name.pcap"
check "frame 4 content" grep -qE '^4 .*CREDIT_GRANT .*grant_limit=12288' "$work/out"
check "tshark filter selects one frame" test "$(tshark -r "$report/scenarios/$name.pcap" -Y 'frame.number in {4}' 2>/dev/null | wc -l)" -eq 1
# Every failing verdict cites frames (each exists in its pcap).
check "every fail cites frames" test "$(jq '[.scenarios[] | select(.verdict == "fail" and (.frames | length) == 0)] | length' "$report/results.json")" -eq 0
check "an invariant's frame: the grant" test "$(jq -c '.scenarios[] | select(.name == "receiver-final-only-at-length") | .frames' "$report/results.json")" = "[36]"

# The failing scenario alone (its report is the browser test's screenshot).
check "one failing scenario" run 1 "$conform" --iut reference:receiver --mutant grant-beyond-length \
  --scenarios "$scenarios" --catalog "$catalog" --filter "$name" --report "$out/one"

# ---- annotated captures: the report's, and rdcc pcap check --annotate ----------------------------
check "annotated pcapng written" test -s "$report/scenarios/$name.pcapng"
tshark -r "$report/scenarios/$name.pcapng" -Y frame.comment -T fields -e frame.number -e frame.comment \
  >"$work/comments" 2>/dev/null
check "report: frame 4 commented" grep -qE '^4	rdcc-conform fail receiver-grant-final-within-length \[RULE\]' "$work/comments"
# The sentences as the catalog has them.
sentence() { jq -r ".[] | select(.id == \"$1\") | .text" "$catalog"; }
check "report: comment quotes the rule" contains "$work/comments" "RDCC-GRANT-07 MUST NOT, Credit Requests and Grants, rule 5: \"$(sentence RDCC-GRANT-07)\""
check "report: only flagged frames" test "$(wc -l <"$work/comments")" -eq 1
check "a passing run has no pcapng" test ! -e "$report/scenarios/receiver-budget-bound.pcapng"

check "pcap check --annotate" run 1 "$rdcc" pcap check -G 4MiB --heuristic --annotate "$work/a.pcapng" \
  "$src/pcaps/malformed.pcap"
check "pcap check --annotate says so" contains "$work/err" "frames annotated (Wireshark: frame.comment)"
tshark -r "$work/a.pcapng" -Y frame.comment -T fields -e frame.number -e frame.comment >"$work/comments" 2>/dev/null
check "pcap check: comment with rule and sentence" grep -qF "15	RDCC-GRANT-06 MUST: \"$(sentence RDCC-GRANT-06)\"" "$work/comments"
# As many commented frames as the findings name.
findings_frames=$("$rdcc" pcap check -G 4MiB --heuristic --json "$src/pcaps/malformed.pcap" 2>/dev/null |
  jq -r '.frames[]' | sort -un | wc -l)
check "pcap check: a comment per flagged frame" test "$(wc -l <"$work/comments")" -eq "$findings_frames"
check "pcap check: every frame kept" test "$(tshark -r "$work/a.pcapng" 2>/dev/null | wc -l)" -eq \
  "$(tshark -r "$src/pcaps/malformed.pcap" 2>/dev/null | wc -l)"
check "--annotate to a bad path exits 2" run 2 "$rdcc" pcap check -G 4MiB --heuristic --annotate \
  "$work/no/such/dir/a.pcapng" "$src/pcaps/malformed.pcap"
check "--annotate error names the file" contains "$work/err" "--annotate $work/no/such/dir/a.pcapng"

# ---- index.html: self-contained ------------------------------------------------------------------
check "index.html written" test -s "$report/index.html"
check "index.html loads nothing" bash -c "! grep -qiE '(src|href)=\"(https?:)?//|url\\((https?:)?//|@import' '$report/index.html'"
check "index.html: every scenario" test "$(grep -c '<section class="scenario' "$report/index.html")" -eq \
  "$(jq '.scenarios | length' "$report/results.json")"

# ---- the interop matrix: the reference, two variants, two mutants ------------------------------
cat >"$out/matrix.txt" <<'EOF'
# rdcc-conform --matrix: one IUT a line ([role=R] [variant=NAME] [mutant=NAME] [IUT])
reference
variant=grant-whole-message
variant=pacing-link-over-2
mutant=grant-beyond-length
mutant=sender-exceeds-grant
EOF
# Five IUTs over every scenario (over five, sanitized).
check "matrix runs" runfor 400 0 "$conform" --matrix "$out/matrix.txt" --scenarios "$scenarios" \
  --catalog "$catalog" --jobs 2 "${matrix_scenarios[@]}" --report "$out/matrix"
cp "$work/out" "$out/matrix-console.txt"
check "matrix.html" test -s "$out/matrix/matrix.html"
check "matrix: 5 IUTs" test "$(jq '.iuts | length' "$out/matrix/matrix.json")" -eq 5
check "matrix: a report per IUT" test "$(ls "$out"/matrix/*/index.html | wc -l)" -eq 5
check "matrix: reference fails nothing" test "$(jq '[.iuts[0].verdicts[] | select(. == "fail")] | length' "$out/matrix/matrix.json")" -eq 0
check "matrix: the mutants fail" test "$(jq '[.iuts[3,4].verdicts[] | select(. == "fail")] | length' "$out/matrix/matrix.json")" -gt 1
# exec: IUTs in a matrix: the reference node through exec:, unmutated and with a mutant (one
# scenario on loopback; the exec: suite's tolerance and retries for a loaded host).
role=receiver
. "$src/conformance/test/exec_iut.sh"
printf 'role=receiver %s\nrole=receiver mutant=grant-beyond-length %s\n' "$iut" "$iut" >"$work/exec.txt"
check "exec: matrix runs" run 0 "$conform" --matrix "$work/exec.txt" --scenarios "$scenarios" \
  --catalog "$catalog" --filter "$name" --tolerance-abs 20ms --retries 2 --report "$out/matrix-exec"
check "exec: the node fails nothing" test "$(jq -r ".iuts[0].verdicts[\"$name\"]" "$out/matrix-exec/matrix.json")" != fail
check "exec: the mutant node fails" test "$(jq -r ".iuts[1].verdicts[\"$name\"]" "$out/matrix-exec/matrix.json")" = fail
check "exec: its report" test -s "$out/matrix-exec/02-mutant-grant-beyond-length/index.html"

# Bad matrix files are named with their line.
printf 'reference\nvariant=no-such-variant\n' >"$work/bad.txt"
check "bad matrix file exits 2" run 2 "$conform" --matrix "$work/bad.txt" --scenarios "$scenarios" \
  --catalog "$catalog" --report "$work/m"
check "bad matrix file: line named" contains "$work/err" "bad.txt:2: unknown variant 'no-such-variant'"
printf 'exec:true\n' >"$work/bad2.txt"
check "exec: without role exits 2" run 2 "$conform" --matrix "$work/bad2.txt" --scenarios "$scenarios" \
  --catalog "$catalog" --report "$work/m"
check "exec: without role named" contains "$work/err" "bad2.txt:1: exec: needs role=receiver|sender|crn"

finish html_report
