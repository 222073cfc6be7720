"""What the tests share: the codec's boundary vectors (from rdcc-python-vectors, which prints
rdcc::testing::boundary_vectors(): the one source of the unit tests, fuzz seeds and golden
pcaps), the source tree and the rdcc tool. ctest sets the environment (python/CMakeLists.txt)."""

import os
import subprocess

import pytest


def _required(name):
    value = os.environ.get(name)
    if not value:
        raise RuntimeError(f"{name} is not set: run these tests through ctest (python/CMakeLists.txt)")
    return value


SOURCE_DIR = _required("RDCC_SOURCE_DIR")
RDCC_TOOL = _required("RDCC_TOOL")


def boundary_vectors():
    """[(name, bytes)] of every boundary vector."""
    out = subprocess.run([_required("RDCC_VECTORS")], check=True, capture_output=True, text=True)
    vectors = []
    for line in out.stdout.splitlines():
        name, hex_text = line.split(" ", 1)
        vectors.append((name, bytes.fromhex(hex_text)))
    if len(vectors) < 30:
        raise RuntimeError(f"only {len(vectors)} boundary vectors: {out.stdout}")
    return vectors


VECTORS = boundary_vectors()


@pytest.fixture(params=VECTORS, ids=[name for name, _ in VECTORS])
def vector(request):
    return request.param


def appendix_datagrams():
    """The datagrams of docs/examples/appendix.hex, one per line, '#' comments."""
    path = os.path.join(SOURCE_DIR, "docs", "examples", "appendix.hex")
    with open(path, encoding="ascii") as f:
        return [bytes.fromhex(line) for line in f if line.strip() and not line.startswith("#")]
