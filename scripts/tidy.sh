#!/usr/bin/env bash
# clang-tidy with the root's .clang-tidy over the translation units of a configured build.
#   scripts/tidy.sh [-p BUILD_DIR] [PATH...]   the units under each PATH (default: codec/src wire/src)
#   scripts/tidy.sh [-p BUILD_DIR] --all       every unit of the build except generated ones
# Exits 1 on any finding (the config makes every warning an error). BUILD_DIR defaults to
# build/default and must have been configured (compile_commands.json) and built far enough that
# generated headers exist. CI runs the default paths: clang-tidy costs ~9 s of CPU per unit on an
# idle core (~30 min for the whole tree on CI's two cores), so CI checks the two libraries every
# other component includes; run --all before a change that touches many components.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/default
if [ "${1:-}" = "-p" ]; then build=$2; shift 2; fi
db="$build/compile_commands.json"
if [ ! -f "$db" ]; then
  echo "tidy: $db not found: configure first (cmake --preset default)" >&2
  exit 2
fi
runner=$(command -v run-clang-tidy || command -v run-clang-tidy-14 || true)
if [ -z "$runner" ] || ! command -v clang-tidy >/dev/null; then
  echo "tidy: clang-tidy / run-clang-tidy not found (scripts/setup.sh installs clang-tidy)" >&2
  exit 2
fi
root=$PWD
# The units under each path (every unit of the build outside build/ for --all).
paths=("$@")
[ ${#paths[@]} -gt 0 ] || paths=(codec/src wire/src)
[ "${paths[0]}" != "--all" ] || paths=(.)
mapfile -t units < <(python3 - "$db" "$root" "${paths[@]}" <<'PY'
import json, os, sys
db, root, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
want = [os.path.normpath(os.path.join(root, p)) for p in paths]
for e in json.load(open(db)):
    f = e["file"]
    if "/build/" in f[len(root):]:
        continue
    if any(f == w or f.startswith(w + "/") for w in want):
        print(f)
PY
)
if [ ${#units[@]} -eq 0 ]; then
  echo "tidy: no translation unit of $db lies under: ${*:-codec/src wire/src}" >&2
  exit 2
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$SECONDS
# run-clang-tidy takes regular expressions; each unit's path, escaped, anchored.
regexes=()
for u in "${units[@]}"; do regexes+=("^$(printf '%s' "$u" | sed 's/[][\.*^$+?(){}|]/\\&/g')\$"); done
if "$runner" -quiet -p "$build" -j "$(nproc)" "${regexes[@]}" >"$log" 2>&1; then status=0; else status=1; fi
# run-clang-tidy colours its output even into a file: without the colour codes a finding is
# "FILE:LINE:COL: error: ..." (a header's finding once, however many units include it).
sed -i 's/\x1b\[[0-9;]*m//g' "$log"
findings=$({ grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$log" || true; } | sort -u | wc -l)
if [ "$status" -ne 0 ] || [ "$findings" -ne 0 ]; then
  grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$log" | sort -u >&2 || cat "$log" >&2
  echo "tidy: $findings finding(s) in ${#units[@]} units ($((SECONDS - start)) s)" >&2
  exit 1
fi
echo "tidy: ${#units[@]} units clean ($((SECONDS - start)) s, $(clang-tidy --version | grep -o 'version [0-9.]*'))"
