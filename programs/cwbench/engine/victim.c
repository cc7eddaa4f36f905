/* SPDX-License-Identifier: MIT */
/* A pollution victim: a randomly permuted pointer chain, one node per
 * 64-byte line. cwb_victim_evicted walks it warm, after a flush of every
 * line (cold), and after the copy: the short form of the method that
 * pollution.c measures in full, for `cwbench tune` (CW_SRC_NOREUSE, the
 * streaming method) and `cwbench threads --victim`. */
#include <stdlib.h>

#include "base/clock.h"
#include "base/rng.h"
#include "engine/routines.h"
#include "engine/victim.h"
#include "platform/arch.h"
#include "platform/memory.h"

int cwb_victim_make(struct cwb_victim *v, size_t bytes, uint64_t *rng)
{
    v->lines = bytes / 64;
    v->base = cwb_alloc_huge(bytes);
    size_t *order = malloc(v->lines * sizeof *order);
    if (v->base == NULL || order == NULL) {
        free(order);
        return -1;
    }
    for (size_t i = 0; i < v->lines; i++)
        order[i] = i;
    cwb_shuffle(order, v->lines, rng);
    for (size_t i = 0; i < v->lines; i++)
        *(void **)(v->base + order[i] * 64) = v->base + order[(i + 1) % v->lines] * 64;
    free(order);
    return 0;
}

static double victim_walk(const struct cwb_victim *v)
{
    void *p = v->base;
    double t0 = cwb_now();
    for (size_t i = 0; i < v->lines; i++)
        p = *(void *volatile *)p;
    double t1 = cwb_now();
    __asm__ volatile("" : : "r"(p));
    return t1 - t0;
}

static double victim_warm(const struct cwb_victim *v)
{
    double t = victim_walk(v);
    for (int i = 0; i < 6; i++)
        t = victim_walk(v);
    return t;
}

static double victim_cold(const struct cwb_victim *v)
{
    for (size_t i = 0; i < v->lines; i++)
        cwb_flush_line(v->base + i * 64);
    cwb_mfence();
    return victim_walk(v);
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cwb_victim_evicted(const struct cwb_victim *v, const struct cwb_routine *rt,
                          unsigned char *dst, unsigned char *src, size_t n, int reps, double wait)
{
    double fr[16];
    if (reps > 16)
        reps = 16;
    for (int r = 0; r < reps; r++) {
        cwb_fill_nt(src, 1 + r, n);
        double hot = victim_warm(v);
        double cold = victim_cold(v);
        victim_warm(v);
        if (rt != NULL) {
            cwb_routine_prepare(rt); /* a candidate: its policy in force */
            rt->fn(dst, src, n);
        } else {
            double until = cwb_now() + wait;
            while (cwb_now() < until)
                ;
        }
        double after = victim_walk(v);
        fr[r] = cold > hot ? (after - hot) / (cold - hot) : 0;
        if (fr[r] < 0)
            fr[r] = 0;
    }
    qsort(fr, (size_t)reps, sizeof fr[0], cmp_dbl);
    return fr[reps / 2];
}
