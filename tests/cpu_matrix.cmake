# SPDX-License-Identifier: MIT
# The helpers of the x86 CPU matrix (tests/cpu_matrix.sh, stage 8 of
# tests/run-all.sh), which runs them and the core tests under qemu-x86_64
# -cpu MODEL: cpu_matrix_probe prints what the library detected and chose
# and checks selection on that CPU; cpu_matrix_safe is safe_faults without
# the section qemu-user cannot run. The probe also runs here, on the host,
# so that it is known to pass on real hardware too.
if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
  return()
endif()
# the shared library: its cw_memcpy is the IFUNC whose entry the matrix checks
add_executable(cpu_matrix_probe cpu_matrix_probe.c)
target_link_libraries(cpu_matrix_probe PRIVATE cachewise)
# safe_faults' own link (the static library)
add_executable(cpu_matrix_safe cpu_matrix_safe.c)
target_link_libraries(cpu_matrix_safe PRIVATE cachewise_static)
add_test(NAME core.cpu_matrix_probe COMMAND cpu_matrix_probe)
set_tests_properties(core.cpu_matrix_probe PROPERTIES LABELS core)
