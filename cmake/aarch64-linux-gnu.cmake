# SPDX-License-Identifier: MIT
# Cross-compiling for 64-bit Arm Linux with Debian's cross toolchain
# (packages gcc-aarch64-linux-gnu, libc6-dev-arm64-cross):
#
#   cmake -S . -B build-arm -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
#   cmake --build build-arm
#
# The tests run under qemu-aarch64 (package qemu-user): CTest starts every
# test binary through CMAKE_CROSSCOMPILING_EMULATOR, with the cross sysroot
# as qemu's -L prefix. CW_QEMU_CPU picks the emulated CPU (default "max",
# which has DC CVAP; e.g. "cortex-a57" has not, so the DC CVAC path runs).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CW_CROSS_PREFIX aarch64-linux-gnu- CACHE STRING "prefix of the cross tools")
set(CMAKE_C_COMPILER ${CW_CROSS_PREFIX}gcc)
set(CMAKE_CXX_COMPILER ${CW_CROSS_PREFIX}g++)
set(CW_CROSS_SYSROOT /usr/aarch64-linux-gnu CACHE PATH "the target's libraries (qemu -L)")

find_program(CW_QEMU_AARCH64 qemu-aarch64)
set(CW_QEMU_CPU max CACHE STRING "qemu-aarch64 -cpu for the tests")
if(CW_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR
    ${CW_QEMU_AARCH64};-L;${CW_CROSS_SYSROOT};-cpu;${CW_QEMU_CPU})
endif()

# Libraries and headers from the target's tree only; programs from the host.
set(CMAKE_FIND_ROOT_PATH ${CW_CROSS_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
