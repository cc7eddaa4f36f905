/* SPDX-License-Identifier: MIT */
/* copy_loops.h: the copy loops above eight vectors: the temporal
 * forward loop (the backward one is in ladder_blocks.h) and the
 * streaming loop with its partial first and last lines. A part of the
 * template x86/copy_ladder.h, after x86/copy_source.h and
 * x86/copy_blocks.h.
 */
#ifndef CW_X86_COPY_LOOPS_H
#define CW_X86_COPY_LOOPS_H

#ifndef CW_COPY_LADDER_H
#error "copy_loops.h is a part of x86/copy_ladder.h: include that"
#endif

/* ---- temporal loops, n > 8*W ---- */

/* Forward; safe for memmove when dst is below src (or disjoint): each
 * iteration loads before it stores and only ever reads above what it
 * already wrote, and the head and tail were loaded before the loop. (The
 * backward loop, cwl_bwd, is in ladder_blocks.h.)
 * whole_lines (a constant at each call site; 0 everywhere but the
 * avx512-evex row's cwl_k_memcpy_large_lines): where the destination is
 * vector-aligned and starting the loop at it costs no extra iteration
 * ((n - 4W) mod 4W is 0 or above W), the loop starts there and the head
 * vector is not stored twice: one store fewer in every such copy. */
CWL_INLINE void cwl_fwd_by(cwl_u8 *d, const cwl_u8 *s, size_t n, const struct cwl_src *pf,
                           int whole_lines)
{
    CWL_V head = CWL_LOADU(s);
    CWL_V t0 = CWL_LOADU(s + n - 4 * CWL_W), t1 = CWL_LOADU(s + n - 3 * CWL_W);
    CWL_V t2 = CWL_LOADU(s + n - 2 * CWL_W), t3 = CWL_LOADU(s + n - 1 * CWL_W);
    size_t skip = CWL_W - ((uintptr_t)d & (CWL_W - 1));
    if (whole_lines && skip == CWL_W && (n - 4 * CWL_W - 1) % (4 * CWL_W) >= CWL_W)
        skip = 0;
    cwl_u8 *dp = d + skip, *dlast = d + n - 4 * CWL_W;
    const cwl_u8 *sp = s + skip, *send = s + n;
    const cwl_u8 *dropped =
        (const cwl_u8 *)(((uintptr_t)s + CWL_LINE - 1) & ~(uintptr_t)(CWL_LINE - 1));
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
    if (!whole_lines || skip != 0)
        CWL_STOREU(d, head);
    if (pf != NULL && pf->drop)
        cwl_drop_range(dropped, send);
}

CWL_INLINE void cwl_fwd(cwl_u8 *d, const cwl_u8 *s, size_t n, const struct cwl_src *pf)
{
    cwl_fwd_by(d, s, n, pf, 0);
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
    const cwl_u8 *dropped =
        (const cwl_u8 *)(((uintptr_t)s + CWL_LINE - 1) & ~(uintptr_t)(CWL_LINE - 1));
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

#endif /* CW_X86_COPY_LOOPS_H */
