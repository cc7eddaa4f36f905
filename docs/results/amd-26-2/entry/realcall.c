/* SPDX-License-Identifier: MIT */
/* Each routine called the way a program calls it: glibc's memcpy through
 * the PLT (-fno-builtin), cw_memcpy (static library) by a direct call; a
 * loop of its own per routine (one call site each), rounds interleaved in
 * rotating order. Two builds of cw_memcpy side by side: old_cw_memcpy is a
 * base commit's library with its symbols renamed (see cmp.c).
 *   gcc -O2 -fno-builtin realcall.c old.o NEW/src/libcachewise.a -lpthread -o realcall
 *   taskset -c 1 ./realcall SRC_OFF DST_OFF SIZE... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "harness.h"

void *cw_memcpy(void *restrict, const void *restrict, size_t);
void *old_cw_memcpy(void *restrict, const void *restrict, size_t);

#define LOOP(name, call)                                                                         \
    static __attribute__((noinline, aligned(64))) void name(unsigned char *d,                   \
                                                            const unsigned char *s, size_t n,   \
                                                            long k)                             \
    {                                                                                            \
        for (long i = 0; i < k; i++) {                                                           \
            call(d, s, n);                                                                       \
            __asm__ volatile("" ::: "memory");                                                   \
        }                                                                                        \
    }
LOOP(loop_glibc, memcpy)
LOOP(loop_old, old_cw_memcpy)
LOOP(loop_new, cw_memcpy)

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    int soff = atoi(argv[1]), doff = atoi(argv[2]);
    unsigned char *buf = mmap(0, 1 << 22, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED)
        return 1;
    memset(buf, 1, 1 << 22);
    unsigned char *s = buf + 4096 + soff, *d = buf + (1 << 20) + doff;
    void (*loops[3])(unsigned char *, const unsigned char *, size_t, long) = {loop_glibc, loop_old,
                                                                              loop_new};
    for (int a = 3; a < argc; a++) {
        size_t n = strtoul(argv[a], NULL, 0);
        long k = (long)(200000000 / (n + 64));
        enum { R = 31 };
        double t[3][R], on[R];
        for (int r = 0; r < R; r++)
            for (int j = 0; j < 3; j++) {
                int i = (j + r) % 3;
                double t0 = now();
                loops[i](d, s, n, k);
                t[i][r] = (now() - t0) / k;
            }
        for (int r = 0; r < R; r++)
            on[r] = t[1][r] / t[2][r];
        qsort(on, R, sizeof(double), by_value);
        for (int i = 0; i < 3; i++)
            qsort(t[i], R, sizeof(double), by_value);
        printf("%6zu B %d:%d  ns/call glibc %.2f  old %.2f  new %.2f  | x glibc old %.3f new %.3f "
               "| new faster by x%.3f [%.3f, %.3f]\n",
               n, soff, doff, t[0][R / 2], t[1][R / 2], t[2][R / 2], t[0][R / 2] / t[1][R / 2],
               t[0][R / 2] / t[2][R / 2], on[R / 2], on[R / 4], on[3 * R / 4]);
    }
    return 0;
}
