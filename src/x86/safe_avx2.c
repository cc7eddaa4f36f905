/* SPDX-License-Identifier: MIT */
/* The avx2 kernels compiled again for cw_copy_safe (src/safe_internal.h): the
 * safe instance of the temporal copy (src/CMakeLists.txt: section
 * cw_safe_text, rbx, rbp, r12-r15, xmm14 and xmm15 reserved, in GCC
 * builds), the forward copy for copies that must not walk backward (also a
 * safe kernel there), and in sanitizer builds, compiled without
 * instrumentation, the twin row an armed copy calls. */
#define _GNU_SOURCE
#define CWL_SAFE_INSTANCE 1
#include "safe_internal.h"

#include "avx2.c"

CWI_SAFE_FORWARD_DEF(cwi_avx2_copy_forward)
#if defined(CWI_SAFE_KERNELS)
CWI_SAFE_FORWARD_KERNEL_DEF(cwi_avx2fwd_copy_safe)
#endif

#if defined(CWI_SAFE_UNINSTRUMENTED)
CWI_SAFE_TWIN(cwi_safe_twin_avx2, "avx2", cwi_avx2_copy_forward)
#endif
