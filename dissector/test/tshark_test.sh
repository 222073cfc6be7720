#!/usr/bin/env bash
# The dissectors under the real tshark, on the captures of pcaps/.
#
#   tshark_test.sh MODE TSHARK PLUGIN_SO LUA_SCRIPT CHECKER PCAPS_DIR
#
# MODE: c-fields | lua-fields   fields, expert info and links equal the codec's decode
#       agree                   the C plugin and the Lua dissector print the same tree
#       heuristic               the heuristic claims exactly the whole RDCC messages: no data
#                               packet of the simulator's captures (opaque on 50001, RoCEv2 on
#                               4791) and no packet of ordinary UDP traffic; forced onto that
#                               traffic, both dissectors survive it alike
#
# Each dissector runs alone, from a temporary personal plugin folder (HOME). Wireshark ignores
# personal plugins when run as root, so as root tshark runs as user nobody.
set -euo pipefail
mode=$1 tshark=$2 plugin=$3 lua=$4 checker=$5 pcaps=$6

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
as_user=()
if [ "$(id -u)" -eq 0 ]; then as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups); fi

for d in c lua; do
  mkdir -p "$work/home-$d/.config/wireshark"
  chmod -R 777 "$work/home-$d"
done
c_plugins="$work/home-c/.local/lib/wireshark/plugins/$("$tshark" -v 2>/dev/null | sed -n '1s/.* \([0-9]*\.[0-9]*\)\..*/\1/p')/epan"
mkdir -p "$c_plugins"
cp "$plugin" "$c_plugins/"
cp "$lua" "$work/rdcc.lua"
chmod -R a+rX "$work"

# run c|lua OUT ARGS...: tshark with one dissector; fails on any dissector bug or Lua error.
run() {
  local which=$1 out=$2
  shift 2
  local extra=()
  [ "$which" = lua ] && extra=(-X "lua_script:$work/rdcc.lua")
  if ! "${as_user[@]}" env HOME="$work/home-$which" "$tshark" "${extra[@]}" "$@" >"$out" \
      2>"$out.err"; then
    echo "FAIL: tshark ($which) exited with an error:"; cat "$out.err"; return 1
  fi
  if grep -E -i "dissector bug|lua error|warning|error" "$out.err" | grep -v "Running as user"; then
    echo "FAIL: tshark ($which) reported the problems above"; return 1
  fi
}

# Every capture with RDCC in it: the codec's vectors and the simulator's runs (sim_*, with
# data packets on UDP 50001 and RoCEv2 on 4791 that no dissector may take for RDCC).
rdcc_pcaps=(boundary appendix_exchange malformed)
for f in "$pcaps"/sim_*.pcap; do rdcc_pcaps+=("$(basename "$f" .pcap)"); done
if [ "${#rdcc_pcaps[@]}" -lt 7 ]; then
  echo "FAIL: the simulator's captures (pcaps/sim_*.pcap) are missing"; exit 1
fi
json=(-2 -T json --no-duplicate-keys -J rdcc)
status=0
case "$mode" in
  c-fields|lua-fields)
    which=${mode%-fields}
    for p in "${rdcc_pcaps[@]}"; do
      run "$which" "$work/$p.json" -r "$pcaps/$p.pcap" -d udp.port==50000,rdcc "${json[@]}"
      "$checker" compare "$pcaps/$p.pcap" "$work/$p.json" || status=1
    done
    ;;
  agree)
    for p in "${rdcc_pcaps[@]}"; do
      for which in c lua; do
        run "$which" "$work/$p-$which.json" -r "$pcaps/$p.pcap" -o rdcc.udp.port:50000 "${json[@]}"
        run "$which" "$work/$p-$which.txt" -r "$pcaps/$p.pcap" -o rdcc.udp.port:50000 -2 -V -O rdcc
      done
      "$checker" agree "$work/$p-c.json" "$work/$p-lua.json" || status=1
      if diff -u "$work/$p-c.txt" "$work/$p-lua.txt" >"$work/$p.diff"; then
        echo "$p: C and Lua trees (tshark -V) identical, $(grep -c '^Frame ' "$work/$p-c.txt") frames"
      else
        echo "FAIL: $p: the C and Lua trees differ:"; head -40 "$work/$p.diff"; status=1
      fi
    done
    ;;
  heuristic)
    for which in c lua; do
      for p in "${rdcc_pcaps[@]}"; do
        run "$which" "$work/$p-$which.json" -r "$pcaps/$p.pcap" -o udp.try_heuristic_first:TRUE \
          "${json[@]}"
        echo -n "$which: "
        "$checker" claims "$pcaps/$p.pcap" "$work/$p-$which.json" || status=1
      done
      run "$which" "$work/ordinary-$which.json" -r "$pcaps/ordinary_udp.pcap" \
        -o udp.try_heuristic_first:TRUE "${json[@]}"
      echo -n "$which: "
      "$checker" claims "$pcaps/ordinary_udp.pcap" "$work/ordinary-$which.json" --none || status=1
    done
    # Every ordinary datagram forced through each dissector (all ports): no dissector bug, no
    # Lua error, and the same tree from both.
    for which in c lua; do
      run "$which" "$work/forced-$which.txt" -r "$pcaps/ordinary_udp.pcap" -o rdcc.udp.port:1-65535 -V
    done
    if diff -q "$work/forced-c.txt" "$work/forced-lua.txt" >/dev/null; then
      echo "ordinary_udp forced to RDCC: $(grep -c "^Receiver-Driven" "$work/forced-c.txt") datagrams, no errors, C and Lua trees identical"
    else
      echo "FAIL: ordinary_udp forced to RDCC: the C and Lua trees differ"; status=1
    fi
    ;;
  *)
    echo "tshark_test.sh: unknown mode '$mode'" >&2; exit 2 ;;
esac
exit "$status"
