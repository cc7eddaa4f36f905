/* SPDX-License-Identifier: MIT */
/* aarch64: the copy and fill kernels with 16-byte Advanced SIMD (NEON)
 * vectors, the row "aarch64" of the dispatch table.
 *
 * Shape (LLVM libc's memory_utils, glibc's and the kernel's arm64 memcpy):
 * up to 256 bytes a ladder of head_tail blocks, two groups of loads covering
 * the first and last bytes, every load before any store, so no byte outside
 * the buffers is touched and the same blocks serve memmove; larger copies
 * align the destination to 16 bytes and run a 64-byte loop (two LDP and two
 * STP of q registers; the compiler pairs the adjacent vector accesses), with
 * the first 16 and last 64 bytes loaded up front and stored last.
 *
 * Streaming (cw_memcpy_nt and the streaming sizes of cw_memcpy): STNP for
 * every whole 64-byte line of the destination, ordinary stores for the
 * partial first and last lines. STNP is a hint (the line may still be
 * allocated, and nothing is written back by it), so flushcache is not built
 * on it: as in the kernel's arm64 memcpy_flushcache, the copy's ordinary
 * stores are followed by a write-back of every line (DC CVAP, else DC CVAC:
 * src/aarch64/flush.c), a few KiB at a time so that each line is still in
 * the cache when it is written back.
 *
 * Policy (cwi_pol): the streaming threshold, the streaming loop's software
 * prefetch (PRFM, distance and hint) and CW_SRC_NOREUSE's source prefetch
 * (PRFM PLDL1STRM). The x86-only rules (rep movsb, clflushopt behind the
 * loads, movnti for partial lines) are switched off for this row at
 * initialisation (src/settings.c). Nothing here was timed on Arm hardware
 * (docs/RESULTS.md): the shape is the one measured on x86 and used by glibc
 * and the kernel on arm64. */
#include <arm_neon.h>
#include <stdint.h>

#include "internal.h"

/* The x86 ladder's vocabulary (src/x86/copy_ladder.h): the same names for
 * the same shapes, one vector width. */
#define CWL_W 16
#define CWL_V uint8x16_t
#define CWL_LOADU(p) vld1q_u8(p)
#define CWL_STOREU(p, v) vst1q_u8((p), (v))
/* no aligned form: the same store */
#define CWL_STOREA(p, v) vst1q_u8((p), (v))
/* cwl_ht1, cwl_ht2 and cwl_bwd, shared with the x86 ladder; CWL_INLINE
 * and cwl_u8 */
#include "ladder_blocks.h"

typedef uint64_t cwl_u64u __attribute__((may_alias, aligned(1)));
typedef uint32_t cwl_u32u __attribute__((may_alias, aligned(1)));
typedef uint16_t cwl_u16u __attribute__((may_alias, aligned(1)));

#define CWL_LINE 64
/* Streaming loop unit: 4 lines per iteration. */
#define CWL_SUNIT 256
/* Below this streaming buys nothing (a few lines at most), as on x86. */
#define CWL_NT_MIN 256
/* flushcache: bytes copied before their lines are written back */
#define CWL_FLUSH_CHUNK 4096

/* ---- ladder: n in [0, 16*W], every load before any store ---- */

/* Four vectors to d, d+W, d+2W and d+3W, in that order. */
CWL_INLINE void cwl_store4(cwl_u8 *d, CWL_V a, CWL_V b, CWL_V c, CWL_V e)
{
    CWL_STOREU(d, a);
    CWL_STOREU(d + CWL_W, b);
    CWL_STOREU(d + 2 * CWL_W, c);
    CWL_STOREU(d + 3 * CWL_W, e);
}

/* n in [0, W]. 1..3 bytes as first, middle and last byte (the glibc/LLVM
 * trick; x86's cwi_copy_upto15 moves two 2-byte words instead). */
CWL_INLINE void cwl_upto1(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    if (n >= 8) {
        uint64_t a = *(const cwl_u64u *)s, b = *(const cwl_u64u *)(s + n - 8);
        *(cwl_u64u *)d = a;
        *(cwl_u64u *)(d + n - 8) = b;
    } else if (n >= 4) {
        uint32_t a = *(const cwl_u32u *)s, b = *(const cwl_u32u *)(s + n - 4);
        *(cwl_u32u *)d = a;
        *(cwl_u32u *)(d + n - 4) = b;
    } else if (n != 0) {
        cwl_u8 a = s[0], b = s[n >> 1], c = s[n - 1];
        d[0] = a;
        d[n >> 1] = b;
        d[n - 1] = c;
    }
}

/* head_tail blocks (cwl_ht1 and cwl_ht2 in ladder_blocks.h): n in
 * [k*W, 2*k*W], k vectors from the start and k ending at the end; all
 * loads first, then the head stores, then the tail stores, each in
 * ascending order. The tail's addresses from one pointer t, here and in
 * cwl_fwd (x86 spells them s + n - k*W: each spelling makes GCC schedule
 * the loads otherwise, and each row keeps its own). */
CWL_INLINE void cwl_ht4(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    CWL_V h0 = CWL_LOADU(s), h1 = CWL_LOADU(s + CWL_W);
    CWL_V h2 = CWL_LOADU(s + 2 * CWL_W), h3 = CWL_LOADU(s + 3 * CWL_W);
    const cwl_u8 *t = s + n - 4 * CWL_W;
    CWL_V t0 = CWL_LOADU(t), t1 = CWL_LOADU(t + CWL_W);
    CWL_V t2 = CWL_LOADU(t + 2 * CWL_W), t3 = CWL_LOADU(t + 3 * CWL_W);
    cwl_u8 *e = d + n - 4 * CWL_W;
    cwl_store4(d, h0, h1, h2, h3);
    cwl_store4(e, t0, t1, t2, t3);
}

/* The same block with k = 8, every load before any store, so that it
 * serves memmove too: sixteen vectors live, of the 32 registers. (x86's
 * cwl_ht8 stores its head before it loads its tail: copies only.) */
CWL_INLINE void cwl_ht8_loads_first(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    CWL_V h0 = CWL_LOADU(s), h1 = CWL_LOADU(s + CWL_W);
    CWL_V h2 = CWL_LOADU(s + 2 * CWL_W), h3 = CWL_LOADU(s + 3 * CWL_W);
    CWL_V h4 = CWL_LOADU(s + 4 * CWL_W), h5 = CWL_LOADU(s + 5 * CWL_W);
    CWL_V h6 = CWL_LOADU(s + 6 * CWL_W), h7 = CWL_LOADU(s + 7 * CWL_W);
    const cwl_u8 *t = s + n - 8 * CWL_W;
    CWL_V t0 = CWL_LOADU(t), t1 = CWL_LOADU(t + CWL_W);
    CWL_V t2 = CWL_LOADU(t + 2 * CWL_W), t3 = CWL_LOADU(t + 3 * CWL_W);
    CWL_V t4 = CWL_LOADU(t + 4 * CWL_W), t5 = CWL_LOADU(t + 5 * CWL_W);
    CWL_V t6 = CWL_LOADU(t + 6 * CWL_W), t7 = CWL_LOADU(t + 7 * CWL_W);
    cwl_u8 *e = d + n - 8 * CWL_W;
    cwl_store4(d, h0, h1, h2, h3);
    cwl_store4(d + 4 * CWL_W, h4, h5, h6, h7);
    cwl_store4(e, t0, t1, t2, t3);
    cwl_store4(e + 4 * CWL_W, t4, t5, t6, t7);
}

/* n in [0, 16*W] (256 bytes): the whole ladder, its rungs tested from the
 * smallest up */
CWL_INLINE void cwl_ladder(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    if (n <= 2 * CWL_W) {
        if (n >= CWL_W)
            cwl_ht1(d, s, n);
        else
            cwl_upto1(d, s, n);
    } else if (n <= 4 * CWL_W) {
        cwl_ht2(d, s, n);
    } else if (n <= 8 * CWL_W) {
        cwl_ht4(d, s, n);
    } else {
        cwl_ht8_loads_first(d, s, n);
    }
}

/* ---- prefetch ---- */

/* The policy's hints as PRFM operations: t0/t1/t2 keep the line in L1/L2/
 * L3, nta streams it into L1 (PLDL1STRM, "used once"). */
CWL_INLINE void cwl_prefetch(const cwl_u8 *p, int hint)
{
    switch (hint) {
    case CWI_PF_NTA: __asm__ volatile("prfm pldl1strm, [%0]" : : "r"(p)); break;
    case CWI_PF_T2: __asm__ volatile("prfm pldl3keep, [%0]" : : "r"(p)); break;
    case CWI_PF_T1: __asm__ volatile("prfm pldl2keep, [%0]" : : "r"(p)); break;
    default: __asm__ volatile("prfm pldl1keep, [%0]" : : "r"(p)); break;
    }
}

/* How a loop treats its source: software prefetch `dist` bytes ahead with
 * `hint` (dist 0: none). x86's struct cwl_src without the lines dropped
 * behind the loads, which have no counterpart here. */
struct cwl_src {
    size_t dist;
    int hint;
};

/* the streaming loop's prefetch */
CWL_INLINE struct cwl_src cwl_src_plain(void)
{
    return (struct cwl_src){CWI_POL(stream_pf_dist), CWI_POL(stream_pf_hint)};
}

/* CW_SRC_NOREUSE: PLDL1STRM ahead where the policy says prefetchnta */
CWL_INLINE struct cwl_src cwl_src_noreuse(void)
{
    if (CWI_POL(src_mode) & CWI_SRC_PREFETCHNTA)
        return (struct cwl_src){CWI_POL(src_pf_dist), CWI_PF_NTA};
    return cwl_src_plain();
}

/* Prefetches `unit` bytes `dist` ahead of sp, only inside the source (a
 * PRFM never faults, but cw_copy_safe's contract is that nothing outside
 * the buffers is touched). */
CWL_INLINE void cwl_src_step(const struct cwl_src *pf, const cwl_u8 *sp, const cwl_u8 *send,
                             size_t unit)
{
    if (pf->dist != 0 && (size_t)(send - sp) >= pf->dist + unit)
        for (size_t i = 0; i < unit; i += CWL_LINE)
            cwl_prefetch(sp + pf->dist + i, pf->hint);
}

/* ---- temporal loops, n > 16*W ---- */

/* Forward; memmove-safe when dst is below src (or disjoint): each iteration
 * loads before it stores and reads only above what it wrote; the head and
 * the last 64 bytes were loaded before the loop. (The backward loop,
 * cwl_bwd, is in ladder_blocks.h.) */
CWL_INLINE void cwl_fwd(cwl_u8 *d, const cwl_u8 *s, size_t n, const struct cwl_src *pf)
{
    CWL_V head = CWL_LOADU(s);
    const cwl_u8 *ts = s + n - 4 * CWL_W;
    CWL_V t0 = CWL_LOADU(ts), t1 = CWL_LOADU(ts + CWL_W);
    CWL_V t2 = CWL_LOADU(ts + 2 * CWL_W), t3 = CWL_LOADU(ts + 3 * CWL_W);
    size_t skip = CWL_W - ((uintptr_t)d & (CWL_W - 1));
    cwl_u8 *dp = d + skip, *dlast = d + n - 4 * CWL_W;
    const cwl_u8 *sp = s + skip, *send = s + n;
    for (; dp < dlast; dp += 4 * CWL_W, sp += 4 * CWL_W) {
        if (pf != NULL)
            cwl_src_step(pf, sp, send, 4 * CWL_W);
        CWL_V a = CWL_LOADU(sp), b = CWL_LOADU(sp + CWL_W);
        CWL_V c = CWL_LOADU(sp + 2 * CWL_W), e = CWL_LOADU(sp + 3 * CWL_W);
        cwl_store4(dp, a, b, c, e);
    }
    cwl_store4(dlast, t0, t1, t2, t3);
    CWL_STOREU(d, head);
}

/* ---- streaming: STNP for whole lines ---- */

/* One 64-byte line to a 64-aligned destination: four loads, two STNP. */
CWL_INLINE void cwl_stream_line(cwl_u8 *d, const cwl_u8 *s)
{
    CWL_V a = CWL_LOADU(s), b = CWL_LOADU(s + CWL_W);
    CWL_V c = CWL_LOADU(s + 2 * CWL_W), e = CWL_LOADU(s + 3 * CWL_W);
    __asm__ volatile("stnp %q1, %q2, [%0]\n\tstnp %q3, %q4, [%0, #32]"
                     :
                     : "r"(d), "w"(a), "w"(b), "w"(c), "w"(e)
                     : "memory");
}

/* The same line filled with v. */
CWL_INLINE void cwl_set_stream_line(cwl_u8 *d, CWL_V v)
{
    __asm__ volatile("stnp %q1, %q1, [%0]\n\tstnp %q1, %q1, [%0, #32]"
                     :
                     : "r"(d), "w"(v)
                     : "memory");
}

/* n >= CWL_NT_MIN: the partial first line with ordinary stores, whole lines
 * with STNP, four per iteration with the source prefetch, then the partial
 * last line. */
CWL_INLINE void cwl_stream(cwl_u8 *d, const cwl_u8 *s, size_t n, const struct cwl_src *pf)
{
    size_t head = (size_t)(-(uintptr_t)d & (CWL_LINE - 1));
    if (head != 0) {
        cwl_ladder(d, s, head);
        d += head;
        s += head;
        n -= head;
    }
    cwl_u8 *end = d + (n & ~(size_t)(CWL_LINE - 1));
    const cwl_u8 *send = s + n;
    for (; (size_t)(end - d) >= CWL_SUNIT; d += CWL_SUNIT, s += CWL_SUNIT) {
        cwl_src_step(pf, s, send, CWL_SUNIT);
        for (int i = 0; i < CWL_SUNIT; i += CWL_LINE)
            cwl_stream_line(d + i, s + i);
    }
    for (; d < end; d += CWL_LINE, s += CWL_LINE)
        cwl_stream_line(d, s);
    size_t tail = n & (CWL_LINE - 1);
    if (tail != 0)
        cwl_ladder(d, s, tail);
}

/* ---- the kernels (each returns dst) ---- */

/* The temporal copy (pf NULL: no software prefetch) and the streaming one,
 * each with the source prefetch of its caller. */
CWL_INLINE void *cwl_copy_src(void *restrict dst, const void *restrict src, size_t n,
                              const struct cwl_src *pf)
{
    if (n <= 16 * CWL_W)
        cwl_ladder(dst, src, n);
    else
        cwl_fwd(dst, src, n, pf);
    return dst;
}

CWL_INLINE void *cwl_copy_nt_src(void *restrict dst, const void *restrict src, size_t n,
                                 struct cwl_src pf)
{
    if (n < CWL_NT_MIN)
        return cwl_copy_src(dst, src, n, NULL);
    cwl_stream(dst, src, n, &pf);
    return dst;
}

static void *cwl_k_copy(void *restrict dst, const void *restrict src, size_t n)
{
    return cwl_copy_src(dst, src, n, NULL);
}

static void *cwl_k_copy_srcnta(void *restrict dst, const void *restrict src, size_t n)
{
    struct cwl_src pf = cwl_src_noreuse();
    return cwl_copy_src(dst, src, n, &pf);
}

static void *cwl_k_copy_nt(void *restrict dst, const void *restrict src, size_t n)
{
    return cwl_copy_nt_src(dst, src, n, cwl_src_plain());
}

static void *cwl_k_copy_nt_srcnta(void *restrict dst, const void *restrict src, size_t n)
{
    return cwl_copy_nt_src(dst, src, n, cwl_src_noreuse());
}

static void *cwl_k_move(void *dst, const void *src, size_t n)
{
    cwl_u8 *d = dst;
    const cwl_u8 *s = src;
    if (n <= 16 * CWL_W)
        cwl_ladder(d, s, n);
    else if ((uintptr_t)d - (uintptr_t)s >= n) /* dst below src, or disjoint */
        cwl_fwd(d, s, n, NULL);
    else
        cwl_bwd(d, s, n);
    return dst;
}

/* The next chunk of a flushcache copy or fill at d, n bytes left: up to
 * the next CWL_FLUSH_CHUNK boundary of the destination, so that no line is
 * written back twice. */
CWL_INLINE size_t cwl_flush_take(const cwl_u8 *d, size_t n)
{
    size_t take = CWL_FLUSH_CHUNK - ((uintptr_t)d & (CWL_FLUSH_CHUNK - 1));
    return take > n ? n : take;
}

/* flushcache = persist here (cw_drain's DSB follows persist in the
 * dispatcher): ordinary stores, then the write-back, a chunk of the
 * destination at a time (cwl_flush_take). */
static void *cwl_k_flushcache(void *restrict dst, const void *restrict src, size_t n)
{
    cwl_u8 *d = dst;
    const cwl_u8 *s = src;
    while (n != 0) {
        size_t take = cwl_flush_take(d, n);
        cwl_k_copy(d, s, take);
        cwi_flush_range(d, take);
        d += take;
        s += take;
        n -= take;
    }
    return dst;
}

/* ---- fills ---- */

/* The fill byte in every byte of a word: only the low byte of c counts, as
 * for memset. */
CWL_INLINE uint64_t cwl_set_word(int c)
{
    return (uint64_t)(cwl_u8)c * 0x0101010101010101u;
}

/* n in [0, CWL_NT_MIN]: stores from both ends (they may overlap: every one writes
 * the same byte) */
CWL_INLINE void cwl_set_small(cwl_u8 *d, CWL_V v, uint64_t w, size_t n)
{
    if (n >= 16) {
        if (n > 128) {
            for (int i = 0; i < 8 * CWL_W; i += CWL_W) {
                CWL_STOREU(d + i, v);
                CWL_STOREU(d + n - 8 * CWL_W + i, v);
            }
        } else if (n > 64) {
            for (int i = 0; i < 4 * CWL_W; i += CWL_W) {
                CWL_STOREU(d + i, v);
                CWL_STOREU(d + n - 4 * CWL_W + i, v);
            }
        } else if (n > 32) {
            CWL_STOREU(d, v);
            CWL_STOREU(d + CWL_W, v);
            CWL_STOREU(d + n - 2 * CWL_W, v);
            CWL_STOREU(d + n - CWL_W, v);
        } else {
            CWL_STOREU(d, v);
            CWL_STOREU(d + n - CWL_W, v);
        }
    } else if (n >= 8) {
        *(cwl_u64u *)d = w;
        *(cwl_u64u *)(d + n - 8) = w;
    } else if (n >= 4) {
        *(cwl_u32u *)d = (uint32_t)w;
        *(cwl_u32u *)(d + n - 4) = (uint32_t)w;
    } else if (n >= 2) {
        *(cwl_u16u *)d = (uint16_t)w;
        *(cwl_u16u *)(d + n - 2) = (uint16_t)w;
    } else if (n == 1) {
        d[0] = (cwl_u8)w;
    }
}

/* Any n: ordinary stores; 64 bytes per iteration past CWL_NT_MIN, destination
 * aligned first (the first 16 bytes stored unaligned, the last 64 at the
 * end). */
CWL_INLINE void cwl_set_temporal(cwl_u8 *d, CWL_V v, uint64_t w, size_t n)
{
    if (n <= CWL_NT_MIN) {
        cwl_set_small(d, v, w, n);
        return;
    }
    CWL_STOREU(d, v);
    cwl_u8 *p = d + (CWL_W - ((uintptr_t)d & (CWL_W - 1))), *last = d + n - 4 * CWL_W;
    for (; p < last; p += 4 * CWL_W) {
        cwl_store4(p, v, v, v, v);
    }
    cwl_store4(last, v, v, v, v);
}

static void *cwl_k_memset_nt(void *dst, int c, size_t n)
{
    cwl_u8 *d = dst;
    uint64_t w = cwl_set_word(c);
    CWL_V v = vdupq_n_u8((cwl_u8)c);
    if (n < CWL_NT_MIN) {
        cwl_set_small(d, v, w, n);
        return dst;
    }
    size_t head = (size_t)(-(uintptr_t)d & (CWL_LINE - 1));
    if (head != 0) {
        cwl_set_small(d, v, w, head);
        d += head;
        n -= head;
    }
    cwl_u8 *end = d + (n & ~(size_t)(CWL_LINE - 1));
    for (; d < end; d += CWL_LINE)
        cwl_set_stream_line(d, v);
    cwl_set_small(d, v, w, n & (CWL_LINE - 1));
    return dst;
}

/* the fill, then the write-back, a chunk at a time as cwl_k_flushcache */
static void *cwl_k_memset_flushcache(void *dst, int c, size_t n)
{
    cwl_u8 *d = dst;
    uint64_t w = cwl_set_word(c);
    CWL_V v = vdupq_n_u8((cwl_u8)c);
    while (n != 0) {
        size_t take = cwl_flush_take(d, n);
        cwl_set_temporal(d, v, w, take);
        cwi_flush_range(d, take);
        d += take;
        n -= take;
    }
    return dst;
}

const struct cwi_impl cwi_impl_aarch64 = {
    .name = "aarch64",
    .required = CWI_F_ASIMD,
    .copy = cwl_k_copy,
    .copy_nt = cwl_k_copy_nt,
    .copy_nt_srcnta = cwl_k_copy_nt_srcnta,
    .copy_srcnta = cwl_k_copy_srcnta,
    .flushcache = cwl_k_flushcache,
    .persist = cwl_k_flushcache,
    .move = cwl_k_move,
    .copy_safe = NULL, /* cw_copy_safe takes the portable sigsetjmp path */
    .memcpy_small = cwl_k_copy,
    .memset_nt = cwl_k_memset_nt,
    .memset_flushcache = cwl_k_memset_flushcache,
    .memset_persist = cwl_k_memset_flushcache,
};
