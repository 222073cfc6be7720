#!/usr/bin/env bash
# `cpack -G DEB` on the build: the four packages (rdcc, rdcc-wireshark, rdcc-dev, python3-rdcc), each
# depending on Debian packages only (every name in Depends is one dpkg knows), with the files
# where Debian and Wireshark look for them; the rdcc package unpacked elsewhere runs and finds
# its own scenarios.
#
#   package_test.sh BUILD_DIR SOURCE_DIR VERSION WIRESHARK_PLUGINDIR(absolute, or empty)
set -uo pipefail
build=$1 src=$2 version=$3 plugindir=$4
. "$src/tools/test/lib.sh"

# Four packages, each stripped and run through dpkg-shlibdeps: about 60 s on a loaded host,
# which is run's bound; cpack gets ten minutes.
timeout 600 cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" >"$work/cpack.txt" 2>&1
check "cpack -G DEB" test $? -eq 0
arch=$(dpkg --print-architecture)
for name in rdcc rdcc-wireshark rdcc-dev python3-rdcc; do
  deb=$work/pkg/${name}_${version}_$arch.deb
  check "$name .deb" test -s "$deb" || continue
  depends=$(dpkg-deb -f "$deb" Depends)
  echo "$name: Depends: $depends"
  # "libc6 (>= 2.34), libpcap0.8 (>= 1.0.0) | foo" -> one package name a line.
  for dep in $(tr ',|' '\n\n' <<<"$depends" | sed 's/(.*)//; s/^ *//; s/ *$//' | sort -u); do
    check "$name depends on Debian package $dep" dpkg-query -W "$dep" >/dev/null
  done
done
[ "$(dpkg-deb -f "$work/pkg/rdcc_${version}_$arch.deb" Depends)" ] || check "rdcc has dependencies" false

dpkg-deb -c "$work/pkg/rdcc_${version}_$arch.deb" >"$work/rdcc.list"
for f in ./usr/bin/rdcc ./usr/bin/rdcc-conform ./usr/share/rdcc/catalog/requirements.json \
         ./usr/share/rdcc/scenarios/crn/ ./usr/share/doc/rdcc/README.md \
         ./usr/share/bash-completion/completions/rdcc-conform; do
  check "rdcc.deb has $f" grep -q " $f" "$work/rdcc.list"
done
if command -v help2man >/dev/null; then
  check "rdcc.deb has rdcc-conform.1" grep -q " ./usr/share/man/man1/rdcc-conform.1" "$work/rdcc.list"
fi
if [ -n "$plugindir" ]; then
  dpkg-deb -c "$work/pkg/rdcc-wireshark_${version}_$arch.deb" >"$work/wireshark.list"
  check "rdcc-wireshark.deb: plugin in $plugindir/epan" grep -q " .$plugindir/epan/rdcc.so\$" "$work/wireshark.list"
fi
dpkg-deb -c "$work/pkg/rdcc-dev_${version}_$arch.deb" >"$work/dev.list"
check "rdcc-dev.deb: the package config" grep -q 'cmake/rdcc/rdccConfig.cmake$' "$work/dev.list"
check "rdcc-dev.deb: the C header" grep -q ' ./usr/include/rdcc/codec.h$' "$work/dev.list"

dpkg-deb -c "$work/pkg/python3-rdcc_${version}_$arch.deb" >"$work/python.list"
for f in __init__.py scapy.py _librdcc.so; do
  check "python3-rdcc.deb has rdcc/$f" grep -q " ./usr/lib/python3/dist-packages/rdcc/$f\$" "$work/python.list"
done
check "python3-rdcc depends on python3" grep -qw python3 <<<"$(dpkg-deb -f "$work/pkg/python3-rdcc_${version}_$arch.deb" Depends)"
check "unpack python3-rdcc.deb" dpkg-deb -x "$work/pkg/python3-rdcc_${version}_$arch.deb" "$work/pyroot"
if [ -x /usr/bin/python3 ]; then
  check "unpacked: import rdcc decodes the appendix grant" run 0 env -u RDCC_LIBRARY \
    PYTHONPATH="$work/pyroot/usr/lib/python3/dist-packages" /usr/bin/python3 -c \
    "import rdcc; print(rdcc.format_line(bytes.fromhex('100400285a17c0de000300000000002a00000000000001010000000000040000000186a0000007d0')))"
  check "... its line" contains "$work/out" "CREDIT_GRANT assoc=0x5a17c0de epoch=3 seq=42"
fi

# Unpacked anywhere, the programs run and find the package's own scenarios.
check "unpack rdcc.deb" dpkg-deb -x "$work/pkg/rdcc_${version}_$arch.deb" "$work/root"
rm -f "$work/root/usr/share/rdcc/scenarios/crn/"*.scn
check "unpacked rdcc-conform --list: its own scenarios" run 0 "$work/root/usr/bin/rdcc-conform" --list --iut reference:crn \
  --explore-episodes 0
check "unpacked: no CRN scenario left" grep -qx "0 scenarios" "$work/out"
finish package_test
