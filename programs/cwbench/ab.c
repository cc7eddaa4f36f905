/* `cwbench --ab A B`: a live, interleaved comparison of two routines (or of
 * one routine at two src:dst offsets) per size, hot, cold or at random
 * offsets, with the Mann-Whitney verdict and a geometric-mean row. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "stats.h"

static const size_t full_sizes[] = {64, 1 << 10, 16 << 10, 256 << 10, 4 << 20, 64 << 20};
static const size_t quick_sizes[] = {64, 4 << 10, 64 << 10};

static void cell_text(const double *x, const struct cwb_run *r, char *buf, size_t cap)
{
    double med, spread;
    cwb_median_spread(x, r->n, &med, &spread);
    snprintf(buf, cap, "%.2f ±%.0f%%%s", med, spread * 100, r->preempted ? "*" : "");
}

static void side_label(const struct cwb_routine *r, const char *off, char *buf, size_t cap)
{
    if (off != NULL)
        snprintf(buf, cap, "%s at src:dst %s", r->name, off);
    else
        snprintf(buf, cap, "%s (%s)", r->name, r->what);
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

    char la[96], lb[96];
    side_label(rt[0], o->a_off, la, sizeof la);
    side_label(rt[1], o->b_off, lb, sizeof lb);
    printf("cwbench --ab: A = %s, B = %s\n", la, lb);
    printf("state: %s\n",
           state == CWB_HOT ? "hot (the same source and destination every call)"
           : state == CWB_COLD ? "cold (each call the next slot of a pool of 4x the LLC, "
                                 "destination out of the caches)"
                               : "random source and destination offsets (any alignment) in a "
                                 "region of 4x the size, at least 64 KiB; both sides replay "
                                 "the same calls");
    printf("%d interleaved samples per side after a warm-up; GB/s (bytes counted once), median "
           "±half IQR;\nB/A = Hodges-Lehmann ratio with its 95%% CI\n\n", samples);
    printf("%-10s %14s %14s %7s %17s  %s\n", "size", "A GB/s", "B GB/s", "B/A", "95% CI",
           "verdict (B vs A)");
    double ratios[CWB_MAX_SIZES];
    size_t nr = 0;
    struct cwb_tally tally = {0, 0, 0};
    int failed = 0, few = 0;
    cwb_progress_begin("a/b", ns);
    for (size_t i = 0; i < ns; i++) {
        char sz[32], ca[32], cb[32], ci[48], v[160];
        cwb_fmt_size(sizes[i], sz, sizeof sz);
        struct cwb_spec sp[2];
        struct cwb_call *calls = NULL;
        memset(sp, 0, sizeof sp);
        for (int j = 0; j < 2; j++) {
            sp[j].state = state;
            sp[j].size = sizes[i];
            sp[j].src_off = off[j][0];
            sp[j].dst_off = off[j][1];
        }
        if (state == CWB_RANDOM) {
            size_t region = sizes[i] * 4 > ((size_t)64 << 10) ? sizes[i] * 4 : (size_t)64 << 10;
            if (region > e.pool - 16384)
                region = e.pool - 16384;
            /* Both sides replay the same calls: the comparison is paired. */
            calls = cwb_random_calls(sizes[i], region, 1024, &e.rng);
            for (int j = 0; j < 2; j++) {
                sp[j].calls = calls;
                sp[j].n_calls = calls ? 1024 : 0;
                sp[j].region = region;
                sp[j].src_off = sp[j].dst_off = -1;
            }
        }
        struct cwb_run runs[2];
        if (cwb_measure_each(&e, sp, rt, 2, runs) != 0)
            failed = 1;
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
            cell_text(x[0], &runs[0], ca, sizeof ca);
            cell_text(x[1], &runs[1], cb, sizeof cb);
            if (c.lo == c.lo)
                snprintf(ci, sizeof ci, "[%.3f, %.3f]", c.lo, c.hi);
            else
                snprintf(ci, sizeof ci, "[n/a]");
            printf("%-10s %*s %*s %7.3f %17s  %s\n", sz, cwb_colw(ca, 14), ca,
                   cwb_colw(cb, 14), cb, c.ratio, ci,
                   cwb_verdict(&c, 1, v, sizeof v));
            ratios[nr++] = c.ratio;
            few |= c.few_samples;
            cwb_tally_add(&tally, &c);
        }
        for (int j = 0; j < 2; j++) {
            free(x[j]);
            cwb_run_free(&runs[j]);
        }
        free(calls);
        cwb_progress_step(i + 1);
    }
    cwb_progress_end();
    if (nr > 0) {
        double g = cwb_geomean(ratios, nr);
        printf("%-10s %14s %14s %7.3f\n", "geomean", "", "", g);
        printf("\noverall: B is %s than A by %.1f%% (geometric mean over %zu sizes): "
               "significantly faster at %zu, slower at %zu, within noise at %zu\n",
               g >= 1 ? "faster" : "slower", fabs(g - 1) * 100, nr, tally.faster, tally.slower,
               tally.noise);
    }
    if (few)
        printf("warning: fewer than %d samples per side, the test has little power; use "
               "--samples 15 or more\n", CWB_MIN_SAMPLES);
    cwb_print_preemption(&e);
    cwb_engine_free(&e);
    if (cwb_write_outputs(&res, o) != 0)
        failed = 1;
    cwb_results_free(&res);
    printf("total time %.1f s\n", cwb_now() - t_start);
    return failed ? 1 : 0;
}
