#!/usr/bin/env bash
# clang-format over every C and C++ file git tracks, with the root's .clang-format.
#   scripts/format.sh          reformat in place
#   scripts/format.sh --check  change nothing; list each file that differs and exit 1 if any does
# CI runs --check (scripts/run-tests.sh). Files git does not track are left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
format=${CLANG_FORMAT:-clang-format}
if ! command -v "$format" >/dev/null; then
  echo "format: $format not found (scripts/setup.sh installs the clang-format package)" >&2
  exit 2
fi
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cc' '*.cpp' '*.hpp')
if [ "${1:-}" = "--check" ]; then
  bad=()
  for f in "${files[@]}"; do
    if ! "$format" --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
  done
  if [ ${#bad[@]} -gt 0 ]; then
    printf 'format: %s differs from .clang-format\n' "${bad[@]}" >&2
    echo "format: ${#bad[@]} of ${#files[@]} files differ; run scripts/format.sh to fix them" >&2
    exit 1
  fi
  echo "format: all ${#files[@]} files follow .clang-format ($("$format" --version | head -1))"
elif [ $# -eq 0 ]; then
  "$format" -i "${files[@]}"
else
  echo "usage: scripts/format.sh [--check]" >&2
  exit 2
fi
