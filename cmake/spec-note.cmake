# Run by ctest after the tests (CTEST_CUSTOM_POST_TEST, from CTestCustom.cmake): when the spec
# is not where the tests that quote it look, say so under ctest's summary, with the path tried
# and how to give another; ctest itself shows a skipped test without its reason.
#   cmake -DRDCC_SPEC_FILE=CONFIGURED_PATH -P spec-note.cmake
set(path "${RDCC_SPEC_FILE}")
set(from "the CMake option RDCC_SPEC_FILE")
if(DEFINED ENV{RDCC_SPEC_FILE} AND NOT "$ENV{RDCC_SPEC_FILE}" STREQUAL "")
  set(path "$ENV{RDCC_SPEC_FILE}")
  set(from "the environment variable RDCC_SPEC_FILE")
endif()
if(NOT EXISTS "${path}")
  message("rdcc: the tests that quote the spec (CatalogAgainstSpec.Spec_*, .Every*, "
          ".EachSentence_*, .Refs_*, Variants.Registry_*) are skipped: the RDCC spec is not at ${path} "
          "(${from}); give its path with cmake -DRDCC_SPEC_FILE=PATH or the environment "
          "variable RDCC_SPEC_FILE to run them.")
endif()
