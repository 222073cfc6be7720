#!/usr/bin/env bash
# Packets per second of tshark on a capture of RDCC traffic: with RDCC left undissected (UDP
# payload only), with the C plugin, and with the Lua dissector. Not run by ctest: it takes
# minutes.
#
#   dissector/bench.sh BUILD_DIR [PACKETS]     (default 1000000 packets)
set -euo pipefail
build=${1:?usage: dissector/bench.sh BUILD_DIR [PACKETS]}
packets=${2:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
gen="$build/pcaps/rdcc-gen-pcaps"
plugin="$build/dissector/plugins"
for f in "$gen" "$plugin"; do
  [ -e "$f" ] || { echo "bench: $f is missing: build first (cmake --build $build)" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
as_user=()
if [ "$(id -u)" -eq 0 ]; then as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups); fi
release=$(tshark -v 2>/dev/null | sed -n '1s/.* \([0-9]*\.[0-9]*\)\..*/\1/p')
for d in none c lua; do mkdir -p "$work/home-$d/.config/wireshark"; done
mkdir -p "$work/home-c/.local/lib/wireshark/plugins/$release/epan"
cp "$plugin/$release/epan/rdcc.so" "$work/home-c/.local/lib/wireshark/plugins/$release/epan/"
cp "$here/lua/rdcc.lua" "$work/rdcc.lua"
chmod -R a+rwX "$work"

"$gen" --bench "$packets" "$work/bench.pcap"
echo "capture: $packets packets, $(du -h "$work/bench.pcap" | cut -f1)"

# measure NAME HOME ARGS...: a full dissection (-V, output discarded), as a user would filter.
measure() {
  local name=$1 home=$2
  shift 2
  local start end
  start=$(date +%s.%N)
  "${as_user[@]}" env HOME="$home" tshark -r "$work/bench.pcap" "$@" -V >/dev/null 2>"$work/err"
  end=$(date +%s.%N)
  if grep -qiE "dissector bug|lua error" "$work/err"; then cat "$work/err" >&2; exit 1; fi
  awk -v n="$packets" -v s="$start" -v e="$end" -v name="$name" \
    'BEGIN { t = e - s; printf "%-34s %8.2f s %10.0f packets/s\n", name, t, n / t }' |
    tee -a "$work/results"
}

measure "tshark, RDCC undissected" "$work/home-none"
measure "tshark + C plugin" "$work/home-c" -o rdcc.udp.port:50000
measure "tshark + Lua dissector" "$work/home-lua" -X "lua_script:$work/rdcc.lua" \
  -o rdcc.udp.port:50000
awk 'NR == 1 { base = $(NF-1) } NR > 1 { name = $0; sub(/ +[0-9.]+ s .*/, "", name);
     printf "%-34s %5.2f of the undissected rate\n", name, $(NF-1) / base }' "$work/results"
