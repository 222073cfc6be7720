#!/usr/bin/env bash
# rdcc pcap dump / stats / check as a user runs them, on captures written for real by
# make_test_pcaps (Ethernet/VLAN/IPv4/IPv6/UDP through libpcap), and on the golden captures.
# Usage: pcap_test.sh RDCC_BINARY MAKE_TEST_PCAPS_BINARY SOURCE_DIR
set -u
rdcc=$1
maker=$2
src=$3
. "$(dirname "$0")/lib.sh"

p=$work/pcaps
mkdir -p "$p"
# A rule's text as the catalog has it (findings quote the catalog; no sentence is copied here).
catalog_text() { jq -r --arg id "$1" '.[] | select(.id == $id) | .text' "$src/conformance/catalog/requirements.json"; }
check "make the test captures" "$maker" "$p"

# ---- usage ------------------------------------------------------------------------------
check "dump without --port or --heuristic is bad usage" run 2 "$rdcc" pcap dump "$p/clean.pcap"
check "the message says why" contains "$work/err" "give the RDCC port with --port N, or --heuristic: the spec forbids a default port"
check "stats without --port is bad usage" run 2 "$rdcc" pcap stats "$p/clean.pcap"
check "check without --port is bad usage" run 2 "$rdcc" pcap check "$p/clean.pcap" --budget 4MiB
check "check without --budget is bad usage" run 2 "$rdcc" pcap check "$p/clean.pcap" --port 50000
check "a bad --budget is bad usage" run 2 "$rdcc" pcap check "$p/clean.pcap" --port 50000 --budget lots
check "a bad --type is bad usage" run 2 "$rdcc" pcap dump "$p/clean.pcap" --port 50000 --type NOPE
check "a missing file exits 2" run 2 "$rdcc" pcap dump "$work/none.pcap" --port 50000
check "the error names the file" contains "$work/err" "none.pcap: not a readable pcap or pcapng file"
printf 'not a capture\n' >"$work/text.pcap"
check "a text file exits 2" run 2 "$rdcc" pcap check "$work/text.pcap" --port 50000 --budget 1MiB
head -c 150 "$p/clean.pcap" >"$work/cut.pcap"
check "a file cut inside a frame exits 2" run 2 "$rdcc" pcap dump "$work/cut.pcap" --port 50000
check "the damage is located" contains "$work/err" "cut.pcap: damaged after frame 1"
check "frames before the damage are shown" contains "$work/out" "ASSOC_REQUEST"

# ---- dump -------------------------------------------------------------------------------
check "dump the clean exchange" run 0 "$rdcc" pcap dump "$p/clean.pcap" --port 50000
check "eleven RDCC packets" lines "$work/out" 11
check "a line: frame, time, addresses, the codec's line" contains "$work/out" "6  0.000050000  10.0.0.1:50000 → 10.0.0.2:40000  CREDIT_GRANT assoc=0x5a17c0de epoch=3 seq=3 flags=FINAL message_id=0x101 grant_limit=1048576"
check "IPv6 behind a VLAN tag" contains "$work/out" "10  0.000090000  [2001:db8::1]:50000 → [2001:db8::2]:40001  CREDIT_GRANT assoc=0x7"
check "heuristic finds the same packets" run 0 "$rdcc" pcap dump "$p/clean.pcap" --heuristic
check "heuristic: eleven" lines "$work/out" 11
check "another port finds nothing" run 0 "$rdcc" pcap dump "$p/clean.pcap" --port 50001
check "nothing" lines "$work/out" 0
check "dump --json" run 0 "$rdcc" pcap dump "$p/clean.pcap" --port 50000 --json
check "JSON: frame, time, addresses, codec fields" contains "$work/out" '{"frame":4,"time":3e-05,"timestamp_ns":1735689600000030000,"src":"10.0.0.1:50000","dst":"10.0.0.2:40000","type":"CREDIT_GRANT","version":1,"rsv":0,"length":40,"association_id":1511506142,"epoch":3,"flags":0,"sequence_number":1,"message_id":257,"grant_limit":262144,"pacing_rate":100000,"lifetime":2000}'
check "filter --type by name" run 0 "$rdcc" pcap dump "$p/clean.pcap" --port 50000 --type credit_grant
check "four grants" lines "$work/out" 4
check "filter --type by number" run 0 "$rdcc" pcap dump "$p/clean.pcap" --port 50000 --type 7
check "two MSG_DONE" lines "$work/out" 2
check "filter --association" run 0 "$rdcc" pcap dump "$p/clean.pcap" --port 50000 --association 7
check "four of association 7" lines "$work/out" 4
check "filter --message" run 0 "$rdcc" pcap dump "$p/clean.pcap" --port 50000 --message 0x101
check "five of message 0x101" lines "$work/out" 5
for lt in sll sll2 raw; do
  check "dump $lt" run 0 "$rdcc" pcap dump "$p/$lt.pcap" --port 50000
  check "$lt: the grant" contains "$work/out" "CREDIT_GRANT assoc=0x5a17c0de"
done

# ---- malformed frames: reported, never crashed on ----------------------------------------
check "dump malformed frames" run 0 "$rdcc" pcap dump "$p/malformed.pcap" --port 50000
check "1: short Ethernet" contains "$work/out" "1  0.000000000  malformed frame: frame ends inside the Ethernet header (value 10) at offset 0"
check "2: bad IHL" contains "$work/out" "2  0.000010000  malformed frame: IPv4 header length is below 20 (value 12) at offset 14"
check "3: UDP length" contains "$work/out" "3  0.000020000  malformed frame: UDP length is beyond the IP payload (value 400) at offset 38"
check "4: IPv6 extension headers walked" contains "$work/out" "4  0.000030000  [2001:db8::1]:50000 → [2001:db8::2]:40001  CREDIT_GRANT"
check "5: bad extension header" contains "$work/out" "5  0.000040000  malformed frame: IPv6 extension header length is beyond the payload (value 1608) at offset 55"
check "6: RDCC decode error with field and offsets" contains "$work/out" "6  0.000050000  10.0.0.1:50000 → 10.0.0.2:40000  decode error: length 39 is smaller than 40, the size of CREDIT_GRANT (field length, offset 2) [frame offset 44]"
check "7: double VLAN tag" contains "$work/out" "7  0.000060000  10.0.0.1:50000 → 10.0.0.2:40000  CREDIT_GRANT assoc=0x5a17c0de epoch=3 seq=4"
check "8: snap length" contains "$work/out" "8  0.000070000  malformed frame: IPv4 total length is beyond the captured frame (cut by the snap length?) (value 68) at offset 16"
check "9: ARP is not shown" lacks "$work/out" "9  0.000080000"
check "10: a lone fragment, told at the end" contains "$work/out" "10  0.000090000  malformed frame: IP fragments of frames 10-10 not reassembled: incomplete at the end of the capture"
check "11: still decoding" contains "$work/out" "11  0.000100000  10.0.0.1:50000 → 10.0.0.2:40000  CREDIT_GRANT"
check "dump --json of malformed frames" run 0 "$rdcc" pcap dump "$p/malformed.pcap" --port 50000 --json
check "JSON decode error" contains "$work/out" '"error":"length_too_small","field":"length","offset":2,"frame_offset":44'
check "JSON malformed frame" contains "$work/out" '{"frame":2,"time":1e-05,"timestamp_ns":1735689600000010000,"error":"malformed_frame","frame_offset":14'
check "check: a malformed RDCC message is a finding" run 1 "$rdcc" pcap check "$p/malformed.pcap" --port 50000 --budget 1MiB
check "RDCC-ERR-09 frame 6" contains "$work/out" "RDCC-ERR-09 frame 6 "
check "malformed frames are notes" contains "$work/err" "note: frame 2: malformed frame: IPv4 header length is below 20"

# ---- stats ------------------------------------------------------------------------------
check "stats table" run 0 "$rdcc" pcap stats "$p/clean.pcap" --port 50000 --svg "$work/plot.svg"
check "summary line" contains "$work/out" "11 frames (EN10MB), 0.000100000 s, 11 RDCC packets, 0 decode errors, 0 malformed frames"
check "receiver 1" contains "$work/out" "receiver 10.0.0.1:50000"
check "octets" contains "$work/out" "messages 1, octets requested 1048576, granted 1048576, received 1048576 (MSG_DONE)"
check "grant latency" contains "$work/out" "grant latency (request to first grant): n=1 p50=10.000 us p90=10.000 us p99=10.000 us max=10.000 us"
check "outstanding" contains "$work/out" "credit outstanding: peak 1048576 at 0.000050000 s"
check "association line" contains "$work/out" "association 0x5a17c0de epoch 3, sender 10.0.0.2:40000"
check "IPv6 receiver" contains "$work/out" "receiver [2001:db8::1]:50000"
check "svg written" contains "$work/plot.svg" "<polyline"
check "svg per receiver" contains "$work/plot.svg" "receiver [2001:db8::1]:50000: credit granted and received"
check "stats --json" run 0 "$rdcc" pcap stats "$p/clean.pcap" --port 50000 --json
check "json is valid" python3 -c "import json,sys; d=json.load(open('$work/out')); assert d['capture']['rdcc_packets']==11; r=d['receivers'][0]; assert r['octets_granted']==1048576 and r['grant_latency']['p50_us']==10.0 and r['outstanding']['peak']==1048576 and r['associations'][0]['association_id']==0x5a17c0de, r"
check "stats on errors.pcap counts ERRORs" run 0 "$rdcc" pcap stats "$p/errors.pcap" --port 50000
check "errors by reason" contains "$work/out" "errors UNKNOWN_ASSOCIATION 1, UNSUPPORTED_TYPE 1"

# ---- stats: received octets from the data packets ------------------------------------------
# data_clean: 0x100 (8 KiB, opaque), 0x101 (64 KiB, opaque), 0x102 (16 KiB, RoCEv2): 90112 octets.
check "stats with the data, over IPv6" run 0 "$rdcc" pcap stats "$p/data_v6_clean.pcap" --port 50000 --data-port 50001
check "received from the data packets (opaque and RoCEv2 in IPv6)" contains "$work/out" "messages 3, octets requested 90112, granted 81920, received 90112 (data packets)"
check "stats with RoCEv2 not read" run 0 "$rdcc" pcap stats "$p/data_clean.pcap" --port 50000 --data-port 50001 --rocev2-port 0
check "the RoCEv2 message from its MSG_DONE, the rest from the data" contains "$work/out" "received 90112 (73728 from data packets, 16384 from MSG_DONE)"
check "stats where MSG_DONE came early" run 0 "$rdcc" pcap stats "$p/data_done_early.pcap" --port 50000 --data-port 50001 --svg "$work/data.svg"
check "the data says what arrived (12 of 16 packets of 0x101), not MSG_DONE" contains "$work/out" "received 73728 (data packets)"
check "the plot: granted against received from the data" contains "$work/data.svg" "received (data packets)"

# ---- check ------------------------------------------------------------------------------
check "clean exchange: no findings" run 0 "$rdcc" pcap check "$p/clean.pcap" --port 50000 --budget 1MiB
check "clean: nothing printed" lines "$work/out" 0
check "clean: the summary" contains "$work/err" "0 findings in 11 RDCC packets and 0 data packets (0 not related to a request), 0 NACKs, of 11 frames"
check "budget exceeded" run 1 "$rdcc" pcap check "$p/clean.pcap" --port 50000 --budget 512KiB
check "RDCC-BUDGET-01 at frame 6" contains "$work/out" "RDCC-BUDGET-01 frames 3,6 (t=0.000050000): receiver outstanding credit 1048576 exceeds G = 524288 at 10.0.0.1:50000"
check "budget: the catalog ID and the spec sentence" contains "$work/out" "spec (Receiver Credit Budget; MUST): \"$(catalog_text RDCC-BUDGET-01)\""
check "budget: only frame 6" test "$(grep -c '^RDCC-' "$work/out")" -eq 1
check "grant beyond the length" run 1 "$rdcc" pcap check "$p/grant_beyond.pcap" --port 50000 --budget 4MiB
check "RDCC-GRANT-07 frames 3,6" contains "$work/out" "RDCC-GRANT-07 frames 3,6 "
check "and FINAL below... beyond" contains "$work/out" "RDCC-GRANT-12 frames 3,6 "
check "FINAL missing" run 1 "$rdcc" pcap check "$p/final_missing.pcap" --port 50000 --budget 4MiB
check "RDCC-GRANT-12 frames 3,6" contains "$work/out" "RDCC-GRANT-12 frames 3,6 (t=0.000050000): FINAL missing at the message length"
check "FINAL missing: one finding" test "$(grep -c '^RDCC-' "$work/out")" -eq 1
# A lower Grant Limit "only refreshes the Lifetime and Pacing Rate" (rule 1): no fault.
check "a lower grant is no finding" run 0 "$rdcc" pcap check "$p/reduced.pcap" --port 50000 --budget 4MiB
check "lower grant: nothing printed" lines "$work/out" 0
check "stale sequence number" run 1 "$rdcc" pcap check "$p/stale_seq.pcap" --port 50000 --budget 4MiB
check "RDCC-FMT-06 frames 4,5" contains "$work/out" "RDCC-FMT-06 frames 4,5 (t=0.000040000): Sequence Number 1 from the receiver is not newer than 1, which it sent before"
check "stale: one finding" test "$(grep -c '^RDCC-' "$work/out")" -eq 1
check "MSG_DONE before all octets" run 1 "$rdcc" pcap check "$p/done_early.pcap" --port 50000 --budget 4MiB
check "RDCC-GRANT-13 frames 3,7" contains "$work/out" "RDCC-GRANT-13 frames 3,7 (t=0.000060000): MSG_DONE after 524288 of 1048576 octets"
# "Senders MUST set the UDP checksum" (RDCC-FMT-01) binds RDCC senders (spec-notes 34): the
# sender's zero checksum is a finding, the receiver's a note.
check "zero UDP checksums" run 1 "$rdcc" pcap check "$p/zero_checksum.pcap" --port 50000 --budget 4MiB
check "RDCC-FMT-01 frame 3, the sender's" contains "$work/out" "RDCC-FMT-01 frame 3 (t=0.000020000): UDP checksum is zero (not set) on CREDIT_REQUEST"
check "zero checksums: one finding" test "$(grep -c '^RDCC-' "$work/out")" -eq 1
check "the receiver's zero checksum is a note" contains "$work/err" "note: frame 4: UDP checksum is zero (not set) on CREDIT_GRANT from the receiver"
check "ERROR where not allowed" run 1 "$rdcc" pcap check "$p/errors.pcap" --port 50000 --budget 4MiB
check "RDCC-ERR-08 frame 8" contains "$work/out" "RDCC-ERR-08 frame 8 "
check "RDCC-ERR-10 frame 9" contains "$work/out" "RDCC-ERR-10 frame 9 "
check "RDCC-GRANT-13 frame 10" contains "$work/out" "RDCC-GRANT-13 frame 10 "
check "pool grant to a sender that did not advertise POOL" run 1 "$rdcc" pcap check "$p/pool_unadvertised.pcap" --port 50000 --budget 4MiB
check "RDCC-GRANT-08 frames 1,4" contains "$work/out" "RDCC-GRANT-08 frames 1,4 (t=0.000030000): pool grant to a sender whose ASSOC_REQUEST did not advertise POOL: CREDIT_GRANT"
check "pool unadvertised: one finding" test "$(grep -c '^RDCC-' "$work/out")" -eq 1
check "the same grants with POOL advertised: no finding" run 0 "$rdcc" pcap check "$p/clean.pcap" --port 50000 --budget 4MiB
check "POOL flag and Message ID disagree" run 1 "$rdcc" pcap check "$p/pool_message_id.pcap" --port 50000 --budget 4MiB
check "RDCC-GRANT-14 frame 4: POOL with a Message ID" contains "$work/out" "RDCC-GRANT-14 frame 4 (t=0.000030000): the POOL flag with Message ID 257: the sender ignores the grant"
check "RDCC-GRANT-14 frame 5: Message ID zero without POOL" contains "$work/out" "RDCC-GRANT-14 frame 5 (t=0.000040000): Message ID zero without the POOL flag: the sender ignores the grant"
check "check --json" run 1 "$rdcc" pcap check "$p/final_missing.pcap" --port 50000 --budget 4MiB --json
check "JSON finding" contains "$work/out" '{"rule":"RDCC-GRANT-12","level":"RULE","frames":[3,6],"time":5e-05,'

# ---- check with the data packets (opaque on 50001, RoCEv2 on 4791) ------------------------
d="--port 50000 --data-port 50001"
check "data: clean exchange, no findings" run 0 "$rdcc" pcap check "$p/data_clean.pcap" $d --budget 1MiB
check "data: every data packet related to its message" contains "$work/err" "0 findings in 11 RDCC packets and 26 data packets (0 not related to a request), 0 NACKs, of 37 frames"
check "data: octets counted from the data keep a 32 KiB budget" run 0 "$rdcc" pcap check "$p/data_clean.pcap" $d --budget 32KiB
check "data: without the data, MSG_DONE alone exceeds it" run 1 "$rdcc" pcap check "$p/data_clean.pcap" --port 50000 --budget 32KiB --rocev2-port 0
check "data: the budget finding says why" contains "$work/out" "RDCC-BUDGET-01 frames 7,17 (t=0.000363000): receiver outstanding credit 65536 exceeds G = 32768 at 10.0.0.1:50000 (octets of messages whose data is not in the capture"
check "data: budget exceeded" run 1 "$rdcc" pcap check "$p/data_clean.pcap" $d --budget 24KiB
check "RDCC-BUDGET-01 at the first grant" contains "$work/out" "RDCC-BUDGET-01 frames 7,8 (t=0.000063000): receiver outstanding credit 32768 exceeds G = 24576 at 10.0.0.1:50000"
check "data beyond the grant" run 1 "$rdcc" pcap check "$p/data_beyond_grant.pcap" $d --budget 1MiB
check "RDCC-GRANT-03 frames 7,8,17" contains "$work/out" "RDCC-GRANT-03 frames 7,8,17 (t=0.000393000): octets 32768..36864 of message 257 sent with Grant Limit 32768"
check "beyond the grant: one finding" test "$(grep -c '^RDCC-' "$work/out")" -eq 1
check "data after the Lifetime" run 1 "$rdcc" pcap check "$p/data_after_lifetime.pcap" $d --budget 1MiB
# The Lifetime runs from the first data only the grant authorized (frame 9, 10 us after the
# grant): a capture does not see when the sender read the grant (docs/spec-notes.md, "A tester
# on real sockets does not see when a grant was read").
check "RDCC-GRANT-04 frames 7,8,12" contains "$work/out" "RDCC-GRANT-04 frames 7,8,12 (t=0.000193000): octets 12288..16384 of message 257 sent 20.0 us after the Lifetime of its grant (Grant Limit 32768) had elapsed, counted from the first data only that grant authorized"
check "the spec sentence of rule 3, from the catalog" contains "$work/out" "spec (Credit Requests and Grants, rule 3; MUST NOT): \"$(catalog_text RDCC-GRANT-04)\""
check "after the Lifetime: later packets summed up" contains "$work/err" "note: 4 later data-packet findings of the same rule and message not shown"
check "capture slack moves the limit" run 1 "$rdcc" pcap check "$p/data_after_lifetime.pcap" $d --budget 1MiB --capture-slack 100
check "slack 100 us: the first packet past it" contains "$work/out" "RDCC-GRANT-04 frames 7,8,14 (t=0.000273000): octets 20480..24576 of message 257 sent 100.0 us after the Lifetime of its grant (Grant Limit 32768) had elapsed, counted from the first data only that grant authorized (tolerance 100.0 us)"
check "D_max sets the default slack" run 0 "$rdcc" pcap check "$p/data_after_lifetime.pcap" $d --budget 1MiB --d-max 200
check "two unscheduled messages outstanding" run 1 "$rdcc" pcap check "$p/data_two_unscheduled.pcap" $d --budget 1MiB
check "RDCC-UNSCHED-03 frames 3,6" contains "$work/out" "RDCC-UNSCHED-03 frames 3,6 (t=0.000043000): unscheduled message 259 announced while message 256 is still outstanding"
check "two unscheduled: one finding" test "$(grep -c '^RDCC-' "$work/out")" -eq 1
check "unscheduled beyond U" run 1 "$rdcc" pcap check "$p/data_unscheduled_beyond_u.pcap" $d --budget 1MiB
check "RDCC-MODE-03 frames 3,4" contains "$work/out" "RDCC-MODE-03 frames 3,4 (t=0.000023000): unscheduled message of 8192 octets with U = 4096"
check "beyond U: one finding" test "$(grep -c '^RDCC-' "$work/out")" -eq 1
check "pacing too fast" run 1 "$rdcc" pcap check "$p/data_pacing.pcap" $d --budget 1MiB
check "RDCC-GRANT-05 frames 7,17,21" contains "$work/out" "RDCC-GRANT-05 frames 7,17,21 (t=0.000103000): 49152 octets of message 257 within the transmission time of ten Credit Units at 1000 Mbit/s"
check "pacing: one finding" test "$(grep -c '^RDCC-' "$work/out")" -eq 1
check "MSG_DONE before all octets arrived" run 1 "$rdcc" pcap check "$p/data_done_early.pcap" $d --budget 1MiB
check "RDCC-GRANT-13 frames 7,22" contains "$work/out" "RDCC-GRANT-13 frames 7,22 (t=0.000503000): MSG_DONE after 49152 of 65536 octets"
check "done early: one finding" test "$(grep -c '^RDCC-' "$work/out")" -eq 1
check "RoCEv2 overrun" run 1 "$rdcc" pcap check "$p/data_rocev2_overrun.pcap" $d --budget 1MiB
check "RDCC-GRANT-03 frames 27,28,33" contains "$work/out" "RDCC-GRANT-03 frames 27,28,33 (t=0.000783000): octets 8192..10240 of message 258 sent with Grant Limit 8192"
check "RoCEv2 overrun: one finding" test "$(grep -c '^RDCC-' "$work/out")" -eq 1
check "RoCEv2 on another port is not read" run 0 "$rdcc" pcap check "$p/data_rocev2_overrun.pcap" $d --budget 1MiB --rocev2-port 4792
# RoCEv2 data seen before its request (spec-notes 69, 70): on the path (--network-effects)
# it is related to its message once the request is in, judged at the request's time (a
# scheduled message's data before its grant is beyond the credit), and counted as received.
check "RoCEv2 before its request, on the path" run 1 "$rdcc" pcap check "$p/data_rocev2_early.pcap" $d --budget 1MiB --network-effects
check "RoCEv2 early: every packet related to its message" contains "$work/err" "1 findings in 11 RDCC packets and 26 data packets (0 not related to a request), 0 NACKs, of 37 frames"
check "RoCEv2 early: judged at the request, named by the data's frame" contains "$work/out" "RDCC-GRANT-03 frames 29,27 (t=0.000713000): octets 0..2048 of message 258 sent with no grant within its Lifetime"
check "RoCEv2 early: its octets received (no RDCC-GRANT-13)" test "$(grep -c '^RDCC-' "$work/out")" -eq 1
check "data --json" run 1 "$rdcc" pcap check "$p/data_beyond_grant.pcap" $d --budget 1MiB --json
check "JSON data finding" contains "$work/out" '{"rule":"RDCC-GRANT-03","level":"MUST NOT","frames":[7,8,17],"time":0.000393,'
check "data cut by the snap length: still read" run 0 "$rdcc" pcap check "$p/data_clean_snap.pcap" $d --budget 32KiB
check "cut: every data packet read" contains "$work/err" "0 findings in 11 RDCC packets and 26 data packets (0 not related to a request), 0 NACKs, of 37 frames (0 malformed frames)"
check "cut RoCEv2 overrun: found without the ICRC" run 1 "$rdcc" pcap check "$p/data_rocev2_overrun_snap.pcap" $d --budget 1MiB
check "cut: RDCC-GRANT-03 frames 27,28,33" contains "$work/out" "RDCC-GRANT-03 frames 27,28,33 (t=0.000783000): octets 8192..10240 of message 258"
check "cut data frames are malformed to dump (not RDCC)" run 0 "$rdcc" pcap dump "$p/data_clean_snap.pcap" --port 50000
check "dump: eleven RDCC packets, the cut data frames named" contains "$work/out" "4  0.000023000  malformed frame: IPv4 total length is beyond the captured frame (cut by the snap length?)"
check "a bad --data-port is bad usage" run 2 "$rdcc" pcap check "$p/data_clean.pcap" --port 50000 --data-port 0 --budget 1MiB
# The same exchanges over IPv6 (opaque in UDP/IPv6, RoCEv2 in UDP 4791 inside IPv6): the data
# rules hold as over IPv4, at the same frames.
check "IPv6 data: clean exchange, no findings" run 0 "$rdcc" pcap check "$p/data_v6_clean.pcap" $d --budget 1MiB
check "IPv6 data: every data packet read (18 opaque, 8 RoCEv2) and related" contains "$work/err" "0 findings in 11 RDCC packets and 26 data packets (0 not related to a request), 0 NACKs, of 37 frames"
check "IPv6 data: octets counted from the data (RoCEv2 too) keep a 32 KiB budget" run 0 "$rdcc" pcap check "$p/data_v6_clean.pcap" $d --budget 32KiB
check "IPv6 data: without the data, MSG_DONE alone exceeds it" run 1 "$rdcc" pcap check "$p/data_v6_clean.pcap" --port 50000 --budget 32KiB --rocev2-port 0
check "IPv6 data beyond the grant" run 1 "$rdcc" pcap check "$p/data_v6_beyond_grant.pcap" $d --budget 1MiB
check "IPv6: RDCC-GRANT-03 frames 7,8,17" contains "$work/out" "RDCC-GRANT-03 frames 7,8,17 (t=0.000393000): octets 32768..36864 of message 257 sent with Grant Limit 32768 ([2001:db8::2]:40000 → [2001:db8::1]:50000"
check "IPv6 RoCEv2 overrun" run 1 "$rdcc" pcap check "$p/data_v6_rocev2_overrun.pcap" $d --budget 1MiB
check "IPv6 RoCEv2: RDCC-GRANT-03 frames 27,28,33" contains "$work/out" "RDCC-GRANT-03 frames 27,28,33 (t=0.000783000): octets 8192..10240 of message 258 sent with Grant Limit 8192 ([2001:db8::2]:40000 → [2001:db8::1]:50000"
check "IPv6 RoCEv2 overrun: one finding" test "$(grep -c '^RDCC-' "$work/out")" -eq 1
check "IPv6 RoCEv2: no packet left unread" lacks "$work/err" "not checked"
check "cut IPv6 RoCEv2 overrun: found without the ICRC" run 1 "$rdcc" pcap check "$p/data_v6_rocev2_overrun_snap.pcap" $d --budget 1MiB
check "cut IPv6: RDCC-GRANT-03 frames 27,28,33" contains "$work/out" "RDCC-GRANT-03 frames 27,28,33 (t=0.000783000)"

# ---- the golden captures, where they exist ------------------------------------------------
if [ -f "$src/pcaps/appendix_exchange.pcap" ]; then
  check "golden appendix exchange: no findings" run 0 "$rdcc" pcap check "$src/pcaps/appendix_exchange.pcap" --port 50000 --budget 4MiB
  check "golden appendix exchange: dump" run 0 "$rdcc" pcap dump "$src/pcaps/appendix_exchange.pcap" --port 50000
  check "golden appendix: 22 packets" lines "$work/out" 22
fi
# The simulator's captures (they keep 128 octets of data packets; D_max 20 us, G 512 KiB or
# 1 MiB): their data is read and nothing is found.
for golden in "$src"/pcaps/sim_*.pcap; do
  [ -f "$golden" ] || continue
  name=$(basename "$golden")
  check "golden $name: no findings with its data" run 0 "$rdcc" pcap check "$golden" --port 50000 --data-port 50001 --budget 512KiB --d-max 20
  check "golden $name: every data packet related to a request" contains "$work/err" " not related to a request), 0 NACKs, of "
  check "golden $name: data read" lacks "$work/err" "and 0 data packets"
  check "golden $name: none unrelated" contains "$work/err" "(0 not related to a request)"
done
# stats on the simulator's captures: received octets from their data packets, against the
# generator's totals and against an independent count from tshark (per message, the highest
# Offset + Payload Length of its opaque packets, read from the UDP payload).
if [ -f "$src/pcaps/sim_incast_crn.pcap" ]; then
  check "golden incast: stats with the data" run 0 "$rdcc" pcap stats "$src/pcaps/sim_incast_crn.pcap" --port 50000 --data-port 50001
  check "golden incast: eight 96 KiB messages received, from the data" contains "$work/out" "messages 8, octets requested 786432, granted 786432, received 786432 (data packets)"
fi
if [ -f "$src/pcaps/sim_rocev2.pcap" ]; then
  check "golden RoCEv2: stats with the data" run 0 "$rdcc" pcap stats "$src/pcaps/sim_rocev2.pcap" --port 50000
  check "golden RoCEv2: the 256 KiB message received, from the RoCEv2 packets" contains "$work/out" "messages 1, octets requested 262144, granted 262144, received 262144 (data packets)"
fi
opaque_octets() {  # tshark's view: the sum over messages of the highest end of their data
  tshark -r "$1" -Y "udp.dstport==50001" -T fields -e ip.src -e ip.dst -e udp.payload 2>/dev/null |
    python3 -c '
import sys
end = {}
for line in sys.stdin:
    src, dst, payload = line.split()
    b = bytes.fromhex(payload[:48])
    key = (src, dst, int.from_bytes(b[8:16], "big"))
    end[key] = max(end.get(key, 0), int.from_bytes(b[16:24], "big") + int.from_bytes(b[4:8], "big"))
print(sum(end.values()))'
}
if command -v tshark >/dev/null 2>&1; then
  for golden in sim_all_types sim_restart sim_incast_crn; do
    [ -f "$src/pcaps/$golden.pcap" ] || continue
    want=$(opaque_octets "$src/pcaps/$golden.pcap")
    check "golden $golden: stats --json with the data" run 0 "$rdcc" pcap stats "$src/pcaps/$golden.pcap" --port 50000 --data-port 50001 --json
    check "golden $golden: received from the data = tshark's count ($want)" python3 -c "import json; d=json.load(open('$work/out')); got=sum(r['octets_received_data'] for r in d['receivers']); assert got == $want and $want > 0, (got, $want)"
  done
fi
for golden in boundary malformed ordinary_udp; do
  if [ -f "$src/pcaps/$golden.pcap" ]; then
    check "golden $golden: dump does not crash" run 0 "$rdcc" pcap dump "$src/pcaps/$golden.pcap" --heuristic
    check "golden $golden: stats" run 0 "$rdcc" pcap stats "$src/pcaps/$golden.pcap" --port 50000 --json
  fi
done

finish pcap_test
