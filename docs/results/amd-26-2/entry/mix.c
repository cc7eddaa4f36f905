/* SPDX-License-Identifier: MIT */
/* cw_memcpy against glibc's memcpy on sort's copy mix (the shim's profile,
 * data/program-profiles/sort.sizes: 73.7% 32 B, 17.5% 64 B, 6.4% 96 B,
 * 1.5% 128 B, the rest dropped), each call at fresh random offsets in a
 * 64 KiB region per buffer, both through a volatile function pointer from
 * one loop, interleaved round by round.
 *   gcc -O2 mix.c BUILD/src/libcachewise.a -lpthread -o mix
 *   taskset -c 1 ./mix */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "harness.h"

typedef void *(*copy_fn)(void *, const void *, size_t);
extern void *cw_memcpy(void *restrict, const void *restrict, size_t);

int main(void)
{
    enum { N = 1 << 16, ROUNDS = 21, REGION = 1 << 16 };
    unsigned char *buf = mmap(0, 1 << 24, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED)
        return 1;
    memset(buf, 1, 1 << 24);
    static size_t n[N], so[N], dof[N];
    for (int k = 0; k < N; k++) {
        uint64_t u = next() % 10000;
        n[k] = u < 7366 ? 32 : u < 9120 ? 64 : u < 9763 ? 96 : 128;
        so[k] = next() % REGION;
        dof[k] = next() % REGION;
    }
    unsigned char *s = buf + 4096, *d = buf + (1 << 22) + 2048;
    copy_fn f[2] = {(copy_fn)memcpy, cw_memcpy};
    double t[2][ROUNDS], ratio[ROUNDS];
    copy_fn volatile fp;
    for (int r = 0; r < ROUNDS; r++)
        for (int j = 0; j < 2; j++) {
            int i = (j + r) & 1;
            fp = f[i];
            copy_fn g = fp;
            double t0 = now();
            for (int k = 0; k < N; k++) {
                g(d + dof[k], s + so[k], n[k]);
                __asm__ volatile("" ::: "memory");
            }
            t[i][r] = (now() - t0) / N;
        }
    for (int r = 0; r < ROUNDS; r++)
        ratio[r] = t[0][r] / t[1][r];
    qsort(ratio, ROUNDS, sizeof(double), by_value);
    qsort(t[0], ROUNDS, sizeof(double), by_value);
    qsort(t[1], ROUNDS, sizeof(double), by_value);
    printf("glibc %.3f ns/call  cw_memcpy %.3f ns/call  cw_memcpy x glibc %.3f [%.3f, %.3f]\n",
           t[0][ROUNDS / 2], t[1][ROUNDS / 2], ratio[ROUNDS / 2], ratio[ROUNDS / 4],
           ratio[3 * ROUNDS / 4]);
    return 0;
}
