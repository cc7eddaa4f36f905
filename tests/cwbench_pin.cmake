# SPDX-License-Identifier: MIT
# cwbench --pin: a CPU outside the process's CPU set is an error (exit 2),
# never a widening of the set; a CPU inside it works (tests/cwbench_pin.sh).
if(NOT TARGET cwbench)
  return()
endif()
find_program(CW_PIN_TASKSET taskset)
if(NOT CW_PIN_TASKSET)
  message(STATUS "cwbench --pin test: taskset not found, test skipped")
  return()
endif()
add_test(NAME cwbench.pin_outside_set COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cwbench_pin.sh
  ${CW_PIN_TASKSET} $<TARGET_FILE:cwbench>)
set_tests_properties(cwbench.pin_outside_set PROPERTIES LABELS cwbench TIMEOUT 120)
