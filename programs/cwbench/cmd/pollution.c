/* SPDX-License-Identifier: MIT */
/* `cwbench pollution`: the evicted fraction of a victim working set after
 * one copy, per routine and copy size (the measurement: engine/pollution.c). */
#include <stdio.h>

#include "base/clock.h"
#include "cmd/cmd.h"
#include "cmd/common.h"
#include "cmd/options.h"
#include "engine/pollution.h"
#include "engine/routines.h"
#include "platform/machine.h"
#include "results/results.h"

int cwb_pollution_run(const struct cwb_opts *o, unsigned victims_mask, size_t copy_bytes,
                      const struct cwb_routine *const *rt, size_t nrt, int reps,
                      struct cwb_results *res)
{
    return cwb_pollution_measure(o->seed, o->pin, victims_mask, &copy_bytes, 1, rt, nrt, reps, 0,
                                 res);
}

static const char *const default_routines[] = {
    "cw_memcpy", "cw_memcpy_nt", "cw_memcpy_flushcache", "cw_copy_nta", "glibc_memcpy",
    "rep_movsb", "stream_avx2", "stream_stnp", "pmem_memcpy_nt", "pmem_memcpy_t", NULL,
};

/* 1-16 MiB copies separate the routines where the background of a 64 MiB
 * copy's 5-18 ms already evicts much of an L2 victim by itself. */
static const size_t full_sizes[] = {1 << 20, 4 << 20, 16 << 20, 64 << 20};

int cwb_cmd_pollution(const struct cwb_opts *o)
{
    double t0 = cwb_now();
    const struct cwb_routine *rt[CWB_MAX_ROUTINES];
    size_t nrt;
    if (cwb_pick_routines(o->routines, default_routines, rt, &nrt) != 0)
        return 2;
    size_t quick_size = (size_t)1 << 20;
    const size_t *sizes = o->n_sizes ? o->sizes : o->quick ? &quick_size : full_sizes;
    size_t nsizes = o->n_sizes ? o->n_sizes
                  : o->quick ? 1 : sizeof full_sizes / sizeof full_sizes[0];
    int reps = o->samples ? o->samples : o->quick ? 3 : 10;
    struct cwb_results res;
    cwb_results_init(&res);
    cwb_common_meta(&res, o, "cwbench pollution");
    cwb_emulation_banner(stdout, 1);
    printf("cwbench pollution: evicted fraction of a victim working set after one copy\n\n");
    cwb_print_machine(stdout);
    printf("\n");
    int rc = cwb_pollution_measure(o->seed, o->pin, o->quick ? 3u : 7u, sizes, nsizes, rt, nrt,
                                   reps, 1, &res);
    return cwb_finish(&res, o, t0, 1, rc);
}
