/* SPDX-License-Identifier: MIT */
/* How fast this core moves 4 KiB in the L1 when source and destination are
 * misaligned against each other, the limit of the "misaligned destination
 * >= 0.9x aligned" target at 4 KiB (docs/results/amd-26-2/README.md, "What
 * a misaligned 4 KiB copy can reach").
 * Both buffers stay in the L1 (the same 4 KiB every call). Each line is the
 * median GB/s of 21 rounds, every variant in every round (interleaved):
 *   load64 / load32      loads only (64- or 32-byte vectors), at offset 0 or
 *                        at +63 (every 64-byte load spans two lines; half of
 *                        the 32-byte ones)
 *   store64 / store32    stores only, the same offsets
 *   copy64 S:D           the copy ladder's loop shape (4 vectors an
 *                        iteration), 64-byte vectors, source at +S,
 *                        destination at +D: a kernel that aligns the
 *                        destination runs 63:0 for a dst+1 copy
 *   copy32 S:D           the same with 32-byte vectors (8 an iteration)
 *   cw_memcpy, glibc     the routines themselves at S:D (0:1 and 0:0 put the
 *                        destination at the source's page offset or one
 *                        byte above: "4K aliasing", which sends cw_memcpy
 *                        to its backward loop; 0:2048 and 0:2049 do not)
 * Build and run:
 *   gcc -O2 -Iinclude docs/results/amd-26-2/misaligned-ceiling.c build/src/libcachewise.a \
 *       -lpthread -o misaligned-ceiling
 *   taskset -c 1 ./misaligned-ceiling */
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cachewise.h"
#include "entry/harness.h"

#define N 4096
#define CALLS 4000
#define ROUNDS 21
#define T __attribute__((noinline, target("avx512f,avx512bw,avx512vl")))

static char *g_src, *g_dst; /* page-aligned, N + 4096 and N + 8192 bytes */
static volatile unsigned g_sink;

T static void load64(size_t off)
{
    const char *s = g_src + off;
    __m512i acc = _mm512_setzero_si512();
    for (size_t i = 0; i < N; i += 256)
        acc = _mm512_ternarylogic_epi64(
            acc, _mm512_loadu_si512(s + i),
            _mm512_ternarylogic_epi64(_mm512_loadu_si512(s + i + 64), _mm512_loadu_si512(s + i + 128),
                                      _mm512_loadu_si512(s + i + 192), 0x96),
            0x96);
    g_sink += (unsigned)_mm_cvtsi128_si32(_mm512_castsi512_si128(acc));
}

T static void load32(size_t off)
{
    const char *s = g_src + off;
    __m256i a = _mm256_setzero_si256(), b = a;
    for (size_t i = 0; i < N; i += 128) {
        a = _mm256_ternarylogic_epi64(a, _mm256_loadu_si256((const __m256i *)(s + i)),
                                      _mm256_loadu_si256((const __m256i *)(s + i + 32)), 0x96);
        b = _mm256_ternarylogic_epi64(b, _mm256_loadu_si256((const __m256i *)(s + i + 64)),
                                      _mm256_loadu_si256((const __m256i *)(s + i + 96)), 0x96);
    }
    g_sink += (unsigned)_mm_cvtsi128_si32(_mm256_castsi256_si128(_mm256_xor_si256(a, b)));
}

T static void store64(size_t off)
{
    char *d = g_dst + off;
    __m512i v = _mm512_set1_epi8(7);
    for (size_t i = 0; i < N; i += 256) {
        _mm512_storeu_si512(d + i, v);
        _mm512_storeu_si512(d + i + 64, v);
        _mm512_storeu_si512(d + i + 128, v);
        _mm512_storeu_si512(d + i + 192, v);
    }
}

T static void store32(size_t off)
{
    char *d = g_dst + off;
    __m256i v = _mm256_set1_epi8(7);
    for (size_t i = 0; i < N; i += 128) {
        _mm256_storeu_si256((__m256i *)(d + i), v);
        _mm256_storeu_si256((__m256i *)(d + i + 32), v);
        _mm256_storeu_si256((__m256i *)(d + i + 64), v);
        _mm256_storeu_si256((__m256i *)(d + i + 96), v);
    }
}

T static void copy64(size_t so, size_t dof)
{
    const char *s = g_src + so;
    char *d = g_dst + dof;
    for (size_t i = 0; i < N; i += 256) {
        __m512i a = _mm512_loadu_si512(s + i), b = _mm512_loadu_si512(s + i + 64),
                c = _mm512_loadu_si512(s + i + 128), e = _mm512_loadu_si512(s + i + 192);
        _mm512_storeu_si512(d + i, a);
        _mm512_storeu_si512(d + i + 64, b);
        _mm512_storeu_si512(d + i + 128, c);
        _mm512_storeu_si512(d + i + 192, e);
    }
}

T static void copy32(size_t so, size_t dof)
{
    const char *s = g_src + so;
    char *d = g_dst + dof;
#define L32(k) _mm256_loadu_si256((const __m256i *)(s + i + 32 * (k)))
#define S32(k, v) _mm256_storeu_si256((__m256i *)(d + i + 32 * (k)), (v))
    for (size_t i = 0; i < N; i += 256) {
        __m256i a = L32(0), b = L32(1), c = L32(2), e = L32(3), f = L32(4), g = L32(5),
                h = L32(6), j = L32(7);
        S32(0, a);
        S32(1, b);
        S32(2, c);
        S32(3, e);
        S32(4, f);
        S32(5, g);
        S32(6, h);
        S32(7, j);
    }
#undef L32
#undef S32
}

static void *(*volatile g_glibc)(void *, const void *, size_t) = memcpy;

enum { V_LOAD64_0, V_LOAD64_63, V_LOAD32_0, V_LOAD32_63, V_STORE64_0, V_STORE64_63,
       V_STORE32_0, V_STORE32_63, V_COPY64_00, V_COPY64_630, V_COPY64_063, V_COPY32_00,
       V_COPY32_630, V_COPY32_063, V_CW_00, V_CW_01, V_CW_02048, V_CW_02049, V_GLIBC_00,
       V_GLIBC_01, V_GLIBC_02048, V_GLIBC_02049, N_VARIANTS };
static const char *const names[N_VARIANTS] = {
    "load64 +0", "load64 +63", "load32 +0", "load32 +63", "store64 +0", "store64 +63",
    "store32 +0", "store32 +63", "copy64 0:0", "copy64 63:0", "copy64 0:63", "copy32 0:0",
    "copy32 63:0", "copy32 0:63", "cw_memcpy 0:0", "cw_memcpy 0:1", "cw_memcpy 0:2048",
    "cw_memcpy 0:2049", "glibc 0:0", "glibc 0:1", "glibc 0:2048", "glibc 0:2049"};

static void run(int v)
{
    for (int c = 0; c < CALLS; c++) {
        switch (v) {
        case V_LOAD64_0: load64(0); break;
        case V_LOAD64_63: load64(63); break;
        case V_LOAD32_0: load32(0); break;
        case V_LOAD32_63: load32(63); break;
        case V_STORE64_0: store64(0); break;
        case V_STORE64_63: store64(63); break;
        case V_STORE32_0: store32(0); break;
        case V_STORE32_63: store32(63); break;
        case V_COPY64_00: copy64(0, 0); break;
        case V_COPY64_630: copy64(63, 0); break;
        case V_COPY64_063: copy64(0, 63); break;
        case V_COPY32_00: copy32(0, 0); break;
        case V_COPY32_630: copy32(63, 0); break;
        case V_COPY32_063: copy32(0, 63); break;
        case V_CW_00: cw_memcpy(g_dst, g_src, N); break;
        case V_CW_01: cw_memcpy(g_dst + 1, g_src, N); break;
        case V_CW_02048: cw_memcpy(g_dst + 2048, g_src, N); break;
        case V_CW_02049: cw_memcpy(g_dst + 2049, g_src, N); break;
        case V_GLIBC_00: g_glibc(g_dst, g_src, N); break;
        case V_GLIBC_01: g_glibc(g_dst + 1, g_src, N); break;
        case V_GLIBC_02048: g_glibc(g_dst + 2048, g_src, N); break;
        case V_GLIBC_02049: g_glibc(g_dst + 2049, g_src, N); break;
        }
        __asm__ volatile("" ::: "memory");
    }
}

int main(void)
{
    if (!__builtin_cpu_supports("avx512bw") || !__builtin_cpu_supports("avx512vl")) {
        fprintf(stderr, "misaligned-ceiling: needs AVX-512 BW and VL\n");
        return 2;
    }
    g_src = aligned_alloc(4096, N + 4096);
    g_dst = aligned_alloc(4096, N + 8192);
    memset(g_src, 1, N + 4096);
    memset(g_dst, 2, N + 8192);
    static double gbs[N_VARIANTS][ROUNDS];
    for (int r = 0; r < ROUNDS; r++)
        for (int v = 0; v < N_VARIANTS; v++) {
            double t0 = now();
            run(v);
            gbs[v][r] = (double)N * CALLS / (now() - t0);
        }
    printf("%-16s %8s %8s %8s   (GB/s, 4 KiB in the L1, %d rounds of %d calls)\n", "variant",
           "median", "q1", "q3", ROUNDS, CALLS);
    for (int v = 0; v < N_VARIANTS; v++) {
        qsort(gbs[v], ROUNDS, sizeof(double), by_value);
        printf("%-16s %8.1f %8.1f %8.1f\n", names[v], gbs[v][ROUNDS / 2], gbs[v][ROUNDS / 4],
               gbs[v][3 * ROUNDS / 4]);
    }
    return (int)(g_sink & 0);
}
