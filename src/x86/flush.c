/* Cache-line write-back for the flushcache copies. The instruction is chosen
 * once from CPUID; mnemonics are emitted through inline asm so this file
 * needs no target flags (the assembler knows them all). */
#include "internal.h"

int cwi_flush_kind = CWI_FLUSH_CLFLUSH; /* every x86-64 CPU has clflush */

const char *cwi_flush_select(uint32_t features)
{
    if (features & CWI_F_CLWB) {
        cwi_flush_kind = CWI_FLUSH_CLWB;
        return "clwb";
    }
    if (features & CWI_F_CLFLUSHOPT) {
        cwi_flush_kind = CWI_FLUSH_CLFLUSHOPT;
        return "clflushopt";
    }
    if (features & CWI_F_CLFLUSH) {
        cwi_flush_kind = CWI_FLUSH_CLFLUSH;
        return "clflush";
    }
    cwi_flush_kind = CWI_FLUSH_NONE;
    return "none";
}

void cwi_flush_line(const void *p)
{
    cwi_flush_line_inline(p);
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
