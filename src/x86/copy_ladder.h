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

#if !defined(CWL_W) || !defined(CWL_V) || !defined(CWL_LOADU) || !defined(CWL_STOREU) ||         \
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

/* The template's parts, each on the ones before it */
#include "x86/copy_source.h"
#include "x86/copy_blocks.h"
#include "x86/copy_loops.h"

/* ---- the kernels (each returns dst: see cwi_copy_fn) ---- */

/* rep movsb inside the policy's window, with the policy's alignment rule
 * (both buffers 64-byte aligned, or any alignment, the destination then
 * aligned by cwl_rep_movsb_align_dst, or that but for a destination 1-63
 * bytes past the source modulo 4 KiB); each row's window and rule, and the
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
    if (mode == CWI_REP_ALIGN_DST)
        return 1;
    if (mode == CWI_REP_ALIGN_DST_FAR) /* (d - s) mod 4096 not in 1..63 */
        return (((uintptr_t)d - (uintptr_t)s - 1) & 4095) >= 63;
    return (((uintptr_t)d | (uintptr_t)s) & 63) == 0;
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
CWL_INLINE void cwl_copy_above8_loop_by(cwl_u8 *d, const cwl_u8 *s, size_t n, int whole_lines)
{
    if (__builtin_expect(cwl_aliases_fwd(d, s), 0))
        cwl_bwd(d, s, n);
    else
        cwl_fwd_by(d, s, n, NULL, whole_lines);
}

CWL_INLINE void cwl_copy_above8_loop(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    cwl_copy_above8_loop_by(d, s, n, 0);
}

/* n > 8*W outside the straight block's 13-16 vectors: rep movsb inside
 * the policy's window, or the loop (whole_lines: see cwl_fwd_by) */
CWL_INLINE void cwl_copy_window_or_loop_by(cwl_u8 *d, const cwl_u8 *s, size_t n, int whole_lines)
{
    if (__builtin_expect(cwl_rep_movsb_wins(d, s, n), 0))
        cwl_rep_movsb_align_dst(d, s, n);
    else
        cwl_copy_above8_loop_by(d, s, n, whole_lines);
}

CWL_INLINE void cwl_copy_window_or_loop(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    cwl_copy_window_or_loop_by(d, s, n, 0);
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
 * byte off (docs/results/amd-26-2/README.md, "Four tail stores for 897-1023 B"). */
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
 * (docs/results/amd-26-2/README.md, "Fewer stores for 513-768 B"). */
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
 * less; docs/results/amd-26-2/README.md, "Where the targets stand at cf410ec"). */
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
CWL_KERNEL __attribute__((aligned(64))) void *
cwl_k_memcpy_small(void *restrict dst, const void *restrict src, size_t n)
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
/* cwl_k_memcpy_large: src/x86/memcpy_large.h */
#define CWL_LARGE_NAME cwl_k_memcpy_large
#define CWL_LARGE_LINES 0
#include "x86/memcpy_large.h"
#undef CWL_LARGE_NAME
#undef CWL_LARGE_LINES

#if defined(CWL_EVEX_INSTANCE)
/* cw_memcpy past CWI_MEMCPY_SMALL with fewer stores that straddle two
 * 64-byte lines, where the CPU pays for each (memcpy_mid direct-lines):
 * copies of 9-16 vectors with both buffers off a line run the loop that
 * aligns the destination (one head vector, whole aligned lines, four tail
 * vectors) instead of the straight blocks, whose stores then all straddle
 * two lines as their loads do. On AMD EPYC family 25 model 17, hot
 * 528 B-1 KiB at src+3/dst+13 went from 0.83-1.27x glibc (median 0.99) to
 * 1.06-1.19x (1.12), at 1:1, 13:3, 16:48 and 60:4 the medians 0.90-1.07 to
 * 1.06-1.13, and at 32:32 1.09 to 1.00 (docs/results/amd-25-17/README.md,
 * "Fewer stores across two lines").
 * cwl_k_memcpy_large with this one test more, a kernel of its own chosen
 * once (src/dispatch.c), so that the rows and profiles that do not choose
 * it run cwl_k_memcpy_large's code unchanged. */
CWL_INLINE int cwl_lines_loop(const cwl_u8 *d, const cwl_u8 *s)
{
    return ((uintptr_t)d & (CWL_LINE - 1)) != 0 && ((uintptr_t)s & (CWL_LINE - 1)) != 0;
}
/* direct-lines' 129-256 B (n in [2*W, 4*W]): cwl_ht2 with its tail stored
 * from the end down, the last vector before the one under it (glibc's
 * order). On AMD EPYC family 25 model 17, cw_memcpy/glibc hot at 136-256 B,
 * medians of 16 processes a placement, each order in its own build,
 * alternating: with both buffers off a line (3:13, 1:1, 16:48) the
 * ascending tail read 0.93-0.99 at most sizes (geomeans 0.977-0.984) and
 * this one 0.97-1.01 (0.992-1.002), at 0:0 and 5:0 136-152 and 208 B
 * 0.93-0.98 -> 1.00-1.02; with only the destination off a line (0:1)
 * 160-256 B give up 1.07-1.20 for 1.00, and random offsets 1.011 -> 1.001;
 * the size distributions level in 12 processes a build. A plain timed loop
 * agrees at 3:13 (160 B 0.81 -> 0.94, 256 B 0.90 -> 1.00) and at 0:1, and
 * reads 0:0 the other way (144 and 208 B 1.03-1.10 -> 1.00)
 * (docs/results/amd-25-17/README.md, "The tail stored downward"). */
CWL_INLINE void cwl_ht2_tail_down(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    CWL_V h0 = CWL_LOADU(s), h1 = CWL_LOADU(s + CWL_W);
    CWL_V t0 = CWL_LOADU(s + n - 2 * CWL_W), t1 = CWL_LOADU(s + n - CWL_W);
    CWL_STOREU(d, h0);
    CWL_STOREU(d + CWL_W, h1);
    CWL_STOREU(d + n - CWL_W, t1);
    CWL_STOREU(d + n - 2 * CWL_W, t0);
}
/* direct-lines' copies above 16 vectors: rep movsb inside the policy's
 * window, or the loop started at a line-aligned destination where that
 * saves a store (cwl_fwd_by). Out of line: inlined, its code moved the
 * kernel's 9-16 vector blocks, and hot 576 B and 1 KiB with the source 5
 * bytes off a line read 2-3% slower on AMD EPYC family 25 model 17; out of
 * line they read as before, for a jump more above 1 KiB. */
static __attribute__((noinline)) void *cwl_memcpy_lines_loop(void *restrict dst,
                                                             const void *restrict src, size_t n)
{
    cwl_copy_window_or_loop_by(dst, src, n, 1);
    return dst;
}
#define CWL_LARGE_NAME cwl_k_memcpy_large_lines
#define CWL_LARGE_LINES 1
#include "x86/memcpy_large.h"
#undef CWL_LARGE_NAME
#undef CWL_LARGE_LINES
#define CWL_LARGE_LINES_FN cwl_k_memcpy_large_lines
#else
#define CWL_LARGE_LINES_FN NULL
#endif

#endif

#if CWL_W >= 32 && !defined(CWL_SAFE_INSTANCE)
/* cw_memcpy's entry for 33..128 bytes without a size test: four 32-byte
 * vectors at 0, min(32, n - 32), max(0, n - 64) and n - 32 cover any such
 * n (below 64 B the middle two repeat the outer ones); for cw_memcpy only
 * (the compiler may store the first before loading the middle two).
 * cwl_k_memcpy_small's one test (is n above 64?) sends one of
 * its two classes through a taken branch, a cycle on AMD EPYC family 26
 * model 2: there this block runs 65-128 B 1.10-1.13x faster and 33-64 B
 * level with it, level with glibc at both (docs/results/amd-26-2/README.md, "cw_memcpy's
 * copy past the small entry"). Used where the policy's memcpy_mid says
 * direct (src/dispatch.c). Correct for any n up to 128. */
CWL_KERNEL __attribute__((aligned(64))) void *
cwl_k_memcpy_small_flat(void *restrict dst, const void *restrict src, size_t n)
{
#if defined(CWL_EVEX_INSTANCE)
    /* The avx512-evex row (amd-zen5's and amd-zen4's) copies 65-128 B with one 64-byte
     * vector from the head and one ending at the end: two stores where the
     * block below makes four. Its profile's memcpy_inline 64 sends only
     * 65-128 B here, so the test of n is never taken there. On AMD EPYC
     * family 26 model 2, in one process against the four stores, 72-128 B
     * ran 1.11-1.20x faster at five of six placements (0.4 ns a call);
     * across processes the size distributions read level (docs/results/amd-26-2/README.md,
     * "Two stores for 65-128 B"). */
    if (__builtin_expect(n <= 64, 0)) {
        cwl_ladder(dst, src, n);
        return dst;
    }
    cwl_ht1(dst, src, n);
    return dst;
#else
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
#endif
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
        .copy_safe = (SAFE), .memcpy_small = cwl_k_memcpy_small,                                 \
        .memcpy_small_flat = CWL_SMALL_FLAT, .memcpy_large = cwl_k_memcpy_large,                 \
        .memcpy_large_lines = CWL_LARGE_LINES_FN, .memset_nt = cwl_k_memset_nt,                  \
        .memset_flushcache = cwl_k_memset_flushcache, .memset_persist = cwl_k_memset_persist,    \
        .path = cwl_k_path,                                                                      \
    }

/* The safe instance's one function: the temporal copy, returning the bytes
 * not copied (0). */
#define CWL_SAFE_KERNEL_DEF(NAME)                                                                \
    CWI_SAFE_SECTION size_t NAME(void *restrict dst, const void *restrict src, size_t n)         \
    {                                                                                            \
        cwl_k_copy(dst, src, n);                                                                 \
        return 0;                                                                                \
    }

#endif /* CW_COPY_LADDER_H */
