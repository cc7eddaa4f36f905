/* SPDX-License-Identifier: MIT */
/* generic: portable C11 implementation, the reference the others are tested
 * against and the fallback on every architecture.
 *
 * It copies 8-byte words once the destination is aligned. Every chunk is
 * loaded completely before it is stored and the chunks never overlap each
 * other, so the same forward/backward loops are correct for memmove too
 * (forward when dst is below src, backward otherwise).
 *
 * There is no portable streaming store, so the nt variants are the temporal
 * copy; flushcache is the copy followed by a write-back of every line it
 * touched (a no-op where the architecture has no user-space flush). The
 * fills (cw_memset_*) follow the same rules with aligned word stores. */
#include "internal.h"

typedef unsigned char u8;

#if defined(__GNUC__) || defined(__clang__)
/* may_alias: the words alias whatever the caller stored there.
 * aligned(1) on the load type: the source may have any alignment; the
 * compiler emits a plain load on x86/arm64 and byte loads on targets that
 * trap on misaligned access. Stores go to an 8-aligned destination. */
typedef uint64_t gw_load __attribute__((may_alias, aligned(1)));
typedef uint64_t gw_store __attribute__((may_alias));
#define GW_WORDS 1
#else
#define GW_WORDS 0
#endif

/* Below this size aligning the destination costs more than it saves. */
#define GW_MIN_WORDS 32

/* In the safe instance (src/safe_generic.c) the copy is inlined into the
 * one function in section cw_safe_text: a fault must never stop outside it. */
#ifdef CWL_SAFE_INSTANCE
#define GW_FN static inline __attribute__((always_inline))
#else
#define GW_FN static
#endif

GW_FN void fwd(u8 *d, const u8 *s, size_t n)
{
#if GW_WORDS
    if (n >= GW_MIN_WORDS) {
        while ((uintptr_t)d & 7) {
            *d++ = *s++;
            n--;
        }
        for (; n >= 32; n -= 32, d += 32, s += 32) {
            uint64_t a = ((const gw_load *)s)[0], b = ((const gw_load *)s)[1];
            uint64_t c = ((const gw_load *)s)[2], e = ((const gw_load *)s)[3];
            ((gw_store *)d)[0] = a;
            ((gw_store *)d)[1] = b;
            ((gw_store *)d)[2] = c;
            ((gw_store *)d)[3] = e;
        }
        for (; n >= 8; n -= 8, d += 8, s += 8)
            *(gw_store *)d = *(const gw_load *)s;
    }
#endif
    for (; n != 0; n--)
        *d++ = *s++;
}

/* Mirror image of fwd(), walking down from the end. */
GW_FN void bwd(u8 *d, const u8 *s, size_t n)
{
    d += n;
    s += n;
#if GW_WORDS
    if (n >= GW_MIN_WORDS) {
        while ((uintptr_t)d & 7) {
            *--d = *--s;
            n--;
        }
        for (; n >= 32; n -= 32) {
            d -= 32;
            s -= 32;
            uint64_t a = ((const gw_load *)s)[0], b = ((const gw_load *)s)[1];
            uint64_t c = ((const gw_load *)s)[2], e = ((const gw_load *)s)[3];
            ((gw_store *)d)[3] = e;
            ((gw_store *)d)[2] = c;
            ((gw_store *)d)[1] = b;
            ((gw_store *)d)[0] = a;
        }
        for (; n >= 8; n -= 8) {
            d -= 8;
            s -= 8;
            *(gw_store *)d = *(const gw_load *)s;
        }
    }
#endif
    for (; n != 0; n--)
        *--d = *--s;
}

#ifdef CWL_SAFE_INSTANCE
CWI_SAFE_SECTION size_t cwi_generic_copy_safe(void *restrict dst, const void *restrict src,
                                              size_t n)
{
    fwd(dst, src, n);
    return 0;
}
#endif

/* The copy and flushcache of the row, and in the safe instance of a
 * sanitizer build those of its uninstrumented twin (src/safe_generic.c). */
#if !defined(CWL_SAFE_INSTANCE) || defined(CWI_SAFE_UNINSTRUMENTED)
static void *g_copy(void *restrict dst, const void *restrict src, size_t n)
{
    fwd(dst, src, n);
    return dst;
}

static void *g_flushcache(void *restrict dst, const void *restrict src, size_t n)
{
    fwd(dst, src, n);
    cwi_flush_range(dst, n);
    return dst;
}
#endif

#ifndef CWL_SAFE_INSTANCE

static void *g_move(void *dst, const void *src, size_t n)
{
    /* Unsigned distance: dst below src wraps to a huge value, so one compare
     * sends every case where forward is safe (dst below src, or disjoint)
     * forward. */
    if ((uintptr_t)dst - (uintptr_t)src >= n)
        fwd(dst, src, n);
    else
        bwd(dst, src, n);
    return dst;
}

/* The fill: bytes up to an 8-byte boundary, then aligned words (four per
 * iteration), then bytes. Only the low byte of c counts, as for memset. */
static void set_fwd(u8 *d, int c, size_t n)
{
    u8 b = (u8)c;
#if GW_WORDS
    if (n >= GW_MIN_WORDS) {
        uint64_t w = (uint64_t)b * 0x0101010101010101u;
        while ((uintptr_t)d & 7) {
            *d++ = b;
            n--;
        }
        for (; n >= 32; n -= 32, d += 32) {
            ((gw_store *)d)[0] = w;
            ((gw_store *)d)[1] = w;
            ((gw_store *)d)[2] = w;
            ((gw_store *)d)[3] = w;
        }
        for (; n >= 8; n -= 8, d += 8)
            *(gw_store *)d = w;
    }
#endif
    for (; n != 0; n--)
        *d++ = b;
}

/* No portable streaming store: the nt fill is the temporal one. */
static void *g_memset(void *dst, int c, size_t n)
{
    set_fwd(dst, c, n);
    return dst;
}

static void *g_memset_flushcache(void *dst, int c, size_t n)
{
    set_fwd(dst, c, n);
    cwi_flush_range(dst, n);
    return dst;
}

const struct cwi_impl cwi_impl_generic = {
    .name = "generic",
    .required = 0,
    .copy = g_copy,
    .copy_nt = g_copy,
    .copy_nt_srcnta = g_copy,
    .copy_srcnta = g_copy,
    .flushcache = g_flushcache,
    .persist = g_flushcache,
    .move = g_move,
    .copy_safe = CWI_SAFE_KERNEL(cwi_generic_copy_safe),
    .memcpy_small = g_copy,
    .memset_nt = g_memset,
    .memset_flushcache = g_memset_flushcache,
    .memset_persist = g_memset_flushcache,
};
#endif
