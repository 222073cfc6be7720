#!/usr/bin/env bash
# Installs every Debian package the RDCC toolkit needs to build, test, fuzz and dissect.
# Idempotent: packages already installed are left alone; safe to run on every CI start.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  ccache                                   # scripts/compiler-cache.sh: rebuilds reuse objects
  clang llvm libclang-rt-14-dev            # libFuzzer, ASan/UBSan, llvm-cov
  clang-format clang-tidy                  # scripts/format.sh, scripts/tidy.sh: checked in CI
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  libcli11-dev nlohmann-json3-dev
  libpcap-dev                              # the capture reader (libtins is not used: docs/cli.md, rdcc pcap)
  jq iproute2                              # the node tests read JSON lines and find free ports
  wireshark-dev libwireshark-dev tshark lua5.2
  valgrind                                 # reference/bench/callgrind.sh: instructions per grant decision
  libxml2-utils                            # xmllint: the conformance JUnit report test, the plot test
  xxd bsdextrautils                        # xxd, hexdump: the hex dumps rdcc_paste_pipe pastes into rdcc decode
  python3                                  # scripts/renumber-spec-notes.py and its ctests
  python3-distributed                      # scripts/sim-sweep.py: sweeps on Dask (for /usr/bin/python3)
  python3-pytest python3-scapy             # python/: the rdcc package's tests, the Scapy layer
  python3-clang libclang1-14               # reference/automutants/generate.py: the automatic mutants
  help2man                                 # the man pages, from each tool's --help
  dpkg-dev file                            # cpack -G DEB: dpkg-shlibdeps finds the dependencies
  chromium                                 # conformance_html_browser: the HTML report in a real browser
  ns3 libns3-dev libgsl-dev                # ns-3.37: rdcc sim --engine ns3 (ns3/, docs/ns3.md)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "setup: done"
