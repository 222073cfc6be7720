#!/usr/bin/env bash
# rdcc.lua's per-capture state does not grow in tables or strings with the capture: after
# captures of 2,000 and 20,000 RDCC packets (64 associations) it holds the same number of
# tables and strings, and at most 4 numbers per packet. A table per frame or per message made
# the Lua dissector's cost per packet grow with the capture (the garbage collector walks every
# table); this holds that without timing anything. On the smaller capture, read in two passes,
# the C plugin and the Lua dissector also print the same tree (links from the second pass).
#
#   lua_state_test.sh TSHARK PLUGIN_SO LUA_SCRIPT PROBE_SCRIPT GEN_PCAPS
set -euo pipefail
tshark=$1 plugin=$2 lua=$3 probe=$4 gen=$5

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
as_user=()
if [ "$(id -u)" -eq 0 ]; then as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups); fi
for d in c lua; do mkdir -p "$work/home-$d/.config/wireshark"; done
release=$("$tshark" -v 2>/dev/null | sed -n '1s/.* \([0-9]*\.[0-9]*\)\..*/\1/p')
mkdir -p "$work/home-c/.local/lib/wireshark/plugins/$release/epan"
cp "$plugin" "$work/home-c/.local/lib/wireshark/plugins/$release/epan/"
cp "$lua" "$work/rdcc.lua"
cp "$probe" "$work/probe.lua"
chmod -R a+rwX "$work"

status=0
declare -A tables other
for n in 2000 20000; do
  "$gen" --bench "$n" "$work/bench-$n.pcap"
  chmod a+r "$work/bench-$n.pcap"
  "${as_user[@]}" env HOME="$work/home-lua" RDCC_LUA_STATE_PROBE=1 "$tshark" -q -2 \
    -r "$work/bench-$n.pcap" -X "lua_script:$work/rdcc.lua" -X "lua_script:$work/probe.lua" \
    -o rdcc.udp.port:50000 >"$work/state-$n.txt" 2>"$work/state-$n.err" || true
  if grep -qiE "lua error|error during|dissector bug" "$work/state-$n.err"; then
    echo "FAIL: tshark with rdcc.lua on $n packets:"; cat "$work/state-$n.err"; exit 1
  fi
  line=$(grep '^rdcc.lua state:' "$work/state-$n.txt" || true)
  if [ -z "$line" ]; then
    echo "FAIL: no state line from the probe on $n packets"; cat "$work/state-$n.err"; exit 1
  fi
  echo "$n packets: $line"
  read -r t nums o < <(echo "$line" | sed 's/[^0-9 ]//g' | awk '{ print $1, $2, $3 }')
  tables[$n]=$t other[$n]=$o
  if [ "$nums" -gt $((4 * n)) ]; then
    echo "FAIL: $nums numbers held after $n packets (more than 4 per packet)"; status=1
  fi
done
if [ "${tables[2000]}" != "${tables[20000]}" ] || [ "${other[2000]}" != "${other[20000]}" ]; then
  echo "FAIL: the state's tables or strings grow with the capture"; status=1
fi

for which in c lua; do
  extra=()
  [ "$which" = lua ] && extra=(-X "lua_script:$work/rdcc.lua")
  "${as_user[@]}" env HOME="$work/home-$which" "$tshark" "${extra[@]}" -r "$work/bench-2000.pcap" \
    -o rdcc.udp.port:50000 -2 -V -O rdcc >"$work/tree-$which.txt" 2>/dev/null
done
if diff -q "$work/tree-c.txt" "$work/tree-lua.txt" >/dev/null; then
  echo "bench-2000 in two passes: C and Lua trees identical, $(grep -c 'Request In\|MSG_DONE In\|First Grant In' "$work/tree-c.txt") links"
else
  echo "FAIL: bench-2000 in two passes: the C and Lua trees differ:"
  diff -u "$work/tree-c.txt" "$work/tree-lua.txt" | head -40
  status=1
fi
exit "$status"
