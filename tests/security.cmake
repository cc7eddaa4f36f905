# SPDX-License-Identifier: MIT
# Hostile arguments (every implementation), secure mode and
# planted symlinks. CW_SAFE_ENV_MOD comes from safe.cmake (cw_copy_safe
# faults on purpose here too).
add_executable(test_hostile test_hostile.c)
target_link_libraries(test_hostile PRIVATE cachewise)
foreach(impl IN LISTS CW_TEST_IMPLS)
  add_test(NAME security.hostile.${impl} COMMAND test_hostile)
  set_tests_properties(security.hostile.${impl} PROPERTIES
    ENVIRONMENT "CACHEWISE_IMPL=${impl}" ENVIRONMENT_MODIFICATION "${CW_SAFE_ENV_MOD}"
    SKIP_RETURN_CODE 77 LABELS "core;security")
endforeach()

if(TARGET cachewise_preload)
  add_executable(secure_probe secure/probe.c)
  target_link_libraries(secure_probe PRIVATE cachewise_preload cachewise)
  target_compile_options(secure_probe PRIVATE -fno-builtin)
  # CW_TEST_ALT_IMPL (tests/CMakeLists.txt): what the settings force
  add_test(NAME security.secure_mode COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/secure/run.sh
    $<TARGET_FILE:secure_probe> ${CW_TEST_ALT_IMPL})
  set_tests_properties(security.secure_mode PROPERTIES SKIP_RETURN_CODE 77
    LABELS "security")
endif()
