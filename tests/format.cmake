# SPDX-License-Identifier: MIT
# The files tests/check_format.sh lists follow .clang-format (clang-format
# 14; skipped, 77, without it).
add_test(NAME format COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/check_format.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(format PROPERTIES LABELS format SKIP_RETURN_CODE 77 TIMEOUT 120)
