# SPDX-License-Identifier: MIT
# cwbench workloads. Each workload runs in --quick mode and checks
# its data byte for byte; --inject-fault corrupts one byte before the check,
# which proves a mismatch really fails the run (exit 1); malformed options
# exit exactly 2 with "cwbench: ..." and a usage line.
if(TARGET cwbench)
  # Runs CMD ("|"-separated, so the list survives add_test) and checks the
  # exact exit status, and optionally stdout/stderr against regexes and that
  # a file was written. In a cross build cwbench runs under the emulator in
  # CW_EMULATOR (tests/CMakeLists.txt).
  set(CWB_WL_EXPECT ${CMAKE_CURRENT_BINARY_DIR}/wl_expect_exit.cmake)
  file(WRITE ${CWB_WL_EXPECT} [=[
string(REPLACE "|" ";" cmd "${CMD}")
if(DEFINED CHECK_FILE)
  file(REMOVE "${CHECK_FILE}")
endif()
separate_arguments(emu UNIX_COMMAND "$ENV{CW_EMULATOR}")
execute_process(COMMAND ${emu} ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL "${EXPECT}")
  message(FATAL_ERROR "exit status '${rc}', expected ${EXPECT}\n--- stdout:\n${out}\n--- stderr:\n${err}")
endif()
if(DEFINED OUT_MATCH AND NOT out MATCHES "${OUT_MATCH}")
  message(FATAL_ERROR "stdout does not match '${OUT_MATCH}':\n${out}")
endif()
if(DEFINED ERR_MATCH AND NOT err MATCHES "${ERR_MATCH}")
  message(FATAL_ERROR "stderr does not match '${ERR_MATCH}':\n${err}")
endif()
if(DEFINED CHECK_FILE)
  file(SIZE "${CHECK_FILE}" sz)
  if(sz EQUAL 0)
    message(FATAL_ERROR "${CHECK_FILE} is empty")
  endif()
endif()
]=])

  function(cwb_wl_test name expect)
    cmake_parse_arguments(T "" "OUT_MATCH;ERR_MATCH;CHECK_FILE" "ARGS" ${ARGN})
    string(REPLACE ";" "|" cmd "$<TARGET_FILE:cwbench>;workload;${T_ARGS}")
    set(defs -DCMD=${cmd} -DEXPECT=${expect})
    foreach(k OUT_MATCH ERR_MATCH CHECK_FILE)
      if(DEFINED T_${k})
        list(APPEND defs "-D${k}=${T_${k}}")
      endif()
    endforeach()
    add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} ${defs} -P ${CWB_WL_EXPECT})
    set_tests_properties(${name} PROPERTIES LABELS "cwbench;workloads" TIMEOUT 120)
  endfunction()

  cwb_wl_test(workload_list 0 ARGS --list
    OUT_MATCH "writeback[^\n]*\npmemlog[^\n]*\ncachedread")

  cwb_wl_test(workload_help 0 ARGS --help OUT_MATCH "^usage: cwbench workload")

  foreach(w writeback pmemlog cachedread)
    cwb_wl_test(workload_${w}_quick 0
      ARGS ${w} --quick --json ${CMAKE_CURRENT_BINARY_DIR}/wl_${w}.json
      OUT_MATCH "setup: .*verified byte for byte.*sigma.*verdict: "
      CHECK_FILE ${CMAKE_CURRENT_BINARY_DIR}/wl_${w}.json)
    cwb_wl_test(workload_${w}_csv 0
      ARGS ${w} --quick --runs 2 --csv ${CMAKE_CURRENT_BINARY_DIR}/wl_${w}.csv
      CHECK_FILE ${CMAKE_CURRENT_BINARY_DIR}/wl_${w}.csv)
    cwb_wl_test(workload_${w}_mismatch 1 ARGS ${w} --quick --inject-fault
      ERR_MATCH "^cwbench: ${w}: [^\n]*mismatch at [^\n]*expected 0x[0-9a-f]+, got 0x")
  endforeach()

  # malformed invocations: exit exactly 2, one "cwbench:" line, then usage
  set(bad_cases
    "missing_name|"
    "unknown_workload|nosuch"
    "unknown_option|writeback|--bogus"
    "runs_zero|writeback|--runs|0"
    "runs_text|pmemlog|--runs|ten"
    "runs_huge|cachedread|--runs=99999999999999999999"
    "runs_missing|writeback|--runs"
    "json_missing|writeback|--json"
    "csv_eats_option|writeback|--csv|--quick"
    "two_names|writeback|pmemlog"
    "list_and_name|--list|writeback")
  foreach(c IN LISTS bad_cases)
    string(REPLACE "|" ";" parts "${c}")
    list(POP_FRONT parts label)
    cwb_wl_test(workload_bad_${label} 2 ARGS ${parts}
      ERR_MATCH "^cwbench: [^\n]+\nusage: cwbench workload")
  endforeach()
endif()
