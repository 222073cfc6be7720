#!/usr/bin/env bash
# The rdcc command line as a user runs it: the real binary, real files, real exit codes.
# Usage: cli_test.sh RDCC_BINARY SOURCE_DIR
set -u
rdcc=$1
src=$2
. "$(dirname "$0")/lib.sh"

grant_hex="10 04 00 28 5a 17 c0 de 00 03 00 00 00 00 00 2a 00 00 00 00 00 00 01 01 00 00 00 00 00 04 00 00 00 01 86 a0 00 00 07 d0"

# decode: hex argument, detailed output.
check "decode hex argument" run 0 "$rdcc" decode $grant_hex
check "decode shows the grant limit" contains "$work/out" "grant_limit: 262144"
check "decode shows the rate in units" contains "$work/out" "pacing_rate: 100000 Mbit/s (100 Gbit/s)"

# decode: the appendix file, JSON lines, field by field.
check "decode --json of the appendix" run 0 "$rdcc" decode --json --input "$src/docs/examples/appendix.hex"
check "appendix request as JSON" contains "$work/out" '{"type":"CREDIT_REQUEST","version":1,"rsv":0,"length":56,"association_id":1511506142,"epoch":3,"flags":0,"sequence_number":7,"message_id":257,"message_length":4194304,"unscheduled_sent":0,"traffic_class":2,"weight":4,"service_hint":1,"binding_kind":1,"deadline":0,"binding_value":319957884010512}'
check "appendix grant as JSON" contains "$work/out" '"grant_limit":262144,"pacing_rate":100000,"lifetime":2000}'
check "two datagrams, two lines" test "$(wc -l <"$work/out")" -eq 2

# decode: one line per datagram from standard input.
check "decode --line from stdin" run 0 sh -c "printf '%s\n' '$grant_hex' | '$rdcc' decode --line"
check "line form" contains "$work/out" "CREDIT_GRANT assoc=0x5a17c0de epoch=3 seq=42 message_id=0x101 grant_limit=262144"

# decode errors name the field and offset, and exit 1.
check "short Length" run 1 "$rdcc" decode 10 04 00 27 5a 17 c0 de 00 03 00 00 00 00 00 2a 00 00 00 00 00 00 01 01 00 00 00 00 00 04 00 00 00 01 86 a0 00 00 07 d0
check "short Length names field and offset" contains "$work/err" "length 39 is smaller than 40, the size of CREDIT_GRANT (field length, offset 2)"
check "truncated" run 1 "$rdcc" decode 10 04
check "truncated names the field" contains "$work/err" "datagram of 2 octets ends before the length field (field length, offset 2)"
check "bad version" run 1 "$rdcc" decode 20 04 00 28
check "bad version message" contains "$work/err" "version 2 is not 1 (field version, offset 0)"
check "unknown type" run 1 "$rdcc" decode 10 0b 00 10
check "unknown type message" contains "$work/err" "type 0x0b is not an RDCC message type (field type, offset 1)"
check "bad hex digit" run 1 "$rdcc" decode 10 0g
check "bad hex names the column" contains "$work/err" "'g' is not a hex digit (column 5)"
check "decode error as JSON" run 1 "$rdcc" decode --json 10 04 00 27
check "JSON error object" contains "$work/out" '"error":"length_too_small","field":"length","offset":2'

# A file with a bad line: the error names the file and line, the good lines still decode.
printf '# comment\n%s\n\n10 04 00 28 zz\n' "$grant_hex" >"$work/mixed.hex"
check "mixed file" run 1 "$rdcc" decode --line --input "$work/mixed.hex"
check "good line decoded" contains "$work/out" "CREDIT_GRANT"
check "bad line named" contains "$work/err" "$work/mixed.hex line 4: 'z' is not a hex digit (column 13)"
check "missing file" run 1 "$rdcc" decode --input "$work/nope.bin"
check "missing file named" contains "$work/err" "$work/nope.bin: cannot open"

# encode: JSON in, hex out, identical to the spec's bytes; binary out decodes back.
check "encode JSON" run 0 "$rdcc" encode '{"type":"CREDIT_GRANT","association_id":"0x5a17c0de","epoch":3,"sequence_number":42,"message_id":257,"grant_limit":262144,"pacing_rate":100000,"lifetime":2000}'
check "encode reproduces the appendix grant" test "$(cat "$work/out")" = "$grant_hex"
check "decode --json | encode round trip" run 0 sh -c "'$rdcc' decode --json --input '$src/docs/examples/appendix.hex' | '$rdcc' encode"
check "round trip gives the appendix bytes" test "$(grep -v '^#' "$src/docs/examples/appendix.hex")" = "$(cat "$work/out")"
check "encode --binary" run 0 "$rdcc" encode --binary -o "$work/grant.bin" '{"type":"MSG_DONE","message_id":5,"octets_received":2048}'
check "binary file is 32 octets" test "$(stat -c %s "$work/grant.bin")" -eq 32
check "decode a binary file" run 0 "$rdcc" decode --line --input "$work/grant.bin"
check "binary decoded" contains "$work/out" "MSG_DONE assoc=0x0 epoch=0 seq=0 message_id=0x5 octets_received=2048"

# encode errors name the key, or the line and column of bad JSON.
check "encode bad field" run 1 "$rdcc" encode '{"type":"CREDIT_REQUEST","weight":256}'
check "bad field named" contains "$work/err" "rdcc encode: argument: field 'weight': value 256 is larger than the field's maximum 255"
printf '{"type":"MSG_DONE"}\n{"type":"CANCEL", "reason": }\n' >"$work/bad.jsonl"
check "encode bad JSON line" run 1 "$rdcc" encode --input "$work/bad.jsonl"
check "bad JSON line and column" contains "$work/err" "$work/bad.jsonl line 2: line 1, column 29: syntax error"
printf '[{"type":"MSG_DONE"}, {"type":"CANCEL","reson":1}]' >"$work/typo.json"
check "encode typo" run 1 "$rdcc" encode --input "$work/typo.json"
check "typo named with message index" contains "$work/err" "$work/typo.json message 2: field 'reson': is not a field of CANCEL"
check "usage error" run 2 "$rdcc" decode --no-such-flag

finish cli_test
