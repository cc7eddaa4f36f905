/* SPDX-License-Identifier: MIT */
/* `cwbench --ab A B`: a live, interleaved comparison of two routines (or of
 * one routine at two src:dst offsets) per size, hot, cold or at random
 * offsets, with the Mann-Whitney verdict and a geometric-mean row. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/format.h"
#include "base/progress.h"
#include "cmd/align.h"
#include "cmd/cmd.h"
#include "cmd/common.h"
#include "cmd/options.h"
#include "engine/fresh.h"
#include "engine/measure.h"
#include "engine/placement.h"
#include "engine/routines.h"
#include "platform/machine.h"
#include "results/results.h"
#include "results/stats.h"
#include "results/verdict.h"

static const size_t full_sizes[] = {64, 1 << 10, 16 << 10, 256 << 10, 4 << 20, 64 << 20};
static const size_t quick_sizes[] = {64, 4 << 10, 64 << 10};

/* "46.70 ±2%", or for a two-mode side its two modes "5.12|151": a median
 * and a half-IQR describe neither of them. */
static void cell_text(const double *x, const struct cwb_run *r, const struct cwb_modes *m,
                      char *buf, size_t cap)
{
    double med, spread;
    cwb_median_spread(x, r->n, &med, &spread);
    if (m->two)
        snprintf(buf, cap, "%.3g|%.3g%s", m->lo, m->hi, r->preempted ? "*" : "");
    else
        snprintf(buf, cap, "%.2f ±%.0f%%%s", med, spread * 100, r->preempted ? "*" : "");
}

/* The line under a row with a two-mode side: both modes and their shares. */
static void modes_line(const struct cwb_cmp *c)
{
    char ma[64], mb[64];
    if (!c->modes_a.two && !c->modes_b.two)
        return;
    cwb_modes_text(&c->modes_a, ma, sizeof ma);
    cwb_modes_text(&c->modes_b, mb, sizeof mb);
    printf("%-10s two-mode (GB/s, share of the samples):%s%s%s%s\n", "",
           c->modes_a.two ? " A " : "", c->modes_a.two ? ma : "",
           c->modes_b.two ? (c->modes_a.two ? "; B " : " B ") : "", c->modes_b.two ? mb : "");
}

static void side_label(const struct cwb_routine *r, const char *off, char *buf, size_t cap)
{
    if (off != NULL)
        snprintf(buf, cap, "%s at src:dst %s", r->name, off);
    else
        snprintf(buf, cap, "%s (%s)", r->name, r->what);
}

/* Progress units of one size: roughly its time (ms), so that a 64 MiB
 * size weighs what it costs next to a 64-byte one. Two sides, each a
 * calibration (about 8 batches) and the samples; a batch lasts the minimum
 * sample time (0.1 ms) or one copy at about 10 GB/s, whichever is longer. */
static size_t cell_units(size_t size, int samples)
{
    double batch_ms = (double)size / 10e9 * 1e3;
    if (batch_ms < 0.1)
        batch_ms = 0.1;
    return (size_t)(2 * (samples + 8) * batch_ms) + 1;
}

int cwb_cmd_ab(const struct cwb_opts *o)
{
    double t_start = cwb_now();
    const struct cwb_routine *rt[2] = {cwb_routine_find(o->ab_a), cwb_routine_find(o->ab_b)};
    enum cwb_state state = CWB_HOT;
    if (o->state != NULL)
        state = strcmp(o->state, "cold") == 0 ? CWB_COLD
              : strcmp(o->state, "random") == 0 ? CWB_RANDOM : CWB_HOT;
    int off[2][2] = {{0, 0}, {0, 0}};
    if ((o->a_off != NULL && cwb_parse_pair("--a-off", o->a_off, &off[0][0], &off[0][1]) != 0) ||
        (o->b_off != NULL && cwb_parse_pair("--b-off", o->b_off, &off[1][0], &off[1][1]) != 0))
        return 2;
    if (state == CWB_RANDOM && (o->a_off != NULL || o->b_off != NULL))
        return cwb_usage_error("--a-off/--b-off do not apply to --state random (every call "
                               "has its own random offsets)");
    if (rt[0] == rt[1] && off[0][0] == off[1][0] && off[0][1] == off[1][1])
        return cwb_usage_error("--ab %s %s: the two routines must differ (or give "
                               "--a-off/--b-off to compare one routine at two alignments)",
                               o->ab_a, o->ab_b);
    const size_t *sizes = o->n_sizes ? o->sizes : o->quick ? quick_sizes : full_sizes;
    size_t ns = o->n_sizes ? o->n_sizes
              : o->quick ? sizeof quick_sizes / sizeof quick_sizes[0]
                         : sizeof full_sizes / sizeof full_sizes[0];
    int samples = o->samples ? o->samples : o->quick ? 3 : 15;
    size_t biggest = 0;
    for (size_t i = 0; i < ns; i++)
        if (sizes[i] > biggest)
            biggest = sizes[i];
    /* Random offsets need a region of 4x the size (at least 64 KiB); cold
     * copies rotate through a pool of at least 4x the LLC, as in sweep. */
    size_t pool = biggest + ((size_t)64 << 10);
    if (state == CWB_RANDOM)
        pool = (4 * biggest > ((size_t)64 << 10) ? 4 * biggest : (size_t)64 << 10) +
               ((size_t)64 << 10);
    if (state == CWB_COLD) {
        pool = 4 * biggest + ((size_t)64 << 10);
        size_t want = o->quick ? (size_t)8 << 20 : 4 * cwb_llc_bytes();
        if (pool < want)
            pool = want;
    }
    struct cwb_engine e;
    if (cwb_engine_open(&e, pool, samples, o) != 0)
        return 1;
    struct cwb_results res;
    cwb_results_init(&res);
    cwb_common_meta(&res, o, "cwbench --ab");
    cwb_emulation_banner(stdout, 1);

    char la[96], lb[96];
    side_label(rt[0], o->a_off, la, sizeof la);
    side_label(rt[1], o->b_off, lb, sizeof lb);
    printf("cwbench --ab: A = %s, B = %s\n", la, lb);
    printf("state: %s\n",
           state == CWB_HOT ? "hot (the same source and destination every call)"
           : state == CWB_COLD ? "cold (each call the next slot of a pool of 4x the LLC, "
                                 "destination out of the caches)"
                               : "random source and destination offsets (any alignment) in a "
                                 "region of 4x the size, at least 64 KiB");
    if (state != CWB_RANDOM)
        for (int j = 0; j < 2; j++) {
            size_t sa = (CWB_SRC_BASE + (size_t)off[j][0]) % CWB_PAGE;
            size_t da = (CWB_DST_BASE + (size_t)off[j][1]) % CWB_PAGE;
            printf("%s  %c: src at page offset %zu, dst at %zu: (dst - src) mod 4096 = %zu%s\n",
                   j == 0 ? "placement" : "         ", "AB"[j], sa, da,
                   (da - sa + CWB_PAGE) % CWB_PAGE,
                   (da - sa + CWB_PAGE) % CWB_PAGE < CWB_LINE ? " (4K-aliased)" : "");
        }
    if (state == CWB_RANDOM)
        printf("calls: sequences of %zu calls, every call's offsets drawn by splitmix64 (seed "
               "%llu), so every\npage-offset relation occurs; before each batch a side gets a "
               "sequence it has not run (the\nsides of a sample round share one) and replays "
               "it from the start, each call once\n", cwb_seq_calls(),
               (unsigned long long)o->seed);
    printf("%d interleaved samples per side after a warm-up; GB/s (bytes counted once), median "
           "±half IQR\n(two modes: both, low|high); HL B/A = Hodges-Lehmann ratio with its 95%% "
           "CI, the estimate each verdict\nstates; a size where it and the ratio of the medians "
           "point opposite ways is \"inconsistent\"\n\n", samples);
    printf("%-10s %14s %14s %7s %17s  %s\n", "size", "A GB/s", "B GB/s", "HL B/A", "95% CI",
           "verdict (B vs A)");
    double ratios[CWB_MAX_SIZES];
    size_t nr = 0;
    struct cwb_tally tally;
    memset(&tally, 0, sizeof tally);
    int failed = 0, few = 0, wrapped_any = 0;
    size_t units = 0, done = 0;
    for (size_t i = 0; i < ns; i++)
        units += cell_units(sizes[i], samples);
    cwb_progress_begin("a/b", units);
    for (size_t i = 0; i < ns; i++) {
        char sz[32], ca[32], cb[32], ci[48], v[320];
        cwb_fmt_size(sizes[i], sz, sizeof sz);
        struct cwb_spec sp[2];
        struct cwb_run runs[2];
        memset(sp, 0, sizeof sp);
        for (int j = 0; j < 2; j++) {
            sp[j].state = state;
            sp[j].size = sizes[i];
            sp[j].src_off = off[j][0];
            sp[j].dst_off = off[j][1];
        }
        int wrapped = 0, rc;
        if (state == CWB_RANDOM) {
            size_t region = cwb_random_region(sizes[i], e.pool);
            for (int j = 0; j < 2; j++) {
                sp[j].region = region;
                sp[j].src_off = sp[j].dst_off = -1;
            }
            /* Offsets drawn afresh before every batch, the two sides
             * sharing each round's sequence: a short sequence replayed
             * again and again is one the branch predictor learns. */
            rc = cwb_measure_random(&e, sp, rt, 2, sizes[i], region - sizes[i] + 1, o->seed + i,
                                    runs, &wrapped);
        } else {
            rc = cwb_measure_each(&e, sp, rt, 2, runs);
        }
        if (rc != 0)
            failed = 1;
        wrapped_any |= wrapped;
        double *x[2] = {NULL, NULL};
        for (int j = 0; j < 2; j++) {
            if (runs[j].unavailable || runs[j].failed)
                fprintf(stderr, "cwbench: %s\n", runs[j].err);
            x[j] = malloc((runs[j].n + 1) * sizeof(double));
            if (x[j] != NULL)
                cwb_run_gbps(&runs[j], x[j], NULL);
            cwb_add_run(&res, rt[j]->name, "throughput", &sp[j], &runs[j]);
        }
        struct cwb_cmp c;
        cwb_progress_clear();
        if (sizes[i] == 0) {
            printf("%-10s %14s %14s  (size 0 moves no bytes: use sizes > 0)\n", sz, "-", "-");
        } else if (x[0] == NULL || x[1] == NULL || runs[0].n == 0 || runs[1].n == 0 ||
                   cwb_compare(x[0], runs[0].n, x[1], runs[1].n, 0.05, &c) != 0) {
            printf("%-10s %14s %14s  (not comparable: a routine did not run)\n", sz,
                   runs[0].n ? "ok" : "n/a", runs[1].n ? "ok" : "n/a");
        } else {
            cell_text(x[0], &runs[0], &c.modes_a, ca, sizeof ca);
            cell_text(x[1], &runs[1], &c.modes_b, cb, sizeof cb);
            if (c.lo == c.lo)
                snprintf(ci, sizeof ci, "[%.3f, %.3f]", c.lo, c.hi);
            else
                snprintf(ci, sizeof ci, "[n/a]");
            printf("%-10s %*s %*s %7.3f %17s  %s\n", sz, cwb_colw(ca, 14), ca,
                   cwb_colw(cb, 14), cb, c.ratio, ci,
                   cwb_verdict(&c, 1, v, sizeof v));
            modes_line(&c);
            ratios[nr++] = c.ratio;
            few |= c.few_samples;
            cwb_tally_add(&tally, &c);
        }
        for (int j = 0; j < 2; j++) {
            free(x[j]);
            cwb_run_free(&runs[j]);
        }
        cwb_progress_step(done += cell_units(sizes[i], samples));
    }
    cwb_progress_end();
    if (nr > 0) {
        double g = cwb_geomean(ratios, nr);
        char line[320];
        printf("%-10s %14s %14s %7.3f  (geometric mean of the HL ratios)\n", "geomean", "", "",
               g);
        /* The sentence follows the significant sizes only; the geometric
         * mean weighs the sizes within noise too, so it is a figure, never
         * the verdict. */
        printf("\noverall: %s (geometric mean of the HL ratios B/A over the %zu size%s: %.3f)\n",
               cwb_tally_sentence(&tally, "B", "A", "size", line, sizeof line), nr,
               nr == 1 ? "" : "s", g);
    }
    if (wrapped_any)
        printf("warning: a batch was longer than its call sequence and replayed part of it; "
               "rerun with a larger --calls\n");
    if (few)
        printf("warning: fewer than %d samples per side, the test has little power; use "
               "--samples 15 or more\n", CWB_MIN_SAMPLES);
    cwb_engine_close(&e);
    return cwb_finish(&res, o, t_start, 0, failed);
}
