/* SPDX-License-Identifier: MIT */
/* A masked AVX-512 copy of 0-64 B (bzhi mask, vmovdqu8 load and store, no
 * size test), against cw_memcpy and glibc's memcpy, in one process,
 * interleaved round by round, each through a volatile function pointer:
 *   dist FILE   sizes drawn from a "size probability" file (the shim's
 *               profiles, the fleet distributions), every call at fresh
 *               random offsets in a 64 KiB region per buffer, sources
 *               never written by the loop;
 *   chain N...  copies of N bytes that read what the copy before wrote
 *               (A -> B, B -> A), at src+3/dst+17.
 * Sizes above 64 B go to cw_memcpy from the masked function.
 *   gcc -O2 masked-mix.c BUILD/src/libcachewise.a -lpthread -o masked-mix
 *   taskset -c 1 ./masked-mix dist data/program-profiles/sqlite3.sizes
 *   taskset -c 1 ./masked-mix chain 8 16 32 64 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "harness.h"

typedef void *(*copy_fn)(void *, const void *, size_t);
extern void *cw_memcpy(void *restrict, const void *restrict, size_t);

__attribute__((noinline, target("avx512f,avx512bw,bmi2"))) static void *
masked(void *restrict d, const void *restrict s, size_t n)
{
    if (__builtin_expect(n <= 64, 1)) {
        __mmask64 k = _bzhi_u64(~0ull, (unsigned)n);
        _mm512_mask_storeu_epi8(d, k, _mm512_maskz_loadu_epi8(k, s));
        return d;
    }
    return cw_memcpy(d, s, n);
}

enum { N = 1 << 16, ROUNDS = 21, REGION = 1 << 16, ROUTINES = 3 };
static const char *names[ROUTINES] = {"glibc", "cw_memcpy", "masked"};
static size_t n[N], so[N], dof[N];

static void report(const char *what, double t[ROUTINES][ROUNDS])
{
    printf("%-10s", what);
    for (int j = 0; j < ROUTINES; j++) {
        qsort(t[j], ROUNDS, sizeof(double), by_value);
        printf("  %s %.2f ns", names[j], t[j][ROUNDS / 2]);
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    copy_fn fns[ROUTINES] = {(copy_fn)memcpy, cw_memcpy, masked};
    unsigned char *buf = touched_buffer(1 << 24);
    if (buf == NULL)
        return 1;
    double t[ROUTINES][ROUNDS];
    if (strcmp(argv[1], "dist") == 0) {
        if (draw_sizes(argv[2], N, n, so, dof, REGION - 4096) != 0)
            return 1;
        for (int r = 0; r < ROUNDS; r++)
            for (int j0 = 0; j0 < ROUTINES; j0++) {
                int j = (j0 + r) % ROUTINES;
                volatile copy_fn vf = fns[j];
                copy_fn g = vf;
                unsigned char *s = buf, *d = buf + (1 << 23);
                double t0 = now();
                for (int k = 0; k < N; k++) {
                    g(d + dof[k], s + so[k], n[k]);
                    __asm__ volatile("" ::: "memory");
                }
                t[j][r] = (now() - t0) / N;
            }
        const char *base = strrchr(argv[2], '/');
        report(base != NULL ? base + 1 : argv[2], t);
        return 0;
    }
    for (int a = 2; a < argc; a++) {
        size_t len = (size_t)atoi(argv[a]);
        unsigned char *A = buf + 4096 + 3, *B = buf + (1 << 20) + 17;
        for (int r = 0; r < ROUNDS; r++)
            for (int j0 = 0; j0 < ROUTINES; j0++) {
                int j = (j0 + r) % ROUTINES;
                volatile copy_fn vf = fns[j];
                copy_fn g = vf;
                double t0 = now();
                for (int k = 0; k < 50000; k++) {
                    g(B, A, len);
                    __asm__ volatile("" ::: "memory");
                    g(A, B, len);
                    __asm__ volatile("" ::: "memory");
                }
                t[j][r] = (now() - t0) / 1e5;
            }
        char what[32];
        snprintf(what, sizeof what, "chain %zu B", len);
        report(what, t);
    }
    return 0;
}
