# Sourced by the run scripts: build through ccache (installed by setup.sh), so that a machine
# that built these sources before (a developer's, or CI on the same machine) reuses the
# objects. Paths are hashed relative to the checkout, so another clone of the same commit hits.
if command -v ccache >/dev/null 2>&1; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  # The clang builds precompile third-party headers (cmake/pch.cmake): ccache caches a compile
  # that uses the .pch only with these (its manual, "Precompiled headers"). Such a compile names
  # its .pch by absolute path: a rebuild in the same build tree hits (24 of 24 units, measured),
  # another clone's clang build does not (3 of 24); g++ builds have no .pch and hit across clones.
  export CCACHE_SLOPPINESS=pch_defines,time_macros
fi
