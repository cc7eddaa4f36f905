# SPDX-License-Identifier: MIT
# cw_copy_part and cw_copy_parallel (src/parallel.c, docs/PARALLEL.md): the
# slices against the documented bounds under every implementation and a few
# profiles, the pool over the same sizes, the contract's EINVAL cases, and
# the pool under concurrent callers, fork and failing thread creation.
# The static builds carry the hooks that give the pool 16 CPUs whatever the
# machine has (tests/test_parallel.c); the shared build runs under the real
# cap.
add_executable(test_parallel test_parallel.c)
target_link_libraries(test_parallel PRIVATE cachewise_static)
target_compile_definitions(test_parallel PRIVATE CWT_PARALLEL_HOOKS=1)
add_executable(test_parallel_shared test_parallel.c)
target_link_libraries(test_parallel_shared PRIVATE cachewise)
add_executable(test_parallel_threads test_parallel_threads.c)
target_link_libraries(test_parallel_threads PRIVATE cachewise_static)

set(cw_par_tests "")
foreach(impl IN LISTS CW_TEST_IMPLS)
  add_test(NAME parallel.part.${impl} COMMAND test_parallel part)
  set_tests_properties(parallel.part.${impl} PROPERTIES ENVIRONMENT "CACHEWISE_IMPL=${impl}")
  # every slice of a copy of 4 KiB or more streams, however small
  add_test(NAME parallel.part_nt4k.${impl} COMMAND test_parallel part)
  set_tests_properties(parallel.part_nt4k.${impl} PROPERTIES
    ENVIRONMENT "CACHEWISE_IMPL=${impl};CACHEWISE_NT_THRESHOLD=4K")
  add_test(NAME parallel.pool.${impl} COMMAND test_parallel pool)
  set_tests_properties(parallel.pool.${impl} PROPERTIES
    ENVIRONMENT "CACHEWISE_IMPL=${impl};CACHEWISE_PARALLEL_MIN=0;CACHEWISE_NT_THRESHOLD=64K")
  list(APPEND cw_par_tests parallel.part.${impl} parallel.part_nt4k.${impl}
    parallel.pool.${impl})
endforeach()
foreach(p intel-server amd-zen3 amd-zen5 generic)
  add_test(NAME parallel.profile.${p}.part COMMAND test_parallel part)
  set_tests_properties(parallel.profile.${p}.part PROPERTIES ENVIRONMENT "CACHEWISE_TUNING=${p}")
  list(APPEND cw_par_tests parallel.profile.${p}.part)
endforeach()
add_test(NAME parallel.contract COMMAND test_parallel contract)
add_test(NAME parallel.contract_shared COMMAND test_parallel_shared contract)
add_test(NAME parallel.pool_shared COMMAND test_parallel_shared pool)
set_tests_properties(parallel.pool_shared PROPERTIES ENVIRONMENT "CACHEWISE_PARALLEL_MIN=0")
list(APPEND cw_par_tests parallel.contract parallel.contract_shared parallel.pool_shared)

set(cw_par_modes concurrent fork spawn_fail nproc)
if(CW_TEST_EMULATOR)
  # qemu-user 7.2 aborts in the child when a threaded process forks (its
  # TCG asserts "cpu == current_cpu"): the fork case runs on hardware only
  list(REMOVE_ITEM cw_par_modes fork)
endif()
foreach(mode IN LISTS cw_par_modes)
  add_test(NAME parallel.${mode} COMMAND test_parallel_threads ${mode})
  set_tests_properties(parallel.${mode} PROPERTIES ENVIRONMENT "CACHEWISE_PARALLEL_MIN=0")
  list(APPEND cw_par_tests parallel.${mode})
endforeach()
set_tests_properties(${cw_par_tests} PROPERTIES LABELS "parallel;copy" SKIP_RETURN_CODE 77
  TIMEOUT 120)
# ThreadSanitizer runs the pool's concurrency and fork tests (tests/run-all.sh
# stage 4). A child of a threaded process that starts threads is refused by
# TSan unless die_after_fork=0; the pool's reset at fork is what is tested.
set_tests_properties(parallel.concurrent PROPERTIES LABELS "parallel;tsan")
if(TEST parallel.fork)
  set_tests_properties(parallel.fork PROPERTIES LABELS "parallel;tsan")
endif()
if(CW_SANITIZE MATCHES "thread" AND TEST parallel.fork)
  set_tests_properties(parallel.fork PROPERTIES ENVIRONMENT_MODIFICATION
    "TSAN_OPTIONS=string_append::die_after_fork=0")
endif()

# The benchmark of docs/PARALLEL.md: built here, run by hand (its figures are
# no assertion); the smoke run checks only that its copies are right.
add_executable(parallel_bench parallel_bench.c)
target_link_libraries(parallel_bench PRIVATE cachewise)
add_test(NAME parallel.bench_smoke COMMAND parallel_bench --smoke)
set_tests_properties(parallel.bench_smoke PROPERTIES LABELS "parallel" TIMEOUT 120)
