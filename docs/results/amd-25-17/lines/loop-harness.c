/* SPDX-License-Identifier: MIT */
/* A plain timed loop around cw_memcpy, outside cwbench: n bytes from a
 * page-aligned source to a destination DIST bytes past it, 20000 calls a
 * batch, 200 batches under memcpy_mid = direct and 200 under direct-lines
 * (one after the other, or alternating batch by batch with ALT 1), the
 * median ns per call of each. Pinned to CPU 1. Built against the static
 * library of the build to measure:
 *   cc -O2 -I include loop-harness.c BUILD/src/libcachewise.a -lpthread -o loop-harness
 *   ./loop-harness N ALT DIST */
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

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: loop-harness N ALT DIST\n");
        return 2;
    }
    size_t n = strtoul(argv[1], NULL, 0), dist = strtoul(argv[3], NULL, 0);
    int alternate = atoi(argv[2]);
    if (n == 0 || n > 4096 || dist < n || dist > (1 << 19)) {
        fprintf(stderr, "loop-harness: N in 1..4096, DIST in N..512K\n");
        return 2;
    }
    cpu_set_t cs;
    CPU_ZERO(&cs);
    CPU_SET(1, &cs);
    sched_setaffinity(0, sizeof cs, &cs);
    unsigned char *buf = aligned_alloc(4096, 1 << 20);
    if (buf == NULL)
        return 1;
    memset(buf, 1, 1 << 20);
    unsigned char *s = buf, *d = buf + dist;
    static const char *const pol[2] = {"memcpy_mid = direct\n", "memcpy_mid = direct-lines\n"};
    static double t[2][200];
    int k[2] = {0, 0};
    char err[120];
    for (int b = 0; b < 400; b++) {
        int p = alternate ? (b & 1) : (b >= 200);
        if ((alternate || b == 0 || b == 200) && cw_settings_apply(pol[p], err, sizeof err) != 0) {
            fprintf(stderr, "loop-harness: %s\n", err);
            return 1;
        }
        double t0 = now();
        for (int i = 0; i < 20000; i++) {
            cw_memcpy(d, s, n);
            __asm__ volatile("" : : "r"(d) : "memory");
        }
        t[p][k[p]++] = (now() - t0) / 20000 * 1e9;
    }
    for (int p = 0; p < 2; p++) {
        qsort(t[p], (size_t)k[p], sizeof(double), cmp);
        printf("%-12s n=%zu dist=%zu alt=%d median %.2f ns\n", p ? "direct-lines" : "direct", n,
               dist, alternate, t[p][k[p] / 2]);
    }
    return 0;
}
