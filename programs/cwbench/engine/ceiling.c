/* SPDX-License-Identifier: MIT */
/* The copy ceiling (docs/BENCHMARKS.md, "Copy ceiling"): a read-only and a
 * streaming write-only kernel over the first bytes of the engine's pool.
 * No copy can beat the slower of the two. A third kernel makes both
 * kernels' traffic at once, with no data passed between them: what a
 * copy's reads and writes cost one core together. Each architecture has
 * its widest plain kernels: x86-64 AVX2 (SSE2 without it), aarch64
 * Advanced SIMD loads and STNP stores, elsewhere 64-bit words and memset
 * (or stores of words, where the traffic kernel needs the loop). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "engine/ceiling.h"
#include "engine/measure.h"
#include "platform/arch.h"
#include "cachewise.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#if defined(CWB_ARCH_X86)
/* Each width's kernels are one pass over the buffers: with `rd` the loads
 * of p, XOR-folded into four accumulators (the loads, not a dependency
 * chain, set the pace), with `wr` streaming stores of 0x5a to q, and with
 * both a copy's traffic in one loop, no data passed from the loads to the
 * stores, so neither waits on the other. The flags are constants at every
 * call: each kernel compiles to its own loop. */
__attribute__((target("avx2"), always_inline)) static inline uint64_t
pass_avx2(const unsigned char *p, unsigned char *q, size_t n, int rd, int wr)
{
    __m256i a = _mm256_setzero_si256(), b = a, c = a, d = a, v = _mm256_set1_epi8(0x5a);
    for (size_t i = 0; i + 128 <= n; i += 128) {
        if (rd) {
            a = _mm256_xor_si256(a, _mm256_load_si256((const __m256i *)(p + i)));
            b = _mm256_xor_si256(b, _mm256_load_si256((const __m256i *)(p + i + 32)));
            c = _mm256_xor_si256(c, _mm256_load_si256((const __m256i *)(p + i + 64)));
            d = _mm256_xor_si256(d, _mm256_load_si256((const __m256i *)(p + i + 96)));
        }
        if (wr) {
            _mm256_stream_si256((__m256i *)(q + i), v);
            _mm256_stream_si256((__m256i *)(q + i + 32), v);
            _mm256_stream_si256((__m256i *)(q + i + 64), v);
            _mm256_stream_si256((__m256i *)(q + i + 96), v);
        }
    }
    if (wr)
        cwb_sfence();
    a = _mm256_xor_si256(_mm256_xor_si256(a, b), _mm256_xor_si256(c, d));
    return (uint64_t)_mm256_extract_epi64(a, 0) ^ (uint64_t)_mm256_extract_epi64(a, 3);
}

__attribute__((target("avx2"))) static uint64_t read_avx2(const unsigned char *p, size_t n)
{
    return pass_avx2(p, NULL, n, 1, 0);
}

__attribute__((target("avx2"))) static void write_avx2(unsigned char *p, size_t n)
{
    (void)pass_avx2(NULL, p, n, 0, 1);
}

__attribute__((target("avx2"))) static uint64_t both_avx2(const unsigned char *p,
                                                          unsigned char *q, size_t n)
{
    return pass_avx2(p, q, n, 1, 1);
}

static inline __attribute__((always_inline)) uint64_t pass_sse2(const unsigned char *p,
                                                                unsigned char *q, size_t n,
                                                                int rd, int wr)
{
    __m128i a = _mm_setzero_si128(), b = a, c = a, d = a, v = _mm_set1_epi8(0x5a);
    for (size_t i = 0; i + 64 <= n; i += 64) {
        if (rd) {
            a = _mm_xor_si128(a, _mm_load_si128((const __m128i *)(p + i)));
            b = _mm_xor_si128(b, _mm_load_si128((const __m128i *)(p + i + 16)));
            c = _mm_xor_si128(c, _mm_load_si128((const __m128i *)(p + i + 32)));
            d = _mm_xor_si128(d, _mm_load_si128((const __m128i *)(p + i + 48)));
        }
        if (wr) {
            _mm_stream_si128((__m128i *)(q + i), v);
            _mm_stream_si128((__m128i *)(q + i + 16), v);
            _mm_stream_si128((__m128i *)(q + i + 32), v);
            _mm_stream_si128((__m128i *)(q + i + 48), v);
        }
    }
    if (wr)
        cwb_sfence();
    a = _mm_xor_si128(_mm_xor_si128(a, b), _mm_xor_si128(c, d));
    return (uint64_t)_mm_cvtsi128_si64(a);
}

static uint64_t read_sse2(const unsigned char *p, size_t n)
{
    return pass_sse2(p, NULL, n, 1, 0);
}

static void write_sse2(unsigned char *p, size_t n)
{
    (void)pass_sse2(NULL, p, n, 0, 1);
}

static uint64_t both_sse2(const unsigned char *p, unsigned char *q, size_t n)
{
    return pass_sse2(p, q, n, 1, 1);
}

#elif defined(CWB_ARCH_A64)
/* One pass, as the x86 kernels' (pass_avx2): loads with `rd`, STNP stores
 * with `wr`, both in one loop for a copy's traffic. */
static inline __attribute__((always_inline)) uint64_t pass_vec(const unsigned char *p,
                                                               unsigned char *q, size_t n,
                                                               int rd, int wr)
{
    uint8x16_t a = vdupq_n_u8(0), b = a, c = a, d = a;
    cwb_v128 v = cwb_v128_splat(0x5a);
    for (size_t i = 0; i + 64 <= n; i += 64) {
        if (rd) {
            a = veorq_u8(a, vld1q_u8(p + i));
            b = veorq_u8(b, vld1q_u8(p + i + 16));
            c = veorq_u8(c, vld1q_u8(p + i + 32));
            d = veorq_u8(d, vld1q_u8(p + i + 48));
        }
        if (wr)
            cwb_nt_fill64(q + i, v);
    }
    if (wr)
        cwb_sfence();
    uint64x2_t r = vreinterpretq_u64_u8(veorq_u8(veorq_u8(a, b), veorq_u8(c, d)));
    return vgetq_lane_u64(r, 0) ^ vgetq_lane_u64(r, 1);
}

static uint64_t read_vec(const unsigned char *p, size_t n)
{
    return pass_vec(p, NULL, n, 1, 0);
}

static void write_vec(unsigned char *p, size_t n)
{
    (void)pass_vec(NULL, p, n, 0, 1);
}

static uint64_t both_vec(const unsigned char *p, unsigned char *q, size_t n)
{
    return pass_vec(p, q, n, 1, 1);
}
#else
/* One pass of 64-bit words: loads with `rd`, stores with `wr`. */
static inline __attribute__((always_inline)) uint64_t pass_words(const unsigned char *p,
                                                                 unsigned char *q, size_t n,
                                                                 int rd, int wr)
{
    uint64_t a = 0, b = 0, c = 0, d = 0, w[4];
    const uint64_t v[4] = {0x5a5a5a5a5a5a5a5aull, 0x5a5a5a5a5a5a5a5aull, 0x5a5a5a5a5a5a5a5aull,
                           0x5a5a5a5a5a5a5a5aull};
    for (size_t i = 0; i + 32 <= n; i += 32) {
        if (rd) {
            memcpy(w, p + i, sizeof w);
            a ^= w[0], b ^= w[1], c ^= w[2], d ^= w[3];
        }
        if (wr)
            memcpy(q + i, v, sizeof v);
    }
    if (wr)
        __asm__ volatile("" : : "r"(q) : "memory");
    return a ^ b ^ c ^ d;
}

static uint64_t read_vec(const unsigned char *p, size_t n)
{
    return pass_words(p, NULL, n, 1, 0);
}

/* No streaming store here: an ordinary fill, so this ceiling is the
 * temporal write bandwidth. */
static void write_vec(unsigned char *p, size_t n)
{
    memset(p, 0x5a, n);
    __asm__ volatile("" : : "r"(p) : "memory");
}

static uint64_t both_vec(const unsigned char *p, unsigned char *q, size_t n)
{
    return pass_words(p, q, n, 1, 1);
}
#endif

static double median_of(double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

void cwb_measure_ceiling(struct cwb_engine *e, size_t bytes, struct cwb_ceiling *out)
{
#if defined(CWB_ARCH_X86)
    int avx2 = cw_get_info()->avx2;
#endif
    int n = e->samples;
    double *r = calloc((size_t)n, sizeof *r), *w = calloc((size_t)n, sizeof *w);
    double *b = calloc((size_t)n, sizeof *b);
    memset(out, 0, sizeof *out);
    if (bytes > e->pool)
        bytes = e->pool;
    bytes &= ~(size_t)127;
    out->bytes = bytes;
    if (r == NULL || w == NULL || b == NULL || bytes == 0) {
        free(r);
        free(w);
        free(b);
        out->read_gbps = out->write_gbps = out->ceiling_gbps = out->both_gbps = NAN;
        return;
    }
    /* The first pass of each kernel is the discarded warm-up. */
    for (int s = -1; s < n; s++) {
        double t0 = cwb_now();
#if defined(CWB_ARCH_X86)
        uint64_t sum = avx2 ? read_avx2(e->src, bytes) : read_sse2(e->src, bytes);
#else
        uint64_t sum = read_vec(e->src, bytes);
#endif
        __asm__ volatile("" : : "r"(sum));
        double t1 = cwb_now();
#if defined(CWB_ARCH_X86)
        if (avx2)
            write_avx2(e->dst, bytes);
        else
            write_sse2(e->dst, bytes);
#else
        write_vec(e->dst, bytes);
#endif
        double t2 = cwb_now();
#if defined(CWB_ARCH_X86)
        sum = avx2 ? both_avx2(e->src, e->dst, bytes) : both_sse2(e->src, e->dst, bytes);
#else
        sum = both_vec(e->src, e->dst, bytes);
#endif
        __asm__ volatile("" : : "r"(sum));
        double t3 = cwb_now();
        if (s >= 0) {
            r[s] = (double)bytes / (t1 - t0) / 1e9;
            w[s] = (double)bytes / (t2 - t1) / 1e9;
            b[s] = (double)bytes / (t3 - t2) / 1e9;
        }
    }
    out->n = n;
    out->read_gbps = median_of(r, n);
    out->write_gbps = median_of(w, n);
    out->both_gbps = median_of(b, n);
    /* A copy must both read and write every byte: it can be no faster than
     * either kernel alone, even with perfect overlap. */
    out->ceiling_gbps = out->read_gbps < out->write_gbps ? out->read_gbps : out->write_gbps;
    free(r);
    free(w);
    free(b);
}
