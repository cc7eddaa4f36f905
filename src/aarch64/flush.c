/* SPDX-License-Identifier: MIT */
/* aarch64 cache maintenance for the flushcache copies and fills and for
 * cw_flush / cw_persist, after the kernel's arm64 memcpy_flushcache and
 * arch_wb_cache_pmem: every line written back to the point of persistence
 * with DC CVAP where the CPU has it (ARMv8.2 FEAT_DPB, HWCAP_DCPOP), else to
 * the point of coherency with DC CVAC; cw_drain is DSB SY, which waits for
 * those operations (and for earlier stores) to complete.
 *
 * The line size is the smallest data cache line the CPU reports in CTR_EL0
 * (DminLine): a write-back by 64-byte steps would skip lines on a CPU with
 * 32-byte lines. Linux lets EL0 read CTR_EL0 (or emulates the read). */
#include "internal.h"

/* DC CVAP by its system-instruction encoding (sys #3, c7, c12, #1): the
 * assembler accepts the mnemonic only for ARMv8.2 targets, and the library
 * is built for ARMv8.0 (it is run only where HWCAP_DCPOP says so). */
#define DC_CVAP(reg) "sys #3, c7, c12, #1, " #reg

static int use_cvap;       /* else DC CVAC, which every ARMv8 CPU has */
static size_t dline = 64;  /* the write-back step: CTR_EL0.DminLine */

const char *cwi_flush_select(uint32_t features)
{
    uint64_t ctr;
    __asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
    size_t line = (size_t)4 << ((ctr >> 16) & 0xf);
    /* an architecturally possible 4 KiB "line" would not be a cache line:
     * keep the conservative step then */
    __atomic_store_n(&dline, line >= 16 && line <= 2048 ? line : (size_t)16, __ATOMIC_RELAXED);
    int pref = CWI_POL(flush_pref), dcpop = !!(features & CWI_F_DCPOP);
    /* dc-cvac is always available: a weaker write-back (point of
     * coherency), e.g. for qemu-user 7.2 (Debian 12), which reports
     * HWCAP_DCPOP but raises SIGILL on DC CVAP */
    if (pref != CWI_FLUSHPREF_AUTO && pref != CWI_FLUSHPREF_DC_CVAC &&
        !(pref == CWI_FLUSHPREF_DC_CVAP && dcpop)) {
        cwi_config_error("flush=%s: this CPU has no such instruction; using the best it has",
                         cwi_flush_pref_names[pref]);
        CWI_POL_SET(flush_pref, CWI_FLUSHPREF_AUTO);
        pref = CWI_FLUSHPREF_AUTO;
    }
    int cvap = dcpop && pref != CWI_FLUSHPREF_DC_CVAC;
    /* cw_settings_apply may choose again while other threads flush */
    __atomic_store_n(&use_cvap, cvap, __ATOMIC_RELAXED);
    return cvap ? "dc cvap" : "dc cvac";
}

/* One loop per instruction, chosen once per call. DC CVAC and DC CVAP
 * change no byte and are permission-checked as reads: cw_flush works on a
 * read-only mapping. */
void cwi_flush_range(const void *p, size_t n)
{
    if (n == 0)
        return;
    size_t step = __atomic_load_n(&dline, __ATOMIC_RELAXED);
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)(step - 1);
    uintptr_t end = (uintptr_t)p + n;
    if (__atomic_load_n(&use_cvap, __ATOMIC_RELAXED)) {
        for (; a < end; a += step)
            __asm__ volatile(DC_CVAP(%0) : : "r"(a) : "memory");
    } else {
        for (; a < end; a += step)
            __asm__ volatile("dc cvac, %0" : : "r"(a) : "memory");
    }
}

void cwi_sfence(void)
{
    __asm__ volatile("dsb sy" ::: "memory");
}
