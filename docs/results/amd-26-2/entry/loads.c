/* SPDX-License-Identifier: MIT */
/* What a load on the way to a copy's kernel costs: the avx512-evex row's
 * cw_memcpy kernel past 128 B (memcpy_large) called through a function
 * pointer, alone and behind small trampolines that differ only in what
 * they do before jumping to it, in one process; medians of 31 rounds of
 * 20000 calls, ns a call:
 *   cw_memcpy     the library's entry
 *   kernel        the kernel itself
 *   ind           jmp through a pointer loaded from memory
 *   dir           a direct jmp
 *   imm2br        two compares with immediates (not taken), direct jmp
 *   load1br       a load, a compare with it (not taken), direct jmp
 *   load+2br      imm2br with one of the compares against a load
 *   load1br+ind   load1br, then the jmp through a loaded pointer
 * Then (second line) load1br with its word at four page offsets, against
 * the destination's 4 KiB page offsets the copy stores to; that word is
 * reached through a pointer, so these make two dependent loads.
 * Arguments: source offset, destination offset, the destination's
 * distance into its page, then the sizes. The kernel is called by name:
 * build against a library with the alias of devirt-rejected/devirt.patch
 * (its src/x86/avx512.c and src/internal.h parts), e.g.
 *   git worktree add /tmp/w HEAD && cd /tmp/w && git apply \
 *     --include=src/x86/avx512.c --include=src/internal.h \
 *     docs/results/amd-26-2/devirt-rejected/devirt.patch && \
 *   cmake -S . -B b -DCMAKE_BUILD_TYPE=Release && cmake --build b --target cachewise_static
 *   gcc -O2 -DCWI_HAVE_AVX512_EVEX=1 -Iinclude -Isrc docs/results/amd-26-2/entry/loads.c \
 *       b/src/libcachewise.a -lpthread -o loads
 *   taskset -c 1 ./loads 0 1 2048 1536 2560
 * (docs/results/amd-26-2/README.md, "The 128 B bound first"). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cachewise.h"
#include "internal.h"
#include "harness.h"

typedef void *(*copy_fn)(void *, const void *, size_t);
void *cwi_evex_memcpy_large(void *restrict dst, const void *restrict src, size_t n);
static copy_fn volatile g_target;
static volatile size_t g_thresh = (size_t)1 << 24;
static unsigned char area[8192] __attribute__((aligned(4096)));
static volatile size_t *thr;

#define TRAMP __attribute__((noinline, aligned(64)))
TRAMP static void *t_ind(void *d, const void *s, size_t n) { return g_target(d, s, n); }
TRAMP static void *t_dir(void *d, const void *s, size_t n) { return cwi_evex_memcpy_large(d, s, n); }
TRAMP static void *t_imm2br(void *d, const void *s, size_t n)
{
    if (__builtin_expect(n <= 64, 0))
        return memcpy(d, s, n);
    if (__builtin_expect(n >= ((size_t)1 << 24), 0))
        return memmove(d, s, n);
    return cwi_evex_memcpy_large(d, s, n);
}
TRAMP static void *t_load1br(void *d, const void *s, size_t n)
{
    if (__builtin_expect(n >= g_thresh, 0))
        return memmove(d, s, n);
    return cwi_evex_memcpy_large(d, s, n);
}
TRAMP static void *t_load2br(void *d, const void *s, size_t n)
{
    if (__builtin_expect(n <= 64, 0))
        return memcpy(d, s, n);
    if (__builtin_expect(n >= g_thresh, 0))
        return memmove(d, s, n);
    return cwi_evex_memcpy_large(d, s, n);
}
TRAMP static void *t_load1br_ind(void *d, const void *s, size_t n)
{
    if (__builtin_expect(n >= g_thresh, 0))
        return memmove(d, s, n);
    return g_target(d, s, n);
}
TRAMP static void *t_load_at(void *d, const void *s, size_t n)
{
    if (__builtin_expect(n >= *thr, 0))
        return memmove(d, s, n);
    return cwi_evex_memcpy_large(d, s, n);
}

int main(int argc, char **argv)
{
    int so, dof, page;
    char *s, *d;
    placed_buffers(argc, argv, "loads", &so, &dof, &page, &s, &d);
    cw_memcpy(d, s, 1000); /* start-up before timing */
    g_target = cwi_evex_memcpy_large;
    copy_fn fs[8] = {cw_memcpy, cwi_evex_memcpy_large, t_ind, t_dir,
                     t_imm2br, t_load1br, t_load2br, t_load1br_ind};
    const char *names[8] = {"cw_memcpy", "kernel", "ind", "dir",
                            "imm2br", "load1br", "load+2br", "load1br+ind"};
    int offs[4] = {256, 1024, 2688, 3584};
    for (int a = 4; a < argc; a++) {
        size_t n = (size_t)atoi(argv[a]);
        double t[8][31], u[4][31];
        for (int r = 0; r < 31; r++) {
            for (int f = 0; f < 8; f++)
                t[f][r] = ns_per_call(fs[f], d + page + dof, s + so, n);
            for (int f = 0; f < 4; f++) {
                thr = (volatile size_t *)(area + offs[f]);
                *thr = (size_t)1 << 24;
                u[f][r] = ns_per_call(t_load_at, d + page + dof, s + so, n);
            }
        }
        printf("%5zu B %d:%d +%d", n, so, dof, page);
        for (int f = 0; f < 8; f++)
            printf("  %s %.2f", names[f], median(t[f], 31));
        printf("\n      load1br, the word at page offset:");
        for (int f = 0; f < 4; f++)
            printf("  %d %.2f", offs[f], median(u[f], 31));
        printf("  (stores at %d-%zu)\n", page + dof, (page + dof + n - 1) % 4096);
    }
    return 0;
}
