/* SPDX-License-Identifier: MIT */
/* ladder_blocks.h: the blocks of the vector copy ladder that the x86
 * kernels (src/x86/copy_ladder.h) and the aarch64 row (src/aarch64/neon.c)
 * share, written once on the includer's vector parameters:
 *   CWL_W              vector width in bytes
 *   CWL_V              vector type
 *   CWL_LOADU(p)       unaligned load
 *   CWL_STOREU(p, v)   unaligned store
 *   CWL_STOREA(p, v)   store to a CWL_W-aligned address
 * The head_tail blocks make every load before any store, so they serve
 * memmove as well as the copy; cwl_bwd serves it where the destination
 * lies above the source. cwl_ht4 and the forward loop are the same
 * logic in both includers but stay with each: how the tail's addresses are
 * spelled (s + n - k*W, or from one pointer to the last four vectors)
 * changes the schedule GCC emits, and each keeps its own. */
#ifndef CW_LADDER_BLOCKS_H
#define CW_LADDER_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

#if !defined(CWL_W) || !defined(CWL_V) || !defined(CWL_LOADU) || !defined(CWL_STOREU) ||         \
    !defined(CWL_STOREA)
#error "define the CWL_* vector parameters before including ladder_blocks.h"
#endif

#define CWL_INLINE static inline __attribute__((always_inline))

typedef unsigned char cwl_u8;

/* head_tail blocks: n in [k*W, 2*k*W], k vectors from the start and k
 * ending at the end. All loads first, then the head stores, then the tail
 * stores, each in ascending order. */
CWL_INLINE void cwl_ht1(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    CWL_V h0 = CWL_LOADU(s), t0 = CWL_LOADU(s + n - CWL_W);
    CWL_STOREU(d, h0);
    CWL_STOREU(d + n - CWL_W, t0);
}

CWL_INLINE void cwl_ht2(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    CWL_V h0 = CWL_LOADU(s), h1 = CWL_LOADU(s + CWL_W);
    CWL_V t0 = CWL_LOADU(s + n - 2 * CWL_W), t1 = CWL_LOADU(s + n - CWL_W);
    CWL_STOREU(d, h0);
    CWL_STOREU(d + CWL_W, h1);
    CWL_STOREU(d + n - 2 * CWL_W, t0);
    CWL_STOREU(d + n - CWL_W, t1);
}

/* n > 8*W, backward: safe for memmove when dst is above src. The last
 * vector and the first four are loaded before the loop and stored after
 * it; the loop stores four vectors per iteration to the aligned
 * destination, walking down. */
CWL_INLINE void cwl_bwd(cwl_u8 *d, const cwl_u8 *s, size_t n)
{
    CWL_V tail = CWL_LOADU(s + n - CWL_W);
    CWL_V h0 = CWL_LOADU(s), h1 = CWL_LOADU(s + CWL_W);
    CWL_V h2 = CWL_LOADU(s + 2 * CWL_W), h3 = CWL_LOADU(s + 3 * CWL_W);
    size_t skip = (uintptr_t)(d + n) & (CWL_W - 1);
#if CWL_W == 64
    /* Where the destination ends on a vector boundary the top block's last
     * vector repeats the tail's. One vector lower, the blocks reach the
     * head an iteration sooner whenever the lowest of them would have added
     * at most one vector above it (n - 4W mod 4W in 1..W): 576 B 4K-aliased
     * 0.68 -> 0.99x glibc, 832 B 0.85 -> 0.98-1.00, 1088 B 0.96-0.97 ->
     * 1.17-1.20 (AMD EPYC family 26 model 2, docs/results/amd-26-2/README.md, "Where the
     * targets stand at 511b998"). The 32- and 16-byte rows keep their
     * blocks: on that CPU their loop moved by up to 16% with any edit of
     * this code, and they serve CPUs not measured for it. */
    if (skip == 0 && (n - 4 * CWL_W - 1) % (4 * CWL_W) < CWL_W)
        skip = CWL_W;
#endif
    cwl_u8 *dp = d + n - skip, *dfirst = d + 4 * CWL_W;
    const cwl_u8 *sp = s + n - skip;
    while (dp > dfirst) {
        dp -= 4 * CWL_W;
        sp -= 4 * CWL_W;
        CWL_V a = CWL_LOADU(sp), b = CWL_LOADU(sp + CWL_W);
        CWL_V c = CWL_LOADU(sp + 2 * CWL_W), e = CWL_LOADU(sp + 3 * CWL_W);
        CWL_STOREA(dp + 3 * CWL_W, e);
        CWL_STOREA(dp + 2 * CWL_W, c);
        CWL_STOREA(dp + CWL_W, b);
        CWL_STOREA(dp, a);
    }
    CWL_STOREU(d, h0);
    CWL_STOREU(d + CWL_W, h1);
    CWL_STOREU(d + 2 * CWL_W, h2);
    CWL_STOREU(d + 3 * CWL_W, h3);
    CWL_STOREU(d + n - CWL_W, tail);
}

#endif /* CW_LADDER_BLOCKS_H */
