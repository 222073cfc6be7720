# What `cmake --install` puts where, and the Debian packages `cpack -G DEB` makes of it
# (README.md, "Installing"). Four components, one .deb each:
#   tools      rdcc, rdcc-conform; their scenarios and catalog (PREFIX/share/rdcc, found by
#              rdcc-conform from its own location), docs, man pages, bash completion
#   wireshark  the C plugin in Wireshark's plugin folder, the Lua dissector beside the data
#   dev        the codec as a library: headers, librdcc-codec.a, find_package(rdcc), rdcc-codec.pc
#   python     the rdcc Python package and its codec library (python/CMakeLists.txt)
include(CMakePackageConfigHelpers)
find_package(PkgConfig REQUIRED)

set(rdcc_datadir ${CMAKE_INSTALL_DATADIR}/rdcc)

# ---- tools ---------------------------------------------------------------------------------
install(TARGETS rdcc rdcc-conform RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
install(DIRECTORY conformance/scenarios DESTINATION ${rdcc_datadir} COMPONENT tools
        FILES_MATCHING PATTERN "*.scn")
install(FILES conformance/catalog/requirements.json DESTINATION ${rdcc_datadir}/catalog
        COMPONENT tools)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT tools)
install(FILES conformance/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT tools
        RENAME conformance.md)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT tools)
# The golden captures and their index: examples for rdcc pcap and the dissectors.
install(FILES pcaps/INDEX.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/pcaps COMPONENT tools)
install(DIRECTORY pcaps/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/pcaps COMPONENT tools
        FILES_MATCHING PATTERN "*.pcap")
install(FILES scripts/bash-completion/rdcc DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        COMPONENT tools)
install(FILES scripts/bash-completion/rdcc DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        COMPONENT tools RENAME rdcc-conform)

# Man pages from each program's --help and --version (help2man, scripts/setup.sh). Not in the
# sanitized builds (asan, fuzz), which are not installed: help2man would run sanitized programs
# at build time.
find_program(HELP2MAN help2man)
if(HELP2MAN AND NOT RDCC_SANITIZE AND NOT RDCC_FUZZ)
  set(rdcc_man_pages)
  foreach(tool_what IN ITEMS "rdcc|RDCC packet tooling: decode, encode, pcap, sim, nodes"
                             "rdcc-conform|RDCC conformance scenarios against an implementation")
    string(REPLACE "|" ";" tool_what "${tool_what}")
    list(GET tool_what 0 tool)
    list(GET tool_what 1 what)
    set(page ${PROJECT_BINARY_DIR}/man/${tool}.1)
    add_custom_command(OUTPUT ${page}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
      COMMAND ${HELP2MAN} --no-info --no-discard-stderr --name=${what}
              --include=${PROJECT_SOURCE_DIR}/cmake/man-see-also.h2m
              --output=${page} $<TARGET_FILE:${tool}>
      DEPENDS ${tool} ${PROJECT_SOURCE_DIR}/cmake/man-see-also.h2m
      COMMENT "Man page ${tool}.1 (help2man)"
      VERBATIM)
    list(APPEND rdcc_man_pages ${page})
  endforeach()
  add_custom_target(man_pages ALL DEPENDS ${rdcc_man_pages})
  install(FILES ${rdcc_man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT tools)
elseif(NOT HELP2MAN)
  message(STATUS "rdcc: help2man not found (scripts/setup.sh installs it): no man pages")
endif()

# ---- wireshark -----------------------------------------------------------------------------
# The C plugin goes to Wireshark's own plugin folder, as its pkg-config file names it
# (plugindir, e.g. /usr/lib/x86_64-linux-gnu/wireshark/plugins/4.0), under epan/ where the
# loader looks for dissector plugins. Taken relative to Wireshark's prefix, so that an install
# under another prefix (a test's, a DESTDIR) keeps the layout; RDCC_WIRESHARK_PLUGIN_DIR
# overrides it. The Lua dissector registers the same protocol as the C plugin, so it is
# installed beside the data, not where Wireshark would load both (README.md, "Wireshark").
if(TARGET rdcc_wireshark_plugin)
  pkg_get_variable(rdcc_ws_plugindir wireshark plugindir)
  pkg_get_variable(rdcc_ws_prefix wireshark prefix)
  if(NOT rdcc_ws_plugindir)
    message(FATAL_ERROR "pkg-config --variable=plugindir wireshark gives nothing")
  endif()
  file(RELATIVE_PATH rdcc_ws_plugindir_rel "${rdcc_ws_prefix}" "${rdcc_ws_plugindir}")
  set(RDCC_WIRESHARK_PLUGIN_DIR "${rdcc_ws_plugindir_rel}" CACHE PATH
      "Wireshark's plugin folder (relative: to CMAKE_INSTALL_PREFIX); the plugin goes to its epan/")
  install(TARGETS rdcc_wireshark_plugin LIBRARY DESTINATION ${RDCC_WIRESHARK_PLUGIN_DIR}/epan
          COMPONENT wireshark)
endif()
install(FILES dissector/lua/rdcc.lua DESTINATION ${rdcc_datadir}/wireshark COMPONENT wireshark)

# ---- dev: the codec as a library -----------------------------------------------------------
install(TARGETS rdcc_codec EXPORT rdccTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY codec/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
install(FILES ${PROJECT_BINARY_DIR}/include/rdcc/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rdcc COMPONENT dev)
set(rdcc_cmakedir ${CMAKE_INSTALL_LIBDIR}/cmake/rdcc)
install(EXPORT rdccTargets NAMESPACE rdcc:: DESTINATION ${rdcc_cmakedir} COMPONENT dev)
configure_package_config_file(cmake/rdccConfig.cmake.in ${PROJECT_BINARY_DIR}/rdccConfig.cmake
                              INSTALL_DESTINATION ${rdcc_cmakedir})
# 0.x: a minor release may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/rdccConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/rdccConfig.cmake ${PROJECT_BINARY_DIR}/rdccConfigVersion.cmake
        DESTINATION ${rdcc_cmakedir} COMPONENT dev)
# pkg-config: prefix from the .pc file's own folder, so that the file is right under any prefix.
set(rdcc_pcdir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH RDCC_PC_TO_PREFIX /prefix/${rdcc_pcdir} /prefix)
configure_file(cmake/rdcc-codec.pc.in ${PROJECT_BINARY_DIR}/rdcc-codec.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/rdcc-codec.pc DESTINATION ${rdcc_pcdir} COMPONENT dev)

# ---- cpack -G DEB ----------------------------------------------------------------------------
set(CPACK_PACKAGE_NAME rdcc)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(RDCC_PACKAGE_MAINTAINER "RDCC toolkit maintainers" CACHE STRING
    "The Maintainer field of the .deb packages")
set(CPACK_PACKAGE_CONTACT "${RDCC_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL tools wireshark dev python)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_STRIP_FILES ON)  # programs and the plugin without debug information (72 MB -> a few)
# Dependencies from the binaries' shared libraries, as Debian packages (dpkg-shlibdeps).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME rdcc)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SUGGESTS "rdcc-wireshark, tshark")
set(CPACK_DEBIAN_TOOLS_DESCRIPTION
    "RDCC conformance suite (rdcc-conform) and packet tooling (rdcc)")
set(CPACK_DEBIAN_WIRESHARK_PACKAGE_NAME rdcc-wireshark)
set(CPACK_DEBIAN_WIRESHARK_PACKAGE_ENHANCES "wireshark, tshark")
set(CPACK_DEBIAN_WIRESHARK_DESCRIPTION "Wireshark dissectors for RDCC (C plugin and Lua script)")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME rdcc-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "nlohmann-json3-dev (>= 3)")
set(CPACK_DEBIAN_DEV_DESCRIPTION
    "RDCC wire codec library (C and C++20): find_package(rdcc), pkg-config rdcc-codec")
set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-rdcc)
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "python3")
set(CPACK_DEBIAN_PYTHON_PACKAGE_SUGGESTS "python3-scapy, rdcc")
set(CPACK_DEBIAN_PYTHON_DESCRIPTION
    "RDCC messages from Python: decode, encode and a Scapy layer over the RDCC codec")
include(CPack)

# ---- tests -----------------------------------------------------------------------------------
# Unsanitized builds only: the consumer project links the installed static library without the
# sanitizer runtime, and the tests check the packaging, not the code (run once, in `default`).
if(RDCC_BUILD_TESTS AND NOT RDCC_SANITIZE AND NOT RDCC_FUZZ)
  set(rdcc_test_plugin_dir "")
  set(rdcc_test_plugindir_abs "")
  if(TARGET rdcc_wireshark_plugin AND TSHARK)
    set(rdcc_test_plugin_dir ${RDCC_WIRESHARK_PLUGIN_DIR})
  endif()
  if(TARGET rdcc_wireshark_plugin)
    set(rdcc_test_plugindir_abs ${rdcc_ws_plugindir})
  endif()
  add_test(NAME install_prefix
           COMMAND ${PROJECT_SOURCE_DIR}/tests/install_test.sh ${PROJECT_BINARY_DIR}
                   ${PROJECT_SOURCE_DIR} ${PROJECT_VERSION} "${rdcc_test_plugin_dir}"
                   ${CMAKE_C_COMPILER} ${CMAKE_CXX_COMPILER} "${TSHARK}")
  add_test(NAME install_package_deb
           COMMAND ${PROJECT_SOURCE_DIR}/tests/package_test.sh ${PROJECT_BINARY_DIR}
                   ${PROJECT_SOURCE_DIR} ${PROJECT_VERSION} "${rdcc_test_plugindir_abs}")
  set_tests_properties(install_prefix install_package_deb PROPERTIES LABELS install TIMEOUT 300)
endif()
