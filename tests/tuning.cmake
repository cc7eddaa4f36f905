# SPDX-License-Identifier: MIT
# The per-CPU policy: every built-in profile forced by name runs
# the differential and fault suites on this CPU (one test per row and
# suite), policy corners no profile reaches are forced setting by setting,
# and tuning files and names are loaded, reported and refused
# (tests/tuning/run.sh). CW_SAFE_ENV_MOD comes from safe.cmake.
# the generic row has no policy-dependent code
set(CW_POLICY_IMPLS ${CW_TEST_IMPLS})
list(REMOVE_ITEM CW_POLICY_IMPLS generic)
set(CW_PROFILES intel-server amd-zen3 amd-zen4 amd-zen5 generic-intel generic-amd generic-aarch64 generic)
foreach(p IN LISTS CW_PROFILES)
  add_test(NAME profile.${p}.copy COMMAND test_copy)
  add_test(NAME profile.${p}.memmove COMMAND test_memmove)
  add_test(NAME profile.${p}.safe_faults COMMAND safe_faults)
  add_test(NAME profile.${p}.hostile COMMAND test_hostile)
  set_tests_properties(profile.${p}.copy profile.${p}.memmove profile.${p}.safe_faults
    profile.${p}.hostile PROPERTIES ENVIRONMENT "CACHEWISE_TUNING=${p}"
    ENVIRONMENT_MODIFICATION "${CW_SAFE_ENV_MOD}" SKIP_RETURN_CODE 77
    LABELS "profile" TIMEOUT 600)
endforeach()
# The rows whose rules differ most, under every implementation's ladder.
foreach(p intel-server amd-zen3 amd-zen5)
  foreach(impl IN LISTS CW_POLICY_IMPLS)
    add_test(NAME profile.${p}.copy.${impl} COMMAND test_copy)
    set_tests_properties(profile.${p}.copy.${impl} PROPERTIES
      ENVIRONMENT "CACHEWISE_TUNING=${p};CACHEWISE_IMPL=${impl}" SKIP_RETURN_CODE 77
      LABELS "profile" TIMEOUT 600)
  endforeach()
endforeach()

# Corners: rep movsb at every size past the ladder (either alignment rule),
# each prefetch hint at short and long distances, each CW_SRC_NOREUSE mode
# and both small-persist rules, both ways into cw_memcpy's copies past
# its small entry (memcpy_mid, direct-lines too), both sizes of its own
# copies (memcpy_inline), with the streaming threshold low enough that
# cw_memcpy streams from 4 KiB; streaming copies made by rep movsb
# from their smallest size and from just above it.
# ("|" separates the variables of one corner: ";" would split the list.)
set(CW_CORNERS
  "CACHEWISE_REP_MOVSB=align-dst|CACHEWISE_REP_MOVSB_MIN=0|CACHEWISE_REP_MOVSB_MAX=1G|CACHEWISE_SRC_NOREUSE=none|CACHEWISE_PERSIST_SMALL=movnti|CACHEWISE_MEMCPY_MID=direct-lines|CACHEWISE_MEMCPY_INLINE=64"
  "CACHEWISE_REP_MOVSB=aligned|CACHEWISE_REP_MOVSB_MIN=0|CACHEWISE_REP_MOVSB_MAX=1G|CACHEWISE_STREAM_PREFETCH=64|CACHEWISE_STREAM_PREFETCH_HINT=nta|CACHEWISE_SRC_NOREUSE=prefetchnta|CACHEWISE_PERSIST_SMALL=clwb|CACHEWISE_MEMCPY_MID=ladder|CACHEWISE_MEMCPY_INLINE=32"
  "CACHEWISE_STREAM_PREFETCH=1M|CACHEWISE_STREAM_PREFETCH_HINT=t1|CACHEWISE_SRC_NOREUSE=both|CACHEWISE_SRC_NOREUSE_PREFETCH=1M|CACHEWISE_SRC_NOREUSE_FLUSH_BEHIND=0|CACHEWISE_NT_THRESHOLD=4K|CACHEWISE_MEMCPY_MID=direct|CACHEWISE_MEMCPY_INLINE=64"
  "CACHEWISE_STREAM_PREFETCH=4K|CACHEWISE_STREAM_PREFETCH_HINT=t2|CACHEWISE_SRC_NOREUSE=flush|CACHEWISE_SRC_NOREUSE_FLUSH_BEHIND=1M|CACHEWISE_PERSIST_SMALL=clwb|CACHEWISE_NT_THRESHOLD=4K"
  "CACHEWISE_STREAM_METHOD=rep-movsb|CACHEWISE_STREAM_REP_MIN=0|CACHEWISE_NT_THRESHOLD=4K|CACHEWISE_SRC_NOREUSE=both"
  "CACHEWISE_STREAM_METHOD=rep-movsb|CACHEWISE_STREAM_REP_MIN=300|CACHEWISE_REP_MOVSB=align-dst|CACHEWISE_REP_MOVSB_MIN=0|CACHEWISE_REP_MOVSB_MAX=1G")
set(i 0)
foreach(corner IN LISTS CW_CORNERS)
  string(REPLACE "|" ";" env "${corner}")
  foreach(impl IN LISTS CW_POLICY_IMPLS)
    add_test(NAME policy.corner${i}.copy.${impl} COMMAND test_copy)
    add_test(NAME policy.corner${i}.safe_faults.${impl} COMMAND safe_faults ${impl})
    set_tests_properties(policy.corner${i}.copy.${impl} policy.corner${i}.safe_faults.${impl}
      PROPERTIES ENVIRONMENT "${env};CACHEWISE_IMPL=${impl}"
      ENVIRONMENT_MODIFICATION "${CW_SAFE_ENV_MOD}" SKIP_RETURN_CODE 77
      LABELS "profile" TIMEOUT 600)
  endforeach()
  math(EXPR i "${i} + 1")
endforeach()

# Under an emulator (a cross build, tests/CMakeLists.txt) a full misalignment
# sweep costs ten times what it does on hardware: these variants, which check
# the policy's routing, sample the misalignments (CW_TEST_QUICK=1), and the
# per-implementation core tests (core.copy.*, persist.memset.*) keep the full
# sweep. CACHEWISE_TEST_QUICK_POLICY=ON does the same in a native build whose
# routing another build sweeps in full: tests/run-all.sh's clang and
# sanitizer stages, after the gcc stage's full sweep of every row (every
# size is still copied, every routing decision still taken).
set(CACHEWISE_TEST_QUICK_POLICY OFF CACHE BOOL
  "Profile and policy tests sample the misalignments (the core tests keep the full sweep)")
if(CW_TEST_EMULATOR OR CACHEWISE_TEST_QUICK_POLICY)
  get_property(cw_tuning_tests DIRECTORY PROPERTY TESTS)
  list(FILTER cw_tuning_tests INCLUDE REGEX "^(profile|policy)\\.")
  set_property(TEST ${cw_tuning_tests} APPEND PROPERTY ENVIRONMENT CW_TEST_QUICK=1)
endif()

if(TARGET cwbench)
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
    set(cw_tuning_arch x86_64)
  else()
    set(cw_tuning_arch ${CMAKE_SYSTEM_PROCESSOR})
  endif()
  add_test(NAME tuning.files COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tuning/run.sh
    $<TARGET_FILE:cwbench> ${CMAKE_CURRENT_BINARY_DIR}/tuning-work ${CW_TEST_ALT_IMPL}
    ${cw_tuning_arch})
  set_tests_properties(tuning.files PROPERTIES LABELS "tuning" TIMEOUT 300)
endif()

# The library's internals, against the static library: the CPU rules as data
# (profiles by vendor, family and model, the L3 the rules trust, the
# thresholds that follow: tests/test_policy_rules.c), and the rep movsb
# window's edges as the kernels decide them (tests/test_rep_window.c).
foreach(t policy_rules rep_window)
  add_executable(test_${t} ${CMAKE_CURRENT_LIST_DIR}/test_${t}.c)
  target_include_directories(test_${t} PRIVATE ${PROJECT_SOURCE_DIR}/src
    ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(test_${t} PRIVATE cachewise_static)
  add_test(NAME tuning.${t} COMMAND test_${t})
  set_tests_properties(tuning.${t} PROPERTIES LABELS "tuning")
endforeach()
