/* SPDX-License-Identifier: MIT */
/* Buffers on huge pages, faulted in before any timed region, and the
 * fills that put them in a known state (streaming stores that leave the
 * caches cold; a deterministic pattern without the poison byte). */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "platform/arch.h"
#include "platform/memory.h"

#define HUGE ((size_t)2 << 20)

void *cwb_alloc_huge(size_t bytes)
{
    size_t len = (bytes + HUGE - 1) & ~(HUGE - 1);
    if (len == 0 || len < bytes)
        return NULL;
    unsigned char *raw = mmap(NULL, len + HUGE, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    unsigned char *p = (unsigned char *)(((uintptr_t)raw + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
    if (p > raw)
        munmap(raw, (size_t)(p - raw));
    if (raw + HUGE > p)
        munmap(p + len, (size_t)(raw + HUGE - p));
    (void)madvise(p, len, MADV_HUGEPAGE);
    /* Fault every page in now, never inside a timed region. */
    for (size_t i = 0; i < len; i += 4096)
        p[i] = 0;
    return p;
}

void cwb_free_huge(void *p, size_t bytes)
{
    if (p != NULL)
        munmap(p, (bytes + HUGE - 1) & ~(HUGE - 1));
}

void cwb_fill_nt(void *p, int byte, size_t n)
{
    unsigned char *d = p;
    /* x86: 16-byte streaming stores from the first 16-byte boundary;
     * elsewhere whole lines (two STNP each) from the first 64-byte one */
#if defined(CWB_ARCH_X86)
    const size_t unit = 16;
#else
    const size_t unit = 64;
#endif
    unsigned char *a = (unsigned char *)(((uintptr_t)d + unit - 1) & ~(uintptr_t)(unit - 1));
    if ((size_t)(a - d) >= n) {
        memset(d, byte, n);
        return;
    }
    memset(d, byte, (size_t)(a - d));
    n -= (size_t)(a - d);
    cwb_v128 v = cwb_v128_splat(byte);
    size_t i = 0;
    for (; i + unit <= n; i += unit) {
#if defined(CWB_ARCH_X86)
        cwb_nt_store16(a + i, v);
#else
        cwb_nt_fill64(a + i, v);
#endif
    }
    memset(a + i, byte, n - i);
    cwb_sfence();
}

void cwb_fill_pattern(void *p, size_t n, uint64_t seed)
{
    unsigned char *d = p;
    uint64_t x = seed | 1;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        /* xorshift64: cheap enough for 256 MiB buffers; OR-ing 1 into every
         * byte keeps the poison byte 0 out of the pattern. */
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint64_t w = x | 0x0101010101010101ull;
        memcpy(d + i, &w, 8);
    }
    for (; i < n; i++)
        d[i] = (unsigned char)(i | 1);
}
