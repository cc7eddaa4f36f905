/* SPDX-License-Identifier: MIT */
/* What the subcommands share: routine lists, run metadata, output files. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/rng.h"
#include "cmd/common.h"
#include "cmd/options.h"
#include "engine/measure.h"
#include "engine/routines.h"
#include "platform/machine.h"
#include "results/plot.h"
#include "results/results.h"
#include "results/stats.h"

static const char hint[] =
    "usage: cwbench [sweep|dist FILE|pollution|threads|--ab A B|compare A.json B.json|"
    "workload NAME] [options]   (cwbench --help for all)\n";

int cwb_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("cwbench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    fputs(hint, stderr);
    va_end(ap);
    return 2;
}

int cwb_pick_routines(const char *list, const char *const *deflt,
                      const struct cwb_routine **out, size_t *n)
{
    *n = 0;
    if (list == NULL) {
        for (size_t i = 0; deflt[i] != NULL && *n < CWB_MAX_ROUTINES; i++) {
            const struct cwb_routine *r = cwb_routine_find(deflt[i]);
            if (r != NULL)
                out[(*n)++] = r;
        }
        return 0;
    }
    char buf[1024];
    if (strlen(list) >= sizeof buf)
        return cwb_usage_error("--routines: list too long");
    snprintf(buf, sizeof buf, "%s", list);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
        const struct cwb_routine *r = cwb_routine_find(t);
        if (r == NULL)
            return cwb_usage_error("--routines: unknown routine '%s' (known: %s)", t,
                                   cwb_routine_names());
        for (size_t i = 0; i < *n; i++)
            if (out[i] == r)
                return cwb_usage_error("--routines: '%s' listed twice", t);
        if (*n == CWB_MAX_ROUTINES)
            return cwb_usage_error("--routines: at most %d routines", CWB_MAX_ROUTINES);
        out[(*n)++] = r;
    }
    if (*n == 0)
        return cwb_usage_error("--routines: empty list");
    return 0;
}

int cwb_engine_open(struct cwb_engine *e, size_t pool, int samples, const struct cwb_opts *o)
{
    if (cwb_engine_init(e, pool, samples, o->quick ? 20e-6 : 100e-6, o->seed) != 0) {
        fprintf(stderr, "cwbench: cannot allocate 3 x %zu MiB of buffers\n", pool >> 20);
        return 1;
    }
    e->stack_at = o->stack_at;
    return 0;
}

void cwb_common_meta(struct cwb_results *r, const struct cwb_opts *o, const char *command)
{
    char buf[64];
    cwb_machine_meta(cwb_results_meta_sink, r);
    cwb_results_meta(r, "command", command);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)o->seed);
    cwb_results_meta(r, "seed", buf);
    snprintf(buf, sizeof buf, "%d", o->pin);
    cwb_results_meta(r, "pinned_cpu", buf);
    if (o->stack_at >= 0)
        snprintf(buf, sizeof buf, "%d", o->stack_at);
    else
        snprintf(buf, sizeof buf, "per cell, away from both buffers");
    cwb_results_meta(r, "stack_page_offset", buf);
    cwb_results_meta(r, "quick", o->quick ? "1" : "0");
    cwb_results_meta(r, "bytes_counted", "once (GB/s = bytes copied / seconds / 1e9)");
}

/* A chart tells apart every routine a run can measure. */
_Static_assert(CWB_PLOT_MAX_ROUTINES >= CWB_MAX_ROUTINES, "a chart holds every routine of a run");

int cwb_write_outputs(const struct cwb_results *r, const struct cwb_opts *o)
{
    char err[512];
    int rc = 0;
    if (o->json != NULL) {
        if (cwb_results_write_json(r, o->json, err, sizeof err) != 0) {
            fprintf(stderr, "cwbench: %s\n", err);
            rc = 1;
        } else {
            printf("raw samples written to %s\n", o->json);
        }
    }
    if (o->csv != NULL) {
        if (cwb_results_write_csv(r, o->csv, err, sizeof err) != 0) {
            fprintf(stderr, "cwbench: %s\n", err);
            rc = 1;
        } else {
            printf("raw samples written to %s\n", o->csv);
        }
    }
    if (o->plot != NULL && cwb_plot(o->plot, r) != 0)
        rc = 1;
    return rc;
}

int cwb_finish(struct cwb_results *r, const struct cwb_opts *o, double t_start, int blank,
               int failed)
{
    if (cwb_write_outputs(r, o) != 0)
        failed = 1;
    cwb_results_free(r);
    printf("%stotal time %.1f s\n", blank ? "\n" : "", cwb_now() - t_start);
    return failed ? 1 : 0;
}

void cwb_add_run(struct cwb_results *r, const char *routine, const char *bench,
                 const struct cwb_spec *sp, const struct cwb_run *run)
{
    if (run->n == 0)
        return;
    double *x = malloc(run->n * sizeof *x), *c = malloc(run->n * sizeof *c);
    if (x != NULL && c != NULL) {
        struct cwb_cell proto;
        memset(&proto, 0, sizeof proto);
        snprintf(proto.routine, sizeof proto.routine, "%s", routine);
        snprintf(proto.bench, sizeof proto.bench, "%s", bench);
        snprintf(proto.state, sizeof proto.state, "%s", cwb_state_name(sp->state));
        snprintf(proto.unit, sizeof proto.unit, "GB/s");
        proto.size = sp->size;
        proto.src_off = sp->src_off;
        proto.dst_off = sp->dst_off;
        proto.higher_is_better = 1;
        cwb_run_gbps(run, x, c);
        cwb_results_add(r, &proto, x, c, run->n);
    }
    free(x);
    free(c);
}

void cwb_median_spread(const double *x, size_t n, double *median, double *spread)
{
    struct cwb_summary s;
    cwb_summarize(x, n, &s);
    *median = s.median;
    *spread = s.median > 0 ? (s.q3 - s.q1) / 2 / s.median : NAN;
}

void cwb_print_preemption(const struct cwb_engine *e)
{
    if (e->retried == 0 && e->preempted == 0)
        return;
    printf("\npreemption: %d samples were retaken because CPU time and wall time differed "
           "by > 10%%; %d of %zu still did after 2 retries (cells marked *): the machine is "
           "busy, rerun when it is quieter or with --pin\n",
           e->retried, e->preempted, e->total_samples);
}

void cwb_engine_close(struct cwb_engine *e)
{
    cwb_print_preemption(e);
    cwb_engine_free(e);
}

struct cwb_call *cwb_random_calls(size_t size, size_t region, size_t n, uint64_t *rng)
{
    if (n == 0 || size > region)
        return NULL;
    struct cwb_call *c = malloc(n * sizeof *c);
    if (c == NULL)
        return NULL;
    size_t span = region - size + 1;
    for (size_t i = 0; i < n; i++) {
        c[i].n = size;
        c[i].soff = (size_t)(cwb_rand(rng) % span);
        c[i].doff = (size_t)(cwb_rand(rng) % span);
    }
    return c;
}

int cwb_colw(const char *s, int w)
{
    for (; *s != '\0'; s++)
        if (((unsigned char)*s & 0xc0) == 0x80)
            w++;
    return w;
}
