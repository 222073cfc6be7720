#!/usr/bin/env bash
# Every test on a fresh Debian machine: install what is needed, build, run ctest; then the
# same tests again under AddressSanitizer + UndefinedBehaviorSanitizer; and every libFuzzer
# harness on a fixed number of inputs under the sanitizers (fuzz/run-smoke.sh, reproducible).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage prints how long it took (CI's budget is 25 minutes on 2 cores: where it goes).
stage_start=$SECONDS
stage() {
  echo "run-tests: $1 took $((SECONDS - stage_start)) s (total $SECONDS s)"
  stage_start=$SECONDS
}
bash scripts/setup.sh
stage setup
source scripts/compiler-cache.sh
jobs=$(nproc)

# Work that runs beside a ctest stage, at the idle scheduling class (SCHED_IDLE, `chrt --idle
# 0`; `nice -n 19` where that is refused): it gets only the CPU time no test wants. Its own
# process group (setsid), stopped whole if this script stops early (a red stage).
idle=(chrt --idle 0)
"${idle[@]}" true 2>/dev/null || idle=(nice -n 19)
mkdir -p build
beside_pid=
beside() {  # beside LOG CMD...: start CMD beside what follows
  local log=$1
  shift
  setsid "${idle[@]}" "$@" >"$log" 2>&1 &
  beside_pid=$!
  trap 'kill -- -$beside_pid 2>/dev/null || true' EXIT
}
await() {  # await LOG WHAT: wait for the work beside; its log; fail if it failed
  local status=0
  wait "$beside_pid" || status=$?
  trap - EXIT
  cat "$1"
  if [ "$status" -ne 0 ]; then
    echo "run-tests: $2 failed (exit $status; log above, $1)"
    exit 1
  fi
}

# The tree follows .clang-format (scripts/format.sh fixes what this reports).
bash scripts/format.sh --check

# With the automatic mutants (reference/automutants/): ctest conformance_auto_mutants plays a
# fixed sample of them, and fails on a wire-visible survivor conformance/mutants-reviewed.md does
# not list.
cmake --preset default -DRDCC_AUTOMUT=ON
cmake --build --preset default -j "$jobs"
stage "default build"
# Every test. The real-time ones (label realtime: the suite against the real nodes on loopback)
# hold both cores for themselves (PROCESSORS 2) and mostly wait on the clock (266 s wall for
# 92 s of CPU, measured), but nothing runs beside them: receiver-report-reduces-rate needs the
# tester's data to flow with gaps under 200 us, and both a build (SCHED_IDLE: a compiler's page
# faults and unmaps run in the kernel, which this PREEMPT_NONE kernel does not preempt) and the
# fuzz smoke (SCHED_IDLE) beside them stalled it for 2.7 and 4.1 ms (the play UNSUPPORTED, two
# report mutants survived conformance_udp_kill_matrix_receiver).
ctest --preset default -j "$jobs"
stage "default ctest"

# Every libFuzzer harness on its fixed inputs, one per core at once (fuzz/run-smoke.sh).
bash fuzz/run-smoke.sh
stage "fuzz smoke"

cmake --preset asan
cmake --build --preset asan -j "$jobs"
stage "asan build"
# clang-tidy (.clang-tidy) on codec/ and wire/, the libraries every component includes, beside
# the sanitized tests (none of them real-time); `scripts/tidy.sh --all` checks the whole tree
# (too slow for CI: see the script).
beside build/clang-tidy.log bash scripts/tidy.sh -p build/default
# The tshark tests check the dissectors (and tshark), not sanitized code: run once, above. The
# suite against the real nodes on loopback (label realtime) holds the IUT to the suite's timing
# tolerance, which sanitized nodes (several times slower) miss: run once, above, unsanitized.
# Label memory: peak-RSS bounds, which ASan's shadow memory inflates: run once, above.
# Label matrix: the suite replayed under every named mutant and variant (885 s of CPU sanitized,
# for code the sanitized unit and explore tests run): run once, above. Label browser (chromium
# reading the HTML report, which the sanitized conformance_html_report still writes and checks):
# once, above. (The install tests are not defined in a sanitized build: cmake/install.cmake.)
ctest --preset asan -j "$jobs" --label-exclude 'dissector|realtime|memory|matrix|browser'
stage "asan ctest (clang-tidy beside)"
await build/clang-tidy.log clang-tidy
stage "clang-tidy (the rest of it)"
