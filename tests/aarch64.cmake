# SPDX-License-Identifier: MIT
# aarch64 only: the two write-back paths, each forced in turn
# through every persistence entry point and both rows (tests/test_dc_cvap.c:
# where qemu-user cannot execute DC CVAP the test stands in for it and
# counts the lines), and the instructions the library's code really holds.
if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64|ARM64")
  return()
endif()
add_executable(test_dc_cvap test_dc_cvap.c)
target_link_libraries(test_dc_cvap PRIVATE cachewise)
foreach(impl IN LISTS CW_TEST_IMPLS)
  foreach(insn dc-cvap dc-cvac)
    add_test(NAME aarch64.${insn}.${impl} COMMAND test_dc_cvap)
    set_tests_properties(aarch64.${insn}.${impl} PROPERTIES
      ENVIRONMENT "CACHEWISE_IMPL=${impl};CACHEWISE_FLUSH=${insn}"
      SKIP_RETURN_CODE 77 LABELS "persist;aarch64")
  endforeach()
endforeach()
add_test(NAME aarch64.insns COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_aarch64_insns.sh
  ${CMAKE_OBJDUMP} $<TARGET_FILE:cachewise>)
set_tests_properties(aarch64.insns PROPERTIES LABELS "persist;aarch64" SKIP_RETURN_CODE 77)
