# SPDX-License-Identifier: MIT
# Tests of libcachewise-preload.so (src/preload, docs/PRELOAD.md). The shim is
# not built with sanitizers, and then these tests are not registered.
if(NOT TARGET cachewise_preload)
  return()
endif()

set(CWP_DIR ${CMAKE_CURRENT_SOURCE_DIR}/preload)
set(CWP_SHIM $<TARGET_FILE:cachewise_preload>)
set(CWP_WORK ${CMAKE_CURRENT_BINARY_DIR}/preload-work)
find_program(CWP_BASH bash REQUIRED)
find_package(Threads REQUIRED)
# The Debian interpreter, a real dynamically linked program; any python3
# runs the checker scripts.
find_program(CWP_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT CWP_PYTHON)
  find_program(CWP_PYTHON python3)
endif()
if(NOT CWP_PYTHON)
  message(STATUS "preload tests: python3 not found, preload tests skipped")
  return()
endif()

# Test programs: the copies go through volatile function pointers and
# -fno-builtin, so the compiler cannot inline them past the shim.
foreach(p known_calls copies chk_fail mt forkexec early closes_stderr)
  add_executable(cwp_${p} ${CWP_DIR}/${p}.c)
  target_compile_options(cwp_${p} PRIVATE -fno-builtin -U_FORTIFY_SOURCE)
  target_link_libraries(cwp_${p} PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
endforeach()

function(cwp_test name)
  add_test(NAME preload_${name} COMMAND ${CWP_BASH} ${ARGN})
  set_tests_properties(preload_${name} PROPERTIES LABELS preload TIMEOUT 180
    SKIP_RETURN_CODE 77)
endfunction()
set(CWP_STREAM "CACHEWISE_NT_THRESHOLD=4K;CACHEWISE_SRC_NOREUSE_THRESHOLD=8K")

cwp_test(exports ${CWP_DIR}/exports.sh ${CWP_SHIM})
if(CMAKE_CROSSCOMPILING)
  # the target's binutils: the host's objdump cannot disassemble the shim
  set_tests_properties(preload_exports PROPERTIES ENVIRONMENT
    "CW_NM=${CMAKE_NM};CW_OBJDUMP=${CMAKE_OBJDUMP};CW_READELF=${CMAKE_READELF}")
endif()
cwp_test(known_calls ${CWP_DIR}/known.sh ${CWP_SHIM} $<TARGET_FILE:cwp_known_calls>
  ${CWP_WORK}/known)
cwp_test(signal_flush ${CWP_DIR}/known.sh ${CWP_SHIM} $<TARGET_FILE:cwp_known_calls>
  ${CWP_WORK}/signal signal)
foreach(i 0 1 2)
  cwp_test(chk_fail_${i} ${CWP_DIR}/chk.sh ${CWP_SHIM} $<TARGET_FILE:cwp_chk_fail> ${i})
endforeach()
# every implementation of this architecture (CW_TEST_IMPLS, tests/CMakeLists.txt),
# generic first
set(CWP_IMPLS ${CW_TEST_IMPLS})
list(REVERSE CWP_IMPLS)
foreach(impl IN LISTS CWP_IMPLS)
  cwp_test(copies_${impl} ${CWP_DIR}/impl.sh ${CWP_SHIM} ${impl} $<TARGET_FILE:cwp_copies>)
  cwp_test(copies_${impl}_stream ${CWP_DIR}/impl.sh ${CWP_SHIM} ${impl}
    $<TARGET_FILE:cwp_copies>)
  set_tests_properties(preload_copies_${impl}_stream PROPERTIES ENVIRONMENT "${CWP_STREAM}")
endforeach()
cwp_test(threads ${CWP_DIR}/mt.sh ${CWP_SHIM} $<TARGET_FILE:cwp_mt> ${CWP_WORK}/mt)
cwp_test(threads_stream ${CWP_DIR}/mt.sh ${CWP_SHIM} $<TARGET_FILE:cwp_mt>
  ${CWP_WORK}/mt_stream)
set_tests_properties(preload_threads_stream PROPERTIES ENVIRONMENT "${CWP_STREAM}")
# Only 3 per-thread slots: the other threads count into the shared one.
cwp_test(threads_shared_slot ${CWP_DIR}/mt.sh ${CWP_SHIM} $<TARGET_FILE:cwp_mt>
  ${CWP_WORK}/mt_shared)
set_tests_properties(preload_threads_shared_slot PROPERTIES ENVIRONMENT
  "CACHEWISE_PROFILE_SLOTS=3")
cwp_test(early ${CWP_DIR}/early.sh ${CWP_SHIM} $<TARGET_FILE:cwp_early> ${CWP_WORK}/early)
cwp_test(forkexec ${CWP_DIR}/forkexec.sh ${CWP_SHIM} $<TARGET_FILE:cwp_forkexec>
  ${CWP_WORK}/forkexec)
# CACHEWISE_STATS: the calls per size class and per path, to a file and to
# stderr, with every implementation of this architecture
foreach(impl IN LISTS CWP_IMPLS)
  cwp_test(stats_${impl} ${CWP_DIR}/stats.sh ${CWP_SHIM} $<TARGET_FILE:cwp_known_calls>
    ${CWP_WORK}/stats_${impl})
  set_tests_properties(preload_stats_${impl} PROPERTIES ENVIRONMENT "CACHEWISE_IMPL=${impl}")
endforeach()
# The profile's file name in the verbose line (%p expanded), and a failure
# to write it reported although the program closed fd 2 before exit.
cwp_test(stderr ${CWP_DIR}/stderr.sh ${CWP_SHIM} $<TARGET_FILE:cwp_closes_stderr>
  ${CWP_WORK}/stderr)

# Real programs from the system, output compared byte for byte. In a cross
# build they are the host's and cannot load the target's shim: real.sh
# skips them (77) there, saying so.
foreach(prog gzip xz sort)
  find_program(CWP_HAVE_${prog} ${prog})
endforeach()
set(CWP_HAVE_python ${CWP_PYTHON})
foreach(prog gzip xz sort python)
  if(NOT CWP_HAVE_${prog})
    message(STATUS "preload tests: ${prog} not found, its tests skipped")
    continue()
  endif()
  cwp_test(real_${prog} ${CWP_DIR}/real.sh ${prog} ${CWP_SHIM} ${CWP_WORK}/${prog}
    ${CWP_PYTHON})
  cwp_test(real_${prog}_stream ${CWP_DIR}/real.sh ${prog} ${CWP_SHIM}
    ${CWP_WORK}/${prog}_stream ${CWP_PYTHON})
  set_tests_properties(preload_real_${prog}_stream PROPERTIES ENVIRONMENT "${CWP_STREAM}")
endforeach()

if(TARGET cwbench)
  cwp_test(cwbench_dist ${CWP_DIR}/dist.sh ${CWP_SHIM} $<TARGET_FILE:cwp_known_calls>
    $<TARGET_FILE:cwbench> ${CWP_WORK}/dist)
endif()
