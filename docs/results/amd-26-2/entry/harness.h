/* SPDX-License-Identifier: MIT */
/* What the standalone harnesses of this directory (cmp.c, mix.c,
 * realcall.c) share: the clock and the order of doubles for qsort. */
#ifndef ENTRY_HARNESS_H
#define ENTRY_HARNESS_H

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

#endif
