/* Cache-line write-back for the flushcache copies. The instruction is chosen
 * once from CPUID; mnemonics are emitted through inline asm so this file
 * needs no target flags (the assembler knows them all). */
#include "internal.h"

enum flush_kind { FLUSH_NONE, FLUSH_CLFLUSH, FLUSH_CLFLUSHOPT, FLUSH_CLWB };
static enum flush_kind g_flush = FLUSH_CLFLUSH; /* every x86-64 CPU has clflush */

const char *cwi_flush_select(uint32_t features)
{
    if (features & CWI_F_CLWB) {
        g_flush = FLUSH_CLWB;
        return "clwb";
    }
    if (features & CWI_F_CLFLUSHOPT) {
        g_flush = FLUSH_CLFLUSHOPT;
        return "clflushopt";
    }
    if (features & CWI_F_CLFLUSH) {
        g_flush = FLUSH_CLFLUSH;
        return "clflush";
    }
    g_flush = FLUSH_NONE;
    return "none";
}

void cwi_flush_line(const void *p)
{
    switch (g_flush) {
    case FLUSH_CLWB:
        __asm__ volatile("clwb %0" : "+m"(*(volatile char *)p));
        break;
    case FLUSH_CLFLUSHOPT:
        __asm__ volatile("clflushopt %0" : "+m"(*(volatile char *)p));
        break;
    case FLUSH_CLFLUSH:
        /* clflush is ordered with respect to stores on its own, so a later
         * sfence (cw_drain) completes it as well */
        __asm__ volatile("clflush %0" : "+m"(*(volatile char *)p));
        break;
    case FLUSH_NONE:
        break;
    }
}

void cwi_flush_range(const void *p, size_t n)
{
    if (n == 0)
        return;
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)63;
    uintptr_t end = (uintptr_t)p + n;
    for (; a < end; a += 64)
        cwi_flush_line((const void *)a);
}

void cwi_sfence(void)
{
    __asm__ volatile("sfence" ::: "memory");
}
