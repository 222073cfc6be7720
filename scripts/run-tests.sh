#!/usr/bin/env bash
# Every test on a fresh Debian machine: install what is needed, build, run ctest; then the
# same tests again under AddressSanitizer + UndefinedBehaviorSanitizer; then every libFuzzer
# harness on a fixed number of inputs under the sanitizers (fuzz/run-smoke.sh, reproducible).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/compiler-cache.sh
jobs=$(nproc)

# The tree follows .clang-format (scripts/format.sh fixes what this reports).
bash scripts/format.sh --check

# With the automatic mutants (reference/automutants/): ctest conformance_auto_mutants plays a
# fixed sample of them, and fails on a wire-visible survivor conformance/mutants-reviewed.md does
# not list.
cmake --preset default -DRDCC_AUTOMUT=ON
cmake --build --preset default -j "$jobs"
# clang-tidy (.clang-tidy) on codec/ and wire/, the libraries every component includes;
# `scripts/tidy.sh --all` checks the whole tree (too slow for CI: see the script).
bash scripts/tidy.sh -p build/default
ctest --preset default -j "$jobs"

cmake --preset asan
cmake --build --preset asan -j "$jobs"
# The tshark tests check the dissectors (and tshark), not sanitized code: run once, above. The
# suite against the real nodes on loopback (label realtime) holds the IUT to the suite's timing
# tolerance, which sanitized nodes (several times slower) miss: run once, above, unsanitized.
# Label memory: peak-RSS bounds, which ASan's shadow memory inflates: run once, above.
# Label matrix: the suite replayed under every named mutant and variant (885 s of CPU sanitized,
# for code the sanitized unit and explore tests run): run once, above.
ctest --preset asan -j "$jobs" --label-exclude 'dissector|realtime|memory|matrix'

bash fuzz/run-smoke.sh
