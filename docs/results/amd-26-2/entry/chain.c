/* SPDX-License-Identifier: MIT */
/* What cw_memcpy's way to its kernel costs a 320-800 B copy: glibc's memcpy
 * (its resolved address), cw_memcpy, and the avx512-evex row's two kernels
 * that cw_memcpy reaches past 128 B (memcpy_large, the one the amd-zen5
 * profile publishes, and the row's general copy), each called through a
 * function pointer, in one process; medians of 31 rounds of 20000 calls,
 * ns a call. Arguments: source offset, destination offset, the
 * destination's distance into its page (0: 4K-aliased with the source;
 * 2048: not), then the sizes. Build and run (docs/results/amd-26-2/README.md,
 * "Two entry variants measured and not kept"):
 *   gcc -O2 -DCWI_HAVE_AVX512_EVEX=1 -Iinclude -Isrc \
 *       docs/results/amd-26-2/entry/chain.c build/src/libcachewise.a -lpthread -o chain
 *   taskset -c 1 ./chain 0 0 2048 320 384 448 512 800 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cachewise.h"
#include "internal.h"
#include "harness.h"

typedef void *(*copy_fn)(void *, const void *, size_t);
static volatile copy_fn glibc_fn = memcpy, cw_fn = cw_memcpy;
static volatile copy_fn large_fn, rowcopy_fn;

int main(int argc, char **argv)
{
    int so, dof, page;
    char *s, *d;
    placed_buffers(argc, argv, "chain", &so, &dof, &page, &s, &d);
    cw_memcpy(d, s, 1000); /* start-up before timing */
    large_fn = cwi_impl_avx512_evex.memcpy_large;
    rowcopy_fn = cwi_impl_avx512_evex.copy;
    copy_fn fs[4] = {glibc_fn, cw_fn, large_fn, rowcopy_fn};
    const char *names[4] = {"glibc", "cw_memcpy", "memcpy_large", "row copy"};
    for (int a = 4; a < argc; a++) {
        size_t n = (size_t)atoi(argv[a]);
        double t[4][31];
        for (int r = 0; r < 31; r++)
            for (int f = 0; f < 4; f++)
                t[f][r] = ns_per_call(fs[f], d + page + dof, s + so, n);
        printf("%5zu B %d:%d +%d", n, so, dof, page);
        for (int f = 0; f < 4; f++)
            printf("  %s %.2f", names[f], median(t[f], 31));
        printf("  ns/call\n");
    }
    return 0;
}
