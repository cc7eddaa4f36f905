/* SPDX-License-Identifier: MIT */
/* Copies of 0-15 bytes three ways, against cw_memcpy and glibc's memcpy, in
 * one process, interleaved round by round, each through a volatile function
 * pointer: "branchless" runs every part of an overlapping 8 + 4 + 1-byte
 * copy and points the parts n does not need at a scratch buffer (no branch
 * on n below 16), "rep" is rep movsb. Larger sizes go to cw_memcpy.
 * Arguments: N (fixed size), LO-HI (sizes uniform in it), or a "size
 * probability" file (a path); every call at fresh random offsets in
 * 60000-byte regions.
 *   gcc -O2 tiny.c BUILD/src/libcachewise.a -lpthread -o tiny
 *   taskset -c 1 ./tiny 1 8 15 0-15 0-7 8-15 data/program-profiles/sqlite3.sizes */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
typedef void *(*copy_fn)(void *, const void *, size_t);
extern void *cw_memcpy(void *restrict, const void *restrict, size_t);
typedef uint64_t u64u __attribute__((aligned(1), may_alias));
typedef uint32_t u32u __attribute__((aligned(1), may_alias));
/* 0..15 bytes without a branch on n: every part runs, the ones n does not
 * need read and write a scratch line instead */
__attribute__((noinline)) static void *bl(void *dst, const void *src, size_t n)
{
    if (__builtin_expect(n > 15, 0))
        return cw_memcpy(dst, src, n);
    unsigned char scratch[16];
    unsigned char *d = dst;
    const unsigned char *s = src;
    uintptr_t m8 = -(uintptr_t)(n >= 8), m4 = -(uintptr_t)(n >= 4), m1 = -(uintptr_t)(n >= 1);
    uintptr_t x = (uintptr_t)scratch, dd = (uintptr_t)d ^ x, ss = (uintptr_t)s ^ x;
    __asm__("" : "+r"(m8), "+r"(m4), "+r"(m1));
    unsigned char *d8 = (unsigned char *)(x ^ (dd & m8)), *d4 = (unsigned char *)(x ^ (dd & m4)),
                  *d1 = (unsigned char *)(x ^ (dd & m1));
    const unsigned char *s8 = (const unsigned char *)(x ^ (ss & m8)),
                        *s4 = (const unsigned char *)(x ^ (ss & m4)),
                        *s1 = (const unsigned char *)(x ^ (ss & m1));
    size_t n8 = 8 + ((n - 8) & m8), n4 = 4 + ((n - 4) & m4), n1 = 1 + ((n - 1) & m1);
    uint64_t a = *(const u64u *)s8, b = *(const u64u *)(s8 + n8 - 8);
    uint32_t c = *(const u32u *)s4, e = *(const u32u *)(s4 + n4 - 4);
    unsigned char f = s1[0], g = s1[n1 >> 1], h = s1[n1 - 1];
    *(u64u *)d8 = a; *(u64u *)(d8 + n8 - 8) = b;
    *(u32u *)d4 = c; *(u32u *)(d4 + n4 - 4) = e;
    d1[0] = f; d1[n1 >> 1] = g; d1[n1 - 1] = h;
    return dst;
}
__attribute__((noinline)) static void *rep(void *d, const void *s, size_t n)
{
    if (__builtin_expect(n > 15, 0))
        return cw_memcpy(d, s, n);
    void *r = d;
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
    return r;
}
enum { N = 1 << 16, R = 21, K = 4 };
static size_t n[N], so[N], dof[N];
int main(int argc, char **argv)
{
    unsigned char *buf = touched_buffer(1 << 24);
    copy_fn f[K] = {(copy_fn)memcpy, cw_memcpy, bl, rep};
    const char *nm[K] = {"glibc", "cw_memcpy", "branchless", "rep"};
    for (int a = 1; a < argc; a++) {
        int lo, hi;
        if (strchr(argv[a], '/')) { draw_sizes(argv[a], N, n, so, dof, 60000); }
        else {
        if (sscanf(argv[a], "%d-%d", &lo, &hi) != 2) hi = lo = atoi(argv[a]);
        for (int k = 0; k < N; k++) {
            n[k] = lo + next() % (hi - lo + 1);
            so[k] = next() % 60000;
            dof[k] = next() % 60000;
        }}
        /* check */
        for (int k = 0; k < 2000; k++) { unsigned char D[64]={0}, E[64]={0}; size_t m = n[k] < 40 ? n[k] : 40;
            bl(D+3, buf+so[k], m); memcpy(E+3, buf+so[k], m); if (memcmp(D,E,64)) { printf("BAD %zu\n", m); return 1; } }
        double t[K][R];
        for (int r = 0; r < R; r++)
            for (int j0 = 0; j0 < K; j0++) {
                int j = (j0 + r) % K;
                volatile copy_fn vf = f[j];
                copy_fn g = vf;
                double t0 = now();
                for (int k = 0; k < N; k++) {
                    g(buf + (1 << 23) + dof[k], buf + so[k], n[k]);
                    __asm__ volatile("" ::: "memory");
                }
                t[j][r] = (now() - t0) / N;
            }
        printf("%-14s", strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a]);
        for (int j = 0; j < K; j++) printf("  %s %.2f", nm[j], median(t[j], R));
        printf(" ns\n");
    }
}
