#!/usr/bin/env bash
# `cpack -G DEB` on the build: the three packages (rdcc, rdcc-wireshark, rdcc-dev), each
# depending on Debian packages only (every name in Depends is one dpkg knows), with the files
# where Debian and Wireshark look for them; the rdcc package unpacked elsewhere runs and finds
# its own scenarios.
#
#   package_test.sh BUILD_DIR SOURCE_DIR VERSION WIRESHARK_PLUGINDIR(absolute, or empty)
set -uo pipefail
build=$1 src=$2 version=$3 plugindir=$4
. "$src/tools/test/lib.sh"

check "cpack -G DEB" run 0 cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg"
arch=$(dpkg --print-architecture)
for name in rdcc rdcc-wireshark rdcc-dev; do
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

# Unpacked anywhere, the programs run and find the package's own scenarios.
check "unpack rdcc.deb" dpkg-deb -x "$work/pkg/rdcc_${version}_$arch.deb" "$work/root"
rm -f "$work/root/usr/share/rdcc/scenarios/crn/"*.scn
check "unpacked rdcc-conform --list: its own scenarios" run 0 "$work/root/usr/bin/rdcc-conform" --list --iut reference:crn
check "unpacked: no CRN scenario left" grep -qx "0 scenarios" "$work/out"
finish package_test
