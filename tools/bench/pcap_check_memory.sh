#!/usr/bin/env bash
# Peak memory of `rdcc pcap check` on a large capture (issue 19, item 7): what the check keeps
# must grow with the messages live at once, not with the capture (target: under 200 MB on 10M
# packets of about 2M messages). pcap_bench writes the capture (Ethernet / IPv4 / UDP, 64
# associations, 1 us apart: a scheduled message is a CREDIT_REQUEST, four CREDIT_GRANTs and a
# MSG_DONE, every 4th a small unscheduled one, a CREDIT_REQUEST and a MSG_DONE: 5 packets a
# message on average); the check runs under /usr/bin/time -v. Prints packets, messages,
# findings, wall time and peak RSS. The capture (about 1 GB at 10M packets) is deleted after.
# A measurement, not a test.
#
# Usage: pcap_check_memory.sh RDCC PCAP_BENCH [PACKETS] [RDCC ...]
#   PACKETS: default 10000000; further RDCC binaries are measured on the same capture (an
#   older build, to compare).
set -eu
rdcc=$1
bench=$2
packets=${3:-10000000}
shift 2
[ $# -gt 0 ] && shift
others=("$@")
work=$(mktemp -d /tmp/rdcc_pcap_check_memory.XXXXXX)
trap 'rm -rf "$work"' EXIT
capture="$work/big.pcap"
need=$((packets * 120 / 1000000))  # MB, with room
avail=$(df -Pm "$work" | awk 'NR == 2 {print $4}')
if [ "$avail" -lt "$need" ]; then
  echo "pcap_check_memory: $work has $avail MB free, the capture needs about $need MB" >&2
  exit 2
fi
line=$("$bench" --packets "$packets" --unscheduled 4 --keep "$capture" --capture-only)
messages=$(echo "$line" | sed -n 's/.*, \([0-9]*\) messages$/\1/p')
echo "capture: $packets packets, $messages messages, $(du -m "$capture" | cut -f1) MB"
for bin in "$rdcc" "${others[@]}"; do
  /usr/bin/time -v "$bin" pcap check "$capture" --port 50000 --budget 1GiB \
    >"$work/out" 2>"$work/err" || true
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/err")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/err")
  summary=$(grep '^rdcc pcap check: .* findings in' "$work/err" | sed 's/^rdcc pcap check: [^:]*: //')
  echo "$bin: $summary"
  echo "  packets $packets  messages $messages  wall $wall  peak RSS $((rss / 1024)) MB ($rss kB)"
done
