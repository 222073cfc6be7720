#!/usr/bin/env bash
# Every test on a fresh Debian machine: install what is needed, build, run ctest; then the
# same tests again under AddressSanitizer + UndefinedBehaviorSanitizer; then every libFuzzer
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

# The tree follows .clang-format (scripts/format.sh fixes what this reports).
bash scripts/format.sh --check

# With the automatic mutants (reference/automutants/): ctest conformance_auto_mutants plays a
# fixed sample of them, and fails on a wire-visible survivor conformance/mutants-reviewed.md does
# not list.
cmake --preset default -DRDCC_AUTOMUT=ON
cmake --build --preset default -j "$jobs"
stage "default build"
# Beside the default ctest, at the idle scheduling class (SCHED_IDLE: `chrt --idle 0`): clang-tidy,
# the sanitized build and the fuzz harnesses' build. About half of that ctest stage is the
# real-time tests (label realtime), which hold both cores for themselves (PROCESSORS 2) and
# mostly wait on the clock; an idle-class compiler runs only on a core no test wants, and a test
# process that wakes preempts it at once, so the tests keep their timing and the builds take
# the cores they leave. (Where chrt is missing or refused: `nice -n 19`.)
idle=(chrt --idle 0)
"${idle[@]}" true 2>/dev/null || idle=(nice -n 19)
mkdir -p build
beside_log=build/beside-ctest.log
# setsid: its own process group, stopped whole if this script stops early (a red stage).
setsid "${idle[@]}" bash scripts/build-beside.sh >"$beside_log" 2>&1 &
beside=$!
trap 'kill -- -$beside 2>/dev/null || true' EXIT
ctest --preset default -j "$jobs"
stage "default ctest"

# What the builds beside printed, and their end (they may still be compiling).
if ! wait "$beside"; then
  cat "$beside_log"
  echo "run-tests: the builds beside the default ctest failed (log above, $beside_log)"
  exit 1
fi
trap - EXIT
grep -E '^build-beside:|^fuzz smoke: built' "$beside_log"
stage "clang-tidy, asan and fuzz builds (beside the default ctest, then alone)"

# The tshark tests check the dissectors (and tshark), not sanitized code: run once, above. The
# suite against the real nodes on loopback (label realtime) holds the IUT to the suite's timing
# tolerance, which sanitized nodes (several times slower) miss: run once, above, unsanitized.
# Label memory: peak-RSS bounds, which ASan's shadow memory inflates: run once, above.
# Label matrix: the suite replayed under every named mutant and variant (885 s of CPU sanitized,
# for code the sanitized unit and explore tests run): run once, above. Label browser (chromium
# reading the HTML report, which the sanitized conformance_html_report still writes and checks):
# once, above. (The install tests are not defined in a sanitized build: cmake/install.cmake.)
ctest --preset asan -j "$jobs" --label-exclude 'dissector|realtime|memory|matrix|browser'
stage "asan ctest"

# The harnesses, built beside the default ctest, run on their fixed inputs (the build is a no-op).
bash fuzz/run-smoke.sh
stage "fuzz smoke"
