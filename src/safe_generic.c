/* SPDX-License-Identifier: MIT */
/* The generic copy compiled again as cw_copy_safe's safe instance
 * (src/CMakeLists.txt: section cw_safe_text, rbx, rbp, r12-r15, xmm14 and
 * xmm15 reserved; in sanitizer builds, without instrumentation and with the
 * twin row an armed copy calls, src/safe_internal.h). */
#define _GNU_SOURCE
#define CWL_SAFE_INSTANCE 1
#include "safe_internal.h"

#include "generic.c"

#if defined(CWI_SAFE_UNINSTRUMENTED)
/* generic.c's copy and flushcache (the copy, then every line written
 * back), compiled here without instrumentation; no portable streaming
 * store: the nt variants are the temporal copy */
const struct cwi_impl cwi_safe_twin_generic = {
    .name = "generic",
    .copy = g_copy,
    .copy_nt = g_copy,
    .copy_nt_srcnta = g_copy,
    .copy_srcnta = g_copy,
    .persist = g_flushcache,
};
#endif
