/* SPDX-License-Identifier: MIT */
/* A plain timed loop, outside cwbench: cw_memcpy and glibc's memcpy (through
 * a volatile pointer, so that the compiler keeps the call) copying n bytes
 * from a source SOFF bytes past a page to a destination DOFF bytes past
 * another page 66 KiB above it (not 4K-aliased), 20000 calls a batch, batches of the two
 * alternating, 200 each; prints the median ns per call of each and their
 * ratio glibc/cw_memcpy (above 1: cw_memcpy faster). Pinned to CPU 1.
 *   cc -O2 -I include order-harness.c BUILD/src/libcachewise.a -lpthread -o h
 *   ./h N SOFF DOFF */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cachewise.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef void *(*copy_fn)(void *, const void *, size_t);

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: h N SOFF DOFF\n");
        return 2;
    }
    size_t n = strtoul(argv[1], NULL, 0), soff = strtoul(argv[2], NULL, 0),
           doff = strtoul(argv[3], NULL, 0);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(1, &set);
    sched_setaffinity(0, sizeof set, &set);
    unsigned char *buf = aligned_alloc(4096, 1 << 20);
    memset(buf, 7, 1 << 20);
    unsigned char *s = buf + soff, *d = buf + 65536 + 2048 + doff;
    copy_fn volatile fns[2] = {cw_memcpy, memcpy};
    enum { BATCH = 20000, NB = 200 };
    static double t[2][NB];
    for (int b = 0; b < NB; b++)
        for (int k = 0; k < 2; k++) {
            copy_fn f = fns[k];
            double t0 = now();
            for (int i = 0; i < BATCH; i++)
                f(d, s, n);
            t[k][b] = (now() - t0) / BATCH * 1e9;
        }
    qsort(t[0], NB, sizeof(double), cmp);
    qsort(t[1], NB, sizeof(double), cmp);
    printf("%zu %zu:%zu cw %.3f glibc %.3f ratio %.3f\n", n, soff, doff, t[0][NB / 2], t[1][NB / 2],
           t[1][NB / 2] / t[0][NB / 2]);
    return 0;
}
