/* SPDX-License-Identifier: MIT */
/* `cwbench dist FILE`: call sizes drawn from a size-distribution file (as
 * LLVM libc benchmarks memcpy on fleet distributions), at random source and
 * destination offsets within an L1-sized region; calls/s and bytes/s per
 * routine, interleaved, with verdicts against glibc memcpy. The batches run
 * on fresh sequences (engine/fresh.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/format.h"
#include "base/progress.h"
#include "cmd/cmd.h"
#include "cmd/common.h"
#include "cmd/options.h"
#include "engine/dist.h"
#include "engine/fresh.h"
#include "engine/measure.h"
#include "engine/routines.h"
#include "platform/machine.h"
#include "results/results.h"
#include "results/stats.h"
#include "results/verdict.h"
#include "cachewise.h"

static const char *const default_routines[] = {
    "cw_memcpy", "glibc_memcpy", "rep_movsb", "cw_memcpy_nt", NULL,
};

static void add_cell(struct cwb_results *res, const char *name, size_t size, const double *cps,
                     const struct cwb_run *run)
{
    struct cwb_cell proto;
    memset(&proto, 0, sizeof proto);
    snprintf(proto.routine, sizeof proto.routine, "%s", name);
    snprintf(proto.bench, sizeof proto.bench, "dist");
    snprintf(proto.state, sizeof proto.state, "random");
    snprintf(proto.unit, sizeof proto.unit, "calls/s");
    proto.size = size;
    proto.src_off = proto.dst_off = -1;
    proto.higher_is_better = 1;
    double *cpu = malloc(run->n * sizeof(double) + 1);
    if (cpu != NULL)
        for (size_t k = 0; k < run->n; k++)
            cpu[k] = run->cpu[k] > 0 ? (double)run->calls / run->cpu[k] : NAN;
    cwb_results_add(res, &proto, cps, cpu, run->n);
    free(cpu);
}

static void print_table(const struct cwb_routine *const *rt, size_t nrt, struct cwb_run *runs,
                        double *const *cps, double mean_size)
{
    size_t g = cwb_routine_index(rt, nrt, "glibc_memcpy");
    printf("%-22s %10s %*s %8s %8s %8s  %s\n", "routine", "Mcalls/s", cwb_colw("±%", 6), "±%",
           "GB/s", "ns/call", "batch", "verdict vs glibc_memcpy (calls/s)");
    for (size_t j = 0; j < nrt; j++) {
        if (runs[j].n == 0 || cps[j] == NULL) {
            printf("%-22s %s\n", rt[j]->name, runs[j].failed ? "FAILED" : "n/a");
            if (runs[j].failed || runs[j].unavailable)
                fprintf(stderr, "cwbench: %s\n", runs[j].err);
            continue;
        }
        double med, spread;
        cwb_median_spread(cps[j], runs[j].n, &med, &spread);
        char v[320] = "(baseline)", sp[16], mt[64];
        struct cwb_cmp c;
        if (j != g && g < nrt && cps[g] != NULL &&
            cwb_compare(cps[g], runs[g].n, cps[j], runs[j].n, 0.05, &c) == 0)
            cwb_verdict(&c, 1, v, sizeof v);
        else if (j != g)
            snprintf(v, sizeof v, "-");
        /* A two-mode routine's spread means nothing: its modes follow. */
        struct cwb_modes m;
        cwb_modes(cps[j], runs[j].n, &m);
        snprintf(sp, sizeof sp, m.two ? "2 modes" : "%.1f", spread * 100);
        printf("%-22s %10.2f %6s %8.2f %8.1f %8zu  %s%s\n", rt[j]->name, med / 1e6, sp,
               med * mean_size / 1e9, 1e9 / med, runs[j].calls, v,
               runs[j].preempted ? " *" : "");
        if (m.two) {
            struct cwb_modes mm = m;
            mm.lo /= 1e6;
            mm.hi /= 1e6;
            printf("%-22s two-mode: %s Mcalls/s (median of each mode, share of the samples)\n",
                   "", cwb_modes_text(&mm, mt, sizeof mt));
        }
    }
}

int cwb_cmd_dist(const struct cwb_opts *o)
{
    double t_start = cwb_now();
    const struct cwb_routine *rt[CWB_MAX_ROUTINES];
    size_t nrt;
    if (cwb_pick_routines(o->routines, default_routines, rt, &nrt) != 0)
        return 2;
    struct cwb_dist d;
    char err[512];
    if (cwb_dist_load(&d, o->file, err, sizeof err) != 0)
        return cwb_usage_error("%s", err);
    size_t maxn = 0;
    for (size_t i = 0; i < d.n; i++)
        maxn = d.sizes[i] > maxn ? d.sizes[i] : maxn;
    size_t l1 = cw_get_info()->l1d_size ? cw_get_info()->l1d_size : (size_t)32 << 10;
    /* Any size of the file can be drawn in any batch: the region holds the
     * largest one at the last offset. */
    size_t region = l1 + maxn;
    /* Batches of at least 0.5 ms: the fastest routines then replay most
     * of a 64Ki-call sequence in one (10-20 ns a call). */
    int samples = o->samples ? o->samples : o->quick ? 3 : 15;
    struct cwb_seq seq;
    struct cwb_engine e;
    if (cwb_seq_init(&seq, &d, cwb_seq_calls(), l1, o->seed) != 0 ||
        cwb_engine_init(&e, region + ((size_t)64 << 10), samples, o->quick ? 20e-6 : 500e-6,
                        o->seed) != 0) {
        fprintf(stderr, "cwbench: cannot allocate the buffers (%zu MiB each)\n",
                (region >> 20) + 1);
        cwb_seq_free(&seq);
        cwb_dist_free(&d);
        return 1;
    }
    e.stack_at = o->stack_at;
    size_t asked = seq.n;
    struct cwb_results res;
    cwb_results_init(&res);
    cwb_common_meta(&res, o, "cwbench dist");
    cwb_emulation_banner(stdout, 1);
    cwb_results_meta(&res, "dist_file", o->file);
    char a[32], b[32];
    printf("cwbench dist %s: %zu distinct sizes, mean %.1f B, max %s\n", o->file, d.n,
           d.mean_size, cwb_fmt_size(maxn, a, sizeof a));
    printf("calls: sequences of %zu calls, each call's size drawn from the file's "
           "probabilities and its source\nand destination offsets uniform in [0, %s) (any "
           "alignment), by splitmix64 (seed %llu). Before\nevery batch a routine gets a "
           "sequence it has not run (drawn afresh; the routines of a sample\nround share one), "
           "and the batch replays it from the start, each call once: no call pattern\n"
           "repeats for the branch predictor to learn. %d interleaved samples per routine.\n\n",
           seq.n, cwb_fmt_size(l1, b, sizeof b), (unsigned long long)o->seed, samples);
    fflush(stdout);
    struct cwb_spec sp[CWB_MAX_ROUTINES];
    for (size_t j = 0; j < nrt; j++)
        sp[j] = (struct cwb_spec){.state = CWB_RANDOM, .size = (size_t)(d.mean_size + 0.5),
                                  .region = region, .src_off = -1, .dst_off = -1};
    struct cwb_run runs[CWB_MAX_ROUTINES];
    int wrapped;
    /* Progress in batches: per routine a pilot (a calibration of about
     * seven batches and one sample), then a calibration and the samples. */
    seq.progress = 1;
    cwb_progress_begin("dist", (size_t)(samples + 15) * nrt);
    int failed = cwb_measure_fresh(&e, sp, rt, nrt, &seq, runs, &wrapped) != 0;
    cwb_progress_end();

    double *cps[CWB_MAX_ROUTINES];
    for (size_t j = 0; j < nrt; j++) {
        cps[j] = NULL;
        if (runs[j].n == 0 || (cps[j] = malloc(runs[j].n * sizeof(double))) == NULL)
            continue;
        for (size_t k = 0; k < runs[j].n; k++)
            cps[j][k] = (double)runs[j].calls / runs[j].wall[k];
        add_cell(&res, rt[j]->name, sp[j].size, cps[j], &runs[j]);
    }
    print_table(rt, nrt, runs, cps, d.mean_size);
    printf("\nbatch: calls per sample (time-calibrated, at most the sequence length); GB/s = "
           "calls/s x the file's\nmean size; the verdict's estimate is the Hodges-Lehmann ratio "
           "of calls/s (HL ratio). %llu sequences drawn", seq.draws);
    if (seq.n != asked)
        printf("; the sequence grew from %zu to %zu calls to exceed the longest batch",
               asked, seq.n);
    printf(".\n");
    if (wrapped)
        printf("warning: a batch was longer than the %zu-call sequence and replayed part of "
               "it twice; rerun with --calls %zu\n", seq.n, 2 * seq.n);
    snprintf(a, sizeof a, "%zu", seq.n);
    cwb_results_meta(&res, "dist_sequence_calls", a);
    cwb_results_meta(&res, "dist_sequence", "fresh per batch: sizes from the file, offsets "
                     "uniform in the L1-sized region, splitmix64");
    for (size_t j = 0; j < nrt; j++) {
        free(cps[j]);
        cwb_run_free(&runs[j]);
    }
    cwb_engine_close(&e);
    cwb_seq_free(&seq);
    cwb_dist_free(&d);
    return cwb_finish(&res, o, t_start, 0, failed);
}
