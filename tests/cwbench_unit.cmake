# SPDX-License-Identifier: MIT
# cwbench statistics, result files, size distributions, `compare` and the
# progress ETA, the tuner's rules.
#
# The sources are compiled straight into the tests, so they do not depend
# on how programs/ packages cwbench.
set(CWB_UNIT_SRC ${PROJECT_SOURCE_DIR}/programs/cwbench)
set(CWB_UNIT_DATA ${CMAKE_CURRENT_LIST_DIR}/cwbench/data)
add_library(cwbench_unit_objs OBJECT
  ${CWB_UNIT_SRC}/results/stats.c ${CWB_UNIT_SRC}/results/verdict.c ${CWB_UNIT_SRC}/results/results.c
  ${CWB_UNIT_SRC}/results/results_read.c ${CWB_UNIT_SRC}/results/results_write.c
  ${CWB_UNIT_SRC}/results/json_parse.c ${CWB_UNIT_SRC}/engine/dist.c ${CWB_UNIT_SRC}/cmd/compare.c
  ${CWB_UNIT_SRC}/base/progress.c ${CWB_UNIT_SRC}/engine/estimate.c
  ${CWB_UNIT_SRC}/tune/rules.c)
target_include_directories(cwbench_unit_objs PUBLIC ${CWB_UNIT_SRC})

foreach(t stats verdict results dist progress tune_rules)
  add_executable(cwbench_test_${t} ${CMAKE_CURRENT_LIST_DIR}/cwbench/test_${t}.c)
  target_link_libraries(cwbench_test_${t} PRIVATE cwbench_unit_objs m)
endforeach()
add_test(NAME cwbench.stats COMMAND cwbench_test_stats)
# the one decision of every verdict, on samples that make its estimates part
add_test(NAME cwbench.verdict COMMAND cwbench_test_verdict)
add_test(NAME cwbench.results COMMAND cwbench_test_results ${CWB_UNIT_DATA})
add_test(NAME cwbench.dist COMMAND cwbench_test_dist ${CWB_UNIT_DATA})
# the ETA on a simulated clock: sweeps whose cold cells cost 2-17x the hot ones
add_test(NAME cwbench.progress COMMAND cwbench_test_progress)
# the rules that turn the tuner's measurements into settings, on recorded figures
add_test(NAME cwbench.tune_rules COMMAND cwbench_test_tune_rules)

# compare on the command line: through test_results' built-in driver, and
# through the real cwbench when it is built.
# The check is cwbench_smoke.cmake's (exit status, substrings of stdout and
# stderr, and for exit 2: empty stdout, one "cwbench: ..." line, a usage hint).
function(cwb_cli_test name exe args rc out err)
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -DCWBS_CHECK=1 -DEXE=${exe} "-DARGS=${args}"
           -DRC=${rc} "-DOUT=${out}" "-DERR=${err}"
           -P ${CMAKE_CURRENT_LIST_DIR}/cwbench_smoke.cmake)
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

# Output the subcommands owe their readers: dist's chart (its data and
# script are written whether or not gnuplot is installed), every
# subcommand's options in --help, the pollution table's clamped column.
if(TARGET cwbench)
  set(cwbu_dir ${CMAKE_CURRENT_BINARY_DIR}/cwbench_unit)
  file(MAKE_DIRECTORY ${cwbu_dir})
  function(cwbu_test name args out files)
    add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -DCWBS_CHECK=1 -DEXE=$<TARGET_FILE:cwbench>
             "-DARGS=${args}" -DRC=0 "-DOUT=${out}" "-DFILES=${files}"
             -P ${CMAKE_CURRENT_LIST_DIR}/cwbench_smoke.cmake)
  endfunction()
  cwbu_test(cwbench.plot.dist
    "dist|${PROJECT_SOURCE_DIR}/data/memcpy-sizes/MemcpyGoogleA.sizes|--quick|--quiet|--routines|cw_memcpy,glibc_memcpy|--plot|${cwbu_dir}/distplot"
    "Mcalls/s|HL ratio" "${cwbu_dir}/distplot/dist.dat|${cwbu_dir}/distplot/dist.gp")
  cwbu_test(cwbench.help.subcommands "--help"
    "cwbench workload writeback|--runs N|--csv FILE|--alpha X|cwbench exec|--allow-fail|cwbench threads|--threads N|--victim"
    "")
  cwbu_test(cwbench.pollution.clamped "pollution|--quick|--quiet|--size|256K|--routines|cw_memcpy"
    "clamped|same wait|copy vs same wait" "")
endif()
