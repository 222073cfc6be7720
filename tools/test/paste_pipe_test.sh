#!/usr/bin/env bash
# The command line where people paste and pipe:
#  - `rdcc decode` of hex dumps made here by the real tools from a real capture: `tshark -x` of
#    whole Ethernet frames (the UDP payload is decoded), `xxd`, `xxd -p` and `hexdump -C` of
#    the RDCC payloads and `xxd -p` of a whole frame (a run of zeros makes hexdump write its "*" line); a dump with a line missing is
#    an error that names the line;
#  - '-' is standard input for every file argument (decode, pcap check/dump/stats, sim);
#  - streaming: `rdcc pcap check -` and `pcap dump -` read a pcap written into a FIFO in two
#    steps, and the findings (lines) of the first packets are read from the output FIFO while
#    the writer still holds the input open: they came before the capture ended. Nothing sleeps;
#    `read -t` only bounds a hang.
#
# Usage: paste_pipe_test.sh RDCC_BINARY SOURCE_DIR
set -u
rdcc=$1
src=$2
. "$(dirname "$0")/lib.sh"
pcaps=$src/pcaps
for tool in xxd hexdump tshark editcap; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool not found (scripts/setup.sh installs it)"; exit 1; }
done

# ---- hex dumps -------------------------------------------------------------------------------
# The appendix exchange: 22 RDCC frames on UDP 50000; tshark -x prints each whole frame.
tshark -r "$pcaps/appendix_exchange.pcap" -x >"$work/tshark-x.txt" 2>/dev/null
check "tshark -x of 22 frames: 22 messages" run 0 "$rdcc" decode --line --input "$work/tshark-x.txt"
check "22 lines" lines "$work/out" 22
tshark -r "$pcaps/appendix_exchange.pcap" -d udp.port==50000,data -T fields -e data.data \
  >"$work/payloads.hex" 2>/dev/null
"$rdcc" decode --line --input "$work/payloads.hex" >"$work/want.txt"
check "tshark -x frames decode as their UDP payloads" cmp -s "$work/out" "$work/want.txt"
check "the appendix grant among them" contains "$work/out" \
  "CREDIT_GRANT assoc=0x5a17c0de epoch=3 seq=42 message_id=0x101 grant_limit=262144"
check "frame source named" run 0 "$rdcc" decode - <"$work/tshark-x.txt"
check "source names the UDP addresses" contains "$work/out" \
  "(UDP payload of an Ethernet frame, 10.0.0.2:40000 → 10.0.0.1:50000, frame offset 42)"

# xxd and hexdump -C of each payload (binary files made from tshark's hex).
n=0
while read -r hex; do
  n=$((n + 1))
  echo "$hex" | xxd -r -p >"$work/p$n.bin"
done <"$work/payloads.hex"
: >"$work/xxd-all.txt"
: >"$work/hexdump-all.txt"
for i in $(seq 1 "$n"); do
  xxd "$work/p$i.bin" >>"$work/xxd-all.txt"
  hexdump -C "$work/p$i.bin" >>"$work/hexdump-all.txt"
done
check "xxd of 22 payloads" run 0 "$rdcc" decode --line --input "$work/xxd-all.txt"
check "xxd: the same messages" cmp -s "$work/out" "$work/want.txt"
check "hexdump -C of 22 payloads" run 0 "$rdcc" decode --line - <"$work/hexdump-all.txt"
check "hexdump -C: the same messages" cmp -s "$work/out" "$work/want.txt"

# xxd -p (plain hex, 60 digits a line, a datagram over several lines) of each payload, one
# after the other: the same 22 messages, the 40-octet grant read across its two lines.
: >"$work/xxd-p-all.txt"
for i in $(seq 1 "$n"); do xxd -p "$work/p$i.bin" >>"$work/xxd-p-all.txt"; done
check "xxd -p wrote datagrams over two lines" test "$(wc -l <"$work/xxd-p-all.txt")" -gt "$n"
check "xxd -p of 22 payloads" run 0 "$rdcc" decode --line - <"$work/xxd-p-all.txt"
check "xxd -p: the same messages" cmp -s "$work/out" "$work/want.txt"
# A whole Ethernet frame through xxd -p (frame 6, the appendix grant: 82 octets, three lines).
tshark -r "$pcaps/appendix_exchange.pcap" -Y frame.number==6 -F pcap -w "$work/frame6.pcap" 2>/dev/null
tail -c 82 "$work/frame6.pcap" | xxd -p >"$work/frame6.txt"
check "xxd -p of a frame: three lines" lines "$work/frame6.txt" 3
check "xxd -p of a frame decodes its UDP payload" run 0 "$rdcc" decode --line --input "$work/frame6.txt"
check "the appendix grant from the frame" contains "$work/out" \
  "CREDIT_GRANT assoc=0x5a17c0de epoch=3 seq=42 message_id=0x101 grant_limit=262144"
# A blank line ends a datagram: a 60-digit line then a blank line is one 30-octet datagram.
printf '%s\n\n%s\n' "$(head -c 60 <"$work/xxd-p-all.txt")" "$(sed -n 1p "$work/xxd-p-all.txt")" \
  >"$work/blank.txt"
check "a blank line separates xxd -p datagrams" run 1 "$rdcc" decode --line --input "$work/blank.txt"
check "... the first one alone, cut short" contains "$work/err" "blank.txt line 1"

# hexdump's "*": a CREDIT_REQUEST whose octets 16..47 are zero (two equal lines).
printf '\x10\x03\x00\x38\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01' >"$work/zeros.bin"
head -c 32 /dev/zero >>"$work/zeros.bin"
printf '\x00\x00\x00\x00\x00\x00\x01\x04' >>"$work/zeros.bin"
hexdump -C "$work/zeros.bin" >"$work/zeros.txt"
check "hexdump wrote a '*' line" grep -qx '\*' "$work/zeros.txt"
check "hexdump with '*' decodes" run 0 "$rdcc" decode --json --input "$work/zeros.txt"
check "all 56 octets read" contains "$work/out" '"length":56'
check "the octets after the '*'" contains "$work/out" '"binding_value":260'

# A dump with a line lost in pasting: an error naming the line, not a shifted message.
sed '2d' "$work/tshark-x.txt" | awk 'BEGIN { RS = ""; ORS = "\n\n" } NR == 1' >"$work/lost.txt"
check "a missing line is an error" run 1 "$rdcc" decode --input "$work/lost.txt"
check "the error names the line and the offset" contains "$work/err" \
  "line 2: offset 0x20, but 16 octets were read before it"
printf '00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n*\nffffffff\n' \
  >"$work/huge.txt"
check "a '*' up to a huge offset is an error, not 4 GiB of zeros" run 1 "$rdcc" decode --input "$work/huge.txt"
check "the error names the offset" contains "$work/err" "line 3: offset 0xffffffff is beyond any datagram (1 MiB)"
check "the ASCII column is not read as octets" run 0 "$rdcc" decode --line - <<'EOF'
0000   10 04 00 28 5a 17 c0 de 00 03 00 00 00 00 00 2a   ...(Z..........*
0010   00 00 00 00 00 00 01 01 00 00 00 00 00 04 00 00   ................
0020   00 01 86 a0 00 00 07 d0                           ........
EOF
check "Wireshark's Copy as Hex Dump" contains "$work/out" "grant_limit=262144 pacing_rate=100000 lifetime=2000"

# ---- '-' is standard input ---------------------------------------------------------------------
check "pcap check -" run 1 "$rdcc" pcap check --port 50000 -G 4MiB - <"$pcaps/malformed.pcap"
check "pcap check - names standard input" contains "$work/err" "rdcc pcap check: standard input: 12 findings"
check "pcap stats -" run 0 "$rdcc" pcap stats --port 50000 - <"$pcaps/appendix_exchange.pcap"
check "pcap stats - reads every frame" contains "$work/out" "standard input: 22 frames"
check "pcap dump - through a pipe" run 0 sh -c "cat '$pcaps/appendix_exchange.pcap' | '$rdcc' pcap dump --port 50000 -"
check "22 datagrams dumped" lines "$work/out" 22
check "sim -" run 0 "$rdcc" sim - <"$src/docs/examples/sim/incast-8.json"
check "sim - names standard input" contains "$work/out" "rdcc sim: standard input, seed 1: 8 messages: 8 DONE, 0 ABORTED"
check "encode -i - -o -" run 0 sh -c "echo '{\"type\":\"MSG_DONE\",\"message_id\":5}' | '$rdcc' encode -i - -o -"
check "encode to standard output" contains "$work/out" "10 07 00 20"
check "--data-framing -" run 2 sh -c "echo '{}' | '$rdcc' pcap check --port 50000 -G 4MiB --data-port 50001 --data-framing - '$pcaps/sim_all_types.pcap'"
check "--data-framing - names standard input" contains "$work/err" "standard input"
check "--config - (a node's options from standard input)" run 2 sh -c "echo '{\"no-such-option\": 1}' | '$rdcc' receiver --config - --address 127.0.0.1"
check "--config - read" contains "$work/err" "key 'no-such-option' is not an option of rdcc receiver"
check "a damaged pipe is an error naming it" run 2 "$rdcc" pcap check --port 50000 -G 4MiB - </dev/null
check "damaged: standard input named" contains "$work/err" "standard input: not a readable pcap"

# ---- streaming through FIFOs ---------------------------------------------------------------
# first.pcap: the file header and frames 1-2 (a finding each); the rest: frames 3-34, without
# the file header.
editcap -F pcap -r "$pcaps/malformed.pcap" "$work/first.pcap" 1-2 2>/dev/null
editcap -F pcap -r "$pcaps/malformed.pcap" "$work/rest-whole.pcap" 3-34 2>/dev/null
tail -c +25 "$work/rest-whole.pcap" >"$work/rest.bin"

# stream NAME WANT1 WANT2 CMD...: CMD reads the input FIFO and writes the output FIFO; after the
# first step, the first two lines WANT1... and WANT2... are read while the input is still open.
stream() {
  local name=$1 want1=$2 want2=$3
  shift 3
  rm -f "$work/in" "$work/outfifo"
  mkfifo "$work/in" "$work/outfifo"
  "$@" <"$work/in" >"$work/outfifo" 2>"$work/stream.err" &
  local pid=$!
  exec 3>"$work/in"       # the writer: open until the second step
  exec 4<"$work/outfifo"
  cat "$work/first.pcap" >&3
  local l1="" l2=""
  IFS= read -r -t 60 -u 4 l1
  IFS= read -r -t 60 -u 4 l2
  check "$name: first line before the capture ends" test "${l1#"$want1"}" != "$l1"
  check "$name: second line before the capture ends" test "${l2#"$want2"}" != "$l2"
  cat "$work/rest.bin" >&3
  exec 3>&-
  cat <&4 >"$work/stream.rest"
  exec 4<&-
  wait "$pid"
  stream_status=$?
}
stream "pcap check -" "RDCC-ERR-09 frame 1 " "  spec (Error Handling" \
  "$rdcc" pcap check --port 50000 -G 4MiB -
check "pcap check -: exit 1 (findings)" test "$stream_status" -eq 1
check "pcap check -: the later findings follow" contains "$work/stream.rest" "RDCC-ERR-09 frame 6 "
check "pcap check -: 12 findings in all" contains "$work/stream.err" "standard input: 12 findings in 34 RDCC packets"
stream "pcap dump -" "1 " "2 " "$rdcc" pcap dump --port 50000 -
check "pcap dump -: exit 0" test "$stream_status" -eq 0
check "pcap dump -: 34 lines in all" test "$(($(wc -l <"$work/stream.rest") + 2))" -eq 34

finish paste_pipe_test
