/* SPDX-License-Identifier: MIT */
/* Hardware counters per routine (platform/counters.c): cycles,
 * instructions and last-level cache misses per byte copied, as in the
 * kernel patch discussions' tables. Many VMs expose no PMU: then the
 * report says "counters: not available" and this table is skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/format.h"
#include "engine/counters_table.h"
#include "engine/measure.h"
#include "engine/routines.h"
#include "platform/counters.h"
#include "results/stats.h"

static double med(double *x, size_t n)
{
    struct cwb_summary s;
    cwb_summarize(x, n, &s);
    return s.median;
}

int cwb_counters_table(struct cwb_engine *e, const struct cwb_routine *const *rt, size_t nrt,
                       size_t big, int reps)
{
    struct cwb_counters c;
    if (cwb_counters_open(&c) != 0)
        return -1;
    const size_t small = 4096, batch = 256;
    if (big + 8192 > e->pool)
        big = e->pool - 8192;
    unsigned char *s = e->src + 4096, *d = e->dst + 4096 + 2048;
    printf("\nCounters (user space, medians of %d runs): per byte copied, LLC misses per KiB\n",
           reps);
    printf("%-22s %10s %10s %10s   %10s %10s %10s\n", "routine", "4K cyc/B", "instr/B",
           "miss/KiB", "big cyc/B", "instr/B", "miss/KiB");
    double *x = calloc((size_t)reps * 6, sizeof *x);
    if (x == NULL) {
        cwb_counters_close(&c);
        return -1;
    }
    int bad = 0;
    for (size_t j = 0; j < nrt; j++) {
        for (int r = 0; r < reps; r++) {
            uint64_t a[CWB_N_COUNTERS], b[CWB_N_COUNTERS];
            rt[j]->fn(d, s, small);
            cwb_counters_read(&c, a);
            for (size_t i = 0; i < batch; i++)
                rt[j]->fn(d, s, small);
            cwb_counters_read(&c, b);
            double bytes = (double)small * batch;
            x[0 * reps + r] = (double)(b[0] - a[0]) / bytes;
            x[1 * reps + r] = (double)(b[1] - a[1]) / bytes;
            x[2 * reps + r] = (double)(b[2] - a[2]) / bytes * 1024;
            cwb_counters_read(&c, a);
            rt[j]->fn(d, s, big);
            cwb_counters_read(&c, b);
            x[3 * reps + r] = (double)(b[0] - a[0]) / (double)big;
            x[4 * reps + r] = (double)(b[1] - a[1]) / (double)big;
            x[5 * reps + r] = (double)(b[2] - a[2]) / (double)big * 1024;
        }
        int ok = cwb_routine_fills(rt[j]) ? d[0] == CWB_FILL_BYTE && d[big - 1] == CWB_FILL_BYTE
                 : memcmp(d, s, big) == 0 || strcmp(rt[j]->name, "cw_copy_safe") == 0;
        bad |= !ok;
        printf("%-22s %10.3f %10.3f %10.3f   %10.3f %10.3f %10.3f%s\n", rt[j]->name,
               med(x, (size_t)reps), med(x + reps, (size_t)reps), med(x + 2 * reps, (size_t)reps),
               med(x + 3 * reps, (size_t)reps), med(x + 4 * reps, (size_t)reps),
               med(x + 5 * reps, (size_t)reps), ok ? "" : "  (wrong bytes!)");
    }
    char sz[32];
    printf("(4K: %zu hot copies of 4 KiB; big: one copy of %s)\n", batch,
           cwb_fmt_size(big, sz, sizeof sz));
    free(x);
    cwb_counters_close(&c);
    return bad;
}
