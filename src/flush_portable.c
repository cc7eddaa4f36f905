/* SPDX-License-Identifier: MIT */
/* Non-x86 targets: no portable way to write back a cache line from user
 * space, so flushcache degrades to an ordinary copy (cw_info says so). */
#include "internal.h"

const char *cwi_flush_select(uint32_t features)
{
    (void)features;
    int pref = CWI_POL(flush_pref);
    if (pref != CWI_FLUSHPREF_AUTO) {
        cwi_config_error("flush=%s: this CPU has no user-space cache write-back",
                         cwi_flush_pref_names[pref]);
        CWI_POL_SET(flush_pref, CWI_FLUSHPREF_AUTO);
    }
    return "none";
}

void cwi_flush_range(const void *p, size_t n)
{
    (void)p;
    (void)n;
}

void cwi_sfence(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
