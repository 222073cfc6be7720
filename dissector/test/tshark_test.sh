#!/usr/bin/env bash
# The dissectors under the real tshark, on the captures of pcaps/.
#
#   tshark_test.sh MODE TSHARK PLUGIN_SO LUA_SCRIPT CHECKER PCAPS_DIR [RDCC]
#
# MODE: c-fields | lua-fields   fields, expert info and links equal the codec's decode
#       agree                   the C plugin and the Lua dissector print the same tree
#       heuristic               the heuristic claims exactly the whole RDCC messages: no data
#                               packet of the simulator's captures (opaque on 50001, RoCEv2 on
#                               4791) and no packet of ordinary UDP traffic; forced onto that
#                               traffic, both dissectors survive it alike; and it is off unless
#                               the rdcc.try_heuristic preference turns it on
#       filters                 display filters on the report's addresses (one field per address
#                               family): an IPv6 filter never matches an AF 4 report, an IPv4
#                               filter finds its report, in both dissectors
#       stats                   the C plugin's stats tree (-z rdcc,tree) counts what `rdcc pcap
#                               stats` (RDCC, the 7th argument) counts: messages per type, and
#                               the credit granted per association; the Lua dissector's
#                               -z rdcc,tree has the same counts as the C plugin's, line for line
#       data                    the opaque data transport through Decode As (rdcc_data): every
#                               data packet of the simulator's captures, none malformed, naming
#                               the Binding Values of the CREDIT_REQUESTs; C and Lua trees equal
#
# Each dissector runs alone, from a temporary personal plugin folder (HOME). Wireshark ignores
# personal plugins when run as root, so as root tshark runs as user nobody.
set -euo pipefail
mode=$1 tshark=$2 plugin=$3 lua=$4 checker=$5 pcaps=$6 rdcc=${7:-}

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
      # Off by default: no datagram of any capture is taken for RDCC without a port or the
      # preference.
      run "$which" "$work/off-$which.txt" -r "$pcaps/sim_all_types.pcap" -Y rdcc
      if [ -s "$work/off-$which.txt" ]; then
        echo "FAIL: $which: the heuristic claimed $(wc -l <"$work/off-$which.txt") frames without rdcc.try_heuristic"
        status=1
      else
        echo "$which: heuristic off by default (sim_all_types: no RDCC frame without the preference)"
      fi
      for p in "${rdcc_pcaps[@]}"; do
        run "$which" "$work/$p-$which.json" -r "$pcaps/$p.pcap" -o udp.try_heuristic_first:TRUE \
          -o rdcc.try_heuristic:TRUE "${json[@]}"
        echo -n "$which: "
        "$checker" claims "$pcaps/$p.pcap" "$work/$p-$which.json" || status=1
      done
      run "$which" "$work/ordinary-$which.json" -r "$pcaps/ordinary_udp.pcap" \
        -o udp.try_heuristic_first:TRUE -o rdcc.try_heuristic:TRUE "${json[@]}"
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
  filters)
    # boundary.pcap: frame 13 is an AF 4 report of zeros, 33 an AF 4 report from 192.0.2.1 to
    # 192.0.2.99, 14 an AF 6 report of all ones, 34 an AF 6 report from 2001:db8::1 to
    # 2001:db8::2 (pcaps/INDEX.md).
    # expect WHICH FILTER FRAMES: the frames the filter selects, comma-separated ("" for none).
    expect() {
      local which=$1 filter=$2 want=$3 got
      run "$which" "$work/filter.txt" -r "$pcaps/boundary.pcap" -d udp.port==50000,rdcc \
        -Y "$filter" -T fields -e frame.number || { status=1; return; }
      got=$(paste -sd, "$work/filter.txt")
      if [ "$got" != "$want" ]; then
        echo "FAIL: $which: '$filter' selects frames '$got', expected '$want'"; status=1
      else
        echo "$which: '$filter' -> ${got:-no frame}"
      fi
    }
    for which in c lua; do
      expect "$which" 'rdcc.source_address_ipv4 == 192.0.2.1 && rdcc.destination_address_ipv4 == 192.0.2.99' 33
      expect "$which" 'rdcc.source_address_ipv6 == 2001:db8::1 && rdcc.destination_address_ipv6 == 2001:db8::2' 34
      # The issue's case: an IPv6 filter matched the AF 4 reports 13 and 33.
      expect "$which" 'rdcc.source_address_ipv6 == 2001:db8::99 || rdcc.source_address_ipv6 == ::' ""
      # Each field on the reports of its family only.
      expect "$which" 'rdcc.source_address_ipv6 || rdcc.destination_address_ipv6' 14,34
      expect "$which" 'rdcc.source_address_ipv4 || rdcc.destination_address_ipv4' 13,33
    done
    ;;
  stats)
    if [ -z "$rdcc" ]; then echo "tshark_test.sh stats: the rdcc binary is needed" >&2; exit 2; fi
    for p in appendix_exchange sim_incast_crn sim_restart; do
      run c "$work/$p-tree.txt" -q -r "$pcaps/$p.pcap" -d udp.port==50000,rdcc -z rdcc,tree
      run lua "$work/$p-lua-tree.txt" -q -r "$pcaps/$p.pcap" -d udp.port==50000,rdcc -z rdcc,tree
      "$rdcc" pcap stats --port 50000 --json "$pcaps/$p.pcap" >"$work/$p-stats.json"
      # The tree's lines as "section<TAB>name<TAB>count": names are padded to the Count
      # column; a child line starts with a blank and belongs to the top-level line above it.
      for tree in tree lua-tree; do
        awk '/^Topic/ { w = index($0, "Count") - 1; next } w && /^ ?[A-Za-z0-9]/ {
               name = substr($0, 1, w); sub(/ +$/, "", name); child = sub(/^ /, "", name)
               split(substr($0, w + 1), f, " ")
               if (!child) section = name; else print section "\t" name "\t" f[1] }' \
          "$work/$p-$tree.txt" | sort >"$work/$p-$tree.tsv"
      done
      # The Lua dissector's tree counts what the C plugin's counts, line for line.
      if [ ! -s "$work/$p-tree.tsv" ] || ! diff -u "$work/$p-tree.tsv" "$work/$p-lua-tree.tsv"; then
        echo "FAIL: $p: the Lua dissector's -z rdcc,tree differs from the C plugin's (- C, + Lua)"
        cat "$work/$p-lua-tree.txt"; status=1
      else
        echo "$p: the Lua -z rdcc,tree has the C plugin's $(wc -l <"$work/$p-tree.tsv") counts"
      fi
      # Expected from rdcc pcap stats: packets per type (receivers' and reports to senders
      # together), and per association its octets granted (per message and pool).
      jq -r '[.receivers[].packets | to_entries[]] | group_by(.key)[] |
             "\(.[0].key)\t\(map(.value) | add)"' "$work/$p-stats.json" | sort >"$work/$p-want-types.tsv"
      reports=$(jq '.capture.reports_to_senders' "$work/$p-stats.json")
      if [ "$reports" -gt 0 ]; then
        awk -F'\t' -v n="$reports" '$1 == "CONGESTION_REPORT" { $2 += n; found = 1 } { print $1 "\t" $2 }
               END { if (!found) print "CONGESTION_REPORT\t" n }' OFS='\t' "$work/$p-want-types.tsv" |
          sort >"$work/$p-want-types.tsv.new"
        mv "$work/$p-want-types.tsv.new" "$work/$p-want-types.tsv"
      fi
      awk -F'\t' '$1 == "Messages by type" { print $2 "\t" $3 }' "$work/$p-tree.tsv" |
        sort >"$work/$p-got-types.tsv"
      jq -r '.receivers[] | .receiver as $r | .associations[] |
             "\(.association_id)\t\($r | sub(":[0-9]+$"; ""))\t\(.octets_granted + .pool_octets_granted)"' \
        "$work/$p-stats.json" | awk -F'\t' '$3 > 0 { printf "0x%08x at %s\t%s\n", $1, $2, $3 }' |
        sort >"$work/$p-want-credit.tsv"
      awk -F'\t' '$1 ~ /^Credit granted/ { print $2 "\t" $3 }' "$work/$p-tree.tsv" |
        sort >"$work/$p-got-credit.tsv"
      if ! diff -u "$work/$p-want-types.tsv" "$work/$p-got-types.tsv" >"$work/$p.diff" ||
         ! diff -u "$work/$p-want-credit.tsv" "$work/$p-got-credit.tsv" >>"$work/$p.diff" ||
         [ ! -s "$work/$p-got-credit.tsv" ]; then
        echo "FAIL: $p: -z rdcc,tree and rdcc pcap stats differ (- stats, + tree):"
        cat "$work/$p.diff"; cat "$work/$p-tree.txt"; status=1
      else
        echo "$p: -z rdcc,tree agrees with rdcc pcap stats: $(wc -l <"$work/$p-got-types.tsv") message types, $(wc -l <"$work/$p-got-credit.tsv") associations' credit"
      fi
    done
    ;;
  data)
    # Per data packet (to 50001) its message identifier and the severity of any expert info;
    # per CREDIT_REQUEST of the opaque binding its Binding Value. Both dissectors alike.
    for name in sim_all_types sim_incast_crn sim_restart; do
      for which in c lua; do
        run "$which" "$work/$name-$which.txt" -r "$pcaps/$name.pcap" -d udp.port==50001,rdcc_data \
          -o rdcc.udp.port:50000 -Y 'udp.dstport == 50001 || rdcc.binding_kind == 2' \
          -T fields -e udp.dstport -e rdcc_data.message_identifier -e rdcc.binding_value \
          -e _ws.expert.severity
      done
      data_packets=$(awk -F'\t' '$1 == 50001' "$work/$name-c.txt" | wc -l)
      dissected=$(awk -F'\t' '$1 == 50001 && $2 != ""' "$work/$name-c.txt" | wc -l)
      flagged=$(awk -F'\t' '$1 == 50001 && $4 != ""' "$work/$name-c.txt" | wc -l)
      unknown=$(awk -F'\t' '$1 != 50001 { bv[$3] = 1 } $1 == 50001 { id[$2] = 1 }
                  END { n = 0; for (i in id) if (!(i in bv)) n++; print n }' "$work/$name-c.txt")
      if [ "$data_packets" -eq 0 ] || [ "$dissected" -ne "$data_packets" ] || [ "$flagged" -ne 0 ] ||
         [ "$unknown" -ne 0 ]; then
        echo "FAIL: $name: $dissected of $data_packets data packets dissected, $flagged with expert info, $unknown identifiers no CREDIT_REQUEST names"
        status=1
      elif ! diff -q "$work/$name-c.txt" "$work/$name-lua.txt" >/dev/null; then
        echo "FAIL: $name: the C and Lua data transport fields differ:"
        diff -u "$work/$name-c.txt" "$work/$name-lua.txt" | head -20; status=1
      else
        echo "$name: $dissected data packets via Decode As, every identifier a request's Binding Value, C and Lua alike"
      fi
    done
    for which in c lua; do
      run "$which" "$work/tree-$which.txt" -r "$pcaps/sim_all_types.pcap" \
        -d udp.port==50001,rdcc_data -Y rdcc_data -V -O rdcc_data
    done
    if diff -u "$work/tree-c.txt" "$work/tree-lua.txt" >"$work/tree.diff"; then
      echo "sim_all_types: C and Lua data transport trees (tshark -V) identical"
    else
      echo "FAIL: sim_all_types: the C and Lua data transport trees differ:"; head -20 "$work/tree.diff"
      status=1
    fi
    ;;
  *)
    echo "tshark_test.sh: unknown mode '$mode'" >&2; exit 2 ;;
esac
exit "$status"
