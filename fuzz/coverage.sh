#!/usr/bin/env bash
# Line and branch coverage of the codec (codec/src, codec/include), the reference endpoints
# and checker (reference/src, reference/include) and the tools' frame parser reached by the
# fuzz seed corpora and regression inputs: builds the replay harnesses with clang source-based
# coverage, replays every input once, and prints llvm-cov's report (per file, with line and
# branch columns, and a TOTAL per component).
#
#   fuzz/coverage.sh                          # the committed seeds only
#   fuzz/coverage.sh build/fuzz/smoke-corpus  # also the corpora a fuzz run grew (<dir>/<target>)
#
# Environment: RDCC_COVERAGE_BUILD_DIR (default build/coverage), RDCC_COVERAGE_JOBS (default
# nproc), LLVM_COV / LLVM_PROFDATA (default llvm-cov-14 / llvm-profdata-14). With --html DIR,
# also writes an HTML report there.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${RDCC_COVERAGE_BUILD_DIR:-build/coverage}
jobs=${RDCC_COVERAGE_JOBS:-$(nproc)}
llvm_cov=${LLVM_COV:-llvm-cov-14}
llvm_profdata=${LLVM_PROFDATA:-llvm-profdata-14}
targets=(fuzz_decode fuzz_json fuzz_json_number fuzz_text fuzz_bytes fuzz_pcap fuzz_scenario fuzz_receiver
  fuzz_sender fuzz_upper_tester)
html=
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --html) html=$2; shift 2 ;;
    *) extra+=("$1"); shift ;;
  esac
done

flags="-fprofile-instr-generate -fcoverage-mapping"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fprofile-instr-generate" \
  -DRDCC_BUILD_TESTS=OFF -DRDCC_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

profiles=$build/profiles
rm -rf "$profiles"
mkdir -p "$profiles"
objects=()
for target in "${targets[@]}"; do
  dirs=("fuzz/corpus/$target" "fuzz/regressions/$target")
  for d in "${extra[@]}"; do
    [ -d "$d/$target" ] && dirs+=("$d/$target")
  done
  LLVM_PROFILE_FILE="$profiles/$target.profraw" "$build/fuzz/$target" "${dirs[@]}" 2>/dev/null \
    | sed "s/^/$target: /"
  # The endpoints build their events only for an observer, and fuzzing runs without one: the
  # stateful corpora run once more with one (RDCC_FUZZ_TRACE), so the events they reach count.
  if [ "$target" = fuzz_receiver ] || [ "$target" = fuzz_sender ]; then
    RDCC_FUZZ_TRACE=1 LLVM_PROFILE_FILE="$profiles/$target.trace.profraw" "$build/fuzz/$target" \
      "${dirs[@]}" 2>/dev/null >/dev/null
  fi
  objects+=(-object "$build/fuzz/$target")
done
"$llvm_profdata" merge -sparse "$profiles"/*.profraw -o "$profiles/merged.profdata"

# One report of every file; each component's rows, with its own line and branch totals.
report=$profiles/report.txt
"$llvm_cov" report "${objects[@]:1}" -instr-profile="$profiles/merged.profdata" \
  -show-branch-summary 2>/dev/null >"$report"
declare -A components=([codec]="^codec/" [wire]="^wire/" [reference]="^reference/")
sources=(codec/src codec/include wire/src wire/include reference/src reference/include)
for component in codec wire reference; do
  echo "coverage: $component"
  head -1 "$report" | awk '{ printf "  %-48s %8s %8s %8s %9s %9s %8s\n", $1, "Lines", "Missed", "Cover", "Branches", "Missed", "Cover" }'
  awk -v re="${components[$component]}" '
    $1 ~ re {
      printf "  %-48s %8d %8d %8s %9d %9d %8s\n", $1, $8, $9, $10, $11, $12, $13
      lines += $8; missed_lines += $9; branches += $11; missed_branches += $12
    }
    END {
      printf "  %-48s %8d %8d %7.2f%% %9d %9d %7.2f%%\n", "TOTAL", lines, missed_lines,
        lines ? 100 * (lines - missed_lines) / lines : 0, branches, missed_branches,
        branches ? 100 * (branches - missed_branches) / branches : 0
    }' "$report"
done
if [ -n "$html" ]; then
  "$llvm_cov" show "${objects[@]:1}" -instr-profile="$profiles/merged.profdata" \
    -format=html -show-branches=count -output-dir="$html" "${sources[@]}"
  echo "coverage: HTML report in $html"
fi
