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
 * initialisation (src/tuning.c). Nothing here was timed on Arm hardware
 * (docs/RESULTS.md): the shape is the one measured on x86 and used by glibc
 * and the kernel on arm64. */
#include <arm_neon.h>
#include <stdint.h>

#include "internal.h"

typedef unsigned char u8;
typedef uint64_t u64u __attribute__((may_alias, aligned(1)));
typedef uint32_t u32u __attribute__((may_alias, aligned(1)));
typedef uint16_t u16u __attribute__((may_alias, aligned(1)));

#define INL static inline __attribute__((always_inline))
#define W 16
#define LINE 64
/* Streaming loop unit: 4 lines per iteration. */
#define SUNIT 256
/* Below this streaming buys nothing (a few lines at most), as on x86. */
#define NT_MIN 256
/* flushcache: bytes copied before their lines are written back */
#define FLUSH_CHUNK 4096

INL uint8x16_t ld(const u8 *p)
{
    return vld1q_u8(p);
}

INL void st(u8 *p, uint8x16_t v)
{
    vst1q_u8(p, v);
}

/* ---- ladder: n in [0, 256], every load before any store ---- */

/* n in [0, 16] */
INL void upto16(u8 *d, const u8 *s, size_t n)
{
    if (n >= 8) {
        uint64_t a = *(const u64u *)s, b = *(const u64u *)(s + n - 8);
        *(u64u *)d = a;
        *(u64u *)(d + n - 8) = b;
    } else if (n >= 4) {
        uint32_t a = *(const u32u *)s, b = *(const u32u *)(s + n - 4);
        *(u32u *)d = a;
        *(u32u *)(d + n - 4) = b;
    } else if (n != 0) {
        /* 1..3: first, middle and last byte (the glibc/LLVM trick) */
        u8 a = s[0], b = s[n >> 1], c = s[n - 1];
        d[0] = a;
        d[n >> 1] = b;
        d[n - 1] = c;
    }
}

/* n in [16, 32] */
INL void ht1(u8 *d, const u8 *s, size_t n)
{
    uint8x16_t a = ld(s), b = ld(s + n - W);
    st(d, a);
    st(d + n - W, b);
}

/* n in [32, 64] */
INL void ht2(u8 *d, const u8 *s, size_t n)
{
    uint8x16_t a = ld(s), b = ld(s + W), c = ld(s + n - 2 * W), e = ld(s + n - W);
    st(d, a);
    st(d + W, b);
    st(d + n - 2 * W, c);
    st(d + n - W, e);
}

/* n in [64, 128] */
INL void ht4(u8 *d, const u8 *s, size_t n)
{
    uint8x16_t a0 = ld(s), a1 = ld(s + W), a2 = ld(s + 2 * W), a3 = ld(s + 3 * W);
    const u8 *t = s + n - 4 * W;
    uint8x16_t b0 = ld(t), b1 = ld(t + W), b2 = ld(t + 2 * W), b3 = ld(t + 3 * W);
    u8 *e = d + n - 4 * W;
    st(d, a0);
    st(d + W, a1);
    st(d + 2 * W, a2);
    st(d + 3 * W, a3);
    st(e, b0);
    st(e + W, b1);
    st(e + 2 * W, b2);
    st(e + 3 * W, b3);
}

/* n in [128, 256]: sixteen vectors live, of the 32 registers */
INL void ht8(u8 *d, const u8 *s, size_t n)
{
    uint8x16_t a0 = ld(s), a1 = ld(s + W), a2 = ld(s + 2 * W), a3 = ld(s + 3 * W);
    uint8x16_t a4 = ld(s + 4 * W), a5 = ld(s + 5 * W), a6 = ld(s + 6 * W), a7 = ld(s + 7 * W);
    const u8 *t = s + n - 8 * W;
    uint8x16_t b0 = ld(t), b1 = ld(t + W), b2 = ld(t + 2 * W), b3 = ld(t + 3 * W);
    uint8x16_t b4 = ld(t + 4 * W), b5 = ld(t + 5 * W), b6 = ld(t + 6 * W), b7 = ld(t + 7 * W);
    u8 *e = d + n - 8 * W;
    st(d, a0);
    st(d + W, a1);
    st(d + 2 * W, a2);
    st(d + 3 * W, a3);
    st(d + 4 * W, a4);
    st(d + 5 * W, a5);
    st(d + 6 * W, a6);
    st(d + 7 * W, a7);
    st(e, b0);
    st(e + W, b1);
    st(e + 2 * W, b2);
    st(e + 3 * W, b3);
    st(e + 4 * W, b4);
    st(e + 5 * W, b5);
    st(e + 6 * W, b6);
    st(e + 7 * W, b7);
}

/* n in [0, 256] */
INL void ladder(u8 *d, const u8 *s, size_t n)
{
    if (n <= 2 * W) {
        if (n >= W)
            ht1(d, s, n);
        else
            upto16(d, s, n);
    } else if (n <= 4 * W) {
        ht2(d, s, n);
    } else if (n <= 8 * W) {
        ht4(d, s, n);
    } else {
        ht8(d, s, n);
    }
}

/* ---- prefetch ---- */

/* The policy's hints as PRFM operations: t0/t1/t2 keep the line in L1/L2/
 * L3, nta streams it into L1 (PLDL1STRM, "used once"). */
INL void prefetch(const u8 *p, int hint)
{
    switch (hint) {
    case CWI_PF_NTA: __asm__ volatile("prfm pldl1strm, [%0]" : : "r"(p)); break;
    case CWI_PF_T2: __asm__ volatile("prfm pldl3keep, [%0]" : : "r"(p)); break;
    case CWI_PF_T1: __asm__ volatile("prfm pldl2keep, [%0]" : : "r"(p)); break;
    default: __asm__ volatile("prfm pldl1keep, [%0]" : : "r"(p)); break;
    }
}

struct src_pf {
    size_t dist;
    int hint;
};

/* the streaming loop's prefetch */
INL struct src_pf pf_plain(void)
{
    return (struct src_pf){cwi_pol.stream_pf_dist, cwi_pol.stream_pf_hint};
}

/* CW_SRC_NOREUSE: PLDL1STRM ahead where the policy says prefetchnta */
INL struct src_pf pf_noreuse(void)
{
    if (cwi_pol.src_mode & CWI_SRC_PREFETCHNTA)
        return (struct src_pf){cwi_pol.src_pf_dist, CWI_PF_NTA};
    return pf_plain();
}

/* Prefetches `unit` bytes `dist` ahead of sp, only inside the source (a
 * PRFM never faults, but cw_copy_safe's contract is that nothing outside
 * the buffers is touched). */
INL void pf_step(const struct src_pf *pf, const u8 *sp, const u8 *send, size_t unit)
{
    if (pf->dist != 0 && (size_t)(send - sp) >= pf->dist + unit)
        for (size_t i = 0; i < unit; i += LINE)
            prefetch(sp + pf->dist + i, pf->hint);
}

/* ---- temporal loops, n > 256 ---- */

/* Forward; memmove-safe when dst is below src (or disjoint): each iteration
 * loads before it stores and reads only above what it wrote; the head and
 * the last 64 bytes were loaded before the loop. */
INL void fwd(u8 *d, const u8 *s, size_t n, const struct src_pf *pf)
{
    uint8x16_t head = ld(s);
    const u8 *ts = s + n - 4 * W;
    uint8x16_t t0 = ld(ts), t1 = ld(ts + W), t2 = ld(ts + 2 * W), t3 = ld(ts + 3 * W);
    size_t skip = W - ((uintptr_t)d & (W - 1));
    u8 *dp = d + skip, *dlast = d + n - 4 * W;
    const u8 *sp = s + skip, *send = s + n;
    for (; dp < dlast; dp += 4 * W, sp += 4 * W) {
        if (pf != NULL)
            pf_step(pf, sp, send, 4 * W);
        uint8x16_t a = ld(sp), b = ld(sp + W), c = ld(sp + 2 * W), e = ld(sp + 3 * W);
        st(dp, a);
        st(dp + W, b);
        st(dp + 2 * W, c);
        st(dp + 3 * W, e);
    }
    st(dlast, t0);
    st(dlast + W, t1);
    st(dlast + 2 * W, t2);
    st(dlast + 3 * W, t3);
    st(d, head);
}

/* Backward, the mirror image; memmove-safe when dst is above src. */
INL void bwd(u8 *d, const u8 *s, size_t n)
{
    uint8x16_t tail = ld(s + n - W);
    uint8x16_t h0 = ld(s), h1 = ld(s + W), h2 = ld(s + 2 * W), h3 = ld(s + 3 * W);
    size_t skip = (uintptr_t)(d + n) & (W - 1);
    u8 *dp = d + n - skip, *dfirst = d + 4 * W;
    const u8 *sp = s + n - skip;
    while (dp > dfirst) {
        dp -= 4 * W;
        sp -= 4 * W;
        uint8x16_t a = ld(sp), b = ld(sp + W), c = ld(sp + 2 * W), e = ld(sp + 3 * W);
        st(dp + 3 * W, e);
        st(dp + 2 * W, c);
        st(dp + W, b);
        st(dp, a);
    }
    st(d, h0);
    st(d + W, h1);
    st(d + 2 * W, h2);
    st(d + 3 * W, h3);
    st(d + n - W, tail);
}

/* ---- streaming: STNP for whole lines ---- */

/* One 64-byte line to a 64-aligned destination: four loads, two STNP. */
INL void stream_line(u8 *d, const u8 *s)
{
    uint8x16_t a = ld(s), b = ld(s + W), c = ld(s + 2 * W), e = ld(s + 3 * W);
    __asm__ volatile("stnp %q1, %q2, [%0]\n\tstnp %q3, %q4, [%0, #32]"
                     :
                     : "r"(d), "w"(a), "w"(b), "w"(c), "w"(e)
                     : "memory");
}

/* The same line filled with v. */
INL void stream_fill_line(u8 *d, uint8x16_t v)
{
    __asm__ volatile("stnp %q1, %q1, [%0]\n\tstnp %q1, %q1, [%0, #32]"
                     :
                     : "r"(d), "w"(v)
                     : "memory");
}

/* n >= NT_MIN: the partial first line with ordinary stores, whole lines
 * with STNP, four per iteration with the source prefetch, then the partial
 * last line. */
INL void stream(u8 *d, const u8 *s, size_t n, const struct src_pf *pf)
{
    size_t head = (size_t)(-(uintptr_t)d & (LINE - 1));
    if (head != 0) {
        ladder(d, s, head);
        d += head;
        s += head;
        n -= head;
    }
    u8 *end = d + (n & ~(size_t)(LINE - 1));
    const u8 *send = s + n;
    for (; (size_t)(end - d) >= SUNIT; d += SUNIT, s += SUNIT) {
        pf_step(pf, s, send, SUNIT);
        for (int i = 0; i < SUNIT; i += LINE)
            stream_line(d + i, s + i);
    }
    for (; d < end; d += LINE, s += LINE)
        stream_line(d, s);
    size_t tail = n & (LINE - 1);
    if (tail != 0)
        ladder(d, s, tail);
}

/* ---- the kernels (each returns dst) ---- */

/* The temporal copy (pf NULL: no software prefetch) and the streaming one,
 * each with the source prefetch of its caller. */
INL void *copy_pf(void *restrict dst, const void *restrict src, size_t n,
                  const struct src_pf *pf)
{
    if (n <= 256)
        ladder(dst, src, n);
    else
        fwd(dst, src, n, pf);
    return dst;
}

INL void *copy_nt_pf(void *restrict dst, const void *restrict src, size_t n,
                     struct src_pf pf)
{
    if (n < NT_MIN)
        return copy_pf(dst, src, n, NULL);
    stream(dst, src, n, &pf);
    return dst;
}

static void *k_copy(void *restrict dst, const void *restrict src, size_t n)
{
    return copy_pf(dst, src, n, NULL);
}

static void *k_copy_srcnta(void *restrict dst, const void *restrict src, size_t n)
{
    struct src_pf pf = pf_noreuse();
    return copy_pf(dst, src, n, &pf);
}

static void *k_copy_nt(void *restrict dst, const void *restrict src, size_t n)
{
    return copy_nt_pf(dst, src, n, pf_plain());
}

static void *k_copy_nt_srcnta(void *restrict dst, const void *restrict src, size_t n)
{
    return copy_nt_pf(dst, src, n, pf_noreuse());
}

static void *k_move(void *dst, const void *src, size_t n)
{
    u8 *d = dst;
    const u8 *s = src;
    if (n <= 256)
        ladder(d, s, n);
    else if ((uintptr_t)d - (uintptr_t)s >= n) /* dst below src, or disjoint */
        fwd(d, s, n, NULL);
    else
        bwd(d, s, n);
    return dst;
}

/* flushcache = persist here (cw_drain's DSB follows persist in the
 * dispatcher): ordinary stores, then the write-back, FLUSH_CHUNK bytes of
 * the destination at a time. Chunks end on FLUSH_CHUNK boundaries of the
 * destination, so no line is written back twice. */
static void *k_flushcache(void *restrict dst, const void *restrict src, size_t n)
{
    u8 *d = dst;
    const u8 *s = src;
    while (n != 0) {
        size_t take = FLUSH_CHUNK - ((uintptr_t)d & (FLUSH_CHUNK - 1));
        if (take > n)
            take = n;
        k_copy(d, s, take);
        cwi_flush_range(d, take);
        d += take;
        s += take;
        n -= take;
    }
    return dst;
}

/* ---- fills ---- */

/* n in [0, 256]: stores from both ends (they may overlap: every one writes
 * the same byte) */
INL void set_upto256(u8 *d, uint8x16_t v, uint64_t w, size_t n)
{
    if (n >= 16) {
        if (n > 128) {
            for (int i = 0; i < 8 * W; i += W) {
                st(d + i, v);
                st(d + n - 8 * W + i, v);
            }
        } else if (n > 64) {
            for (int i = 0; i < 4 * W; i += W) {
                st(d + i, v);
                st(d + n - 4 * W + i, v);
            }
        } else if (n > 32) {
            st(d, v);
            st(d + W, v);
            st(d + n - 2 * W, v);
            st(d + n - W, v);
        } else {
            st(d, v);
            st(d + n - W, v);
        }
    } else if (n >= 8) {
        *(u64u *)d = w;
        *(u64u *)(d + n - 8) = w;
    } else if (n >= 4) {
        *(u32u *)d = (uint32_t)w;
        *(u32u *)(d + n - 4) = (uint32_t)w;
    } else if (n >= 2) {
        *(u16u *)d = (uint16_t)w;
        *(u16u *)(d + n - 2) = (uint16_t)w;
    } else if (n == 1) {
        d[0] = (u8)w;
    }
}

/* Any n: ordinary stores; 64 bytes per iteration past 256, destination
 * aligned first (the first 16 bytes stored unaligned, the last 64 at the
 * end). */
INL void set_temporal(u8 *d, uint8x16_t v, uint64_t w, size_t n)
{
    if (n <= 256) {
        set_upto256(d, v, w, n);
        return;
    }
    st(d, v);
    u8 *p = d + (W - ((uintptr_t)d & (W - 1))), *last = d + n - 4 * W;
    for (; p < last; p += 4 * W) {
        st(p, v);
        st(p + W, v);
        st(p + 2 * W, v);
        st(p + 3 * W, v);
    }
    st(last, v);
    st(last + W, v);
    st(last + 2 * W, v);
    st(last + 3 * W, v);
}

static void *k_memset_nt(void *dst, int c, size_t n)
{
    u8 *d = dst;
    uint64_t w = (uint64_t)(u8)c * 0x0101010101010101u;
    uint8x16_t v = vdupq_n_u8((u8)c);
    if (n < NT_MIN) {
        set_upto256(d, v, w, n);
        return dst;
    }
    size_t head = (size_t)(-(uintptr_t)d & (LINE - 1));
    if (head != 0) {
        set_upto256(d, v, w, head);
        d += head;
        n -= head;
    }
    u8 *end = d + (n & ~(size_t)(LINE - 1));
    for (; d < end; d += LINE)
        stream_fill_line(d, v);
    set_upto256(d, v, w, n & (LINE - 1));
    return dst;
}

/* the fill, then the write-back, a chunk at a time as k_flushcache */
static void *k_memset_flushcache(void *dst, int c, size_t n)
{
    u8 *d = dst;
    uint64_t w = (uint64_t)(u8)c * 0x0101010101010101u;
    uint8x16_t v = vdupq_n_u8((u8)c);
    while (n != 0) {
        size_t take = FLUSH_CHUNK - ((uintptr_t)d & (FLUSH_CHUNK - 1));
        if (take > n)
            take = n;
        set_temporal(d, v, w, take);
        cwi_flush_range(d, take);
        d += take;
        n -= take;
    }
    return dst;
}

const struct cwi_impl cwi_impl_aarch64 = {
    .name = "aarch64",
    .required = CWI_F_ASIMD,
    .copy = k_copy,
    .copy_nt = k_copy_nt,
    .copy_nt_srcnta = k_copy_nt_srcnta,
    .copy_srcnta = k_copy_srcnta,
    .flushcache = k_flushcache,
    .persist = k_flushcache,
    .move = k_move,
    .copy_safe = NULL, /* cw_copy_safe takes the portable sigsetjmp path */
    .memcpy_small = k_copy,
    .memset_nt = k_memset_nt,
    .memset_flushcache = k_memset_flushcache,
    .memset_persist = k_memset_flushcache,
};
