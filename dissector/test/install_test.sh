#!/usr/bin/env bash
# Follows the README's install steps for both dissectors into a temporary HOME and a
# temporary Wireshark profile, then dissects a capture with each.
#
#   install_test.sh TSHARK PLUGIN_SO LUA_SCRIPT PCAP
set -euo pipefail
tshark=$1 plugin=$2 lua=$3 pcap=$4

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
as_user=()
# Wireshark loads no personal plugins when run as root (README); the test runs as nobody then.
if [ "$(id -u)" -eq 0 ]; then as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups); fi
release=$("$tshark" -v 2>/dev/null | sed -n '1s/.* \([0-9]*\.[0-9]*\)\..*/\1/p')
status=0

# check NAME HOME: the plugin list names RDCC, and the appendix exchange dissects through the
# profile's port preference: 22 RDCC frames, the appendix grant in frame 6, linked to frame 4.
check() {
  local name=$1 home=$2
  mkdir -p "$home/.config/wireshark/profiles/rdcc-test"
  echo "rdcc.udp.port: 50000" >"$home/.config/wireshark/profiles/rdcc-test/preferences"
  chmod -R a+rwX "$home"
  local t=("${as_user[@]}" env HOME="$home" "$tshark")
  if ! "${t[@]}" -G plugins 2>/dev/null | grep -q "$3"; then
    echo "FAIL: $name: tshark -G plugins does not list $3"; status=1; return
  fi
  local frames grant
  frames=$("${t[@]}" -C rdcc-test -r "$pcap" -Y rdcc -T fields -e frame.number 2>/dev/null | wc -l)
  grant=$("${t[@]}" -C rdcc-test -r "$pcap" -2 \
    -Y 'rdcc.type == 4 && rdcc.grant_limit == 262144 && rdcc.request_in == 4' \
    -T fields -e frame.number 2>/dev/null)
  if [ "$frames" -ne 22 ] || [ "$grant" != 6 ]; then
    echo "FAIL: $name: $frames RDCC frames (expected 22), appendix grant in frame '$grant' (expected 6)"
    status=1
  else
    echo "$name: installed, listed by tshark -G plugins, 22 RDCC frames via the profile's rdcc.udp.port"
  fi
}

# README: "C plugin" -- copy rdcc.so into the personal plugin folder.
home="$work/c"
mkdir -p "$home/.local/lib/wireshark/plugins/$release/epan"
cp "$plugin" "$home/.local/lib/wireshark/plugins/$release/epan/"
check "C plugin" "$home" "rdcc.so"

# README: "Lua dissector" -- copy rdcc.lua into the personal Lua plugin folder.
home="$work/lua"
mkdir -p "$home/.local/lib/wireshark/plugins"
cp "$lua" "$home/.local/lib/wireshark/plugins/"
check "Lua dissector" "$home" "rdcc.lua"
exit "$status"
