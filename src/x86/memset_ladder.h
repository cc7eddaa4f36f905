/* SPDX-License-Identifier: MIT */
/* memset_ladder.h: the x86 fill kernels (cw_memset_nt, cw_memset_flushcache,
 * cw_memset_persist), written once for every vector width like the copies.
 *
 * Included by copy_ladder.h, whose CWL_ROW names these kernels (never in the
 * safe instance: cw_copy_safe fills nothing). Uses copy_ladder.h's CWL_W,
 * CWL_V, CWL_LOADU, CWL_STOREU and CWL_STREAM, and, when the ISA file
 * defines it,
 *   CWL_SET1(c)        a vector of CWL_W copies of the byte (unsigned char)c
 * Without it the vector is loaded from a stack copy of the pattern: right,
 * but a store-forwarding stall on every call, so only test instances
 * (tests/ladder64_row.c) go without.
 *
 * Shape, the streaming copy's (cwl_stream): below CWL_NT_MIN (256) bytes a
 * fill is a few lines that streaming would not keep out of the caches for
 * long, so it is one ladder of ordinary head and tail stores, no loop (the
 * stores may overlap: every one writes the same byte). From CWL_NT_MIN up:
 * the partial first line with ordinary stores (or by the flushcache rules),
 * every whole line with non-temporal stores, four lines per iteration, then
 * the partial last line. No software prefetch: a fill reads no memory, and
 * the policy's only fill-related rule is persist_small (how a persisting
 * fill writes its partial lines, and under the clwb rule its fills below
 * CWL_NT_MIN), read in cwl_set_part() and cwl_set_flushcache().
 */
#ifndef CW_MEMSET_LADDER_H
#define CW_MEMSET_LADDER_H

#if !defined(CW_COPY_LADDER_H)
#error "memset_ladder.h is included by copy_ladder.h"
#endif

typedef uint16_t cwl_u16u __attribute__((may_alias, aligned(1)));

/* The fill byte in every byte of a word: only the low byte of c counts, as
 * for memset. */
CWL_INLINE uint64_t cwl_set_word(int c)
{
    return (uint64_t)(unsigned char)c * 0x0101010101010101u;
}

CWL_INLINE CWL_V cwl_set_vec(int c, uint64_t w)
{
#ifdef CWL_SET1
    (void)w;
    return CWL_SET1(c);
#else
    uint64_t b[CWL_W / 8];
    for (int i = 0; i < CWL_W / 8; i++)
        b[i] = w;
    (void)c;
    return CWL_LOADU(b);
#endif
}

/* n in [0, 64]: ordinary stores, two from each size class covering
 * [d, d+n) from both ends (glibc's and the copy ladder's shape). */
CWL_INLINE void cwl_set_upto64(cwl_u8 *d, uint64_t w, size_t n)
{
    if (n >= 16) {
        if (n >= 32) {
#if CWL_W >= 32
            __m256i y = _mm256_set1_epi64x((long long)w);
            _mm256_storeu_si256((__m256i *)(void *)d, y);
            _mm256_storeu_si256((__m256i *)(void *)(d + n - 32), y);
#else
            __m128i x = _mm_set1_epi64x((long long)w);
            _mm_storeu_si128((__m128i *)(void *)d, x);
            _mm_storeu_si128((__m128i *)(void *)(d + 16), x);
            _mm_storeu_si128((__m128i *)(void *)(d + n - 32), x);
            _mm_storeu_si128((__m128i *)(void *)(d + n - 16), x);
#endif
        } else {
            __m128i x = _mm_set1_epi64x((long long)w);
            _mm_storeu_si128((__m128i *)(void *)d, x);
            _mm_storeu_si128((__m128i *)(void *)(d + n - 16), x);
        }
    } else if (n >= 8) {
        *(cwi_u64u *)d = w;
        *(cwi_u64u *)(d + n - 8) = w;
    } else if (n >= 4) {
        *(cwi_u32u *)d = (uint32_t)w;
        *(cwi_u32u *)(d + n - 4) = (uint32_t)w;
    } else if (n >= 2) {
        *(cwl_u16u *)d = (uint16_t)w;
        *(cwl_u16u *)(d + n - 2) = (uint16_t)w;
    } else if (n != 0) {
        *d = (cwl_u8)w;
    }
}

/* n in [k*W, 2*k*W]: k vectors from the start and k ending at the end.
 * Unrolled (k is a constant at every call): one vector register, no loop
 * overhead. */
CWL_INLINE void cwl_set_ht(cwl_u8 *d, CWL_V v, size_t n, int k)
{
#pragma GCC unroll 8
    for (int i = 0; i < k; i++)
        CWL_STOREU(d + (size_t)i * CWL_W, v);
#pragma GCC unroll 8
    for (int i = k; i > 0; i--)
        CWL_STOREU(d + n - (size_t)i * CWL_W, v);
}

/* n in [0, CWL_NT_MIN]: the temporal fill, no loop */
CWL_INLINE void cwl_set_small(cwl_u8 *d, int c, uint64_t w, size_t n)
{
    if (n <= 64)
        cwl_set_upto64(d, w, n);
    else if (n <= 128)
        cwl_set_ht(d, cwl_set_vec(c, w), n, 64 / CWL_W);
    else
        cwl_set_ht(d, cwl_set_vec(c, w), n, 128 / CWL_W);
}

/* Writes back the line at p after the stores just made to it. The asm of
 * cwi_flush_line_inline names one byte of the line only: without the
 * barrier the compiler could sink a store to another byte of it below the
 * write-back, which would leave that store dirty in the cache. */
CWL_INLINE void cwl_set_flush_line(const cwl_u8 *p)
{
    __asm__ volatile("" ::: "memory");
    cwi_flush_line_inline(p);
}

/* [d, d+n) lies within one cache line, 0 < n < 64. The rules of the copy's
 * cwl_part_line: mode CWL_TEMPORAL (ordinary stores), CWL_FLUSH (whole
 * aligned 8- or 4-byte words with movnti, which leaves no dirty line and
 * needs no flush; anything else stored and the line written back) or
 * CWL_PERSIST (a drain follows: the policy's persist_small rule). */
CWL_INLINE void cwl_set_part(cwl_u8 *d, uint64_t w, size_t n, int mode)
{
    if (mode == CWL_TEMPORAL) {
        cwl_set_upto64(d, w, n);
    } else if (mode == CWL_PERSIST && CWI_POL(persist_small) == CWI_PERSIST_CLWB) {
        /* store + write-back: on the Xeon half the cost of movnti + sfence
         * for a few words persisted */
        cwl_set_upto64(d, w, n);
        cwl_set_flush_line(d);
    } else if ((((uintptr_t)d | n) & 7) == 0) {
        for (size_t i = 0; i < n; i += 8)
            _mm_stream_si64((long long *)(void *)(d + i), (long long)w);
    } else if ((((uintptr_t)d | n) & 3) == 0) {
        for (size_t i = 0; i < n; i += 4)
            _mm_stream_si32((int *)(void *)(d + i), (int)(uint32_t)w);
    } else {
        cwl_set_upto64(d, w, n);
        cwl_set_flush_line(d);
    }
}

/* n >= 64 + the bytes up to the first line boundary (at least one whole
 * line): the partial first line by cwl_set_part(), every whole line with
 * streaming stores (four lines per iteration, as the copy's loop; the
 * write-combining buffers drain as full lines), the partial last line. */
CWL_INLINE void cwl_set_stream(cwl_u8 *d, int c, uint64_t w, size_t n, int mode)
{
    CWL_V v = cwl_set_vec(c, w);
    size_t head = (size_t)(-(uintptr_t)d & (CWL_LINE - 1));
    if (head != 0) {
        cwl_set_part(d, w, head, mode);
        d += head;
        n -= head;
    }
    cwl_u8 *end = d + (n & ~(size_t)(CWL_LINE - 1));
    for (; (size_t)(end - d) >= CWL_SUNIT; d += CWL_SUNIT) {
        for (int i = 0; i < CWL_SUNIT; i += CWL_W)
            CWL_STREAM(d + i, v);
    }
    for (; d < end; d += CWL_LINE) {
        for (int i = 0; i < CWL_LINE; i += CWL_W)
            CWL_STREAM(d + i, v);
    }
    size_t tail = n & (CWL_LINE - 1);
    if (tail != 0)
        cwl_set_part(d, w, tail, mode);
}

/* flushcache and persist fills: mode CWL_FLUSH or CWL_PERSIST */
CWL_INLINE void cwl_set_flushcache(cwl_u8 *d, int c, size_t n, int mode)
{
    uint64_t w = cwl_set_word(c);
    size_t head = (size_t)(-(uintptr_t)d & (CWL_LINE - 1));
    if (mode == CWL_PERSIST && n < CWL_NT_MIN && CWI_POL(persist_small) == CWI_PERSIST_CLWB) {
        /* A few lines with the drain right after: where the policy says
         * store + write-back beats movnti + sfence for a partial line, it
         * beats a streamed line + sfence too (a 64-byte persisted fill on
         * the Xeon: 12% slower streamed than libpmem's stores + clwb). */
        if (n != 0) {
            cwl_set_small(d, c, w, n);
            __asm__ volatile("" ::: "memory"); /* as cwl_set_flush_line */
            const cwl_u8 *p = (const cwl_u8 *)((uintptr_t)d & ~(uintptr_t)(CWL_LINE - 1));
            for (; p < d + n; p += CWL_LINE)
                cwi_flush_line_inline(p);
        }
    } else if (n >= head + CWL_LINE) {
        cwl_set_stream(d, c, w, n, mode);
    } else if (head == 0 || n <= head) {
        if (n != 0) /* inside one line */
            cwl_set_part(d, w, n, mode);
    } else {
        /* no whole line but two partial ones: one fill, then both lines
         * written back (as the copy: two movnti runs cost more) */
        cwl_set_small(d, c, w, n);
        cwl_set_flush_line(d);
        cwi_flush_line_inline(d + n - 1);
    }
}

/* ---- the fill kernels (each returns dst: see cwi_set_fn) ---- */

CWL_KERNEL void *cwl_k_memset_nt(void *dst, int c, size_t n)
{
    uint64_t w = cwl_set_word(c);
    if (n < CWL_NT_MIN)
        cwl_set_small(dst, c, w, n);
    else
        cwl_set_stream(dst, c, w, n, CWL_TEMPORAL);
    return dst;
}

CWL_KERNEL void *cwl_k_memset_flushcache(void *dst, int c, size_t n)
{
    cwl_set_flushcache(dst, c, n, CWL_FLUSH);
    return dst;
}

CWL_KERNEL void *cwl_k_memset_persist(void *dst, int c, size_t n)
{
    cwl_set_flushcache(dst, c, n, CWL_PERSIST);
    return dst;
}

#endif /* CW_MEMSET_LADDER_H */
