#!/usr/bin/env bash
# What scripts/run-tests.sh builds and checks beside the default ctest, at the idle scheduling
# class: clang-tidy on codec/ and wire/, the sanitized build (asan preset) and the fuzz harnesses
# (fuzz preset). Each step prints when it ended; the first that fails ends the script with its
# status. Run alone, it is the same three steps at whatever priority it was started with.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/compiler-cache.sh
jobs=$(nproc)
# clang-tidy (.clang-tidy) on codec/ and wire/, the libraries every component includes;
# `scripts/tidy.sh --all` checks the whole tree (too slow for CI: see the script).
bash scripts/tidy.sh -p build/default
echo "build-beside: clang-tidy passed at $SECONDS s"
cmake --preset asan
cmake --build --preset asan -j "$jobs"
echo "build-beside: asan build done at $SECONDS s"
RDCC_FUZZ_BUILD_ONLY=1 bash fuzz/run-smoke.sh
echo "build-beside: fuzz harnesses built at $SECONDS s"
