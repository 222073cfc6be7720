#!/usr/bin/env bash
# `cmake --install` into a fresh prefix, then, from a folder outside the tree, the installed
# programs as a user runs them: rdcc-conform with its installed scenarios and catalog, rdcc
# decode, man pages and bash completion, tshark with the installed Wireshark plugin and Lua
# dissector, and a consumer project (tests/consumer) built against the installed codec with
# find_package(rdcc) and with pkg-config rdcc-codec.
#
#   install_test.sh BUILD_DIR SOURCE_DIR VERSION WIRESHARK_PLUGIN_DIR C_COMPILER CXX_COMPILER [TSHARK]
# WIRESHARK_PLUGIN_DIR: where the plugin's folder is under the prefix (empty: no plugin built).
set -uo pipefail
build=$1 src=$2 version=$3 plugin_dir=$4 cc=$5 cxx=$6 tshark=${7:-}
. "$src/tools/test/lib.sh"   # check, run, contains; $work (removed on exit)

chmod 755 "$work"   # tshark runs as nobody below when the test runs as root
prefix=$work/prefix
outside=$work/elsewhere
mkdir -p "$outside"
cd "$outside" || exit 1

# ---- install ---------------------------------------------------------------------------------
check "cmake --install --strip" run 0 cmake --install "$build" --prefix "$prefix" --strip
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt")
for f in bin/rdcc bin/rdcc-conform share/rdcc/catalog/requirements.json \
         share/rdcc/wireshark/rdcc.lua share/doc/rdcc/README.md share/doc/rdcc/cli.md \
         share/doc/rdcc/examples/appendix.hex share/doc/rdcc/pcaps/appendix_exchange.pcap \
         share/bash-completion/completions/rdcc share/bash-completion/completions/rdcc-conform \
         include/rdcc/codec.h include/rdcc/version.h include/rdcc/codec/codec.hpp \
         "$libdir/librdcc-codec.a" "$libdir/cmake/rdcc/rdccConfig.cmake" \
         "$libdir/cmake/rdcc/rdccConfigVersion.cmake" "$libdir/pkgconfig/rdcc-codec.pc"; do
  check "installed $f" test -s "$prefix/$f"
done
check "every scenario installed" test "$(find "$prefix/share/rdcc/scenarios" -name '*.scn' | wc -l)" \
  -eq "$(find "$src/conformance/scenarios" -name '*.scn' | wc -l)"
check "no testing header installed" test ! -e "$prefix/include/rdcc/testing"
if command -v help2man >/dev/null; then
  for tool in rdcc rdcc-conform; do
    page=$prefix/share/man/man1/$tool.1
    check "man page $tool.1" test -s "$page"
    check "man page $tool.1 title" grep -q "^\.TH ${tool^^} \"1\" .* \"$tool $version\"" "$page"
    check "man page $tool.1 has the options" contains "$page" '\-\-version'
    check "man page $tool.1 sees also" contains "$page" "share/doc/rdcc"
  done
fi

# ---- the installed programs, from outside the tree ----------------------------------------
check "rdcc --version" run 0 "$prefix/bin/rdcc" --version
check "rdcc --version text" test "$(cat "$work/out")" = "rdcc $version"
check "rdcc-conform --version" run 0 "$prefix/bin/rdcc-conform" --version
check "rdcc-conform --version text" test "$(cat "$work/out")" = "rdcc-conform $version"
# Its scenarios and catalog are the prefix's, found from the program's own location.
# Its files and the twelve explore episodes it plays against a CRN.
crn_scenarios=$(( $(find "$src/conformance/scenarios/crn" -name '*.scn' | wc -l) + 12 ))
check "rdcc-conform --iut reference:crn" run 0 "$prefix/bin/rdcc-conform" --iut reference:crn --strict --report "$outside/report"
check "the CRN scenarios pass" grep -qx "$crn_scenarios passed, 0 warned, 0 failed, 0 inconclusive, 0 unsupported, 0 skipped" "$work/out"
check "no catalog warning" lacks "$work/err" "no catalog"
check "results.json names the version" contains "$outside/report/results.json" "\"rdcc_version\": \"$version\""
check "junit names the version" contains "$outside/report/junit.xml" "<property name=\"rdcc_version\" value=\"$version\"/>"
# A copy of the prefix elsewhere with one CRN scenario left: that copy runs its own (nothing
# points back into the tree or the first prefix), and its catalog (an unknown ID is an error).
cp -a "$prefix" "$work/moved"
find "$work/moved/share/rdcc/scenarios/crn" -name '*.scn' | sort | tail -n +2 | xargs rm -f
check "moved prefix --list" run 0 "$work/moved/bin/rdcc-conform" --iut reference:crn --list \
  --explore-episodes 0
check "moved prefix: its one CRN scenario" grep -qx "1 scenarios" "$work/out"
printf 'scenario u\nrole crn\nchecks RDCC-CRN-99\nwait 1ms\n' >"$work/moved/share/rdcc/scenarios/crn/u.scn"
check "moved prefix: its catalog" run 2 "$work/moved/bin/rdcc-conform" --iut reference:crn --list
check "moved prefix: unknown ID named" contains "$work/err" "unknown requirement ID 'RDCC-CRN-99'"
rm -rf "$work/moved"

appendix=$prefix/share/doc/rdcc/examples/appendix.hex
check "rdcc decode the appendix" run 0 "$prefix/bin/rdcc" decode --line --input "$appendix"
check "appendix request" contains "$work/out" "CREDIT_REQUEST assoc=0x5a17c0de epoch=3 seq=7 message_id=0x101 message_length=4194304"
check "appendix grant" contains "$work/out" "CREDIT_GRANT assoc=0x5a17c0de epoch=3 seq=42 message_id=0x101 grant_limit=262144 pacing_rate=100000 lifetime=2000"

# Bash completion, as bash-completion loads it: options from the installed programs.
completion() {  # completion FILE WORD... : the candidates for the last word
  bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
           if [[ $1 == *conform ]]; then _rdcc_conform; else _rdcc; fi; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$@" >"$work/out"
}
completion "$prefix/share/bash-completion/completions/rdcc-conform" "$prefix/bin/rdcc-conform" --i
check "completion: rdcc-conform --i" test "$(cat "$work/out")" = "--iut"
completion "$prefix/share/bash-completion/completions/rdcc-conform" "$prefix/bin/rdcc-conform" --iut reference:
check "completion: --iut reference:" test "$(tr '\n' ' ' <"$work/out")" = "reference:receiver reference:sender reference:crn "
completion "$prefix/share/bash-completion/completions/rdcc" "$prefix/bin/rdcc" pcap ""
check "completion: rdcc pcap" test "$(tr '\n' ' ' <"$work/out")" = "dump stats check "

# ---- Wireshark: the installed plugin and Lua dissector -----------------------------------
if [ -n "$plugin_dir" ] && [ -n "$tshark" ]; then
  as_user=()
  # Wireshark ignores WIRESHARK_PLUGIN_DIR (and personal plugins) when run as root.
  if [ "$(id -u)" -eq 0 ]; then as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups); fi
  chmod -R a+rX "$prefix"
  # WIRESHARK_PLUGIN_DIR is the folder above the release's (plugins/, holding 4.0/epan/).
  plugins=$(dirname "$prefix/$plugin_dir")
  check "plugin in <plugindir>/epan" test -s "$prefix/$plugin_dir/epan/rdcc.so"
  ts=("${as_user[@]}" env HOME="$work" WIRESHARK_PLUGIN_DIR="$plugins" "$tshark")
  check "tshark -G plugins lists the installed plugin" run 0 "${ts[@]}" -G plugins
  check "the listed plugin is the prefix's" contains "$work/out" "$prefix/$plugin_dir/epan/rdcc.so"
  pcap=$prefix/share/doc/rdcc/pcaps/appendix_exchange.pcap
  check "tshark decodes the appendix exchange" run 0 "${ts[@]}" -r "$pcap" -d udp.port==50000,rdcc -2 \
    -Y 'rdcc.type == 4 && rdcc.grant_limit == 262144' -T fields -e frame.number
  check "the appendix grant is frame 6" test "$(head -1 "$work/out")" = 6
  # Every installed capture: RDCC found (none in the ordinary UDP one), and no "Dissector bug".
  for pcap in "$prefix"/share/doc/rdcc/pcaps/*.pcap; do
    name=$(basename "$pcap")
    check "tshark $name" run 0 "${ts[@]}" -r "$pcap" -d udp.port==50000,rdcc -Y rdcc -T fields \
      -e frame.number -e _ws.expert.message
    frames=$(wc -l <"$work/out")
    case $name in
      ordinary_udp.pcap) check "$name: no RDCC" test "$frames" -eq 0 ;;
      *) check "$name: RDCC frames ($frames)" test "$frames" -gt 0 ;;
    esac
    check "$name: no dissector bug" lacks "$work/out" "Dissector bug"
  done
  # The Lua dissector, with no C plugin (an empty plugin folder), from its installed place.
  mkdir -p "$work/no-plugins"
  lua=$prefix/share/rdcc/wireshark/rdcc.lua
  check "tshark with the installed Lua dissector" run 0 "${as_user[@]}" env HOME="$work" \
    WIRESHARK_PLUGIN_DIR="$work/no-plugins" "$tshark" -X "lua_script:$lua" \
    -r "$prefix/share/doc/rdcc/pcaps/appendix_exchange.pcap" -d udp.port==50000,rdcc -Y rdcc \
    -T fields -e rdcc.grant_limit
  check "Lua: 22 RDCC frames" test "$(wc -l <"$work/out")" -eq 22
  check "Lua: the appendix grant" grep -qx 262144 "$work/out"
fi

# ---- the codec as a library ----------------------------------------------------------------
consumer=$work/consumer
check "consumer configures (find_package)" run 0 cmake -S "$src/tests/consumer" -B "$consumer" \
  -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx"
check "consumer builds" run 0 cmake --build "$consumer"
check "C consumer decodes the appendix" run 0 "$consumer/appendix_c"
check "C consumer: the grant" contains "$work/out" "CREDIT_GRANT assoc=0x5a17c0de epoch=3 seq=42 message_id=0x101 grant_limit=262144"
check "C consumer: the error" contains "$work/out" "error: length 40 is larger than the datagram of 39 octets (field length, offset 2)"
check "C consumer: the version" contains "$work/out" "librdcc-codec $version (header $version)"
check "C++ consumer decodes the appendix" run 0 "$consumer/appendix_cpp"
check "C++ consumer: JSON" contains "$work/out" '"grant_limit":262144'
# find_package with a version the install is not.
mkdir -p "$work/wrong-version"
printf 'cmake_minimum_required(VERSION 3.25)\nproject(v LANGUAGES CXX)\nfind_package(rdcc 9.0 REQUIRED)\n' \
  >"$work/wrong-version/CMakeLists.txt"
check "find_package(rdcc 9.0) fails" run 1 cmake -S "$work/wrong-version" -B "$work/wrong-version/b" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx"
check "find_package names the version found" contains "$work/err" "$version"
# pkg-config, from the prefix's .pc file alone.
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
check "pkg-config --modversion" run 0 pkg-config --modversion rdcc-codec
check "pkg-config version" test "$(cat "$work/out")" = "$version"
check "pkg-config C build" run 0 sh -c "\"$cc\" -std=c11 -o \"$work/appendix_pc\" \"$src/tests/consumer/appendix.c\" \$(pkg-config --cflags --libs rdcc-codec)"
check "pkg-config C consumer runs" run 0 "$work/appendix_pc"
check "pkg-config C consumer: the request" contains "$work/out" "CREDIT_REQUEST assoc=0x5a17c0de"

finish install_test
