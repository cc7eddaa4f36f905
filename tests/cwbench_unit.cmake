# cwbench statistics, result files, size distributions and `compare`.
#
# Run as a script (cmake -DCWB_CLI_CHECK=1 -P) this file checks one CLI
# call: exit status and literal substrings of stdout/stderr.
if(CMAKE_SCRIPT_MODE_FILE AND CWB_CLI_CHECK)
  # Lists arrive "|"-separated: a ";" would split the -D argument.
  # (Expected strings must not contain "[": it stops CMake list splitting.)
  string(REPLACE "|" ";" cli_args "${ARGS}")
  string(REPLACE "|" ";" EXPECT_OUT "${EXPECT_OUT}")
  string(REPLACE "|" ";" EXPECT_ERR "${EXPECT_ERR}")
  execute_process(COMMAND ${EXE} ${cli_args} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL EXPECT_RC)
    message(FATAL_ERROR "exit status ${rc}, want ${EXPECT_RC}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  foreach(want IN LISTS EXPECT_ERR)
    string(FIND "${err}" "${want}" pos)
    if(pos EQUAL -1)
      message(FATAL_ERROR "stderr lacks \"${want}\"\nstderr:\n${err}")
    endif()
  endforeach()
  foreach(want IN LISTS EXPECT_OUT)
    string(FIND "${out}" "${want}" pos)
    if(pos EQUAL -1)
      message(FATAL_ERROR "stdout lacks \"${want}\"\nstdout:\n${out}")
    endif()
  endforeach()
  if(EXPECT_RC STREQUAL "2" AND NOT out STREQUAL "")
    message(FATAL_ERROR "bad input must print nothing on stdout, got:\n${out}")
  endif()
  return()
endif()

# The sources are compiled straight into the tests, so they do not depend
# on how programs/ packages cwbench.
set(CWB_UNIT_SRC ${PROJECT_SOURCE_DIR}/programs/cwbench)
set(CWB_UNIT_DATA ${CMAKE_CURRENT_LIST_DIR}/cwbench/data)
add_library(cwbench_unit_objs OBJECT
  ${CWB_UNIT_SRC}/stats.c ${CWB_UNIT_SRC}/results.c ${CWB_UNIT_SRC}/results_read.c
  ${CWB_UNIT_SRC}/dist.c ${CWB_UNIT_SRC}/compare.c)
target_include_directories(cwbench_unit_objs PUBLIC ${CWB_UNIT_SRC})

foreach(t stats results dist)
  add_executable(cwbench_test_${t} ${CMAKE_CURRENT_LIST_DIR}/cwbench/test_${t}.c)
  target_link_libraries(cwbench_test_${t} PRIVATE cwbench_unit_objs m)
endforeach()
add_test(NAME cwbench.stats COMMAND cwbench_test_stats)
add_test(NAME cwbench.results COMMAND cwbench_test_results ${CWB_UNIT_DATA})
add_test(NAME cwbench.dist COMMAND cwbench_test_dist ${CWB_UNIT_DATA})

# compare on the command line: through test_results' built-in driver, and
# through the real cwbench when it is built.
function(cwb_cli_test name exe args rc out err)
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -DCWB_CLI_CHECK=1 -DEXE=${exe} "-DARGS=${args}"
           -DEXPECT_RC=${rc} "-DEXPECT_OUT=${out}" "-DEXPECT_ERR=${err}"
           -P ${CMAKE_CURRENT_LIST_FILE})
endfunction()

set(cwb_drivers driver $<TARGET_FILE:cwbench_test_results>)
if(TARGET cwbench)
  list(APPEND cwb_drivers cwbench $<TARGET_FILE:cwbench>)
endif()
while(cwb_drivers)
  list(POP_FRONT cwb_drivers kind exe)
  set(d ${CWB_UNIT_DATA})
  cwb_cli_test(cwbench.compare.${kind}.ok ${exe} "compare|${d}/a.json|${d}/b.json" 0
    "geometric mean|overall: 2 cell(s) significantly slower|throughput glibc_memcpy hot 4K: slower by 10.0%|only in A: throughput rep_movsb hot 64|within noise (<1%)"
    "fewer than 9 samples")
  cwb_cli_test(cwbench.compare.${kind}.same ${exe} "compare|${d}/a.json|${d}/a.json|--alpha|0.01" 0
    "overall: no cell significantly slower|CI 99%" "")
  cwb_cli_test(cwbench.compare.${kind}.bad_json ${exe} "compare|${d}/bad_syntax.json|${d}/b.json" 2
    "" "cwbench: ${d}/bad_syntax.json:4: expected ':', found|usage: cwbench compare")
  cwb_cli_test(cwbench.compare.${kind}.missing ${exe} "compare|${d}/a.json|${d}/nonexistent.json" 2
    "" "nonexistent.json: cannot open: No such file or directory|usage:")
  cwb_cli_test(cwbench.compare.${kind}.disjoint ${exe} "compare|${d}/a.json|${d}/spaced.json" 2
    "" "have no cell in common|usage:")
  cwb_cli_test(cwbench.compare.${kind}.one_file ${exe} "compare|${d}/a.json" 2
    "" "compare needs two result files|usage:")
  cwb_cli_test(cwbench.compare.${kind}.bad_alpha ${exe} "compare|${d}/a.json|${d}/b.json|--alpha|x" 2
    "" "--alpha 'x' is not a number|usage:")
  cwb_cli_test(cwbench.compare.${kind}.bad_option ${exe} "compare|${d}/a.json|${d}/b.json|--frob" 2
    "" "unknown option '--frob'|usage:")
endwhile()
