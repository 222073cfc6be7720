#!/usr/bin/env bash
# The main job on a fresh Debian machine: install what is needed, build, run.
# For now the main job decodes the spec's appendix examples; the conformance suite against
# the reference implementation replaces it when it lands.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset default
cmake --build --preset default -j "$(nproc)"
./build/default/tools/rdcc decode --input docs/examples/appendix.hex
