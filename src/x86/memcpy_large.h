/* SPDX-License-Identifier: MIT */
/* cw_memcpy's temporal copy past its small entry, a template
 * src/x86/copy_ladder.h instantiates within a row: CWL_LARGE_NAME names
 * the kernel; CWL_LARGE_LINES 1 adds the test of cwl_lines_loop and
 * sends copies above 16 vectors to cwl_memcpy_lines_loop, which starts the
 * forward loop at a line-aligned destination where that saves a store (the
 * avx512-evex row's cwl_k_memcpy_large_lines); 0 leaves the text, and so
 * the code, of cwl_k_memcpy_large as it was measured. No include guard:
 * included once per kernel. */

/* cw_memcpy's temporal copy past its small entry: n > CWI_MEMCPY_SMALL
 * (only), the bytes and path of cwl_k_copy without its tests for the
 * classes the small entry took. Each taken branch on the way costs about
 * a cycle on AMD EPYC family 26 model 2, and cwl_k_copy's first test (is
 * n above two vectors?) was taken for every copy the entry sends here, a
 * second test of what the entry had just decided: from here 129-256 B
 * (avx512) reach their block with no taken branch
 * (docs/results/amd-26-2/README.md, "cw_memcpy's copy past the small
 * entry"). cw_memcpy uses it where the policy's memcpy_mid says direct
 * (src/dispatch.c). */
CWL_KERNEL __attribute__((aligned(64))) void *CWL_LARGE_NAME(void *restrict dst,
                                                             const void *restrict src, size_t n)
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
#if defined(CWL_EVEX_INSTANCE)
        /* 385-512 B tested first: GCC then reaches their block with one
         * taken branch instead of two, and 129-384 B keep their count. On
         * AMD EPYC family 26 model 2, in one process, 448 B 1.08x faster
         * at four of five placements, 512 B 1.01-1.04x, 129-400 B level;
         * the size distributions level within that harness's spread
         * (docs/results/amd-26-2/README.md, "385-512 B with one taken branch").
         * cwl_copy_4to8 keeps the same test, so that it stays right for
         * all of 257-512 B; the compiler drops it here. Moving the whole
         * choice into one helper changed GCC's layout and store order of
         * the six-store block, which is not what was measured. */
        if (n > 6 * CWL_W) {
            cwl_ht4(d, s, n);
            return ret;
        }
#endif
        if (__builtin_expect(n <= 4 * CWL_W, 1))
#if CWL_LARGE_LINES
            cwl_ht2_tail_down(d, s, n);
#else
            cwl_ht2(d, s, n);
#endif
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
     * 0.84-1.07x to 1.02-1.22x at the four offset pairs (docs/results/amd-26-2/README.md,
     * "Fewer stores for 769-896 B"); 15-16 vectors: cwl_copy_13to16. */
#if CWL_LARGE_LINES
    if (n <= 16 * CWL_W && cwl_lines_loop(d, s)) {
        cwl_copy_above8_loop(d, s, n);
        return ret;
    }
#endif
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
#if CWL_LARGE_LINES
        return cwl_memcpy_lines_loop(d, s, n);
#else
        cwl_copy_window_or_loop(d, s, n);
#endif
    }
    return ret;
}
