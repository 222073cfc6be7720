#!/usr/bin/env bash
# dissector/fuzz.sh, the corruption fuzzing, on a fixed sample (fixed seeds: the same corrupted
# captures on every run) in ctest:
#  - the C plugin under ASan and UBSan and the Lua dissector, tshark -nVxr and -nr, on every
#    golden capture corrupted, and the regression captures (dissector/test/fuzz-regressions)
#    as they are: no finding;
#  - the script finds what it must: the Lua dissector with a fault put in (a Lua error on a
#    Type that is not registered, which corruption makes) gives findings, each kept capture
#    shows the fault again when run alone, and the real dissector runs it cleanly.
#
#   fuzz_test.sh SOURCE_DIR TSHARK PLUGIN_ASAN_SO SANITIZER_RUNTIMES
set -uo pipefail
src=$1 tshark=$2 plugin=$3 runtimes=$4
fuzz=$src/dissector/fuzz.sh lua=$src/dissector/lua/rdcc.lua
. "$src/tools/test/lib.sh"   # check, run, contains; $work (removed on exit)
chmod 755 "$work"

sample=(-n 24 -b 3 -s 1 -r "$src/dissector/test/fuzz-regressions")
timeout 900 "$fuzz" "${sample[@]}" "$tshark" "$plugin" "$lua" "$src/pcaps" "$runtimes" \
  >"$work/sample.txt" 2>&1
status=$?
cat "$work/sample.txt"
check "the sample: no finding (exit 0)" test "$status" -eq 0
check "the C plugin ran 24 corrupted captures, 3 of each golden one" contains "$work/sample.txt" "fuzz: c: 24 corrupted captures (8 batches"
check "the Lua dissector ran 24" contains "$work/sample.txt" "fuzz: lua: 24 corrupted captures (8 batches"
check "both argument sets" contains "$work/sample.txt" "tshark runs (-nVxr -nr), 0 findings"

# A fault put in: the Lua dissector raises an error where a Type is not registered.
sed 's/^\( *\)type_item:add_proto_expert_info(ei.unknown_type, string.format(/\1error("injected fault")\n&/' \
  "$lua" >"$work/faulty.lua"
check "the fault is in the faulty copy" contains "$work/faulty.lua" 'error("injected fault")'
timeout 900 "$fuzz" -n 16 -b 16 -s 1 -d lua -a -nVxr -k "$work/kept" "$tshark" "$plugin" \
  "$work/faulty.lua" "$src/pcaps" >"$work/faulty.txt" 2>&1
status=$?
check "the faulty dissector: findings (exit 1)" test "$status" -eq 1
check "a Lua Error found" contains "$work/faulty.txt" "Lua Error"
check "the finding names the command that makes the capture" contains "$work/faulty.txt" "editcap -E 0.02"
kept=$(ls "$work/kept"/*.pcap 2>/dev/null | head -1)
check "the capture of a finding kept" test -n "$kept"
if [ -n "$kept" ]; then
  mkdir -p "$work/again"
  cp "$kept" "$work/again/"
  timeout 600 "$fuzz" -n 0 -d lua -a -nVxr -r "$work/again" "$tshark" "$plugin" \
    "$work/faulty.lua" "$src/pcaps" >"$work/again.txt" 2>&1
  check "the kept capture alone: the finding again (exit 1)" test $? -eq 1
  timeout 600 "$fuzz" -n 0 -d lua -r "$work/again" "$tshark" "$plugin" "$lua" "$src/pcaps" \
    >"$work/clean.txt" 2>&1
  check "the kept capture with the real dissector: clean (exit 0)" test $? -eq 0
fi
finish dissector_fuzz
