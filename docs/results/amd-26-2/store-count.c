/* SPDX-License-Identifier: MIT */
/* What a hot 257-512 B copy waits on: the number of 64-byte stores it makes
 * (docs/results/amd-26-2/README.md, "Six stores for 257-384 B"). Each variant copies n
 * bytes from one L1-resident buffer to another (source at a page boundary,
 * destination 2 KiB above it, as cwbench places them), called through a
 * pointer from one loop; each line is the median ns per call of 41 rounds,
 * every variant in every round (interleaved):
 *   glibc         memcpy
 *   cw_memcpy     the library's (static) cw_memcpy
 *   eight         cwl_ht4's shape: four vectors from the head, four ending
 *                 at the end, every load first
 *   eight_desc    the same, the tail stored from the last vector down
 *                 (glibc's order)
 *   six           four from the head, two ending at the end (n <= 384)
 *   five          four from the head, one ending at the end (n <= 320)
 *   eight_clamped eight stores, the three past the head at min(k*64, n-64):
 *                 as many stores as cwl_ht4, fewer distinct lines
 *   eight_masked  eight stores, the three past the head masked to the bytes
 *                 below n (a store with an empty mask is still a store)
 * Build and run (AVX-512BW CPUs only):
 *   gcc -O2 -mavx512f -mavx512bw -Iinclude docs/results/amd-26-2/store-count.c \
 *       build/src/libcachewise.a -lpthread -o store-count
 *   for n in 272 304 336 400 464 512; do ./store-count $n; done */
#define _GNU_SOURCE
#include <immintrin.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cachewise.h"

typedef void *(*copy_fn)(void *, const void *, size_t);
typedef unsigned char u8;

#define LD(p) _mm512_loadu_si512((const void *)(p))
#define ST(p, v) _mm512_storeu_si512((void *)(p), (v))
#define PIN8(a, b, c, d, e, f, g, h)                                                            \
    __asm__("" : "+v"(a), "+v"(b), "+v"(c), "+v"(d), "+v"(e), "+v"(f), "+v"(g), "+v"(h))

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static __attribute__((noinline, aligned(64))) void *eight(void *restrict dst,
                                                          const void *restrict src, size_t n)
{
    u8 *d = dst;
    const u8 *s = src;
    __m512i h0 = LD(s), h1 = LD(s + 64), h2 = LD(s + 128), h3 = LD(s + 192);
    __m512i t0 = LD(s + n - 256), t1 = LD(s + n - 192), t2 = LD(s + n - 128), t3 = LD(s + n - 64);
    PIN8(h0, h1, h2, h3, t0, t1, t2, t3);
    ST(d, h0), ST(d + 64, h1), ST(d + 128, h2), ST(d + 192, h3);
    ST(d + n - 256, t0), ST(d + n - 192, t1), ST(d + n - 128, t2), ST(d + n - 64, t3);
    return dst;
}

static __attribute__((noinline, aligned(64))) void *eight_desc(void *restrict dst,
                                                               const void *restrict src, size_t n)
{
    u8 *d = dst;
    const u8 *s = src;
    __m512i h0 = LD(s), h1 = LD(s + 64), h2 = LD(s + 128), h3 = LD(s + 192);
    __m512i t0 = LD(s + n - 64), t1 = LD(s + n - 128), t2 = LD(s + n - 192), t3 = LD(s + n - 256);
    PIN8(h0, h1, h2, h3, t0, t1, t2, t3);
    ST(d, h0), ST(d + 64, h1), ST(d + 128, h2), ST(d + 192, h3);
    ST(d + n - 64, t0), ST(d + n - 128, t1), ST(d + n - 192, t2), ST(d + n - 256, t3);
    return dst;
}

static __attribute__((noinline, aligned(64))) void *six(void *restrict dst,
                                                        const void *restrict src, size_t n)
{
    u8 *d = dst;
    const u8 *s = src;
    __m512i h0 = LD(s), h1 = LD(s + 64), h2 = LD(s + 128), h3 = LD(s + 192);
    __m512i t0 = LD(s + n - 128), t1 = LD(s + n - 64);
    ST(d, h0), ST(d + 64, h1), ST(d + 128, h2), ST(d + 192, h3);
    ST(d + n - 128, t0), ST(d + n - 64, t1);
    return dst;
}

static __attribute__((noinline, aligned(64))) void *five(void *restrict dst,
                                                         const void *restrict src, size_t n)
{
    u8 *d = dst;
    const u8 *s = src;
    __m512i h0 = LD(s), h1 = LD(s + 64), h2 = LD(s + 128), h3 = LD(s + 192);
    __m512i t0 = LD(s + n - 64);
    ST(d, h0), ST(d + 64, h1), ST(d + 128, h2), ST(d + 192, h3);
    ST(d + n - 64, t0);
    return dst;
}

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

static __attribute__((noinline, aligned(64))) void *eight_clamped(void *restrict dst,
                                                                  const void *restrict src,
                                                                  size_t n)
{
    u8 *d = dst;
    const u8 *s = src;
    size_t e = n - 64, a4 = min_size(256, e), a5 = min_size(320, e), a6 = min_size(384, e);
    __m512i t = LD(s + e), m4 = LD(s + a4), m5 = LD(s + a5), m6 = LD(s + a6);
    ST(d, LD(s)), ST(d + 64, LD(s + 64)), ST(d + 128, LD(s + 128)), ST(d + 192, LD(s + 192));
    ST(d + a4, m4), ST(d + a5, m5), ST(d + a6, m6), ST(d + e, t);
    return dst;
}

/* the bytes of [at, at + 64) below r: r - at of them, 0..64 */
static __mmask64 below(size_t r, size_t at)
{
    if (r <= at)
        return 0;
    return r - at >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << (r - at)) - 1;
}

static __attribute__((noinline, aligned(64))) void *eight_masked(void *restrict dst,
                                                                 const void *restrict src,
                                                                 size_t n)
{
    u8 *d = dst;
    const u8 *s = src;
    __mmask64 k4 = below(n, 256), k5 = below(n, 320), k6 = below(n, 384);
    __m512i t = LD(s + n - 64);
    ST(d, LD(s)), ST(d + 64, LD(s + 64)), ST(d + 128, LD(s + 128)), ST(d + 192, LD(s + 192));
    _mm512_mask_storeu_epi8(d + 256, k4, _mm512_maskz_loadu_epi8(k4, s + 256));
    _mm512_mask_storeu_epi8(d + 320, k5, _mm512_maskz_loadu_epi8(k5, s + 320));
    _mm512_mask_storeu_epi8(d + 384, k6, _mm512_maskz_loadu_epi8(k6, s + 384));
    ST(d + n - 64, t);
    return dst;
}

static const struct {
    const char *name;
    copy_fn fn;
    size_t max; /* largest n the variant copies */
} variants[] = {
    {"glibc", memcpy, SIZE_MAX},
    {"cw_memcpy", cw_memcpy, SIZE_MAX},
    {"eight", eight, 512},
    {"eight_desc", eight_desc, 512},
    {"six", six, 384},
    {"five", five, 320},
    {"eight_clamped", eight_clamped, 512},
    {"eight_masked", eight_masked, 512},
};
#define NV (sizeof variants / sizeof variants[0])
#define ROUNDS 41
#define CALLS 20000

static __attribute__((noinline, aligned(64))) void run(copy_fn volatile *fn, u8 *d, const u8 *s,
                                                       size_t n, size_t k)
{
    copy_fn f = *fn;
    for (size_t i = 0; i < k; i++)
        f(d, s, n);
    __asm__ volatile("" ::: "memory");
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 304;
    if (n <= 256 || n > 512) {
        fprintf(stderr, "store-count: the size must be 257..512 (got %zu)\n", n);
        return 2;
    }
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(1, &one);
    (void)sched_setaffinity(0, sizeof one, &one);
    u8 *buf = aligned_alloc(4096, 16384);
    if (buf == NULL)
        return 1;
    memset(buf, 1, 16384);
    u8 *s = buf + 4096, *d = buf + 8192 + 2048;
    static double t[NV][ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        for (size_t v = 0; v < NV; v++) {
            copy_fn volatile fn = variants[v].fn;
            if (n > variants[v].max)
                continue;
            run(&fn, d, s, n, 1000);
            double t0 = now();
            run(&fn, d, s, n, CALLS);
            t[v][r] = (now() - t0) / CALLS * 1e9;
            if (memcmp(d, s, n) != 0) {
                fprintf(stderr, "store-count: %s copied %zu B wrong\n", variants[v].name, n);
                return 1;
            }
        }
    }
    for (size_t v = 0; v < NV; v++) {
        if (n > variants[v].max)
            continue;
        qsort(t[v], ROUNDS, sizeof t[v][0], by_value);
        double ns = t[v][ROUNDS / 2];
        printf("%4zu B  %-14s %.3f ns  %6.1f GB/s\n", n, variants[v].name, ns, (double)n / ns);
    }
    free(buf);
    return 0;
}
