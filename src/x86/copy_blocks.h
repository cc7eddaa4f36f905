/* SPDX-License-Identifier: MIT */
/* copy_blocks.h: the straight-line blocks of the copy ladder, up
 * to sixteen vectors with no loop. Those of up to eight vectors load
 * everything before they store, so the memmove kernel uses them on
 * overlapping buffers too; the larger ones serve the copy kernels
 * (disjoint buffers) only. The blocks shared with the aarch64 row (cwl_ht1,
 * cwl_ht2, cwl_bwd) are in ladder_blocks.h; which block a size takes is
 * decided in x86/copy_ladder.h. A part of that template.
 */
#ifndef CW_X86_COPY_BLOCKS_H
#define CW_X86_COPY_BLOCKS_H

#ifndef CW_COPY_LADDER_H
#error "copy_blocks.h is a part of x86/copy_ladder.h: include that"
#endif

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
 * and glibc's descending tail by 10-25% in an early measurement (at
 * 129-256 B and random offsets the avx512-evex kernels measure 1% on AMD
 * EPYC family 25 model 17 now; direct-lines stores that tail downward,
 * cwl_ht2_tail_down in copy_ladder.h). */
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
 * the avx512-evex row (the one amd-zen5 and amd-zen4 choose) up to six vectors take
 * four from the head and two ending at the end: six stores where cwl_ht4
 * makes eight, and such a copy waits on its stores. On AMD EPYC family 26
 * model 2 hot 257-384 B went from 0.88-0.99x glibc to 1.10-1.29x at every
 * offset pair, 0.98x to 1.10x at random offsets, MemcpyGoogleA (32% of its
 * calls 304 B) 0.96x to 1.00x; the one more size test mispredicts where
 * sizes spread evenly over 257-512 B (MemcpyGoogleD, sqlite3's profile
 * 0.98x to 0.96x). Seven or eight vectors keep cwl_ht4: shapes with fewer
 * stores there read 5-8% faster at fixed offsets and 1-3% slower at random
 * ones (docs/results/amd-26-2/README.md, "Six stores for 257-384 B"). The other rows keep
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

#endif /* CW_X86_COPY_BLOCKS_H */
