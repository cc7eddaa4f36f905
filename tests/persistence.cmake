# SPDX-License-Identifier: MIT
# Persistence in place and streaming fills: cw_flush, cw_persist,
# cw_memset_nt, cw_memset_flushcache, cw_memset_persist. Included by
# tests/CMakeLists.txt, after CW_TEST_IMPLS is set.
find_package(Threads REQUIRED)

cw_core_test(test_memset)
target_link_libraries(test_memset PRIVATE Threads::Threads)
cw_core_test(test_flush)

# The differential fill test once per implementation, forced with
# CACHEWISE_IMPL (exit 77: this CPU cannot run it); a second run with the
# movnti rule for persisted partial lines, which the Xeon's profile (clwb)
# would otherwise never take; the concurrency test.
foreach(impl IN LISTS CW_TEST_IMPLS)
  add_test(NAME persist.memset.${impl} COMMAND test_memset)
  set_tests_properties(persist.memset.${impl} PROPERTIES
    ENVIRONMENT "CACHEWISE_IMPL=${impl}" SKIP_RETURN_CODE 77 LABELS "core;persist")
  add_test(NAME persist.memset_movnti.${impl} COMMAND test_memset --only cw_memset_persist)
  set_tests_properties(persist.memset_movnti.${impl} PROPERTIES
    ENVIRONMENT "CACHEWISE_IMPL=${impl};CACHEWISE_PERSIST_SMALL=movnti"
    SKIP_RETURN_CODE 77 LABELS "core;persist")
  add_test(NAME persist.memset_clwb.${impl} COMMAND test_memset --only cw_memset_persist)
  set_tests_properties(persist.memset_clwb.${impl} PROPERTIES
    ENVIRONMENT "CACHEWISE_IMPL=${impl};CACHEWISE_PERSIST_SMALL=clwb"
    SKIP_RETURN_CODE 77 LABELS "core;persist")
endforeach()
add_test(NAME persist.memset_threads COMMAND test_memset --threads)
set_tests_properties(persist.memset_threads PROPERTIES LABELS "core;persist;tsan")

# The fill kernels of the 64-byte template instance on AVX2 hardware (the
# instance tests/ladder64_row.c builds for core.ladder64).
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
  add_executable(test_memset_ladder64 test_memset_ladder64.c ladder64_row.c)
  target_include_directories(test_memset_ladder64 PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(test_memset_ladder64 PRIVATE cachewise_static)
  add_test(NAME persist.memset_ladder64 COMMAND test_memset_ladder64)
  set_tests_properties(persist.memset_ladder64 PROPERTIES SKIP_RETURN_CODE 77
    LABELS "core;persist")
endif()

add_test(NAME persist.flush COMMAND test_flush)
set_tests_properties(persist.flush PROPERTIES LABELS "core;persist")

# The five exports and the absence of memset/bzero calls: core.symbols
# (tests/test_symbols.sh) checks them with the copies'.
