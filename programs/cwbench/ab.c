/* `cwbench --ab A B`: a live, interleaved comparison of two routines per
 * size, with the Mann-Whitney verdict and a geometric-mean row. */
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

int cwb_cmd_ab(const struct cwb_opts *o)
{
    double t_start = cwb_now();
    const struct cwb_routine *rt[2] = {cwb_routine_find(o->ab_a), cwb_routine_find(o->ab_b)};
    if (rt[0] == rt[1])
        return cwb_usage_error("--ab %s %s: the two routines must differ", o->ab_a, o->ab_b);
    const size_t *sizes = o->n_sizes ? o->sizes : o->quick ? quick_sizes : full_sizes;
    size_t ns = o->n_sizes ? o->n_sizes
              : o->quick ? sizeof quick_sizes / sizeof quick_sizes[0]
                         : sizeof full_sizes / sizeof full_sizes[0];
    int samples = o->samples ? o->samples : o->quick ? 3 : 15;
    size_t pool = 0;
    for (size_t i = 0; i < ns; i++)
        if (sizes[i] > pool)
            pool = sizes[i];
    pool += (size_t)64 << 10;
    struct cwb_engine e;
    if (cwb_engine_init(&e, pool, samples, o->quick ? 20e-6 : 100e-6, o->seed) != 0) {
        fprintf(stderr, "cwbench: cannot allocate %zu MiB of buffers\n", 3 * pool >> 20);
        return 1;
    }
    struct cwb_results res;
    cwb_results_init(&res);
    cwb_common_meta(&res, o, "cwbench --ab");

    printf("cwbench --ab: A = %s (%s), B = %s (%s)\n", rt[0]->name, rt[0]->what, rt[1]->name,
           rt[1]->what);
    printf("hot buffers, %d interleaved samples per side after a warm-up, GB/s (bytes counted "
           "once), median ±half IQR; B/A = Hodges-Lehmann ratio with its %s CI\n\n", samples,
           "95%");
    printf("%-10s %14s %14s %7s %17s  %s\n", "size", "A GB/s", "B GB/s", "B/A", "95% CI",
           "verdict (B vs A)");
    double ratios[CWB_MAX_SIZES];
    size_t nr = 0, faster = 0, slower = 0, noise = 0;
    int failed = 0, few = 0;
    cwb_progress_begin("a/b", ns);
    for (size_t i = 0; i < ns; i++) {
        char sz[32], ca[32], cb[32], ci[48], v[160];
        cwb_fmt_size(sizes[i], sz, sizeof sz);
        struct cwb_spec sp = {.state = CWB_HOT, .size = sizes[i]};
        struct cwb_run runs[2];
        if (cwb_measure(&e, &sp, rt, 2, runs) != 0)
            failed = 1;
        double *x[2] = {NULL, NULL};
        for (int j = 0; j < 2; j++) {
            if (runs[j].unavailable || runs[j].failed)
                fprintf(stderr, "cwbench: %s\n", runs[j].err);
            x[j] = malloc((runs[j].n + 1) * sizeof(double));
            if (x[j] != NULL)
                cwb_run_gbps(&runs[j], x[j], NULL);
            cwb_add_run(&res, rt[j]->name, "throughput", &sp, &runs[j]);
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
            printf("%-10s %14s %14s %7.3f %17s  %s\n", sz, ca, cb, c.ratio, ci,
                   cwb_verdict(&c, 1, v, sizeof v));
            ratios[nr++] = c.ratio;
            few |= c.few_samples;
            if (!c.significant)
                noise++;
            else if (c.ratio > 1)
                faster++;
            else
                slower++;
        }
        for (int j = 0; j < 2; j++) {
            free(x[j]);
            cwb_run_free(&runs[j]);
        }
        cwb_progress_step(i + 1);
    }
    cwb_progress_end();
    if (nr > 0) {
        double g = cwb_geomean(ratios, nr);
        printf("%-10s %14s %14s %7.3f\n", "geomean", "", "", g);
        printf("\noverall: B is %s than A by %.1f%% (geometric mean over %zu sizes): "
               "significantly faster at %zu, slower at %zu, within noise at %zu\n",
               g >= 1 ? "faster" : "slower", fabs(g - 1) * 100, nr, faster, slower, noise);
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
