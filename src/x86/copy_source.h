/* SPDX-License-Identifier: MIT */
/* copy_source.h: how the copy loops treat their source, from the
 * policy in force: the streaming prefetch, and for CW_SRC_NOREUSE
 * prefetchnta ahead and clflushopt behind. A part of the template
 * x86/copy_ladder.h (its vector parameters, CWL_INLINE and cwl_u8).
 */
#ifndef CW_X86_COPY_SOURCE_H
#define CW_X86_COPY_SOURCE_H

#ifndef CW_COPY_LADDER_H
#error "copy_source.h is a part of x86/copy_ladder.h: include that"
#endif

/* How a loop treats its source: software prefetch `dist` bytes ahead with
 * `hint` (dist 0: none), and with `drop`, each source line evicted
 * (clflushopt) `back` bytes behind the loads once read. Built from the
 * policy by the kernel entry points below, once per call. */
struct cwl_src {
    size_t dist, back;
    int hint, drop;
};

/* The plain loops (streaming, flushcache): the policy's streaming prefetch
 * (none on Zen 3 and Zen 5, where it cost 6-20%; prefetchnta 4 KiB ahead on
 * Zen 4, +2-14% from 16 MiB cold on AMD EPYC family 25 model 17;
 * prefetcht2 4 KiB ahead on the Xeon, +20%). */
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
    const cwl_u8 *p =
        (const cwl_u8 *)(((uintptr_t)from + CWL_LINE - 1) & ~(uintptr_t)(CWL_LINE - 1));
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

#endif /* CW_X86_COPY_SOURCE_H */
