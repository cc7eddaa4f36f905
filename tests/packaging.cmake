# SPDX-License-Identifier: MIT
# Packaging tests (included by tests/CMakeLists.txt):
#   packaging.header.<compiler>  the public header, laid out as installed,
#       compiled as C99/C11/C17 (gcc, clang) and C++11..C++20 (g++, clang++)
#       with -Wall -Wextra -pedantic -Wcast-align -Wconversion -Werror and
#       more; a compiler that is not installed is skipped. A cross build
#       compiles it for the target: gcc and g++ are the cross compilers,
#       clang and clang++ get --target=<the target's triple>; C++ with
#       -Wold-style-cast -Wzero-as-null-pointer-constant (-Wuseless-cast, g++)
#   packaging.inline.<compiler>  the code gcc and clang make at -O2 of a
#       constant-size cw_memcpy/cw_memmove (inline_copy.c): no call for 1-32
#       bytes, the library's call past that and without the inline path
#   packaging.embed    the source tree embedded with add_subdirectory and
#       FetchContent builds the libraries only and leaves the parent's build
#       type and options alone; with no build type cachewise's own sources
#       are compiled with -O2, the parent's as it says
#   packaging.options  the top-level options' defaults, and their earlier
#       names accepted with a deprecation message
# core.install (tests/CMakeLists.txt, tests/test_install.sh) consumes the
# installed package from separate projects.
set(CW_PKG_DIR ${CMAKE_CURRENT_LIST_DIR}/packaging)
set(CW_PKG_WORK ${CMAKE_CURRENT_BINARY_DIR}/packaging-work)
find_program(CW_PKG_BASH bash REQUIRED)

set(CW_PKG_HDR_gcc gcc)
set(CW_PKG_HDR_g++ g++)
set(CW_PKG_HDR_clang clang)
set(CW_PKG_HDR_clang++ clang++)
if(CMAKE_CROSSCOMPILING)
  set(CW_PKG_HDR_gcc ${CMAKE_C_COMPILER})
  if(CMAKE_CXX_COMPILER)
    set(CW_PKG_HDR_g++ ${CMAKE_CXX_COMPILER})
  elseif(CW_CROSS_PREFIX)
    set(CW_PKG_HDR_g++ ${CW_CROSS_PREFIX}g++)
  endif()
  if(CMAKE_C_LIBRARY_ARCHITECTURE)
    set(CW_PKG_HDR_clang clang --target=${CMAKE_C_LIBRARY_ARCHITECTURE})
    set(CW_PKG_HDR_clang++ clang++ --target=${CMAKE_C_LIBRARY_ARCHITECTURE})
  endif()
endif()
# (a copy of each command: the loop below takes its lists apart)
foreach(compiler gcc clang)
  set(cw_cmd ${CW_PKG_HDR_${compiler}})
  list(POP_FRONT cw_cmd cw_cc)
  add_test(NAME packaging.inline.${compiler} COMMAND ${CW_PKG_BASH}
    ${CW_PKG_DIR}/inline_copy.sh ${cw_cc} ${PROJECT_SOURCE_DIR}/include ${CW_PKG_DIR}
    ${CW_PKG_WORK}/inline-${compiler} ${cw_cmd})
  set_tests_properties(packaging.inline.${compiler} PROPERTIES
    LABELS packaging SKIP_RETURN_CODE 77 TIMEOUT 60)
endforeach()
foreach(compiler gcc g++ clang clang++)
  list(POP_FRONT CW_PKG_HDR_${compiler} cw_cc)
  add_test(NAME packaging.header.${compiler} COMMAND ${CW_PKG_BASH}
    ${CW_PKG_DIR}/header_flags.sh ${cw_cc} ${PROJECT_SOURCE_DIR}/include/cachewise.h
    ${CW_PKG_DIR} ${CW_PKG_WORK}/header-${compiler} ${CW_PKG_HDR_${compiler}})
  set_tests_properties(packaging.header.${compiler} PROPERTIES
    LABELS packaging SKIP_RETURN_CODE 77 TIMEOUT 120)
endforeach()

# These configure and build separate projects with this build's compiler:
# plain builds only, as core.install (a sanitizer build's consumers would
# need its runtime). A cross build's nested builds take its toolchain file
# from CW_CROSS_CMAKE_ARGS and run their programs under CW_EMULATOR
# (tests/CMakeLists.txt, tests/emulator.sh).
if(NOT CW_SANITIZE)
  add_test(NAME packaging.embed COMMAND ${CW_PKG_BASH} ${CW_PKG_DIR}/test_embed.sh
    ${CMAKE_COMMAND} ${PROJECT_SOURCE_DIR} ${CMAKE_C_COMPILER} ${CW_PKG_WORK}/embed)
  add_test(NAME packaging.options COMMAND ${CW_PKG_BASH} ${CW_PKG_DIR}/test_options.sh
    ${CMAKE_COMMAND} ${PROJECT_SOURCE_DIR} ${CMAKE_C_COMPILER} ${CW_PKG_WORK}/options)
  set_tests_properties(packaging.embed packaging.options PROPERTIES
    LABELS packaging TIMEOUT 300)
endif()

# packaging.deb  cpack -G DEB from this build (cmake/cpack.cmake): the three
#     packages' metadata and files, and a program built and run against them
#     unpacked into an empty root (tests/packaging/deb.sh). CPack is set up
#     in top-level builds only, the tools package needs cwbench and the shim,
#     and the program runs here: not in sanitizer or cross builds.
if(CW_TOP_LEVEL AND CACHEWISE_INSTALL AND NOT CW_SANITIZE AND NOT CMAKE_CROSSCOMPILING
   AND TARGET cwbench AND TARGET cachewise_preload)
  add_test(NAME packaging.deb COMMAND ${CW_PKG_BASH} ${CW_PKG_DIR}/deb.sh
    ${CMAKE_CPACK_COMMAND} ${PROJECT_BINARY_DIR} ${CMAKE_C_COMPILER} ${CW_PKG_WORK}/deb)
  set_tests_properties(packaging.deb PROPERTIES
    LABELS packaging SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()
