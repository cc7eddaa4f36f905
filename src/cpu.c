/* SPDX-License-Identifier: MIT */
/* CPU detection, the part every architecture shares: what the
 * architecture's own detection reports (src/x86/cpu.c, src/aarch64/cpu.c;
 * nothing elsewhere, src/cpu_portable.c), the caches it left unknown from
 * sysconf where libc has them, a 64-byte line where nothing said, and the
 * L3 the policy trusts. */
#include <unistd.h>

#include "internal.h"

static size_t sysconf_size(int name)
{
    long v = sysconf(name);
    return v > 0 ? (size_t)v : 0;
}

void cwi_cpu_detect(struct cwi_cpu *c)
{
    *c = (struct cwi_cpu){.threads_sharing_l3 = 0};
    cwi_cpu_detect_arch(c);
#if defined(_SC_LEVEL1_DCACHE_SIZE)
    if (c->l1d == 0)
        c->l1d = sysconf_size(_SC_LEVEL1_DCACHE_SIZE);
    if (c->l2 == 0)
        c->l2 = sysconf_size(_SC_LEVEL2_CACHE_SIZE);
    if (c->l3 == 0)
        c->l3 = sysconf_size(_SC_LEVEL3_CACHE_SIZE);
    if (c->line == 0)
        c->line = sysconf_size(_SC_LEVEL1_DCACHE_LINESIZE);
#else
    (void)sysconf_size;
#endif
    if (c->line == 0)
        c->line = 64;
    /* threads_sharing_l3 stays 0 where nothing said: cwi_cache_trust()
     * (src/profiles.c) must know that the sharing is unknown */
    cwi_cache_trust(c);
}
