# SPDX-License-Identifier: MIT
# cw_copy_safe tests. Faults are provoked on purpose, so under
# sanitizers the tools must leave SIGSEGV/SIGBUS to cachewise (docs/SAFE.md).
find_package(Threads REQUIRED)
# Appended to whatever options the sanitizer stage already sets.
set(CW_SAFE_ENV_MOD "")
if(CW_SANITIZE MATCHES "address")
  list(APPEND CW_SAFE_ENV_MOD
    "ASAN_OPTIONS=string_append::handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1")
endif()
if(CW_SANITIZE MATCHES "thread")
  list(APPEND CW_SAFE_ENV_MOD "TSAN_OPTIONS=string_append::handle_segv=0:handle_sigbus=0")
endif()

foreach(t safe_faults safe_threads safe_signals safe_addresses safe_holes)
  add_executable(${t} safe/${t}.c)
  target_link_libraries(${t} PRIVATE cachewise_static)
endforeach()
target_link_libraries(safe_threads PRIVATE Threads::Threads)
target_link_libraries(safe_signals PRIVATE Threads::Threads m)

# One run per implementation, each forced through the environment; an
# implementation this CPU cannot run is skipped (exit 77). The second run
# moves the streaming threshold down so sizes above 64 KiB stream. Every
# implementation of this architecture (CW_TEST_IMPLS), generic first.
set(CW_SAFE_IMPLS ${CW_TEST_IMPLS})
list(REVERSE CW_SAFE_IMPLS)
foreach(impl IN LISTS CW_SAFE_IMPLS)
  add_test(NAME safe_faults_${impl} COMMAND safe_faults ${impl})
  add_test(NAME safe_faults_nt64k_${impl} COMMAND safe_faults ${impl})
  set_tests_properties(safe_faults_${impl} PROPERTIES
    ENVIRONMENT "CACHEWISE_IMPL=${impl}" ENVIRONMENT_MODIFICATION "${CW_SAFE_ENV_MOD}"
    SKIP_RETURN_CODE 77 LABELS "safe" TIMEOUT 300)
  set_tests_properties(safe_faults_nt64k_${impl} PROPERTIES
    ENVIRONMENT "CACHEWISE_IMPL=${impl};CACHEWISE_NT_THRESHOLD=64K"
    ENVIRONMENT_MODIFICATION "${CW_SAFE_ENV_MOD}"
    SKIP_RETURN_CODE 77 LABELS "safe" TIMEOUT 300)
endforeach()

# Buffers outside the user address space (safe_addresses) and what a fault
# leaves after the first inaccessible byte (safe_holes), per implementation
# too. Labelled tsan as well, so that every stage of tests/run-all.sh that
# runs CTest runs them, the sanitizer builds above all: what an armed copy
# runs is built without instrumentation there (src/safe_internal.h).
foreach(impl IN LISTS CW_SAFE_IMPLS)
  foreach(t safe_addresses safe_holes)
    add_test(NAME ${t}_${impl} COMMAND ${t} ${impl})
    set_tests_properties(${t}_${impl} PROPERTIES
      ENVIRONMENT "CACHEWISE_IMPL=${impl}" ENVIRONMENT_MODIFICATION "${CW_SAFE_ENV_MOD}"
      SKIP_RETURN_CODE 77 LABELS "safe;tsan" TIMEOUT 300)
  endforeach()
endforeach()

# core.safe_kernels (tests/CMakeLists.txt) counts the functions in section
# cw_safe_text: each x86 row's temporal copy and, for sse2, avx2 and avx512,
# its forward copy (src/safe_internal.h).
if(TEST core.safe_kernels)
  set_property(TEST core.safe_kernels APPEND PROPERTY ENVIRONMENT CW_SAFE_KERNELS_EXPECTED=7)
endif()

add_test(NAME safe_threads COMMAND safe_threads)
set_tests_properties(safe_threads PROPERTIES ENVIRONMENT_MODIFICATION "${CW_SAFE_ENV_MOD}"
  LABELS "safe;tsan" TIMEOUT 300)

foreach(mode before after crash nested altstack)
  add_test(NAME safe_signals_${mode} COMMAND safe_signals ${mode})
  set_tests_properties(safe_signals_${mode} PROPERTIES
    ENVIRONMENT_MODIFICATION "${CW_SAFE_ENV_MOD}"
    SKIP_RETURN_CODE 77 LABELS "safe" TIMEOUT 120)
endforeach()
set_tests_properties(safe_signals_nested PROPERTIES LABELS "safe;tsan")
