#!/usr/bin/env bash
# Peak memory and time of `rdcc pcap check` on a damaged capture (issue 30 item 5; the
# reliability audit's row 5.2): a valid pcap header followed by RECORDS empty records, a sparse
# file (1 GB at the default 67,108,862 records, no disk used), each record a malformed frame and
# so a note. The notes are printed as found (the first 1,000; the rest counted), none kept: the
# peak RSS must not grow with the records (before: 9.46 GB at 1 GB, 611 MB at 4M records).
# Runs the check under /usr/bin/time -v and prints records, exit status, wall time, peak RSS and
# the check's last lines. A measurement, not a test.
#
# Usage: pcap_check_sparse.sh RDCC [RECORDS] [RDCC ...]
#   further RDCC binaries are measured on the same capture (an older build, to compare).
set -eu
rdcc=$1
records=${2:-67108862}
shift
[ $# -gt 0 ] && shift
work=$(mktemp -d /tmp/rdcc_pcap_check_sparse.XXXXXX)
trap 'rm -rf "$work"' EXIT
capture="$work/sparse.pcap"
python3 -c "
import struct, sys
f = open(sys.argv[1], 'wb')
f.write(struct.pack('<IHHiIII', 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
f.truncate(24 + 16 * int(sys.argv[2]))" "$capture" "$records"
echo "capture: $records empty records, $(stat -c %s "$capture") octets (sparse)"
for bin in "$rdcc" "$@"; do
  status=0
  /usr/bin/time -v "$bin" pcap check "$capture" --port 50000 -G 4MiB >"$work/out" \
    2>"$work/err" || status=$?
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/err")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/err")
  echo "$bin: exit $status  wall $wall  peak RSS $((rss / 1024)) MB ($rss kB)"
  grep '^rdcc pcap check' "$work/err" | tail -n 2 | sed 's/^/  /'
done
