# SPDX-License-Identifier: MIT
# Read by cpack for each generator (CPACK_PROJECT_CONFIG_FILE, cmake/cpack.cmake).
# DEB: each component's CPACK_DEBIAN_<COMPONENT>_DESCRIPTION starts with its
# own synopsis, which the package summary would otherwise push down.
if(CPACK_GENERATOR STREQUAL "DEB")
  unset(CPACK_PACKAGE_DESCRIPTION_SUMMARY)
endif()
