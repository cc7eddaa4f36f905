/* SPDX-License-Identifier: MIT */
/* What the standalone harnesses of this directory (cmp.c, mix.c,
 * masked-mix.c, realcall.c) share: the clock, the order of doubles for
 * qsort and a xorshift generator for sizes and offsets. */
#ifndef ENTRY_HARNESS_H
#define ENTRY_HARNESS_H

#include <stdint.h>
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

/* xorshift64, one fixed seed: every run draws the same sequence */
static uint64_t rng = 88172645463325252ull;
static __attribute__((unused)) uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

#endif
