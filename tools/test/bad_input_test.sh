#!/usr/bin/env bash
# Bad input to every reader of JSON and scenarios (issue 30 item 5; the reliability audit's rows
# 5.2-5.6): nesting far beyond the bound (100,000 deep, 200 KB) and documents and lines beyond
# their length get a clear error naming what and where, never a crash, from `rdcc encode`,
# `rdcc sim`, `--config`, `--data-framing`, `rdcc-conform` (catalog, scenarios) and the upper
# testers of running nodes (the sender's over TCP, the receiver's on stdio), which answer
# bad_request and keep serving, holding no more than the bound of a long line. `rdcc pcap
# check` prints its notes as it finds them. Memory is read from the kernel (VmHWM, time -v).
# Usage: bad_input_test.sh RDCC RDCC_CONFORM SOURCE_DIR
set -u
rdcc=$1
conform=$2
src=$3
. "$(dirname "$0")/lib.sh"
# Debian's interpreter where there is one: a pyenv shim takes seconds to start on a loaded host.
python3() { if [ -x /usr/bin/python3 ]; then /usr/bin/python3 "$@"; else command python3 "$@"; fi; }
. "$(dirname "$0")/nodes_lib.sh"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT

deep() { python3 -c 'import sys; d = int(sys.argv[1]); sys.stdout.write("[" * d + "]" * d)' "$1"; }
deep 100000 >"$work/deep"
deep 63 >"$work/deep63"
nested="nesting deeper than 64 levels"
peak_kb() { /usr/bin/time -f %M -o "$work/rss" "$@" >"$work/out" 2>"$work/err"; tail -n 1 "$work/rss"; }
below() { test "$1" -lt "$2"; }  # below VALUE LIMIT
short_err() { test "$(wc -c <"$work/err")" -lt "$1"; }  # the error echoes no more than this

# ---- rdcc encode: an argument, a file, JSON lines ----------------------------------------------
check "encode: value nested 60,000 deep in the argument" run 1 "$rdcc" encode \
  "{\"type\":\"ERROR\",\"message_id\":$(deep 60000)}"
check "encode: the depth and place named" contains "$work/err" "argument: line 1, column 93: $nested"
printf '{"type":"ERROR","message_id":%s}' "$(cat "$work/deep")" >"$work/encode.json"
check "encode --input: nested value" run 1 "$rdcc" encode --input "$work/encode.json"
check "encode --input: named" contains "$work/err" "$nested"
printf '{"type":"MSG_DONE","message_id":1}\n%s\n' "$(cat "$work/deep")" >"$work/lines.json"
check "encode: a JSON line nested 100,000 deep" run 1 "$rdcc" encode --input "$work/lines.json"
check "encode: its line named" contains "$work/err" "line 2: line 1, column 65: $nested"
check "encode: 64 deep is read, and refused as a message" run 1 "$rdcc" encode \
  "{\"type\":\"ERROR\",\"message_id\":$(cat "$work/deep63")}"
check "encode: the key named" contains "$work/err" "message_id"
python3 -c 'import sys; open(sys.argv[1], "wb").write(b"[" * (20 << 20))' "$work/open20m"
rss=$(peak_kb timeout 60 "$rdcc" encode --input "$work/open20m")
check "encode: 20 MiB of '[' refused" contains "$work/err" "longer than the limit of 16777216 octets"
check "encode: 20 MiB of '[' in bounded memory (${rss} kB)" below "$rss" 100000

# ---- rdcc sim: a file and standard input ----------------------------------------------------
printf '{"seed":%s}' "$(cat "$work/deep")" >"$work/sim.json"
check "sim: nested value" run 2 "$rdcc" sim "$work/sim.json"
check "sim: file, line, column and depth named" contains "$work/err" "sim.json:1:72: $nested"
check "sim -: nested value" run 2 "$rdcc" sim - <"$work/sim.json"
check "sim -: named" contains "$work/err" "standard input:1:72: $nested"
rss=$(peak_kb timeout 60 "$rdcc" sim "$work/open20m")
check "sim: 20 MiB of '[' refused" contains "$work/err" "longer than the limit of 16777216 octets"
check "sim: 20 MiB of '[' in bounded memory (${rss} kB)" below "$rss" 100000

# ---- node --config, --data-framing, rdcc-conform's catalog and scenarios ----------------------
printf '{"budget":%s}' "$(cat "$work/deep")" >"$work/config.json"
check "receiver --config: nested value" run 2 "$rdcc" receiver --config "$work/config.json" --print-config
check "receiver --config: named" contains "$work/err" "config.json: not JSON: line 1, column 74: $nested"
python3 -c 'import sys; open(sys.argv[1], "w").write(" " * (17 << 20) + "{}")' "$work/big.json"
check "receiver --config: 17 MiB refused" run 2 "$rdcc" receiver --config "$work/big.json" --print-config
check "receiver --config: the limit named" contains "$work/err" "big.json: the file is longer than the limit of 16777216 octets"
printf '{"header_length":%s}' "$(cat "$work/deep")" >"$work/framing.json"
check "pcap check --data-framing: nested value" run 2 "$rdcc" pcap check "$src/pcaps/appendix_exchange.pcap" \
  --port 50000 -G 4MiB --data-port 50001 --data-framing "$work/framing.json"
check "pcap check --data-framing: named" contains "$work/err" "framing.json: not valid JSON: line 1, column 81: $nested"
check "rdcc-conform --data-framing: nested value" run 2 "$conform" --iut reference \
  --data-framing "$work/framing.json" --filter receiver-assoc-idempotent
check "rdcc-conform --data-framing: named" contains "$work/err" "$nested"
check "rdcc-conform --catalog: nested" run 2 "$conform" --iut reference --catalog "$work/deep" --list
check "rdcc-conform --catalog: named" contains "$work/err" "deep: not valid JSON: line 1, column 65: $nested"
mkdir -p "$work/scn-line" "$work/scn-binary" "$work/scn-paren" "$work/scn-token"
python3 - "$work" <<'PY'
import os, random, sys
w = sys.argv[1]
head = "scenario s\nrole receiver\nchecks RDCC-ASSOC-01\n"
step = "send ASSOC_REQUEST sender_nonce=1\n"
open(os.path.join(w, "scn-line", "s.scn"), "w").write(head + 'description "' + "x" * (1 << 20) + '"\n' + step)
open(os.path.join(w, "scn-binary", "s.scn"), "wb").write(random.Random(5).randbytes(1 << 20))
open(os.path.join(w, "scn-paren", "s.scn"), "w").write(head + "send ASSOC_REQUEST sender_nonce=" + "(" * 100000 + "1" + ")" * 100000 + "\n")
open(os.path.join(w, "scn-token", "s.scn"), "w").write(head + "send ASSOC_REQUEST sender_nonce=" + "(" * 20000 + "1" + ")" * 20000 + "\n")
PY
check "scenario: a 1 MiB line refused" run 2 "$conform" --iut reference --scenarios "$work/scn-line" --list
check "scenario: the line and the limit named" contains "$work/err" "s.scn:4:1: the line is 1048590 octets, longer than the limit of 65536"
check "scenario: binary refused" run 2 "$conform" --iut reference --scenarios "$work/scn-binary" --list
check "scenario: binary not echoed" short_err 600
check "scenario: 100,000 parentheses refused" run 2 "$conform" --iut reference --scenarios "$work/scn-paren" --list
check "scenario: by the line's length" contains "$work/err" "s.scn:4:1: the line is 200033 octets, longer than the limit of 65536"
check "scenario: 20,000 parentheses refused" run 2 "$conform" --iut reference --scenarios "$work/scn-token" --list
check "scenario: the token cut" short_err 600
check "scenario: the token's size named" contains "$work/err" "octets)"

# ---- a running sender: its upper tester over TCP ------------------------------------------------
rdcc_port=$(free_port)
data_port=$(free_port)
upper=$(free_port)
"$rdcc" sender --address 127.0.0.1 --rdcc-port "$rdcc_port" --data-port "$data_port" --line-rate 1000 \
  --upper-tester "tcp:127.0.0.1:$upper" 2>"$work/sender.err" &
sender=$!
pids+=("$sender")
check "sender ready" wait_for "$work/sender.err" "upper_tester"
# Sends PAYLOAD (a file) on one connection, prints the first answer line; 20 s at most.
ask_tcp() {
  python3 - "$upper" "$1" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=20)
s.sendall(open(sys.argv[2], "rb").read())
print(s.makefile("r").readline().strip())
PY
}
hwm_kb() { awk '/^VmHWM/ {print $2}' "/proc/$1/status"; }
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
printf '{"op":"hello","id":%s}\n' "$(cat "$work/deep")" >"$work/req"
ask_tcp "$work/req" >"$work/reply"
check "sender: nested id answered bad_request" json_check "$work/reply" \
  '.error == "bad_request" and (.detail | startswith("not JSON: line 1, column 83: nesting deeper"))'
printf '{"op":"hello"}\n' >"$work/hello"
ask_tcp "$work/hello" >"$work/reply"
check "sender: still serving after it" json_check "$work/reply" '.ok and .role == "sender"'
python3 -c 'import sys; open(sys.argv[1], "wb").write(b"[" * (20 << 20) + b"\n")' "$work/req"
ask_tcp "$work/req" >"$work/reply"
check "sender: a 20 MiB line answered bad_request" json_check "$work/reply" \
  '.detail == "the line is 20971520 octets, longer than the limit of 1048576"'
hwm=$(hwm_kb "$sender")
check "sender: the 20 MiB line never held (peak ${hwm} kB)" below "$hwm" 100000
# 64 MiB with no newline, the connection kept open: nothing of it is kept.
python3 - "$upper" >"$work/reply" <<'PY' &
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=20)
s.sendall(b"x" * (64 << 20))
time.sleep(1)
s.sendall(b"\n")
print(s.makefile("r").readline().strip())
PY
client=$!
sleep 0.8
rss=$(rss_kb "$sender")
wait "$client"
check "sender: 64 MiB without a newline not buffered (${rss} kB)" below "$rss" 100000
check "sender: then refused" json_check "$work/reply" '.detail == "the line is 67108864 octets, longer than the limit of 1048576"'
ask_tcp "$work/hello" >"$work/reply"
check "sender: serving at the end" json_check "$work/reply" '.ok'
check "sender: alive" kill -0 "$sender"

# ---- a running receiver: its upper tester on stdio -------------------------------------------------
mkfifo "$work/in"
"$rdcc" receiver --address 127.0.0.1 --rdcc-port "$(free_port)" --data-port "$(free_port)" \
  --budget 4194304 --unscheduled-budget 1048576 --link-capacity 1000 --unscheduled-limit 65536 \
  --start-jitter 10 --backlog-threshold 1048576 --grant-lifetime 1000 --credit-unit 4096 --d-max 20 \
  --upper-tester stdio \
  <"$work/in" >"$work/receiver.out" 2>"$work/receiver.err" &
receiver=$!
pids+=("$receiver")
exec 3>"$work/in"
printf '{"op":"stats","id":%s}\n' "$(cat "$work/deep")" >&3
printf '\xff\xfe{\n' >&3
printf '{"op":"hello","id":7}\n' >&3
check "receiver: answers all three" wait_for "$work/receiver.out" '"id":7'
check "receiver: nested id answered bad_request" json_check <(sed -n 1p "$work/receiver.out") \
  '.error == "bad_request" and (.detail | contains("nesting deeper than 64 levels"))'
check "receiver: a line that is not UTF-8 answered bad_request" json_check <(sed -n 2p "$work/receiver.out") \
  '.error == "bad_request"'
check "receiver: then hello" json_check "$work/receiver.out" '.ok and .role == "receiver"'
exec 3>&-
check "receiver: ends at the end of its input" wait "$receiver"

# ---- rdcc pcap check: notes as found, in bounded memory -----------------------------------------
# A pcap header and 2M empty records (a sparse file): 2M notes; the first are printed as found.
python3 -c "import struct, sys; f = open(sys.argv[1], 'wb'); f.write(struct.pack('<IHHiIII', 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)); f.truncate(24 + 16 * (2 << 20))" "$work/sparse.pcap"
rss=$(peak_kb timeout 60 "$rdcc" pcap check "$work/sparse.pcap" --port 50000 -G 4MiB)
check "pcap check: sparse capture, first note printed" contains "$work/err" "rdcc pcap check: note: frame 1: malformed frame"
check "pcap check: later notes counted" contains "$work/err" "note: 2096152 later notes not shown (the first 1000 are)"
check "pcap check: 2M malformed frames in bounded memory (${rss} kB)" below "$rss" 100000

finish bad_input
