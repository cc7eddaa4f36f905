# SPDX-License-Identifier: MIT
# cwbench smoke tests: every subcommand once with tiny sizes (--quick), and
# bad input that must exit 2 with one "cwbench: ..." line and a usage hint,
# print nothing on stdout and leave no output file behind. Plus the engine
# unit test (a broken routine must be caught).
#
# Run as a script (cmake -DCWBS_CHECK=1 -P) this file checks one call; the
# compare tests of cwbench_unit.cmake use it too. (Expected strings must not
# contain "[": it stops CMake list splitting.) In a cross build EXE runs
# under the emulator in CW_EMULATOR (tests/CMakeLists.txt).
if(CMAKE_SCRIPT_MODE_FILE AND CWBS_CHECK)
  # Lists arrive "|"-separated: a ";" would split the -D argument.
  string(REPLACE "|" ";" args "${ARGS}")
  # @FIRST_CPU@: the first CPU this process may run on (--pin must name one
  # of them; which ones depends on how the host runs the tests, e.g. under
  # taskset). The emulated program of a cross build inherits the same set.
  if(args MATCHES "@FIRST_CPU@")
    file(STRINGS /proc/self/status cpus REGEX "^Cpus_allowed_list:")
    string(REGEX MATCH "[0-9]+" first_cpu "${cpus}")
    if(first_cpu STREQUAL "")
      set(first_cpu 0)
    endif()
    string(REPLACE "@FIRST_CPU@" "${first_cpu}" args "${args}")
  endif()
  string(REPLACE "|" ";" want_out "${OUT}")
  string(REPLACE "|" ";" want_err "${ERR}")
  string(REPLACE "|" ";" files "${FILES}")
  string(REPLACE "|" ";" not_out "${NOOUT}")
  string(REPLACE "|" ";" not_err "${NOERR}")
  foreach(f IN LISTS NOFILE files)
    file(REMOVE_RECURSE "${f}")
  endforeach()
  separate_arguments(emu UNIX_COMMAND "$ENV{CW_EMULATOR}")
  execute_process(COMMAND ${emu} ${EXE} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err TIMEOUT 120)
  if(NOT rc STREQUAL RC)
    message(FATAL_ERROR "exit status ${rc}, want ${RC}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  foreach(w IN LISTS want_out)
    string(FIND "${out}" "${w}" pos)
    if(pos EQUAL -1)
      message(FATAL_ERROR "stdout lacks \"${w}\"\nstdout:\n${out}\nstderr:\n${err}")
    endif()
  endforeach()
  foreach(w IN LISTS not_out)
    string(FIND "${out}" "${w}" pos)
    if(NOT pos EQUAL -1)
      message(FATAL_ERROR "stdout has \"${w}\"\nstdout:\n${out}")
    endif()
  endforeach()
  foreach(w IN LISTS not_err)
    string(FIND "${err}" "${w}" pos)
    if(NOT pos EQUAL -1)
      message(FATAL_ERROR "stderr has \"${w}\"\nstderr:\n${err}")
    endif()
  endforeach()
  foreach(w IN LISTS want_err)
    string(FIND "${err}" "${w}" pos)
    if(pos EQUAL -1)
      message(FATAL_ERROR "stderr lacks \"${w}\"\nstderr:\n${err}")
    endif()
  endforeach()
  if(RC STREQUAL "2")
    if(NOT out STREQUAL "")
      message(FATAL_ERROR "bad input printed on stdout:\n${out}")
    endif()
    string(REGEX MATCHALL "(^|\n)cwbench: [^\n]+" problems "${err}")
    list(LENGTH problems n)
    string(FIND "${err}" "usage:" u)
    if(NOT n EQUAL 1 OR u EQUAL -1)
      message(FATAL_ERROR "want one \"cwbench: ...\" line and a usage hint, got:\n${err}")
    endif()
  endif()
  foreach(f IN LISTS NOFILE)
    if(EXISTS "${f}")
      message(FATAL_ERROR "bad input left ${f} behind")
    endif()
  endforeach()
  foreach(f IN LISTS files)
    if(NOT EXISTS "${f}")
      message(FATAL_ERROR "${f} was not written\nstdout:\n${out}")
    endif()
  endforeach()
  return()
endif()

if(NOT TARGET cwbench)
  return()
endif()

add_executable(cwbench_test_engine ${CMAKE_CURRENT_LIST_DIR}/cwbench_engine.c)
target_link_libraries(cwbench_test_engine PRIVATE cwbench_core)
add_test(NAME cwbench.engine COMMAND cwbench_test_engine)
# the engine on fresh call sequences: no batch replays a pattern
add_executable(cwbench_test_fresh ${CMAKE_CURRENT_LIST_DIR}/cwbench/test_fresh.c)
target_link_libraries(cwbench_test_fresh PRIVATE cwbench_core)
add_test(NAME cwbench.fresh COMMAND cwbench_test_fresh)
# the calibration after a stalled call: the batch still grows
add_executable(cwbench_test_calibrate ${CMAKE_CURRENT_LIST_DIR}/cwbench/test_calibrate.c)
target_link_libraries(cwbench_test_calibrate PRIVATE cwbench_core)
add_test(NAME cwbench.calibrate COMMAND cwbench_test_calibrate)
# each routine of a cell timed from several loop copies, none shared
add_executable(cwbench_test_sites ${CMAKE_CURRENT_LIST_DIR}/cwbench/test_sites.c)
target_link_libraries(cwbench_test_sites PRIVATE cwbench_core)
add_test(NAME cwbench.sites COMMAND cwbench_test_sites)

set(cwbs_script ${CMAKE_CURRENT_LIST_FILE})
set(cwbs_dir ${CMAKE_CURRENT_BINARY_DIR}/cwbench_smoke)
file(MAKE_DIRECTORY ${cwbs_dir})
file(WRITE ${cwbs_dir}/small.sizes "# size probability\n0 0.05\n8 0.3\n16 0.2\n64 0.2\n304 0.2\n4096 0.05\n")
# The architecture's own reference routine, the second routine of the
# sweeps and --ab runs below: a bare rep movsb on x86-64, the plain STNP
# loop on aarch64 (cwbench --list-routines), glibc's memcpy elsewhere.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
  set(cwbs_ref rep_movsb)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64|ARM64")
  set(cwbs_ref stream_stnp)
else()
  set(cwbs_ref glibc_memcpy)
endif()
file(WRITE ${cwbs_dir}/bad.sizes "# size probability\n64 0.5\n128 abc\n")

# cwbs(NAME RC ARGS... [OUT s...] [NOOUT s...] [ERR s...] [NOERR s...] [FILES f...]
#      [NOFILE f...])
function(cwbs name rc)
  cmake_parse_arguments(P "" "" "ARGS;OUT;NOOUT;ERR;NOERR;FILES;NOFILE" ${ARGN})
  string(REPLACE ";" "|" a "${P_ARGS}")
  string(REPLACE ";" "|" o "${P_OUT}")
  string(REPLACE ";" "|" no "${P_NOOUT}")
  string(REPLACE ";" "|" e "${P_ERR}")
  string(REPLACE ";" "|" ne "${P_NOERR}")
  string(REPLACE ";" "|" f "${P_FILES}")
  add_test(NAME cwbench.smoke.${name} COMMAND ${CMAKE_COMMAND} -DCWBS_CHECK=1
           -DEXE=$<TARGET_FILE:cwbench> "-DARGS=${a}" -DRC=${rc} "-DOUT=${o}" "-DNOOUT=${no}" "-DERR=${e}"
           "-DNOERR=${ne}" "-DFILES=${f}" "-DNOFILE=${P_NOFILE}" -P ${cwbs_script})
endfunction()

# ---- every subcommand, tiny sizes ----
# placement: every group of rows states its page-offset relation; the
# misaligned rows never 4K-alias, the aliased row does; no vendor in a label
cwbs(report 0 ARGS --quick --json ${cwbs_dir}/r.json --csv ${cwbs_dir}/r.csv --plot ${cwbs_dir}/plot
     OUT "Machine" "counters" "bytes        counted once" "Copy ceiling" "Throughput, GB/s"
         "a copy's traffic alone (its reads and writes at once, no data passed)"
         "misaligned destination" "Pollution" "Verdicts against glibc memcpy" "cw_memcpy "
         "glibc_memcpy" "total time" "small (<= 256 B)" "in cache (" "misaligned ("
         "note: streaming routines" "(dst - src) mod 4096 = 2048"
         "(dst - src) mod 4096 = 2049 (no 4K aliasing)" "4K-aliased" "(dst - src) mod 4096 = 1:"
         "4 KiB alias" "4K-aliased (4 KiB)"
     NOOUT "AMD rep movsb" "cliff"
     ERR "cwbench: [ceiling] starting"
     FILES ${cwbs_dir}/r.json ${cwbs_dir}/r.csv)
set_tests_properties(cwbench.smoke.report PROPERTIES FIXTURES_SETUP cwbs_json)
cwbs(compare_self 0 ARGS compare ${cwbs_dir}/r.json ${cwbs_dir}/r.json OUT "geometric mean")
set_tests_properties(cwbench.smoke.compare_self PROPERTIES FIXTURES_REQUIRED cwbs_json)
cwbs(sweep 0 ARGS sweep --quick OUT "cwbench sweep" "hot" "cold" "random" "glibc_memcpy"
     "a copy's traffic alone, both at once")
cwbs(sweep_options 0
     ARGS sweep --quick --routines cw_memcpy,${cwbs_ref} --sizes 0,1,64,4K --align 0:0,7:63
          --states cold,hot --samples 3 --seed 9 --json ${cwbs_dir}/s.json
     OUT "${cwbs_ref}" "7:63" "cold"
     FILES ${cwbs_dir}/s.json)
# every offset pair of a range in one run, the misalignment summary, and
# "vs glibc" as "-" (never "nan") when glibc_memcpy is not measured
cwbs(sweep_align_range 0
     ARGS sweep --quick --routines cw_memcpy,glibc_memcpy --sizes 64,4K --align 0:0,0:1-3,5-6:0
          --states hot,random
     OUT "6 offset pairs" "0:3" "6:0" "random" "misalignment:" "below 0.9x" "of 10")
cwbs(sweep_offsets 0
     ARGS sweep --quick --routines cw_memcpy,${cwbs_ref} --sizes 0,64 --src-off 0,1 --dst-off 0-2
          --states hot
     OUT "6 offset pairs" "1:2" "glibc_memcpy not among the routines" NOOUT "nan")
# dist states its call sequences: at least 64Ki calls, drawn afresh
cwbs(dist 0 ARGS dist ${cwbs_dir}/small.sizes --quick OUT "Mcalls/s" "cw_memcpy" "glibc_memcpy"
     "(baseline)" "sequences of 65536 calls" "by splitmix64 (seed 1)" "drawn afresh"
     "each call once" "sequences drawn" "batch")
# the fleet distributions the docs use, from the repository's copy
cwbs(dist_fleet 0 ARGS dist ${PROJECT_SOURCE_DIR}/data/memcpy-sizes/MemcpyGoogleA.sizes --quick
     --routines cw_memcpy,glibc_memcpy OUT "459 distinct sizes" "max 4091 B")
cwbs(dist_calls 0 ARGS dist ${cwbs_dir}/small.sizes --quick --calls 128K --routines cw_memcpy
     OUT "sequences of 131072 calls")
cwbs(pollution 0 ARGS pollution --quick --size 256K
     OUT "victim L1" "evicted" "same wait" "own" "copy vs same wait" "copy 256 KiB")
cwbs(pollution_sizes 0 ARGS pollution --quick --size 256K --size 512K --routines cw_memcpy
     OUT "copy 256 KiB" "copy 512 KiB" "victim L2")
cwbs(ab 0 ARGS --ab cw_memcpy glibc_memcpy --quick --size 4K --size 64K
     OUT "A = cw_memcpy" "B = glibc_memcpy" "4 KiB" "64 KiB" "geomean" "overall")
cwbs(ab_safe 0 ARGS --ab cw_memcpy cw_copy_safe --quick --size 4K OUT "B = cw_copy_safe")
cwbs(ab_align 0 ARGS --ab cw_memcpy cw_memcpy --a-off 0:0 --b-off 3:1 --quick --size 4K
     OUT "A = cw_memcpy at src:dst 0:0" "B = cw_memcpy at src:dst 3:1" "state: hot" "geomean")
cwbs(ab_cold 0 ARGS --ab cw_memcpy glibc_memcpy --state cold --quick --size 4K --size 64K
          --b-off 0:1
     OUT "state: cold" "B = glibc_memcpy at src:dst 0:1" "64 KiB" "geomean")
cwbs(ab_random 0 ARGS --ab cw_memcpy glibc_memcpy --state random --quick --size 100 --size 4K
     OUT "state: random" "100 B" "geomean" "sequences of 65536 calls" "overall: ")
cwbs(ab_placement 0 ARGS --ab cw_memcpy cw_memcpy --a-off 0:1 --b-off 2048:1 --quick --size 4K
     OUT "A: src at page offset 0, dst at 2049: (dst - src) mod 4096 = 2049"
         "B: src at page offset 2048, dst at 2049: (dst - src) mod 4096 = 1 (4K-aliased)")
cwbs(pin 0 ARGS --ab cw_memcpy ${cwbs_ref} --quick --size 64 --pin @FIRST_CPU@ OUT "geomean")
cwbs(stack_offset 0 ARGS --ab cw_memcpy glibc_memcpy --quick --size 64 --stack-offset 2048
     OUT "geomean")
cwbs(help 0 ARGS --help OUT "usage:" "cwbench sweep" "--samples" "--quiet" "--version" "--calls")
cwbs(version 0 ARGS --version OUT "cwbench 0." NOOUT "usage")
# progress goes to stderr whether or not it is a terminal; --quiet drops it
cwbs(progress 0 ARGS --ab cw_memcpy glibc_memcpy --quick --size 64 ERR "cwbench: [a/b] starting")
cwbs(quiet 0 ARGS --ab cw_memcpy glibc_memcpy --quick --size 64 --quiet OUT "geomean"
     NOERR "[a/b]")
cwbs(impl 0 ARGS --ab cw_memcpy glibc_memcpy --quick --size 4K --impl generic OUT "geomean")
cwbs(bad_impl 2 ARGS --quick --impl nonesuch ERR "--impl nonesuch: unknown implementation")
# exec: a command timed with and without the shim; what changes between
# runs, a failing command and bad options are refused
# (the runs need the shim, which sanitizer builds do not make)
if(TARGET cachewise_preload)
  file(WRITE ${cwbs_dir}/once.sh "[ -e \"$0.done\" ] && exit 3\n: >\"$0.done\"\n")
  cwbs(exec 0 ARGS exec --runs 3 -- true
       OUT "without cachewise" "with the shim" "user+sys" "max RSS" "verdicts against")
  cwbs(exec_tuning 0 ARGS exec --runs 3 --tuning generic -- true OUT "shim, tuning generic")
  cwbs(exec_changes 1 ARGS exec --runs 3 -- sh ${cwbs_dir}/once.sh
       ERR "something changes between runs" FILES ${cwbs_dir}/once.sh.done)
  cwbs(exec_failing 1 ARGS exec --runs 3 -- false ERR "refusing to time a failing command")
endif()
cwbs(exec_no_command 2 ARGS exec --runs 3 ERR "no command")
cwbs(exec_runs 2 ARGS exec --runs 2 -- true ERR "--runs 2")
cwbs(exec_shim 2 ARGS exec --shim ${cwbs_dir}/no-such.so -- true ERR "not readable")
cwbs(list_routines 0 ARGS --list-routines OUT "cw_memcpy" "${cwbs_ref}" "glibc_memcpy")
# threads: the scaling table's rows 1..N, no NaN, the pollution comparison's
# rows and target line (figures never asserted); on one CPU (taskset) N = 1,
# --threads 2 is refused and tune skips the thread count
add_test(NAME cwbench.smoke.threads
         COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cwbench/threads_table.sh $<TARGET_FILE:cwbench>
                 --victim --json ${cwbs_dir}/threads.json)
add_test(NAME cwbench.smoke.threads_one_cpu
         COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cwbench/threads_table.sh --one-cpu
                 $<TARGET_FILE:cwbench>)
set_tests_properties(cwbench.smoke.threads cwbench.smoke.threads_one_cpu PROPERTIES
                     SKIP_RETURN_CODE 77 TIMEOUT 300)
cwbs(threads_hot 0 ARGS threads --quick --threads 1 --size 4M --size 8M --state hot --csv
     ${cwbs_dir}/threads.csv
     OUT "state: hot" "4 MiB" "8 MiB" "ceiling: t threads" NOOUT "nan"
     FILES ${cwbs_dir}/threads.csv)

# ---- bad input: exit 2, nothing on stdout, no output file ----
set(j ${cwbs_dir}/bad.json)
cwbs(bad_subcommand 2 ARGS frobnicate ERR "unknown subcommand 'frobnicate'")
cwbs(bad_option 2 ARGS --quick --frob ERR "unknown option '--frob'")
cwbs(bad_samples 2 ARGS --samples 1 --json ${j} ERR "--samples 1" NOFILE ${j})
cwbs(bad_samples_text 2 ARGS --samples ten ERR "--samples ten")
cwbs(bad_seed 2 ARGS --seed -3 ERR "--seed -3")
cwbs(bad_pin 2 ARGS --pin 100000 ERR "--pin 100000")
cwbs(bad_stack_offset 2 ARGS --stack-offset 4096 ERR "--stack-offset 4096: need a multiple of 16")
cwbs(bad_stack_offset_odd 2 ARGS --ab cw_memcpy glibc_memcpy --stack-offset 17
     ERR "--stack-offset 17: need a multiple of 16")
cwbs(missing_value 2 ARGS --json ERR "--json needs a value")
cwbs(flag_value 2 ARGS --quick=1 ERR "--quick takes no value")
cwbs(json_dir 2 ARGS --quick --json /nonexistent-dir/x.json ERR "cannot write")
cwbs(wrong_mode 2 ARGS pollution --max-size 1K ERR "--max-size is not an option of pollution")
cwbs(sweep_max 2 ARGS sweep --max-size 2G --json ${j} ERR "out of range" NOFILE ${j})
cwbs(sweep_sizes 2 ARGS sweep --sizes 4K,x ERR "--sizes x")
cwbs(sweep_align 2 ARGS sweep --align 1:x ERR "--align 1:x")
cwbs(sweep_states 2 ARGS sweep --states warm ERR "unknown state 'warm'")
cwbs(sweep_routine 2 ARGS sweep --quick --routines cw_memcpy,nope --json ${j}
     ERR "unknown routine 'nope'" NOFILE ${j})
cwbs(sweep_extra 2 ARGS sweep extra ERR "unexpected argument 'extra'")
cwbs(pollution_zero 2 ARGS pollution --size 0 ERR "--size 0")
cwbs(pollution_huge 2 ARGS pollution --size 5G ERR "--size 5G")
cwbs(dist_missing 2 ARGS dist ERR "needs a distribution FILE")
cwbs(dist_unreadable 2 ARGS dist ${cwbs_dir}/none.sizes --json ${j} ERR "none.sizes"
     NOFILE ${j})
cwbs(dist_malformed 2 ARGS dist ${cwbs_dir}/bad.sizes ERR "bad.sizes:3")
cwbs(dist_extra 2 ARGS dist ${cwbs_dir}/small.sizes more ERR "unexpected argument 'more'")
cwbs(dist_calls_small 2 ARGS dist ${cwbs_dir}/small.sizes --calls 100 ERR "--calls 100: need")
cwbs(dist_calls_text 2 ARGS dist ${cwbs_dir}/small.sizes --calls many ERR "--calls many")
cwbs(ab_calls_hot 2 ARGS --ab cw_memcpy glibc_memcpy --calls 64K
     ERR "--calls applies to --state random only")
cwbs(calls_in_sweep 2 ARGS sweep --calls 64K ERR "--calls is not an option of sweep")
cwbs(quiet_value 2 ARGS --quiet=1 ERR "--quiet takes no value")
cwbs(ab_missing 2 ARGS --ab cw_memcpy ERR "--ab needs two routine names")
cwbs(ab_unknown 2 ARGS --ab cw_memcpy nope ERR "unknown routine 'nope'")
cwbs(ab_same 2 ARGS --ab cw_memcpy cw_memcpy ERR "must differ")
cwbs(ab_size 2 ARGS --ab cw_memcpy glibc_memcpy --size 2G ERR "--size 2G")
cwbs(ab_routines 2 ARGS --routines cw_memcpy --ab cw_memcpy glibc_memcpy
     ERR "--routines is not an option of --ab")
cwbs(ab_twice 2 ARGS --ab cw_memcpy glibc_memcpy --ab rep_movsb glibc_memcpy ERR "given twice")
cwbs(ab_in_sweep 2 ARGS sweep --ab cw_memcpy glibc_memcpy ERR "--ab is not an option of sweep")
cwbs(sweep_range_bad 2 ARGS sweep --align 0:5-1 ERR "--align 0:5-1")
cwbs(sweep_align_cap 2 ARGS sweep --align 0-64:0-63 ERR "at most 4096")
cwbs(sweep_align_dup 2 ARGS sweep --align 0:0,0:0-1 ERR "0:0 listed twice")
cwbs(sweep_align_empty 2 ARGS sweep --align 0:0,,0:1 ERR "empty item")
cwbs(sweep_align_twice 2 ARGS sweep --align 0:0 --align 0:1 ERR "--align given twice")
cwbs(sweep_align_and_off 2 ARGS sweep --align 0:1 --dst-off 1 ERR "one or the other")
cwbs(sweep_dst_off 2 ARGS sweep --dst-off 1-x ERR "--dst-off 1-x")
cwbs(sweep_src_off 2 ARGS sweep --src-off 4096 ERR "--src-off 4096")
cwbs(sweep_cells 2 ARGS sweep --align 0-63:0-63 --max-size 4K --json ${j}
     ERR "cells (sizes x offset pairs x states), at most" NOFILE ${j})
cwbs(ab_state 2 ARGS --ab cw_memcpy glibc_memcpy --state warm ERR "--state warm")
cwbs(ab_off 2 ARGS --ab cw_memcpy cw_memcpy --a-off 0:1-2 ERR "--a-off 0:1-2")
cwbs(ab_same_off 2 ARGS --ab cw_memcpy cw_memcpy --a-off 0:1 --b-off 0:1 ERR "must differ")
cwbs(ab_random_off 2 ARGS --ab cw_memcpy glibc_memcpy --state random --b-off 0:1
     ERR "do not apply")
cwbs(state_in_sweep 2 ARGS sweep --state hot ERR "--state is not an option of sweep")
cwbs(off_in_report 2 ARGS --a-off 0:1 ERR "--a-off is not an option of the default report")
cwbs(threads_zero 2 ARGS threads --threads 0 ERR "--threads 0: need a whole number of threads")
cwbs(threads_text 2 ARGS threads --threads abc --json ${j} ERR "--threads abc: need a whole number"
     NOFILE ${j})
cwbs(threads_many 2 ARGS threads --threads 65 ERR "--threads 65: need a whole number")
cwbs(threads_unknown 2 ARGS threads --frob ERR "unknown option '--frob'")
cwbs(threads_state 2 ARGS threads --state random ERR "--state random: threads takes hot or cold")
cwbs(threads_pin 2 ARGS threads --pin 0 ERR "--pin is not an option of threads")
cwbs(threads_in_sweep 2 ARGS sweep --threads 2 ERR "--threads is not an option of sweep")

# ---- the output other tools read, and the manual ----
# Google Benchmark's compare.py on two --quick runs (skipped, 77, without
# /usr/share/benchmark/compare.py or a python3 with scipy).
add_test(NAME cwbench.smoke.gbench_compare
         COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cwbench/gbench_compare.sh $<TARGET_FILE:cwbench>
                 ${cwbs_dir}/gbench)
set_tests_properties(cwbench.smoke.gbench_compare PROPERTIES SKIP_RETURN_CODE 77)
# `man ./docs/cwbench.1` renders without warnings and names every option
# of --help (skipped, 77, without man).
add_test(NAME cwbench.smoke.manpage
         COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/cwbench/manpage.sh $<TARGET_FILE:cwbench>
                 ${PROJECT_SOURCE_DIR}/docs/cwbench.1)
set_tests_properties(cwbench.smoke.manpage PROPERTIES SKIP_RETURN_CODE 77)
