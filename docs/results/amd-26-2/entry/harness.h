/* SPDX-License-Identifier: MIT */
/* What the standalone harnesses of this directory (cmp.c, mix.c,
 * masked-mix.c, realcall.c, solib.c, solib-entries.c) share: the clock, the order of doubles for
 * qsort, a xorshift generator for sizes and offsets, and the draw of sizes
 * from a distribution file. */
#ifndef ENTRY_HARNESS_H
#define ENTRY_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

/* nanoseconds, monotonic */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* size bytes of fresh anonymous memory, every page written (1s); NULL
 * where mmap fails */
static __attribute__((unused)) unsigned char *touched_buffer(size_t size)
{
    unsigned char *buf = mmap(0, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED)
        return NULL;
    for (size_t i = 0; i < size; i++)
        buf[i] = 1;
    return buf;
}

/* the median of rounds values (sorts them) */
static __attribute__((unused)) double median(double *t, int rounds)
{
    qsort(t, (size_t)rounds, sizeof(double), by_value);
    return t[rounds / 2];
}

/* xorshift64, one fixed seed: every run draws the same sequence */
static uint64_t rng = 88172645463325252ull;
static __attribute__((unused)) uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* count calls drawn from a "size probability" file (the shim's profiles,
 * the fleet distributions): n[k] from the file, so[k] and dof[k] uniform
 * in [0, span); -1 where the file cannot be read */
static __attribute__((unused)) int draw_sizes(const char *path, int count, size_t *n,
                                              size_t *so, size_t *dof, size_t span)
{
    static double size[4096], prob[4096];
    int sizes = 0;
    double total = 0;
    char line[256];
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    while (sizes < 4096 && fgets(line, sizeof line, f) != NULL)
        if (line[0] != '#' && sscanf(line, "%lf %lf", &size[sizes], &prob[sizes]) == 2)
            total += prob[sizes++];
    fclose(f);
    for (int k = 0; k < count; k++) {
        double u = (double)(next() % 1000000) / 1e6 * total, c = 0;
        int i = 0;
        while (i < sizes - 1 && (c += prob[i]) <= u)
            i++;
        n[k] = (size_t)size[i];
        so[k] = next() % span;
        dof[k] = next() % span;
    }
    return 0;
}

#endif
