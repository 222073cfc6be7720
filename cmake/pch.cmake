# Precompiled headers for our C++ targets under clang (RDCC_PCH, on by default): the third-party
# headers that nearly every translation unit parses, nlohmann/json.hpp (through codec/json.hpp,
# reference/events.hpp, conformance/adapter.hpp ...) and, in a test, gtest/gtest.h, with their
# common template instantiations (clang's -fpch-instantiate-templates, CMake's default). The
# builds are most of CI's time on its two-core host. Measured from the same sources, no ccache,
# -j2: the whole asan preset (clang 14, -O1, ASan+UBSan) 695 s wall without, 538 s with (user
# 1,235 s / 982 s); targets rdcc_reference reference_test rdcc_conformance conformance_test (135
# TUs) of the default preset (g++ 12, -O2) 346 s without, 350 s with (user 585 s / 568 s).
# g++ gains nothing (loading its 100-130 MB .gch costs what parsing did) and, with a PCH, reports
# libstdc++'s std::string operator+ as -Warray-bounds in code that builds clean without one (a
# system header's inlined code no longer counts as a system header's): so clang only.
#
# Only third-party headers, never ours; and the default build (g++) has none, so a file that
# uses a header it does not include fails there as it did before.
option(RDCC_PCH "Precompile nlohmann/json.hpp and gtest/gtest.h for our C++ targets (clang)" ON)

# A few precompiled headers serve every target (REUSE_FROM): one with json.hpp, one with gtest.h
# too for the tests; each target reuses the one built like itself, position-independent or not
# and with the same compile options of its own (the fuzzing build's coverage flags, say), as
# clang refuses a .pch built otherwise. One .pch per target cost 2.5 to 3.5 s each, 125 s for
# 39 targets, most of them of one or two units.
set(rdcc_pch_enabled FALSE)
if(RDCC_PCH AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  set(rdcc_pch_enabled TRUE)
  set(rdcc_pch_source ${CMAKE_BINARY_DIR}/rdcc_pch.cpp)
  file(CONFIGURE OUTPUT ${rdcc_pch_source}
       CONTENT "// The unit the shared precompiled headers are built with (cmake/pch.cmake).\n")
  # No modification times of the headers in the .pch (ninja's depfiles rebuild it when one
  # changes), so that ccache may cache it and what uses it (scripts/compiler-cache.sh). A flag
  # of the .pch's own build only: a unit that uses the .pch needs none.
  set(rdcc_pch_options "$<$<COMPILE_LANGUAGE:CXX>:SHELL:-Xclang -fno-pch-timestamp>")
endif()

# rdcc_pch_target(OUT KIND PIC OPTIONS): the name of the shared .pch target for KIND (json or
# gtest), PIC (TRUE or FALSE) and a target's own COMPILE_OPTIONS, defined on first use.
function(rdcc_pch_target out kind pic options)
  string(MD5 key "${pic};${options}")
  string(SUBSTRING "${key}" 0 8 key)
  set(name rdcc_pch_${kind}_${key})
  if(NOT TARGET ${name})
    add_library(${name} OBJECT ${rdcc_pch_source})
    set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ${pic})
    target_link_libraries(${name} PRIVATE nlohmann_json::nlohmann_json rdcc_warnings)
    target_compile_options(${name} PRIVATE ${options} ${rdcc_pch_options})
    set(headers <nlohmann/json.hpp>)
    if(kind STREQUAL "gtest")
      target_link_libraries(${name} PRIVATE GTest::gtest)
      list(APPEND headers <gtest/gtest.h>)
    endif()
    target_precompile_headers(${name} PRIVATE ${headers})
  endif()
  set(${out} ${name} PARENT_SCOPE)
endfunction()

# rdcc_precompile_headers(DIR): every C++ library and executable defined under DIR.
function(rdcc_precompile_headers dir)
  if(NOT rdcc_pch_enabled)
    return()
  endif()
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    rdcc_precompile_headers("${sub}")
  endforeach()
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(NOT type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$"
       OR target MATCHES "^rdcc_pch_")
      continue()
    endif()
    get_target_property(sources ${target} SOURCES)
    set(cxx FALSE)
    foreach(source IN LISTS sources)
      if(source MATCHES "\\.(cpp|cc|cxx)$")
        set(cxx TRUE)
        break()
      endif()
    endforeach()
    get_target_property(standard ${target} CXX_STANDARD)
    if(NOT cxx OR (standard AND NOT standard EQUAL CMAKE_CXX_STANDARD))
      continue()  # no C++, or not C++20 (ns-3's units are C++17): the .pch is C++20
    endif()
    set(kind json)
    get_target_property(links ${target} LINK_LIBRARIES)
    if(links MATCHES "GTest::")
      set(kind gtest)
    endif()
    get_target_property(pic ${target} POSITION_INDEPENDENT_CODE)
    if(type MATCHES "^(SHARED|MODULE)_LIBRARY$" OR pic)
      set(pic TRUE)
    else()
      set(pic FALSE)
    endif()
    get_target_property(options ${target} COMPILE_OPTIONS)
    if(NOT options)
      set(options "")
    endif()
    rdcc_pch_target(pch ${kind} ${pic} "${options}")
    target_precompile_headers(${target} REUSE_FROM ${pch})
  endforeach()
endfunction()
