# SPDX-License-Identifier: MIT
# The library's man pages (docs/man): each renders without a warning, the
# .so links resolve, every function of the header has a page
# (tests/man/manpages.sh; skipped, 77, without man). Installed under
# share/man by the top-level CMakeLists.txt; core.install reads them there.
add_test(NAME manpages COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/man/manpages.sh
  ${PROJECT_SOURCE_DIR}/docs/man ${PROJECT_SOURCE_DIR}/include/cachewise.h)
set_tests_properties(manpages PROPERTIES LABELS docs SKIP_RETURN_CODE 77 TIMEOUT 120)
