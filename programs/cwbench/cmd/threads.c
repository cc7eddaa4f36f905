/* SPDX-License-Identifier: MIT */
/* `cwbench threads`: how cw_copy_parallel scales with threads, against what
 * the same threads reach without the library in the same run. For each
 * size, one cell of the engine holds, for every t = 1..N,
 *   cw_copy_parallel(dst, src, n, 0, t)
 *   t threads each running the plain streaming loop on its own slice (the
 *   ceiling: nothing but the loads and streaming stores the memory system
 *   has to carry), started together by a barrier
 *   t threads splitting glibc memcpy by hand
 * so every routine is sampled in the same rounds, in a new random order
 * each round, and drift hits them alike. The table: medians with their
 * spread, cw_copy_parallel against the ceiling (Hodges-Lehmann ratio and
 * its confidence interval, with the verdict), and each against its own
 * t = 1 row. With --victim, threads_victim.c's pollution comparison
 * follows. docs/BENCHMARKS.md ("cwbench threads") explains how to read it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/format.h"
#include "base/progress.h"
#include "cmd/cmd.h"
#include "cmd/common.h"
#include "cmd/options.h"
#include "engine/measure.h"
#include "engine/routines.h"
#include "engine/team.h"
#include "platform/machine.h"
#include "results/results.h"
#include "results/stats.h"
#include "results/verdict.h"

#define MiB ((size_t)1 << 20)
#define KINDS 3 /* CWB_SPLIT_POOL, _STREAM, _GLIBC: a row's routines, in order */

/* "5.12 ±3%": median and half the interquartile range relative to it. */
static const char *cell_text(const double *x, size_t n, char *buf, size_t cap)
{
    double med, spread;
    if (n == 0) {
        snprintf(buf, cap, "failed");
        return buf;
    }
    cwb_median_spread(x, n, &med, &spread);
    if (spread == spread)
        snprintf(buf, cap, "%.2f ±%.0f%%", med, spread * 100);
    else
        snprintf(buf, cap, "%.2f", med);
    return buf;
}

/* b against a as "1.234 [1.101, 1.350]" (the CI "n/a" when the samples
 * are too few to reach 95%); "-" when either side has no samples. */
static const char *ratio_text(const double *a, size_t na, const double *b, size_t nb,
                              struct cwb_cmp *c, char *buf, size_t cap)
{
    if (na == 0 || nb == 0 || cwb_compare(a, na, b, nb, 0.05, c) != 0) {
        memset(c, 0, sizeof *c);
        snprintf(buf, cap, "-");
        return NULL;
    }
    if (c->lo == c->lo)
        snprintf(buf, cap, "%.3f [%.3f, %.3f]", c->ratio, c->lo, c->hi);
    else
        snprintf(buf, cap, "%.3f [n/a]", c->ratio);
    return buf;
}

/* The samples of every routine of one cell, in GB/s. */
struct cell {
    double *x[KINDS * CWB_TEAM_MAX];
    size_t n[KINDS * CWB_TEAM_MAX];
};

static void print_table(size_t size, unsigned nthreads, const struct cell *c, int *few)
{
    char sz[32], a[32], b[32], g[32], r[48], s1[24], s2[24];
    cwb_fmt_size(size, sz, sizeof sz);
    printf("\n%s\n", sz);
    printf("%-7s %-4s %-17s %-11s %-12s %-22s %-13s %-8s %s\n", "threads", "pool",
           "cw_copy_parallel", "ceiling", "glibc split", "parallel/ceiling (HL)", "vs ceiling",
           "speedup", "ceiling speedup");
    int capped = 0;
    for (unsigned t = 1; t <= nthreads; t++) {
        size_t ip = (t - 1) * KINDS, is = ip + 1, ig = ip + 2;
        struct cwb_cmp vs_ceiling, sp_par, sp_ceil;
        const char *word = "-";
        if (ratio_text(c->x[is], c->n[is], c->x[ip], c->n[ip], &vs_ceiling, r, sizeof r) != NULL) {
            word = cwb_verdict_word(&vs_ceiling, 1);
            *few |= vs_ceiling.few_samples;
        }
        if (t == 1) {
            snprintf(s1, sizeof s1, "1 (base)");
            snprintf(s2, sizeof s2, "1 (base)");
        } else {
            char tmp[48];
            if (ratio_text(c->x[0], c->n[0], c->x[ip], c->n[ip], &sp_par, tmp, sizeof tmp))
                snprintf(s1, sizeof s1, "%.2fx", sp_par.ratio);
            else
                snprintf(s1, sizeof s1, "-");
            if (ratio_text(c->x[1], c->n[1], c->x[is], c->n[is], &sp_ceil, tmp, sizeof tmp))
                snprintf(s2, sizeof s2, "%.2fx", sp_ceil.ratio);
            else
                snprintf(s2, sizeof s2, "-");
        }
        unsigned pool = cwb_pool_threads(size, t);
        capped |= pool < t;
        cell_text(c->x[ip], c->n[ip], a, sizeof a);
        cell_text(c->x[is], c->n[is], b, sizeof b);
        cell_text(c->x[ig], c->n[ig], g, sizeof g);
        printf("%-7u %-4u %-*s %-*s %-*s %-22s %-13s %-8s %s\n", t, pool, cwb_colw(a, 17), a,
               cwb_colw(b, 11), b, cwb_colw(g, 12), g, r, word, s1, s2);
    }
    if (capped)
        printf("note: \"pool\" is the thread count cw_copy_parallel uses at this size (its "
               "contract caps the\nrequest at the caller's CPUs and at one thread per "
               "parallel_min / 2 bytes): rows above it\nmeasure fewer threads than they "
               "name\n");
}

/* The pool of the engine: a hot cell reuses the first buffer, a cold one
 * rotates through 4x the largest size (and at least 4x the L3 the policy
 * uses), as --ab does. */
static size_t pool_bytes(const struct cwb_opts *o, enum cwb_state st, size_t biggest)
{
    size_t pool = biggest + ((size_t)64 << 10);
    if (st == CWB_COLD) {
        size_t want = o->quick ? 8 * MiB : 4 * cwb_llc_bytes();
        pool = 4 * biggest + ((size_t)64 << 10);
        if (pool < want)
            pool = want;
    }
    return pool;
}

int cwb_cmd_threads(const struct cwb_opts *o)
{
    static const size_t full_sizes[] = {64 * MiB, 256 * MiB}, quick_sizes[] = {8 * MiB};
    double t_start = cwb_now();
    unsigned cpus = cwb_affinity_cpus();
    unsigned nthreads = o->threads > 0 ? (unsigned)o->threads
                                       : cpus < CWB_TEAM_MAX ? cpus : CWB_TEAM_MAX;
    const size_t *sizes = o->n_sizes ? o->sizes : o->quick ? quick_sizes : full_sizes;
    size_t ns = o->n_sizes ? o->n_sizes : o->quick ? 1 : 2, biggest = 0;
    for (size_t i = 0; i < ns; i++)
        biggest = sizes[i] > biggest ? sizes[i] : biggest;
    enum cwb_state st = o->state != NULL && strcmp(o->state, "hot") == 0 ? CWB_HOT : CWB_COLD;
    int samples = o->samples ? o->samples : o->quick ? 3 : 15;

    struct cwb_engine e;
    if (cwb_engine_open(&e, pool_bytes(o, st, biggest), samples, o) != 0)
        return 1;
    if (cwb_team_start(nthreads) != 0) {
        fprintf(stderr, "cwbench threads: cannot start %u threads\n", nthreads);
        cwb_engine_free(&e);
        return 1;
    }
    size_t nrt = (size_t)nthreads * KINDS;
    struct cwb_split_routine *split = calloc(nrt, sizeof *split);
    const struct cwb_routine **rt = calloc(nrt, sizeof *rt);
    struct cwb_run *runs = calloc(nrt, sizeof *runs);
    if (split == NULL || rt == NULL || runs == NULL) {
        fprintf(stderr, "cwbench threads: out of memory\n");
        free(split), free(rt), free(runs);
        cwb_team_stop();
        cwb_engine_free(&e);
        return 1;
    }
    for (unsigned t = 1; t <= nthreads; t++)
        for (int k = 0; k < KINDS; k++) {
            size_t i = (t - 1) * KINDS + (size_t)k;
            cwb_split_routine_set(&split[i], (enum cwb_split)k, t);
            rt[i] = &split[i].rt;
        }

    struct cwb_results res;
    cwb_results_init(&res);
    cwb_common_meta(&res, o, "cwbench threads");
    char buf[64];
    snprintf(buf, sizeof buf, "%u", nthreads);
    cwb_results_meta(&res, "threads", buf);
    cwb_results_meta(&res, "ceiling_slice_routine", cwb_split_stream_name());
    cwb_emulation_banner(stdout, 1);
    cwb_print_machine(stdout);
    printf("\ncwbench threads: cw_copy_parallel at 1..%u threads (this process may run on %u "
           "CPU%s)\n", nthreads, cpus, cpus == 1 ? "" : "s");
    printf("ceiling: t threads started together by a barrier, each running the plain "
           "streaming loop\n%s%s on its own slice (the slices of cw_copy_part); glibc split: "
           "glibc memcpy on the\nsame threads and slices\n", cwb_split_stream_name(),
#if defined(__x86_64__)
           " (SSE2 movntdq)"
#elif defined(__aarch64__)
           " (LDP/STNP)"
#else
           " (no plain streaming loop on this architecture: glibc memcpy)"
#endif
    );
    printf("state: %s\n", st == CWB_HOT ? "hot (the same source and destination every call)"
                          : "cold (each call the next slot of a pool of 4x the size, "
                            "destination out of the caches)");
    printf("%d interleaved samples per routine after a warm-up, every routine of a size in "
           "the same rounds,\nin a new random order each round; GB/s (bytes copied once), "
           "median ±half IQR; parallel/ceiling:\nHodges-Lehmann ratio with its 95%% CI and "
           "the verdict; speedup, ceiling speedup: HL ratio\nagainst the same column's 1-thread "
           "row\n", samples);

    int failed = 0, few = 0;
    cwb_progress_begin_items("threads", ns, ns);
    for (size_t si = 0; si < ns; si++) {
        struct cwb_spec sp;
        memset(&sp, 0, sizeof sp);
        sp.state = st;
        sp.size = sizes[si];
        if (cwb_measure(&e, &sp, rt, nrt, runs) != 0)
            failed = 1;
        struct cell c;
        memset(&c, 0, sizeof c);
        for (size_t i = 0; i < nrt; i++) {
            if (runs[i].failed)
                fprintf(stderr, "cwbench threads: %s\n", runs[i].err);
            c.x[i] = malloc((runs[i].n + 1) * sizeof(double));
            if (c.x[i] != NULL) {
                cwb_run_gbps(&runs[i], c.x[i], NULL);
                c.n[i] = runs[i].n;
            }
            cwb_add_run(&res, rt[i]->name, "threads", &sp, &runs[i]);
        }
        cwb_progress_clear();
        print_table(sizes[si], nthreads, &c, &few);
        fflush(stdout);
        for (size_t i = 0; i < nrt; i++) {
            free(c.x[i]);
            cwb_run_free(&runs[i]);
        }
        cwb_progress_step(si + 1);
    }
    cwb_progress_end();
    if (few)
        printf("warning: fewer than %d samples per routine, the test has little power; use "
               "--samples 15 or more\n", CWB_MIN_SAMPLES);
    /* CPU time counts every thread of the process, so the engine's check of
     * CPU time against wall time flags every sample of a split copy: its
     * preemption footnote would say nothing here and is left out. */
    cwb_team_stop();
    cwb_engine_free(&e);
    free(split);
    free(rt);
    free(runs);
    if (o->victim && cwb_threads_victim(o, &res) != 0)
        failed = 1;
    return cwb_finish(&res, o, t_start, 0, failed);
}
