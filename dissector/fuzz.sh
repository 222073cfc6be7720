#!/usr/bin/env bash
# The dissectors under Wireshark's corruption fuzzing, in the manner of Wireshark's own
# tools/fuzz-test.sh: a golden capture corrupted by `editcap -E` (each octet changed with
# probability P, from a seed, so that every corrupted capture can be made again), then read by
# `tshark -nVxr` (the tree and a hex dump) and `tshark -nr` (no tree) with the C plugin, built
# under ASan and UBSan (rdcc_wireshark_plugin_asan, the runtimes preloaded into tshark), and
# with the Lua dissector, each alone. Wireshark's own memory checks are on (glibc's
# MALLOC_CHECK_, an abort on a dissector bug or a tree too big, and wmem's strict allocator
# where ASan is not loaded).
#
# A finding is what corrupted input must never give:
#   - tshark ends other than with 0: a crash, an abort (a failed assertion, a DISSECTOR_ASSERT,
#     a sanitizer's report), the CPU or stack limit;
#   - on stderr: a dissector bug, a Lua error, a GLib critical or warning, a sanitizer's report;
#   - in the tree: "Dissector bug", "Lua Error", an unknown exception: any exception but the
#     malformed packet ("Malformed Packet") and the short capture ("Packet size limited during
#     capture"), which are what a dissector should say of a corrupted packet.
#
# Captures are corrupted and run in batches, as tshark's and editcap's start-up cost more than a
# capture's dissection: BATCH copies of one golden capture are concatenated (mergecap -a) and
# corrupted by one editcap run (each octet of each copy changed with probability P, so each
# copy is a corrupted capture of its own), then read by one tshark run per dissector and
# argument set. A batch with a finding is cut into its copies (editcap -r), each run alone, and
# each copy that shows the finding is kept in KEEP_DIR with the commands that make it again.
#
#   dissector/fuzz.sh [options] TSHARK PLUGIN_SO LUA_SCRIPT PCAPS_DIR [SANITIZER_RUNTIMES]
#     -n N       corrupted captures per dissector (default 10000)
#     -s SEED    editcap's seed for the first batch (default 1); batch b has seed SEED+b
#     -e PROB    editcap's error probability (default 0.02, Wireshark's)
#     -b BATCH   corrupted captures per batch (default 125)
#     -a ARGS    tshark's argument sets, ';'-separated (default "-nVxr;-nr", Wireshark's)
#     -d WHICH   c, lua or both (default both)
#     -k DIR     keep the captures of findings here (default: none kept)
#     -r DIR     also run every capture in DIR as it is (the regression captures)
#   PLUGIN_SO: the plugin to load (the ASan one for a fuzzing run); SANITIZER_RUNTIMES: what
#   to preload for it (colon-separated), as CMake found them (RDCC_SANITIZER_RUNTIMES).
# Exit status: 0 without findings, 1 with findings, 2 for bad usage.
#
# Batch b corrupts golden capture b mod G (G captures in PCAPS_DIR) from offset 0 (every octet,
# the link and IP layers too), 42 (Ethernet, IPv4 and UDP left whole) or 62 (Ethernet, IPv6
# and UDP left whole) in turn (editcap -o), so that most corruption lands in the datagrams on
# the RDCC and data ports.
set -uo pipefail
count=10000 seed=1 prob=0.02 batch=125 which=both keep="" regressions="" args_list="-nVxr;-nr"
while getopts "n:s:e:b:a:d:k:r:" opt; do
  case $opt in
    n) count=$OPTARG ;; s) seed=$OPTARG ;; e) prob=$OPTARG ;; b) batch=$OPTARG ;;
    a) args_list=$OPTARG ;;
    d) which=$OPTARG ;; k) keep=$OPTARG ;; r) regressions=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -lt 4 ]; then
  sed -n '/^#   dissector\/fuzz.sh/,/^# Exit status/p' "$0" >&2
  exit 2
fi
tshark=$1 plugin=$2 lua=$3 pcaps=$4 runtimes=${5:-}
editcap=$(dirname "$(command -v "$tshark")")/editcap
mergecap=$(dirname "$(command -v "$tshark")")/mergecap
capinfos=$(dirname "$(command -v "$tshark")")/capinfos
for tool in "$editcap" "$mergecap" "$capinfos"; do
  [ -x "$tool" ] || { echo "fuzz: $tool not found (Debian: tshark's wireshark-common)" >&2; exit 2; }
done
case $which in c) dissectors=(c) ;; lua) dissectors=(lua) ;; both) dissectors=(c lua) ;;
  *) echo "fuzz: -d takes c, lua or both" >&2; exit 2 ;; esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
# Wireshark loads no personal plugins as root: tshark runs as nobody then (as the tests do).
as_user=()
if [ "$(id -u)" -eq 0 ]; then as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups); fi
release=$("$tshark" -v 2>/dev/null | sed -n '1s/.* \([0-9]*\.[0-9]*\)\..*/\1/p')
for d in c lua; do mkdir -p "$work/home-$d/.config/wireshark"; done
mkdir -p "$work/home-c/.local/lib/wireshark/plugins/$release/epan"
cp "$plugin" "$work/home-c/.local/lib/wireshark/plugins/$release/epan/rdcc.so"
cp "$lua" "$work/rdcc.lua"
mkdir -p "$work/batch"
chmod -R a+rwX "$work"

golden=()
for f in "$pcaps"/*.pcap; do golden+=("$f"); done
[ "${#golden[@]}" -gt 0 ] || { echo "fuzz: no capture in $pcaps" >&2; exit 2; }
offsets=(0 42 62)

# What tshark runs with (besides the dissector): RDCC on 50000 and the data transport on
# 50001, as the golden captures carry them, and the heuristic on for every other datagram.
prefs=(-d udp.port==50000,rdcc -d udp.port==50001,rdcc_data -o rdcc.try_heuristic:TRUE)
IFS=';' read -r -a arg_sets <<<"$args_list"
tree_ok='Malformed Packet|Packet size limited during capture'
tree_bad='Dissector bug|Lua Error|Unknown exception|Unhandled exception'
stderr_bad='dissector bug|lua error|critical|warning \*\*|assert|AddressSanitizer|runtime error|Segmentation|Aborted|too many items'

# run_tshark WHICH ARGS CAPTURE REPORT: 0 if clean; otherwise 1, with the finding in REPORT.
run_tshark() {
  local which=$1 args=$2 capture=$3 report=$4
  local env_vars=(HOME="$work/home-$which" G_SLICE=debug-blocks MALLOC_CHECK_=3
                  WIRESHARK_ABORT_ON_DISSECTOR_BUG=1 WIRESHARK_ABORT_ON_TOO_MANY_ITEMS=1)
  local extra=()
  if [ "$which" = lua ]; then
    extra=(-X "lua_script:$work/rdcc.lua")
  fi
  if [ "$which" = c ] && [ -n "$runtimes" ]; then
    # ASan checks the plugin's every access; wmem's strict allocator on top of it cost three
    # times the CPU (measured: 7.8 s against 2.4 s for one batch), so it is off here. Short
    # allocation stacks: the report's access stack is whole.
    env_vars+=(LD_PRELOAD="$runtimes"
               ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:malloc_context_size=2
               UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
  else
    env_vars+=(WIRESHARK_DEBUG_WMEM_OVERRIDE=strict)
  fi
  local status
  (
    ulimit -S -t 600 -s 2033
    "${as_user[@]}" env "${env_vars[@]}" "$tshark" "${extra[@]}" "${prefs[@]}" $args "$capture" \
      2>"$report.err" | grep -E "$tree_bad" | grep -vE "$tree_ok" | sort | uniq -c >"$report.tree"
    exit "${PIPESTATUS[0]}"
  )
  status=$?
  grep -iE "$stderr_bad" "$report.err" | grep -v "Running as user" | head -20 >"$report.stderr"
  if [ "$status" -ne 0 ] || [ -s "$report.tree" ] || [ -s "$report.stderr" ]; then
    { echo "tshark ($which, $args) exited $status"; cat "$report.stderr"; cat "$report.tree"
      [ "$status" -ne 0 ] && tail -30 "$report.err"; } >"$report"
    return 1
  fi
  return 0
}

declare -A runs findings
for d in "${dissectors[@]}"; do runs[$d]=0; findings[$d]=0; done

# finding WHICH ARGS CAPTURE HOW: one capture that shows a finding, told and kept.
finding() {
  local which=$1 args=$2 capture=$3 how=$4
  findings[$which]=$((findings[$which] + 1))
  echo "FINDING ($which, tshark $args): $how"
  sed 's/^/    /' "$work/single"
  if [ -n "$keep" ]; then
    mkdir -p "$keep"
    local name
    name="$which-$(basename "$capture" .pcap)"
    cp "$capture" "$keep/$name.pcap"
    { echo "$how"; cat "$work/single"; } >"$keep/$name.txt"
    echo "    kept: $keep/$name.pcap"
  fi
}

# check_batch CAPTURE COPIES FRAMES HOW: each dissector on CAPTURE, COPIES corrupted copies of
# FRAMES frames each; a copy of a batch with a finding is cut out and run alone.
check_batch() {
  local capture=$1 copies=$2 frames=$3 how=$4
  local which args c single
  chmod a+r "$capture"
  for which in "${dissectors[@]}"; do
    for args in "${arg_sets[@]}"; do
      runs[$which]=$((runs[$which] + 1))
      run_tshark "$which" "$args" "$capture" "$work/report" && continue
      for ((c = 0; c < copies; c++)); do
        single=$work/$(basename "$capture" .pcap)-copy$c.pcap
        if [ "$copies" -gt 1 ]; then
          "$editcap" -r "$capture" "$single" "$((c * frames + 1))-$(((c + 1) * frames))" >/dev/null 2>&1
        else
          cp "$capture" "$single"
        fi
        chmod a+r "$single"
        if ! run_tshark "$which" "$args" "$single" "$work/single"; then
          finding "$which" "$args" "$single" "$how; editcap -r OUT $(basename "$single") $((c * frames + 1))-$(((c + 1) * frames)) (copy $c)"
        fi
        rm -f "$single"
      done
    done
  done
}

if [ -n "$regressions" ]; then
  for f in "$regressions"/*.pcap; do
    [ -e "$f" ] || continue
    cp "$f" "$work/batch/regression.pcap"
    check_batch "$work/batch/regression.pcap" 1 0 "regression capture $(basename "$f"), as it is"
    echo "regression $(basename "$f"): run"
  done
fi

start=$(date +%s)
done_count=0
for ((b = 0; done_count < count; b++)); do
  g=${golden[$((b % ${#golden[@]}))]}
  o=${offsets[$((b / ${#golden[@]} % ${#offsets[@]}))]}
  s=$((seed + b))
  k=$((count - done_count < batch ? count - done_count : batch))
  frames=$("$capinfos" -T -r -c "$g" | cut -f2)
  copies=()
  for ((j = 0; j < k; j++)); do copies+=("$g"); done
  if ! "$mergecap" -a -F pcap -w "$work/batch/copies.pcap" "${copies[@]}" 2>"$work/tool.err" ||
     ! "$editcap" -E "$prob" -o "$o" --seed "$s" "$work/batch/copies.pcap" \
       "$work/batch/corrupted.pcap" >/dev/null 2>>"$work/tool.err"; then
    echo "fuzz: mergecap or editcap failed on $g:" >&2; cat "$work/tool.err" >&2; exit 2
  fi
  check_batch "$work/batch/corrupted.pcap" "$k" "$frames" \
    "mergecap -a -F pcap -w IN ($k x $(basename "$g")); editcap -E $prob -o $o --seed $s IN OUT"
  done_count=$((done_count + k))
  echo "fuzz: $done_count of $count corrupted captures, $(($(date +%s) - start)) s"
done

status=0
for d in "${dissectors[@]}"; do
  echo "fuzz: $d: $done_count corrupted captures ($b batches, seeds $seed-$((seed + b - 1)), P=$prob), ${runs[$d]} tshark runs (${arg_sets[*]}), ${findings[$d]} findings"
  [ "${findings[$d]}" -eq 0 ] || status=1
done
exit "$status"
