#!/usr/bin/env bash
# The rdcc Python package from a prefix made by `cmake --install`, outside the tree and without
# the build's RDCC_LIBRARY: `import rdcc, rdcc.scapy` finds the installed codec library beside
# the package, and decodes the spec's appendix grant with it.
#
#   install_test.sh BUILD_DIR PYTHON PYTHON_INSTALL_DIR SOURCE_DIR
set -uo pipefail
build=$1 python=$2 pydir=$3 src=$4
. "$src/tools/test/lib.sh"   # check, run, contains; $work (removed on exit)

prefix=$work/prefix
mkdir -p "$work/elsewhere"
cd "$work/elsewhere" || exit 1
check "cmake --install" run 0 cmake --install "$build" --prefix "$prefix"
for f in __init__.py scapy.py _librdcc.so; do
  check "installed $pydir/rdcc/$f" test -s "$prefix/$pydir/rdcc/$f"
done
unset RDCC_LIBRARY
check "import rdcc, rdcc.scapy from the prefix" \
  run 0 env PYTHONPATH="$prefix/$pydir" "$python" -c 'import rdcc, rdcc.scapy'
grant="100400285a17c0de000300000000002a00000000000001010000000000040000000186a0000007d0"
check "the installed package decodes the appendix grant" \
  run 0 env PYTHONPATH="$prefix/$pydir" "$python" -c "
import os, rdcc, rdcc.scapy
assert os.path.dirname(rdcc.__file__).startswith('$prefix'), rdcc.__file__
m = rdcc.decode(bytes.fromhex('$grant'))
assert (m['type'], m['grant_limit'], m['pacing_rate']) == ('CREDIT_GRANT', 262144, 100000), m
assert rdcc.scapy.to_dict(rdcc.scapy.RDCC(bytes.fromhex('$grant'))) == m
print(rdcc.format_line(bytes.fromhex('$grant')))"
check "... and prints its line" contains "$work/out" "CREDIT_GRANT assoc=0x5a17c0de epoch=3 seq=42"
finish python_install
