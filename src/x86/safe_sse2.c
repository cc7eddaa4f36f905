/* SPDX-License-Identifier: MIT */
/* The sse2 kernels compiled again as cw_copy_safe's safe instance
 * (src/CMakeLists.txt: section cw_safe_text, rbx, rbp, r12-r15, xmm14 and
 * xmm15 reserved; in sanitizer builds, without instrumentation and with the
 * twin row an armed copy calls, src/safe_internal.h). */
#define _GNU_SOURCE
#define CWL_SAFE_INSTANCE 1
#include "safe_internal.h"

#include "sse2.c"

#if defined(CWI_SAFE_UNINSTRUMENTED)
CWI_SAFE_TWIN(cwi_safe_twin_sse2, "sse2")
#endif
