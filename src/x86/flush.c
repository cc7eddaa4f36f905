/* SPDX-License-Identifier: MIT */
/* Cache-line write-back for the flushcache copies and fills, and for
 * cw_flush / cw_persist. The instruction is chosen once from CPUID;
 * mnemonics are emitted through inline asm so this file needs no target
 * flags (the assembler knows them all). */
#include "internal.h"

int cwi_flush_kind = CWI_FLUSH_CLFLUSH; /* every x86-64 CPU has clflush */

/* the store that cwi_flush_kind_now() (src/internal.h) loads */
static void set_flush_kind(int kind)
{
    __atomic_store_n(&cwi_flush_kind, kind, __ATOMIC_RELAXED);
}

const char *cwi_flush_select(uint32_t features)
{
    int pref = CWI_POL(flush_pref);
    if (pref != CWI_FLUSHPREF_AUTO) {
        uint32_t need = pref == CWI_FLUSHPREF_CLWB         ? CWI_F_CLWB
                        : pref == CWI_FLUSHPREF_CLFLUSHOPT ? CWI_F_CLFLUSHOPT
                        : pref == CWI_FLUSHPREF_CLFLUSH    ? CWI_F_CLFLUSH
                                                           : 0;
        if (need != 0 && (features & need)) {
            set_flush_kind(pref == CWI_FLUSHPREF_CLWB         ? CWI_FLUSH_CLWB
                           : pref == CWI_FLUSHPREF_CLFLUSHOPT ? CWI_FLUSH_CLFLUSHOPT
                                                              : CWI_FLUSH_CLFLUSH);
            return cwi_flush_pref_names[pref];
        }
        cwi_config_error("flush=%s: this CPU has no such instruction; using the best it has",
                         cwi_flush_pref_names[pref]);
        CWI_POL_SET(flush_pref, CWI_FLUSHPREF_AUTO);
    }
    if (features & CWI_F_CLWB) {
        set_flush_kind(CWI_FLUSH_CLWB);
        return "clwb";
    }
    if (features & CWI_F_CLFLUSHOPT) {
        set_flush_kind(CWI_FLUSH_CLFLUSHOPT);
        return "clflushopt";
    }
    if (features & CWI_F_CLFLUSH) {
        set_flush_kind(CWI_FLUSH_CLFLUSH);
        return "clflush";
    }
    set_flush_kind(CWI_FLUSH_NONE);
    return "none";
}

/* One line per instruction, its line an input operand only: these
 * instructions change no byte of memory and are permission-checked like a
 * one-byte load, so cw_flush works on a read-only mapping. Volatile: the
 * compiler may neither drop nor merge them. */
#define CWI_FLUSH_LOOP(insn, a, end)                                                         \
    for (; (a) < (end); (a) += 64)                                                          \
    __asm__ volatile(insn " %0" : : "m"(*(const volatile char *)(a)))

/* cw_flush's body (and the generic flushcache's): one loop per instruction,
 * so the choice is made once per call. A per-line switch would also reload
 * cwi_flush_kind after every line, which the compiler must assume the
 * previous line's asm (a char operand, that aliases everything) changed. */
void cwi_flush_range(const void *p, size_t n)
{
    if (n == 0)
        return;
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)63;
    uintptr_t end = (uintptr_t)p + n;
    switch (cwi_flush_kind_now()) {
    case CWI_FLUSH_CLWB:
        CWI_FLUSH_LOOP("clwb", a, end);
        break;
    case CWI_FLUSH_CLFLUSHOPT:
        CWI_FLUSH_LOOP("clflushopt", a, end);
        break;
    case CWI_FLUSH_CLFLUSH:
        CWI_FLUSH_LOOP("clflush", a, end);
        break;
    default:
        break;
    }
}

void cwi_sfence(void)
{
    __asm__ volatile("sfence" ::: "memory");
}
