/* SPDX-License-Identifier: MIT */
/* CPU detection on architectures without their own (neither x86-64 nor
 * aarch64): nothing known here; cwi_cpu_detect (src/cpu.c) fills the caches
 * from sysconf where it can. */
#include "internal.h"

void cwi_cpu_detect_arch(struct cwi_cpu *c)
{
    (void)c;
}
