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
# clang-tidy (.clang-tidy) on codec/ and wire/, the libraries every component includes;
# `scripts/tidy.sh --all` checks the whole tree (too slow for CI: see the script).
bash scripts/tidy.sh -p build/default
stage clang-tidy
ctest --preset default -j "$jobs"
stage "default ctest"

cmake --preset asan
cmake --build --preset asan -j "$jobs"
stage "asan build"
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

bash fuzz/run-smoke.sh
stage "fuzz smoke"
