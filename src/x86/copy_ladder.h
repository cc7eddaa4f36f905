/* SPDX-License-Identifier: MIT */
/* copy_ladder.h: the x86 copy kernels, written once for every vector width.
 *
 * An ISA file (sse2.c, avx2.c, avx512.c) defines the vector parameters below,
 * includes this header once and gets static kernels plus CWL_ROW() to build
 * its struct cwi_impl:
 *   CWL_W              vector width in bytes (16, 32 or 64)
 *   CWL_V              vector type
 *   CWL_LOADU(p)       unaligned load
 *   CWL_STOREU(p, v)   unaligned store
 *   CWL_STOREA(p, v)   store to a CWL_W-aligned address
 *   CWL_STREAM(p, v)   non-temporal store to a CWL_W-aligned address
 *   CWL_SET1(c)        optional: the byte (unsigned char)c in every lane, for
 *                      the fill kernels of x86/memset_ladder.h (included
 *                      below, and named by CWL_ROW too)
 *
 * Shape (after LLVM libc's memory_utils): sizes up to 8 vectors are a ladder
 * of "head_tail" blocks, two possibly overlapping groups of loads covering
 * the first and last bytes, so no byte outside the buffers is touched and
 * every load happens before any store (which makes them memmove-safe too).
 * The plain copy (no overlap) does 12-16 vectors with one straight block of
 * 8 head and 8 tail vectors. Larger copies align the destination and run a
 * 4-vector loop, with the unaligned first vector and last 4 vectors loaded
 * up front and stored last.
 * The destination is always aligned for the loops, so the misaligned-store
 * penalty is paid at most twice per call.
 *
 * Every CPU-dependent choice comes from the policy in force (cwi_pol,
 * src/policy.h): the rep movsb window and its alignment rule, the streaming
 * loop's prefetch, how CW_SRC_NOREUSE keeps the source out of the caches,
 * how a partial line is persisted. The kernels hold no CPU constant.
 */
#ifndef CW_COPY_LADDER_H
#define CW_COPY_LADDER_H

#include <immintrin.h>
#include <stdint.h>

#include "internal.h"
#include "x86/small_copy.h"

#if !defined(CWL_W) || !defined(CWL_V) || !defined(CWL_LOADU) || !defined(CWL_STOREU) ||    \
    !defined(CWL_STOREA) || !defined(CWL_STREAM)
#error "define the CWL_* vector parameters before including copy_ladder.h"
#endif

/* cwl_ht1, cwl_ht2 and cwl_bwd, shared with the aarch64 row; CWL_INLINE
 * and cwl_u8 */
#include "ladder_blocks.h"

/* The kernels. In the safe instance (CWL_SAFE_INSTANCE) everything is
 * inlined into the one function that lives in cw_safe_text: a fault must
 * never stop at an instruction outside that section. */
#ifdef CWL_SAFE_INSTANCE
#define CWL_KERNEL CWL_INLINE
#else
#define CWL_KERNEL static
#endif
#define CWL_LINE 64
/* Streaming loop unit: 4 cache lines per iteration whatever the width. */
#define CWL_SUNIT 256
/* Below this, streaming buys nothing: the copy is a few lines at most and
 * the temporal ladder is faster. */
#define CWL_NT_MIN 256

/* How a loop treats its source: software prefetch `dist` bytes ahead with
 * `hint` (dist 0: none), and with `drop`, each source line evicted
 * (clflushopt) `back` bytes behind the loads once read. Built from the
 * policy by the kernel entry points below, once per call. */
struct cwl_src {
    size_t dist, back;
    int hint, drop;
};

/* The plain loops (streaming, flushcache, memmove): the policy's streaming
 * prefetch (none on Zen, where it cost 6-20%; prefetcht2 4 KiB ahead on the
 * Xeon, +20%). */
CWL_INLINE struct cwl_src cwl_src_plain(void)
{
    return (struct cwl_src){CWI_POL(stream_pf_dist), 0, CWI_POL(stream_pf_hint), 0};
}

/* CW_SRC_NOREUSE: prefetchnta ahead and/or clflushopt behind, as the
 * policy says (sanitized at init: no flush without clflushopt, which is
 * not part of any row's required features; clflush instead would be
 * ordered against every store). Without prefetchnta the loop keeps the
 * streaming prefetch. No CPUID here: these kernels run with rbx reserved
 * (cw_copy_safe). */
CWL_INLINE struct cwl_src cwl_src_noreuse(void)
{
    int mode = CWI_POL(src_mode);
    struct cwl_src p = cwl_src_plain();
    if (mode & CWI_SRC_PREFETCHNTA) {
        p.dist = CWI_POL(src_pf_dist);
        p.hint = CWI_PF_NTA;
    }
    if (mode & CWI_SRC_FLUSH) {
        p.drop = 1;
        p.back = CWI_POL(src_flush_back);
    }
    return p;
}

/* Evicts a source line already read (so its page is mapped: no new fault
 * for cw_copy_safe). A clean line is just dropped, a dirty one written back. */
CWL_INLINE void cwl_drop_line(const cwl_u8 *p)
{
    __asm__ volatile("clflushopt %0" : : "m"(*(const volatile char *)p));
}

/* Drops the source lines lying wholly in [from, to). */
CWL_INLINE void cwl_drop_range(const cwl_u8 *from, const cwl_u8 *to)
{
    const cwl_u8 *p = (const cwl_u8 *)(((uintptr_t)from + CWL_LINE - 1) & ~(uintptr_t)(CWL_LINE - 1));
    for (; p + CWL_LINE <= to; p += CWL_LINE)
        cwl_drop_line(p);
}

CWL_INLINE void cwl_prefetch(const cwl_u8 *p, int hint)
{
    switch (hint) {
    case CWI_PF_NTA: _mm_prefetch((const char *)p, _MM_HINT_NTA); break;
    case CWI_PF_T2: _mm_prefetch((const char *)p, _MM_HINT_T2); break;
    case CWI_PF_T1: _mm_prefetch((const char *)p, _MM_HINT_T1); break;
    default: _mm_prefetch((const char *)p, _MM_HINT_T0); break;
    }
}

/* One iteration's prefetches and drops (unit bytes read from sp on), with
 * `dropped` the first source line not yet evicted. Prefetch only inside the
 * source: nothing outside it is touched. */
CWL_INLINE void cwl_src_step(const struct cwl_src *pf, const cwl_u8 *sp, const cwl_u8 *send,
                             const cwl_u8 **dropped, size_t unit)
{
    /* the lines wholly below sp - back were read already */
    while (pf->drop && *dropped + CWL_LINE + pf->back <= sp) {
        cwl_drop_line(*dropped);
        *dropped += CWL_LINE;
    }
    if (pf->dist != 0 && (size_t)(send - sp) >= pf->dist + unit) {
        for (size_t i = 0; i < unit; i += CWL_LINE)
            cwl_prefetch(sp + pf->dist + i, pf->hint);
    }
}

/* ---- ladder: every load before any store ---- */

#if CWL_W >= 64
/* n in [32, 64] */
CWL_INLINE void cwl_ht32(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)s);
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + n - 32));
    _mm256_storeu_si256((__m256i *)(void *)d, a);
    _mm256_storeu_si256((__m256i *)(void *)(d + n - 32), b);
}
#endif

/* head_tail blocks (cwl_ht1 and cwl_ht2 in ladder_blocks.h): n in
 * [k*W, 2*k*W], k vectors from the start and k ending at the end. Written
 * out by hand: with arrays and loops GCC -O2/-O3 sometimes kept the vectors
 * on the stack (3.5x slower at 256 bytes). All loads first, then the head
 * stores, then the tail stores, each in ascending order: at 100..250 bytes
 * and random offsets on Zen 4 this beat both interleaved head/tail stores
 * and glibc's descending tail by 10-25%. */
CWL_INLINE void cwl_ht4(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    CWL_V h0 = CWL_LOADU(s), h1 = CWL_LOADU(s + CWL_W);
    CWL_V h2 = CWL_LOADU(s + 2 * CWL_W), h3 = CWL_LOADU(s + 3 * CWL_W);
    CWL_V t0 = CWL_LOADU(s + n - 4 * CWL_W), t1 = CWL_LOADU(s + n - 3 * CWL_W);
    CWL_V t2 = CWL_LOADU(s + n - 2 * CWL_W), t3 = CWL_LOADU(s + n - CWL_W);
    CWL_STOREU(d, h0);
    CWL_STOREU(d + CWL_W, h1);
    CWL_STOREU(d + 2 * CWL_W, h2);
    CWL_STOREU(d + 3 * CWL_W, h3);
    CWL_STOREU(d + n - 4 * CWL_W, t0);
    CWL_STOREU(d + n - 3 * CWL_W, t1);
    CWL_STOREU(d + n - 2 * CWL_W, t2);
    CWL_STOREU(d + n - CWL_W, t3);
}

/* n in (4*W, 8*W], no overlap: cw_memcpy's copy past its small entry. In
 * the avx512-evex row (the one amd-zen5 chooses) up to six vectors take
 * four from the head and two ending at the end: six stores where cwl_ht4
 * makes eight, and such a copy waits on its stores. On AMD EPYC family 26
 * model 2 hot 257-384 B went from 0.88-0.99x glibc to 1.10-1.29x at every
 * offset pair, 0.98x to 1.10x at random offsets, MemcpyGoogleA (32% of its
 * calls 304 B) 0.96x to 1.00x; the one more size test mispredicts where
 * sizes spread evenly over 257-512 B (MemcpyGoogleD, sqlite3's profile
 * 0.98x to 0.96x). Seven or eight vectors keep cwl_ht4: shapes with fewer
 * stores there read 5-8% faster at fixed offsets and 1-3% slower at random
 * ones (docs/RESULTS.md, "Six stores for 257-384 B"). The other rows keep
 * cwl_ht4 throughout. */
CWL_INLINE void cwl_copy_4to8(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
#if defined(CWL_EVEX_INSTANCE)
    if (n > 6 * CWL_W) { /* first: GCC then lays out the six stores as the fall-through */
        cwl_ht4(d, s, n);
        return;
    }
    CWL_V h0 = CWL_LOADU(s), h1 = CWL_LOADU(s + CWL_W);
    CWL_V h2 = CWL_LOADU(s + 2 * CWL_W), h3 = CWL_LOADU(s + 3 * CWL_W);
    CWL_V t0 = CWL_LOADU(s + n - 2 * CWL_W), t1 = CWL_LOADU(s + n - CWL_W);
    CWL_STOREU(d, h0);
    CWL_STOREU(d + CWL_W, h1);
    CWL_STOREU(d + 2 * CWL_W, h2);
    CWL_STOREU(d + 3 * CWL_W, h3);
    CWL_STOREU(d + n - 2 * CWL_W, t0);
    CWL_STOREU(d + n - CWL_W, t1);
#else
    cwl_ht4(d, s, n);
#endif
}

/* Eight vectors from s to d, every load before any store. */
CWL_INLINE void cwl_block8(cwl_u8 *d, const cwl_u8 *s)
{
    CWL_V a0 = CWL_LOADU(s), a1 = CWL_LOADU(s + CWL_W);
    CWL_V a2 = CWL_LOADU(s + 2 * CWL_W), a3 = CWL_LOADU(s + 3 * CWL_W);
    CWL_V a4 = CWL_LOADU(s + 4 * CWL_W), a5 = CWL_LOADU(s + 5 * CWL_W);
    CWL_V a6 = CWL_LOADU(s + 6 * CWL_W), a7 = CWL_LOADU(s + 7 * CWL_W);
    CWL_STOREU(d, a0);
    CWL_STOREU(d + CWL_W, a1);
    CWL_STOREU(d + 2 * CWL_W, a2);
    CWL_STOREU(d + 3 * CWL_W, a3);
    CWL_STOREU(d + 4 * CWL_W, a4);
    CWL_STOREU(d + 5 * CWL_W, a5);
    CWL_STOREU(d + 6 * CWL_W, a6);
    CWL_STOREU(d + 7 * CWL_W, a7);
}

/* n in (12*W, 16*W], no overlap (the copy kernel only): eight vectors from
 * the head, then eight from the tail, which may overlap them; with src and
 * dst disjoint the order does not matter for the bytes, and head before
 * tail keeps eight vectors live (AVX2 has sixteen registers). Straight-line
 * instead of the loop's setup, alignment and exit: 512 B at 97.6 GB/s
 * against 87 with the loop. Below 12 vectors the loop's 9-13 stores beat
 * this block's 16 (AMD EPYC family 25 model 1, docs/results/amd-25-1/README.md,
 * "A straight-line block for 385-512 B"). */
CWL_INLINE void cwl_ht8(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    cwl_block8(d, s);
    cwl_block8(d + n - 8 * CWL_W, s + n - 8 * CWL_W);
}

#if defined(CWL_EVEX_INSTANCE)
/* Twelve vectors from s to d (the eight of cwl_block8, then four). */
CWL_INLINE void cwl_block12(cwl_u8 *d, const cwl_u8 *s)
{
    cwl_block8(d, s);
    CWL_V a8 = CWL_LOADU(s + 8 * CWL_W), a9 = CWL_LOADU(s + 9 * CWL_W);
    CWL_V a10 = CWL_LOADU(s + 10 * CWL_W), a11 = CWL_LOADU(s + 11 * CWL_W);
    CWL_STOREU(d + 8 * CWL_W, a8);
    CWL_STOREU(d + 9 * CWL_W, a9);
    CWL_STOREU(d + 10 * CWL_W, a10);
    CWL_STOREU(d + 11 * CWL_W, a11);
}

/* Twelve vectors from the head, then the last one (cwl_copy_12to13, n in
 * (12*W, 13*W]) or the last two (cwl_copy_12to14, n in (13*W, 14*W]), no
 * overlap: cw_memcpy's copy in the avx512-evex row, 13 or 14 stores where
 * cwl_ht8 makes 16 (and the forward loop 13 with its setup and branches).
 * Figures: cwl_k_memcpy_large. */
CWL_INLINE void cwl_copy_12to13(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    CWL_V t1 = CWL_LOADU(s + n - CWL_W);
    cwl_block12(d, s);
    CWL_STOREU(d + n - CWL_W, t1);
}

CWL_INLINE void cwl_copy_12to14(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    CWL_V t0 = CWL_LOADU(s + n - 2 * CWL_W), t1 = CWL_LOADU(s + n - CWL_W);
    cwl_block12(d, s);
    CWL_STOREU(d + n - 2 * CWL_W, t0);
    CWL_STOREU(d + n - CWL_W, t1);
}

/* n in (12*W, 16*W] with d 64-byte aligned and n not a multiple of 64, no
 * overlap: twelve vectors from the head, all on whole lines, and four
 * ending at the end, four stores split across two lines where cwl_ht8's
 * tail makes eight. Figures: cwl_copy_13to16. */
CWL_INLINE void cwl_copy_12to16(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    CWL_V t0 = CWL_LOADU(s + n - 4 * CWL_W), t1 = CWL_LOADU(s + n - 3 * CWL_W);
    CWL_V t2 = CWL_LOADU(s + n - 2 * CWL_W), t3 = CWL_LOADU(s + n - CWL_W);
    cwl_block12(d, s);
    CWL_STOREU(d + n - 4 * CWL_W, t0);
    CWL_STOREU(d + n - 3 * CWL_W, t1);
    CWL_STOREU(d + n - 2 * CWL_W, t2);
    CWL_STOREU(d + n - CWL_W, t3);
}

/* n in (8*W, 12*W], no overlap (cw_memcpy's copy in the avx512-evex row,
 * outside the rep movsb window): eight vectors from the head and one, two
 * or four ending at the end, 9-12 stores where the forward loop makes 13
 * from 577 B up (one head vector, two iterations, four tail vectors).
 * Figures: cwl_k_memcpy_large. */
CWL_INLINE void cwl_copy_8to12(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    if (n > 10 * CWL_W) {
        CWL_V t0 = CWL_LOADU(s + n - 4 * CWL_W), t1 = CWL_LOADU(s + n - 3 * CWL_W);
        CWL_V t2 = CWL_LOADU(s + n - 2 * CWL_W), t3 = CWL_LOADU(s + n - CWL_W);
        cwl_block8(d, s);
        CWL_STOREU(d + n - 4 * CWL_W, t0);
        CWL_STOREU(d + n - 3 * CWL_W, t1);
        CWL_STOREU(d + n - 2 * CWL_W, t2);
        CWL_STOREU(d + n - CWL_W, t3);
        return;
    }
    if (n > 9 * CWL_W) {
        CWL_V t2 = CWL_LOADU(s + n - 2 * CWL_W), t3 = CWL_LOADU(s + n - CWL_W);
        cwl_block8(d, s);
        CWL_STOREU(d + n - 2 * CWL_W, t2);
        CWL_STOREU(d + n - CWL_W, t3);
        return;
    }
    CWL_V t3 = CWL_LOADU(s + n - CWL_W);
    cwl_block8(d, s);
    CWL_STOREU(d + n - CWL_W, t3);
}
#endif

/* n in [0, 2*W]. The branch order follows glibc's: sizes of one to two
 * vectors, the most common class, are reached after two compares. */
CWL_INLINE void cwl_upto2(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    if (n >= CWL_W) {
        cwl_ht1(d, s, n);
        return;
    }
#if CWL_W >= 64
    if (n > 32) {
        cwl_ht32(d, s, n);
        return;
    }
#endif
#if CWL_W >= 32
    if (n >= 16) {
        cwi_copy_16to32(d, s, n);
        return;
    }
#endif
    cwi_copy_upto15(d, s, n);
}

/* n in (2*W, 8*W] */
CWL_INLINE void cwl_upto8(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    if (n <= 4 * CWL_W)
        cwl_ht2(d, s, n);
    else
        cwl_ht4(d, s, n);
}

/* n in [0, 8*W] */
CWL_INLINE void cwl_ladder(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    if (n <= 2 * CWL_W)
        cwl_upto2(d, s, n);
    else
        cwl_upto8(d, s, n);
}

/* n in (32, 64] */
CWL_INLINE void cwl_ladder_33to64(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
#if CWL_W == 32
    cwl_ht1(d, s, n);
#elif CWL_W == 64
    cwl_ht32(d, s, n);
#else
    cwl_ht2(d, s, n);
#endif
}

/* n in (64, 128] */
CWL_INLINE void cwl_ladder_65to128(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
#if CWL_W == 32
    cwi_copy_64to128_avx(d, s, n); /* cwl_ht2 with its stores pinned in order */
#elif CWL_W == 64
    cwl_ht1(d, s, n);
#else
    cwl_ht4(d, s, n);
#endif
}

/* ---- temporal loops, n > 8*W ---- */

/* Forward; safe for memmove when dst is below src (or disjoint): each
 * iteration loads before it stores and only ever reads above what it
 * already wrote, and the head and tail were loaded before the loop. (The
 * backward loop, cwl_bwd, is in ladder_blocks.h.) */
CWL_INLINE void cwl_fwd(cwl_u8 *d, const cwl_u8 *s, size_t n, const struct cwl_src *pf)
{
    CWL_V head = CWL_LOADU(s);
    CWL_V t0 = CWL_LOADU(s + n - 4 * CWL_W), t1 = CWL_LOADU(s + n - 3 * CWL_W);
    CWL_V t2 = CWL_LOADU(s + n - 2 * CWL_W), t3 = CWL_LOADU(s + n - 1 * CWL_W);
    size_t skip = CWL_W - ((uintptr_t)d & (CWL_W - 1));
    cwl_u8 *dp = d + skip, *dlast = d + n - 4 * CWL_W;
    const cwl_u8 *sp = s + skip, *send = s + n;
    const cwl_u8 *dropped = (const cwl_u8 *)(((uintptr_t)s + CWL_LINE - 1) & ~(uintptr_t)(CWL_LINE - 1));
    for (; dp < dlast; dp += 4 * CWL_W, sp += 4 * CWL_W) {
        if (pf != NULL)
            cwl_src_step(pf, sp, send, &dropped, 4 * CWL_W);
        CWL_V a = CWL_LOADU(sp), b = CWL_LOADU(sp + CWL_W);
        CWL_V c = CWL_LOADU(sp + 2 * CWL_W), e = CWL_LOADU(sp + 3 * CWL_W);
        CWL_STOREA(dp, a);
        CWL_STOREA(dp + CWL_W, b);
        CWL_STOREA(dp + 2 * CWL_W, c);
        CWL_STOREA(dp + 3 * CWL_W, e);
    }
    CWL_STOREU(dlast, t0);
    CWL_STOREU(dlast + CWL_W, t1);
    CWL_STOREU(dlast + 2 * CWL_W, t2);
    CWL_STOREU(dlast + 3 * CWL_W, t3);
    CWL_STOREU(d, head);
    if (pf != NULL && pf->drop)
        cwl_drop_range(dropped, send);
}

/* Loads of a forward loop stall behind earlier stores whose address matches
 * in the low 12 bits ("4K aliasing"), which happens on every iteration when
 * the destination sits just above the source modulo the page size. Walking
 * backward turns that around: the aliasing store then comes after the load.
 * (Small on Zen 4, a few percent at 256 KiB; larger on Intel cores.) */
CWL_INLINE int cwl_aliases_fwd(const cwl_u8 *d, const cwl_u8 *s)
{
    return (((uintptr_t)d - (uintptr_t)s) & 4095) < 4 * CWL_W;
}

/* ---- streaming ---- */

/* [d, d+n) lies within one cache line and is not the whole line. For
 * flushcache, whole aligned 8- or 4-byte words go out with movnti, which
 * leaves no dirty line behind and needs no flush (what the kernel does);
 * anything else is stored normally and the line written back. */
enum { CWL_TEMPORAL = 0, CWL_FLUSH = 1, CWL_PERSIST = 2 };

/* flush: CWL_TEMPORAL (ordinary stores), CWL_FLUSH (flushcache) or
 * CWL_PERSIST (flushcache with a drain right after: the policy's rule for
 * a few aligned words). */
CWL_INLINE void cwl_part_line(cwl_u8 *d, const cwl_u8 *s, size_t n, int flush)
{
    if (flush == CWL_TEMPORAL) {
        cwl_ladder(d, s, n);
    } else if (flush == CWL_PERSIST && CWI_POL(persist_small) == CWI_PERSIST_CLWB) {
        /* store + write-back: on the Xeon half the cost of movnti + sfence
         * for 4-32 B persists (without the sfence, movnti is 10x faster) */
        cwl_ladder(d, s, n);
        cwi_flush_line_inline(d);
    } else if ((((uintptr_t)d | n) & 7) == 0) {
        for (size_t i = 0; i < n; i += 8)
            _mm_stream_si64((long long *)(void *)(d + i), (long long)*(const cwi_u64u *)(s + i));
    } else if ((((uintptr_t)d | n) & 3) == 0) {
        for (size_t i = 0; i < n; i += 4)
            _mm_stream_si32((int *)(void *)(d + i), (int)*(const cwi_u32u *)(s + i));
    } else {
        cwl_ladder(d, s, n);
        cwi_flush_line_inline(d);
    }
}

/* Whole aligned cache lines go out with non-temporal stores, so the
 * write-combining buffers drain as full lines; the partial first and last
 * lines go through cwl_part_line() (temporal stores, or the flushcache
 * rules when `flush`). Needs n >= 64 + the bytes up to the first line
 * boundary, i.e. at least one whole line. */
CWL_INLINE void cwl_stream(cwl_u8 *d, const cwl_u8 *s, size_t n, const struct cwl_src *pf,
                           int flush)
{
    size_t head = (size_t)(-(uintptr_t)d & (CWL_LINE - 1));
    if (head != 0) {
        cwl_part_line(d, s, head, flush);
        d += head;
        s += head;
        n -= head;
    }
    cwl_u8 *end = d + (n & ~(size_t)(CWL_LINE - 1));
    const cwl_u8 *send = s + n;
    const cwl_u8 *dropped = (const cwl_u8 *)(((uintptr_t)s + CWL_LINE - 1) & ~(uintptr_t)(CWL_LINE - 1));
    for (; (size_t)(end - d) >= CWL_SUNIT; d += CWL_SUNIT, s += CWL_SUNIT) {
        cwl_src_step(pf, s, send, &dropped, CWL_SUNIT);
        for (int i = 0; i < CWL_SUNIT; i += CWL_W)
            CWL_STREAM(d + i, CWL_LOADU(s + i));
    }
    for (; d < end; d += CWL_LINE, s += CWL_LINE) {
        for (int i = 0; i < CWL_LINE; i += CWL_W)
            CWL_STREAM(d + i, CWL_LOADU(s + i));
    }
    size_t tail = n & (CWL_LINE - 1);
    if (tail != 0)
        cwl_part_line(d, s, tail, flush);
    if (pf->drop)
        cwl_drop_range(dropped, send);
}

/* ---- the kernels (each returns dst: see cwi_copy_fn) ---- */

/* rep movsb inside the policy's window, with the policy's alignment rule
 * (both buffers 64-byte aligned, or any alignment, the destination then
 * aligned by cwl_rep_movsb_align_dst); each row's window and rule, and the
 * measurements behind them, are in src/profiles.c. Sanitized at init:
 * never without ERMS. */
CWL_INLINE int cwl_rep_movsb_wins(const cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    /* rep_from is rep_min, or SIZE_MAX with the window off (src/policy.h):
     * below it, the common case wherever the window is on and every size
     * where it is off, one compare, not taken, decides */
    if (__builtin_expect(n < CWI_POL(rep_from), 1))
        return 0;
    int mode = CWI_POL(rep_mode);
    if (mode == CWI_REP_OFF || n > CWI_POL(rep_max))
        return 0;
    return mode == CWI_REP_ALIGN_DST || (((uintptr_t)d | (uintptr_t)s) & 63) == 0;
}

CWL_INLINE void cwl_rep_movsb(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

/* n >= 64: the first line with vector stores, then rep movsb from the
 * destination's next 64-byte boundary (fast-string stores are fastest on
 * an aligned destination; glibc does the same). */
CWL_INLINE void cwl_rep_movsb_align_dst(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    size_t skip = (size_t)(-(uintptr_t)d & (CWL_LINE - 1));
    if (skip != 0) {
        for (int i = 0; i < CWL_LINE; i += CWL_W)
            CWL_STOREU(d + i, CWL_LOADU(s + i));
    }
    cwl_rep_movsb(d + skip, s + skip, n - skip);
}

/* n > 8*W: the forward loop, or the backward one where the forward loop
 * would 4K-alias. The forward loop falls through, the 4K-aliasing case
 * jumps: 264 B hot 0.875 -> 0.933 of glibc, 768 B 0.978 -> 1.000 (AMD EPYC
 * family 25 model 1, docs/results/amd-25-1/README.md, "The copy kernel's
 * forward loop path falls through") */
CWL_INLINE void cwl_copy_above8_loop(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    if (__builtin_expect(cwl_aliases_fwd(d, s), 0))
        cwl_bwd(d, s, n);
    else
        cwl_fwd(d, s, n, NULL);
}

/* n > 8*W outside the straight block's 13-16 vectors: rep movsb inside
 * the policy's window, or the loop */
CWL_INLINE void cwl_copy_window_or_loop(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    if (__builtin_expect(cwl_rep_movsb_wins(d, s, n), 0))
        cwl_rep_movsb_align_dst(d, s, n);
    else
        cwl_copy_above8_loop(d, s, n);
}

/* the straight block's sizes: 13-16 vectors */
CWL_INLINE int cwl_ht8_size(size_t n)
{
    return n <= 16 * CWL_W && n > 12 * CWL_W;
}

#if defined(CWL_EVEX_INSTANCE)
/* 13-16 vectors in the avx512-evex row's cw_memcpy: cwl_copy_12to13 and
 * cwl_copy_12to14 up to 14 vectors; above, cwl_copy_12to16 where the
 * destination is 64-byte aligned and n is not a multiple of 64 (hot
 * 912-1008 B with page-aligned buffers 0.88-0.92x glibc -> 0.95-1.02x on
 * AMD EPYC family 26 model 2), cwl_ht8 elsewhere: where the destination is
 * misaligned every store of either shape is split, and twelve head vectors
 * for every destination read up to 12% slower at 960 B-1 KiB with it one
 * byte off (docs/RESULTS.md, "Four tail stores for 897-1023 B"). */
CWL_INLINE void cwl_copy_13to16(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    if (n <= 13 * CWL_W)
        cwl_copy_12to13(d, s, n);
    else if (n <= 14 * CWL_W)
        cwl_copy_12to14(d, s, n);
    else if (((uintptr_t)d & (CWL_LINE - 1)) == 0 && (n & (CWL_LINE - 1)) != 0)
        cwl_copy_12to16(d, s, n);
    else
        cwl_ht8(d, s, n);
}

/* 9-12 vectors in the avx512-evex row's cw_memcpy: the window first, as
 * cwl_copy_window_or_loop asks it (cwl_k_path), then cwl_copy_8to12
 * instead of the loop. On AMD EPYC family 26 model 2 hot 513-768 B went
 * from 0.85-1.04x glibc to 0.89-1.71x at the four offset pairs, 0.97-1.30x
 * but for 720-752 B at 0:0 (0.89-1.02) and 3:13 (0.90-0.93) and 528-560 B
 * at 3:13 (0.97-0.99), random offsets 576-768 B 1.00 -> 1.06-1.21
 * (docs/RESULTS.md, "Fewer stores for 513-768 B"). */
CWL_INLINE void cwl_copy_9to12_window(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    if (__builtin_expect(cwl_rep_movsb_wins(d, s, n), 0))
        cwl_rep_movsb_align_dst(d, s, n);
    else
        cwl_copy_8to12(d, s, n);
}
#endif

/* n > 8*W: the straight block, rep movsb inside the policy's window, or
 * the loop */
CWL_INLINE void cwl_copy_above8(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    if (cwl_ht8_size(n))
        cwl_ht8(d, s, n);
    else
        cwl_copy_window_or_loop(d, s, n);
}

CWL_KERNEL void *cwl_k_copy(void *restrict dst, const void *restrict src, size_t n)
{
    cwl_u8 *d = dst;
    const cwl_u8 *s = src;
    if (n <= 2 * CWL_W)
        cwl_upto2(d, s, n);
    else if (n <= 8 * CWL_W)
        cwl_upto8(d, s, n);
    else
        cwl_copy_above8(d, s, n);
    return dst;
}

CWL_KERNEL void *cwl_k_copy_srcnta(void *restrict dst, const void *restrict src, size_t n)
{
    struct cwl_src pf = cwl_src_noreuse();
    if (n <= 8 * CWL_W)
        cwl_ladder(dst, src, n);
    else
        cwl_fwd(dst, src, n, &pf);
    return dst;
}

/* A streaming copy of n bytes made by rep movsb: the policy's method
 * where the CPU's fast strings write large copies without allocating in the
 * caches (on Zen 5 from 16 MiB: 1.05-1.08x the streaming loops, and less of
 * an L2 victim evicted at 64 MiB). Sanitized at init: never without ERMS. */
CWL_INLINE int cwl_stream_by_rep(size_t n)
{
    return CWI_POL(stream_method) == CWI_STREAM_REP && n >= CWI_POL(stream_rep_min);
}

CWL_KERNEL void *cwl_k_copy_nt(void *restrict dst, const void *restrict src, size_t n)
{
    if (n < CWL_NT_MIN)
        return cwl_k_copy(dst, src, n);
    if (cwl_stream_by_rep(n)) {
        cwl_rep_movsb_align_dst(dst, src, n);
        return dst;
    }
    struct cwl_src pf = cwl_src_plain();
    cwl_stream(dst, src, n, &pf, CWL_TEMPORAL);
    return dst;
}

/* Which way cwl_k_copy (streaming 0) or cwl_k_copy_nt (streaming 1) moves
 * these bytes: their tests, in their order (keep the three together). */
CWL_KERNEL int cwl_k_path(const void *dst, const void *src, size_t n, int streaming)
{
    if (streaming && n >= CWL_NT_MIN)
        return cwl_stream_by_rep(n) ? CWI_PATH_STREAM_REP : CWI_PATH_STREAM;
    if (n <= 8 * CWL_W || (n <= 16 * CWL_W && n > 12 * CWL_W))
        return CWI_PATH_TEMPORAL;
    return cwl_rep_movsb_wins(dst, src, n) ? CWI_PATH_REP : CWI_PATH_TEMPORAL;
}

/* CW_SRC_NOREUSE too: where rep movsb is the streaming method it is also
 * this hint's copy, the source read as rep movsb reads it (AMD EPYC family
 * 26 model 2, 64 MiB: rep movsb and the streaming loop each evicted
 * 0.33-1.00 of a quarter-L2 victim from run to run, neither reliably
 * less; docs/RESULTS.md, "Where the targets stand at cf410ec"). */
CWL_KERNEL void *cwl_k_copy_nt_srcnta(void *restrict dst, const void *restrict src, size_t n)
{
    if (n < CWL_NT_MIN)
        return cwl_k_copy(dst, src, n);
    if (cwl_stream_by_rep(n)) {
        cwl_rep_movsb_align_dst(dst, src, n);
        return dst;
    }
    struct cwl_src pf = cwl_src_noreuse();
    cwl_stream(dst, src, n, &pf, CWL_TEMPORAL);
    return dst;
}

/* flushcache and persist: mode CWL_FLUSH or CWL_PERSIST */
CWL_INLINE void cwl_flushcache(cwl_u8 *d, const cwl_u8 *s, size_t n, int mode)
{
    size_t head = (size_t)(-(uintptr_t)d & (CWL_LINE - 1));
    if (mode == CWL_PERSIST && n < CWL_NT_MIN && CWI_POL(persist_small) == CWI_PERSIST_CLWB) {
        /* a few lines with the drain right after: where store + write-back
         * beats movnti + sfence for a partial line it beats a streamed line
         * + sfence too (64-128 B persists on the Xeon: 0.89-0.92 of
         * libpmem streamed, as the fills found) */
        if (n != 0) {
            cwl_k_copy(d, s, n);
            __asm__ volatile("" ::: "memory"); /* the stores before the flushes */
            const cwl_u8 *p = (const cwl_u8 *)((uintptr_t)d & ~(uintptr_t)(CWL_LINE - 1));
            for (; p < d + n; p += CWL_LINE)
                cwi_flush_line_inline(p);
        }
    } else if (n >= head + CWL_LINE && n < CWL_SUNIT) {
        /* a few lines: no prefetch or drop to set up, so that the loop below
         * needs none of its registers saved (a hot 64-byte line took 140 ns
         * with the general loop's prologue, 72 ns without) */
        static const struct cwl_src none = {0, 0, 0, 0};
        cwl_stream(d, s, n, &none, mode);
    } else if (n >= head + CWL_LINE) {
        struct cwl_src pf = cwl_src_plain();
        cwl_stream(d, s, n, &pf, mode);
    } else if (head == 0 || n <= head) {
        if (n != 0) /* inside one line */
            cwl_part_line(d, s, n, mode);
    } else {
        /* no whole line but two partial ones: one ladder copy, then both
         * lines written back (two movnti runs cost more than this) */
        cwl_ladder(d, s, n);
        cwi_flush_line_inline(d);
        cwi_flush_line_inline(d + n - 1);
    }
}

CWL_KERNEL void *cwl_k_flushcache(void *restrict dst, const void *restrict src, size_t n)
{
    cwl_flushcache(dst, src, n, CWL_FLUSH);
    return dst;
}

CWL_KERNEL void *cwl_k_persist(void *restrict dst, const void *restrict src, size_t n)
{
    cwl_flushcache(dst, src, n, CWL_PERSIST);
    return dst;
}

CWL_KERNEL void *cwl_k_move(void *dst, const void *src, size_t n)
{
    cwl_u8 *d = dst;
    const cwl_u8 *s = src;
    if (n <= 2 * CWL_W)
        cwl_upto2(d, s, n);
    else if (n <= 8 * CWL_W)
        cwl_upto8(d, s, n);
    else if ((uintptr_t)d - (uintptr_t)s >= n) /* dst below src, or disjoint */
        cwl_fwd(d, s, n, NULL);
    else
        cwl_bwd(d, s, n);
    return dst;
}

/* cw_memcpy's entry for 33..128 bytes, the commonest calls past its inline
 * copy: one block per class, as in glibc's entry, without the threshold
 * compare and the size ladder of cwl_k_copy (any n <= 128 is still copied
 * right). Last in the file, 64-byte aligned: the kernels above keep their
 * placement. */
CWL_KERNEL __attribute__((aligned(64))) void *cwl_k_memcpy_small(void *restrict dst,
                                                                 const void *restrict src,
                                                                 size_t n)
{
    /* 33..64 B fall through: the commonest, and the class glibc's entry
     * reaches first */
    if (__builtin_expect(n <= 64, 1)) {
        if (__builtin_expect(n > 32, 1))
            cwl_ladder_33to64(dst, src, n);
        else /* only when called directly: cw_memcpy copies these inline */
            cwl_ladder(dst, src, n);
    } else {
        cwl_ladder_65to128(dst, src, n);
    }
    return dst;
}

#ifndef CWL_SAFE_INSTANCE
/* cw_memcpy's temporal copy past its small entry: n > CWI_MEMCPY_SMALL
 * (only), the bytes and path of cwl_k_copy without its tests for the
 * classes the small entry took. Each taken branch on the way costs about
 * a cycle on AMD EPYC family 26 model 2, and cwl_k_copy's first test (is
 * n above two vectors?) was taken for every copy the entry sends here, a
 * second test of what the entry had just decided: from here 129-256 B
 * (avx512) reach their block with no taken branch (docs/RESULTS.md, "AMD
 * EPYC Zen 5", "cw_memcpy's copy past the small entry"). cw_memcpy uses
 * it where the policy's memcpy_mid says direct (src/dispatch.c). */
CWL_KERNEL __attribute__((aligned(64))) void *cwl_k_memcpy_large(void *restrict dst,
                                                                 const void *restrict src,
                                                                 size_t n)
{
    /* dst in the return register from the start, so that each path ends
     * in its own ret: GCC otherwise sent all but the first to one shared
     * "mov dst, rax; ret", a taken jump each */
    void *ret = dst;
    __asm__("" : "+a"(ret));
    cwl_u8 *d = dst;
    const cwl_u8 *s = src;
#if CWL_W == 64
    _Static_assert(CWI_MEMCPY_SMALL >= 2 * CWL_W, "cwl_ht2 needs two vectors");
    if (__builtin_expect(n <= 8 * CWL_W, 1)) {
        if (__builtin_expect(n <= 4 * CWL_W, 1))
            cwl_ht2(d, s, n);
        else
            cwl_copy_4to8(d, s, n);
        return ret;
    }
#elif CWL_W == 32
    _Static_assert(CWI_MEMCPY_SMALL >= 4 * CWL_W, "cwl_ht4 needs four vectors");
    if (__builtin_expect(n <= 8 * CWL_W, 1)) {
        cwl_ht4(d, s, n);
        return ret;
    }
#else
    _Static_assert(CWI_MEMCPY_SMALL >= 8 * CWL_W, "the sizes past 8 vectors only");
#endif
    /* 13-16 vectors: the straight block's 16 stores, or the loop where it
     * stores 13 (one head vector, two iterations, four tail vectors: it
     * runs two iterations while n <= 13 vectors minus the destination's
     * misalignment). At 800 B that made the copy 1.15-1.31x faster in one
     * process on AMD EPYC family 26 model 2; with three iterations (17
     * stores) the block stays ahead (docs/RESULTS.md, same section). The
     * avx512-evex row copies up to 14 vectors with twelve from the head and
     * one or two ending at the end instead, 13 or 14 stores: there hot
     * 800-832 B went from 0.84-0.97x glibc to 0.87-1.11x, 848-896 B from
     * 0.84-1.07x to 1.02-1.22x at the four offset pairs (docs/RESULTS.md,
     * "Fewer stores for 769-896 B"); 15-16 vectors: cwl_copy_13to16. */
    if (cwl_ht8_size(n)) {
#if defined(CWL_EVEX_INSTANCE)
        cwl_copy_13to16(d, s, n);
#else
        if (n + ((uintptr_t)d & (CWL_W - 1)) <= 13 * CWL_W)
            cwl_copy_above8_loop(d, s, n);
        else
            cwl_ht8(d, s, n);
#endif
#if defined(CWL_EVEX_INSTANCE)
    } else if (n <= 12 * CWL_W) {
        cwl_copy_9to12_window(d, s, n);
#endif
    } else {
        cwl_copy_window_or_loop(d, s, n);
    }
    return ret;
}
#endif

#if CWL_W >= 32 && !defined(CWL_SAFE_INSTANCE)
/* cw_memcpy's entry for 33..128 bytes without a size test: four 32-byte
 * vectors at 0, min(32, n - 32), max(0, n - 64) and n - 32 cover any such
 * n (below 64 B the middle two repeat the outer ones); for cw_memcpy only
 * (the compiler may store the first before loading the middle two).
 * cwl_k_memcpy_small's one test (is n above 64?) sends one of
 * its two classes through a taken branch, a cycle on AMD EPYC family 26
 * model 2: there this block runs 65-128 B 1.10-1.13x faster and 33-64 B
 * level with it, level with glibc at both (docs/RESULTS.md, "cw_memcpy's
 * copy past the small entry"). Used where the policy's memcpy_mid says
 * direct (src/dispatch.c). Correct for any n up to 128. */
CWL_KERNEL __attribute__((aligned(64))) void *cwl_k_memcpy_small_flat(void *restrict dst,
                                                                      const void *restrict src,
                                                                      size_t n)
{
    if (__builtin_expect(n <= 32, 0)) { /* only when called directly */
        cwl_ladder(dst, src, n);
        return dst;
    }
    const cwl_u8 *s = src;
    cwl_u8 *d = dst;
    size_t b = n - 32 < 32 ? n - 32 : 32;
    size_t c = n > 64 ? n - 64 : 0;
    __m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *)s);
    __m256i v1 = _mm256_loadu_si256((const __m256i *)(const void *)(s + b));
    __m256i v2 = _mm256_loadu_si256((const __m256i *)(const void *)(s + c));
    __m256i v3 = _mm256_loadu_si256((const __m256i *)(const void *)(s + n - 32));
    _mm256_storeu_si256((__m256i *)(void *)d, v0);
    _mm256_storeu_si256((__m256i *)(void *)(d + b), v1);
    _mm256_storeu_si256((__m256i *)(void *)(d + c), v2);
    _mm256_storeu_si256((__m256i *)(void *)(d + n - 32), v3);
    return dst;
}
#define CWL_SMALL_FLAT cwl_k_memcpy_small_flat
#else
#define CWL_SMALL_FLAT NULL
#endif

/* The fill kernels of the row, on the same vector parameters (not in the
 * safe instance, whose only function is the temporal copy). */
#ifndef CWL_SAFE_INSTANCE
#include "x86/memset_ladder.h"
#endif

/* SAFE: the row's safe kernel, CWI_SAFE_KERNEL(cwi_<isa>_copy_safe). */
#define CWL_ROW(NAME, REQUIRED, SAFE)                                                            \
    {                                                                                            \
        .name = (NAME), .required = (REQUIRED), .copy = cwl_k_copy, .copy_nt = cwl_k_copy_nt,    \
        .copy_nt_srcnta = cwl_k_copy_nt_srcnta, .copy_srcnta = cwl_k_copy_srcnta,                \
        .flushcache = cwl_k_flushcache, .persist = cwl_k_persist, .move = cwl_k_move,            \
        .copy_safe = (SAFE),                                                                     \
        .memcpy_small = cwl_k_memcpy_small, .memcpy_small_flat = CWL_SMALL_FLAT,                 \
        .memcpy_large = cwl_k_memcpy_large,                                                      \
        .memset_nt = cwl_k_memset_nt, .memset_flushcache = cwl_k_memset_flushcache,              \
        .memset_persist = cwl_k_memset_persist, .path = cwl_k_path,                              \
    }

/* The safe instance's one function: the temporal copy, returning the bytes
 * not copied (0). */
#define CWL_SAFE_KERNEL_DEF(NAME)                                                                \
    CWI_SAFE_SECTION size_t NAME(void *restrict dst, const void *restrict src, size_t n)        \
    {                                                                                            \
        cwl_k_copy(dst, src, n);                                                                 \
        return 0;                                                                                \
    }

#endif /* CW_COPY_LADDER_H */
