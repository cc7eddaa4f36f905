# SPDX-License-Identifier: MIT
# Debian packages from the install rules' components (CMakeLists.txt,
# src/preload/, programs/): `cpack -G DEB` in a top-level build makes
#   libcachewise<MAJOR>  Runtime: libcachewise.so.<MAJOR>*, LICENSE, CHANGELOG
#   libcachewise-dev     Development: header, libcachewise.a, the .so link,
#                        CMake package, pkg-config files, section 3 manual
#   cachewise-tools      Tools: cwbench, libcachewise-preload.so, cwbench(1),
#                        cachewise-preload(7)
# The runtime package is named after the SONAME's major version, as Debian
# names shared libraries, so that two majors can be installed side by side.
# Packages go to /usr (CPack's default for DEB), whatever the build's prefix.
set(CPACK_PACKAGE_NAME cachewise)
set(CPACK_PACKAGE_VENDOR cachewise)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
# CPack's DEB generator puts that summary above every package's own
# description, which has its own synopsis line here: cpack_deb.cmake drops
# it when packaging DEB (read by cpack, per generator).
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_CURRENT_LIST_DIR}/cpack_deb.cmake)
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGE_CONTACT "cachewise maintainers <cachewise@localhost>")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CPACK_PACKAGE_CONTACT}")
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # name_version-release_arch.deb
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)

set(cw_deb_runtime libcachewise${PROJECT_VERSION_MAJOR})
set(cw_deb_version "${PROJECT_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE}")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME ${cw_deb_runtime})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION "${PROJECT_DESCRIPTION} - shared library
cachewise copies memory the way the caches want it: temporal or
non-temporal stores, flushes and persistence chosen per CPU and per size.
This package holds the shared library programs linked with -lcachewise run.")
# The runtime package states what it provides (a shlibs file), so that
# dpkg-shlibdeps of programs built against it can name it.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_GENERATE_SHLIBS_POLICY ">=")

# The first line of each description is its synopsis, the rest the
# extended description (CPack indents it as debian/control wants).

# -dev and -tools come from the same build as the library: the exact version.
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME libcachewise-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS "${cw_deb_runtime} (= ${cw_deb_version})")
set(CPACK_DEBIAN_DEVELOPMENT_DESCRIPTION "${PROJECT_DESCRIPTION} - development files
The header, the static library, the CMake package (find_package(cachewise)),
the pkg-config files (cachewise, cachewise-static) and the manual of the
calls (section 3).")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME cachewise-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "${cw_deb_runtime} (= ${cw_deb_version})")
set(CPACK_DEBIAN_TOOLS_DESCRIPTION "${PROJECT_DESCRIPTION} - tools
cwbench, the benchmark and tuner of the copy policy, and
libcachewise-preload.so, which puts cachewise under memcpy, memmove and
memset of unmodified programs through LD_PRELOAD (cachewise-preload(7)).")

# The C library and friends as Depends, where dpkg-shlibdeps is there to
# read them (it is part of dpkg-dev). A cross build's binaries are the
# target's: the host's dpkg-shlibdeps would look them up in the host's
# packages, so it is left out there.
find_program(CW_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(CW_DPKG_SHLIBDEPS AND NOT CMAKE_CROSSCOMPILING)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
endif()

include(CPack)
