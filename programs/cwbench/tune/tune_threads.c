/* SPDX-License-Identifier: MIT */
/* `cwbench tune`, decision 7 (parallel_threads): where cw_copy_parallel's
 * bandwidth stops growing with threads. One cold cell of t->big bytes holds
 * cw_copy_parallel at every thread count from 1 to what the pool would use
 * for that size on this process's CPUs, interleaved like the other
 * decisions' candidates; the choice is the smallest count that the best
 * count does not beat by a significant 5% or more. A count still growing at
 * every CPU the process may run on is written as 0, the setting's "every
 * CPU the caller may run on": the measurement found no limit below that. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/format.h"
#include "engine/measure.h"
#include "engine/routines.h"
#include "engine/team.h"
#include "results/stats.h"
#include "tune/tune.h"

/* More threads must be at least this much faster (significantly) to be
 * worth their wake-ups and the cores they take from the program. */
#define WORTH_IT 1.05

int tune_parallel_threads(struct cwb_engine *e, const struct tune_opts *t, size_t *threads,
                          char *why, size_t cap)
{
    unsigned cpus = cwb_affinity_cpus();
    unsigned most = cwb_pool_threads(t->big, cpus < CWB_TEAM_MAX ? cpus : CWB_TEAM_MAX);
    char b[32];
    cwb_fmt_size(t->big, b, sizeof b);
    if (cpus < 2) {
        snprintf(why, cap, "not measured: this process may run on 1 CPU (counting threads "
                 "needs 2 or more); the value in force kept");
        return 0;
    }
    if (most < 2) {
        snprintf(why, cap, "not measured: cw_copy_parallel gives a %s copy 1 thread "
                 "(parallel_min); the value in force kept", b);
        return 0;
    }
    struct cwb_split_routine r[CWB_TEAM_MAX];
    const struct cwb_routine *rt[CWB_TEAM_MAX];
    struct cwb_run runs[CWB_TEAM_MAX];
    double *x[CWB_TEAM_MAX], med[CWB_TEAM_MAX];
    for (unsigned i = 0; i < most; i++) {
        cwb_split_routine_set(&r[i], CWB_SPLIT_POOL, i + 1);
        rt[i] = &r[i].rt;
    }
    struct cwb_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.state = CWB_COLD;
    sp.size = t->big;
    fprintf(stderr, "cwbench tune: parallel threads (1/1)\n");
    int rc = cwb_measure(e, &sp, rt, most, runs);
    unsigned best = 0;
    for (unsigned i = 0; i < most; i++) {
        x[i] = malloc((runs[i].n + 1) * sizeof(double));
        if (runs[i].failed)
            fprintf(stderr, "cwbench tune: %s: %s\n", r[i].name, runs[i].err);
        if (x[i] == NULL || runs[i].n == 0)
            rc = -1;
        else
            cwb_run_gbps(&runs[i], x[i], NULL);
        med[i] = cwb_run_median_gbps(&runs[i]);
        if (rc == 0 && med[i] > med[best])
            best = i;
    }
    /* the smallest count the best one does not beat by a significant 5% */
    unsigned pick = best;
    for (unsigned i = 0; rc == 0 && i < best; i++) {
        struct cwb_cmp c;
        if (cwb_compare(x[i], runs[i].n, x[best], runs[best].n, 0.05, &c) != 0) {
            rc = -1;
            break;
        }
        if (!(c.significant && c.ratio >= WORTH_IT)) {
            pick = i;
            break;
        }
    }
    if (rc == 0) {
        *threads = pick + 1 == cpus ? 0 : pick + 1;
        size_t len = (size_t)snprintf(why, cap, "cw_copy_parallel cold %s, GB/s by threads:", b);
        for (unsigned i = 0; i < most && len < cap; i++)
            len += (size_t)snprintf(why + len, cap - len, " %u %.2f%s", i + 1, med[i],
                                    i == pick ? " (chosen)" : "");
        if (len < cap)
            snprintf(why + len, cap - len, "%s", *threads == 0
                     ? "; still growing at every CPU of this process: 0 (every CPU)"
                     : "; more threads add less than 5% (or nothing significant)");
    }
    for (unsigned i = 0; i < most; i++) {
        free(x[i]);
        cwb_run_free(&runs[i]);
    }
    return rc == 0 ? 0 : -1;
}
