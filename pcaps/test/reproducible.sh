#!/usr/bin/env bash
# The captures in pcaps/ are exactly what the generator writes now: run it twice into temporary
# folders (same bytes both times) and compare with the checked-in files.
set -euo pipefail
gen=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/a" "$tmp/b"
"$gen" "$tmp/a"
"$gen" "$tmp/b"
status=0
for f in "$tmp"/a/*; do
  name=$(basename "$f")
  if ! cmp -s "$f" "$tmp/b/$name"; then
    echo "FAIL: $name differs between two runs of the generator"; status=1
  fi
  if ! cmp -s "$f" "$src/$name"; then
    echo "FAIL: pcaps/$name is not what the generator writes (run: cmake --build BUILD --target pcaps)"
    status=1
  fi
done
[ "$status" -eq 0 ] && echo "pcaps: $(ls "$tmp/a" | wc -l) files reproducible and up to date"
exit "$status"
