/* SPDX-License-Identifier: MIT */
/* `cwbench sweep`: routines x sizes x misalignment sets x cache states.
 * Sizes: fine steps 0..4096, then powers of two to 256 MiB. States: hot
 * (the same buffers), cold (rotating through a pool of at least 4x the
 * LLC), random (random offsets and alignments within a region). */
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
#include "engine/ceiling.h"
#include "engine/estimate.h"
#include "engine/fresh.h"
#include "engine/measure.h"
#include "engine/routines.h"
#include "platform/machine.h"
#include "platform/memory.h"
#include "results/results.h"
#include "results/stats.h"
#include "results/verdict.h"

#define MAX_SWEEP_SIZES 128
/* Even at 10 ms a cell this is hours: larger requests are typos. */
#define MAX_CELLS 20000

static const char *const default_routines[] = {
    "cw_memcpy", "cw_memcpy_nt", "cw_copy_nta", "glibc_memcpy", "rep_movsb", "stream_avx2",
    "stream_stnp", NULL,
};

static int parse_states(const char *text, enum cwb_state *st, size_t *n)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    *n = 0;
    for (char *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
        if (*n == 3)
            return cwb_usage_error("--states: at most hot, cold and random once each");
        if (strcmp(t, "hot") == 0)
            st[(*n)++] = CWB_HOT;
        else if (strcmp(t, "cold") == 0)
            st[(*n)++] = CWB_COLD;
        else if (strcmp(t, "random") == 0)
            st[(*n)++] = CWB_RANDOM;
        else
            return cwb_usage_error("--states: unknown state '%s' (hot, cold, random)", t);
    }
    if (*n == 0)
        return cwb_usage_error("--states: empty list");
    return 0;
}

static double median_ns(const struct cwb_run *r)
{
    if (r->n == 0 || r->calls == 0)
        return NAN;
    double *per = malloc(r->n * sizeof *per);
    if (per == NULL)
        return NAN;
    for (size_t k = 0; k < r->n; k++)
        per[k] = r->wall[k] / (double)r->calls * 1e9;
    double med, spread;
    cwb_median_spread(per, r->n, &med, &spread);
    free(per);
    return med;
}

/* "vs glibc": glibc's time over the routine's in the same cell; "-" when
 * glibc_memcpy was not measured (or did not run) in this sweep. */
static void fmt_vs(double glibc_ns, double ns, char *buf, size_t cap)
{
    if (glibc_ns == glibc_ns && ns == ns && ns > 0)
        snprintf(buf, cap, "%.2f", glibc_ns / ns);
    else
        snprintf(buf, cap, "-");
}

static void print_cell_rows(const struct cwb_spec *sp, const char *al_s,
                            const struct cwb_routine *const *rt, size_t nrt,
                            const struct cwb_run *runs, const double *ns, double glibc_ns,
                            double ceiling)
{
    char sz[32], vs[16];
    cwb_fmt_size(sp->size, sz, sizeof sz);
    for (size_t j = 0; j < nrt; j++) {
        if (runs[j].failed || runs[j].unavailable || runs[j].n == 0) {
            printf("%-6s %-9s %-10s %-22s %s\n", cwb_state_name(sp->state), al_s, sz,
                   rt[j]->name, runs[j].unavailable ? "n/a" : "FAILED");
            if (runs[j].failed)
                fprintf(stderr, "cwbench: %s\n", runs[j].err);
            continue;
        }
        fmt_vs(glibc_ns, ns[j], vs, sizeof vs);
        if (sp->size == 0) {
            printf("%-6s %-9s %-10s %-22s %10.1f %9s %5s %6s %8s%s\n",
                   cwb_state_name(sp->state), al_s, sz, rt[j]->name, ns[j], "-", "-", "-", vs,
                   runs[j].preempted ? " *" : "");
            continue;
        }
        double *x = malloc(runs[j].n * sizeof *x);
        if (x == NULL)
            continue;
        cwb_run_gbps(&runs[j], x, NULL);
        double med, spread;
        cwb_median_spread(x, runs[j].n, &med, &spread);
        struct cwb_modes m;
        cwb_modes(x, runs[j].n, &m);
        free(x);
        if (m.two) {
            /* Two modes: both (low|high) and their shares instead of a
             * median and a spread that describe neither. */
            char both[24], t[64];
            snprintf(both, sizeof both, "%.3g|%.3g", m.lo, m.hi);
            printf("%-6s %-9s %-10s %-22s %10.1f %9s %5s %6.0f %8s%s  two-mode: %s\n",
                   cwb_state_name(sp->state), al_s, sz, rt[j]->name, ns[j], both, "modes",
                   100 * med / ceiling, vs, runs[j].preempted ? " *" : "",
                   cwb_modes_text(&m, t, sizeof t));
            continue;
        }
        printf("%-6s %-9s %-10s %-22s %10.1f %9.2f %5.0f %6.0f %8s%s\n",
               cwb_state_name(sp->state), al_s, sz, rt[j]->name, ns[j], med, spread * 100,
               100 * med / ceiling, vs, runs[j].preempted ? " *" : "");
    }
}

/* Per state and size, each routine's slowest offset pair relative to 0:0
 * (the target: misaligned never below 0.9x aligned). Medians from separate
 * cells, so not interleaved: confirm a suspect pair with
 * `--ab R R --a-off 0:0 --b-off S:D`. */
static void align_summary(const enum cwb_state *st, size_t nst, const struct cwb_aligns *al,
                          const size_t *sizes, size_t nsz, const struct cwb_routine *const *rt,
                          size_t nrt, const double *ns)
{
    size_t ref = al->n;
    for (size_t i = 0; i < al->n; i++)
        if (al->pair[i][0] == 0 && al->pair[i][1] == 0)
            ref = i;
    if (ref == al->n || al->n < 2)
        return;
    size_t below[CWB_MAX_ROUTINES] = {0}, cells[CWB_MAX_ROUTINES] = {0};
    printf("\nmisalignment: per size, each routine's slowest src:dst pair as throughput relative "
           "to 0:0\n(ratio of medians of separate cells; confirm one interleaved with "
           "--ab R R --a-off 0:0 --b-off S:D)\n");
    printf("%-6s %-10s", "state", "size");
    for (size_t j = 0; j < nrt; j++)
        printf(" %18.18s", rt[j]->name);
    printf("\n");
    for (size_t si = 0; si < nst; si++) {
        if (st[si] == CWB_RANDOM)
            continue;
        for (size_t zi = 0; zi < nsz; zi++) {
            char sz[32];
            printf("%-6s %-10s", cwb_state_name(st[si]), cwb_fmt_size(sizes[zi], sz, sizeof sz));
            for (size_t j = 0; j < nrt; j++) {
                double r0 = ns[((si * al->n + ref) * nsz + zi) * nrt + j], worst = INFINITY;
                size_t wi = ref;
                for (size_t ai = 0; ai < al->n; ai++) {
                    double v = ns[((si * al->n + ai) * nsz + zi) * nrt + j];
                    if (ai == ref || !(v > 0) || !(r0 > 0))
                        continue;
                    cells[j]++;
                    if (r0 / v < 0.9)
                        below[j]++;
                    if (r0 / v < worst) {
                        worst = r0 / v;
                        wi = ai;
                    }
                }
                char c[40];
                if (wi == ref || sizes[zi] == 0)
                    snprintf(c, sizeof c, "-");
                else
                    snprintf(c, sizeof c, "%.2f at %d:%d", worst, al->pair[wi][0],
                             al->pair[wi][1]);
                printf(" %18s", c);
            }
            printf("\n");
        }
    }
    printf("%-17s", "below 0.9x");
    for (size_t j = 0; j < nrt; j++) {
        char c[40];
        snprintf(c, sizeof c, "%zu of %zu", below[j], cells[j]);
        printf(" %18s", c);
    }
    printf("\n");
}

int cwb_cmd_sweep(const struct cwb_opts *o)
{
    double t_start = cwb_now();
    const struct cwb_routine *rt[CWB_MAX_ROUTINES];
    size_t nrt;
    if (cwb_pick_routines(o->routines, default_routines, rt, &nrt) != 0)
        return 2;
    if (o->aligns != NULL && (o->src_offs != NULL || o->dst_offs != NULL))
        return cwb_usage_error("--align and --src-off/--dst-off: give one or the other");
    struct cwb_aligns *al = malloc(sizeof *al);
    if (al == NULL) {
        fprintf(stderr, "cwbench: out of memory\n");
        return 1;
    }
    enum cwb_state st[3];
    size_t nst;
    int bad = o->src_offs != NULL || o->dst_offs != NULL
                  ? cwb_offsets_to_aligns(o->src_offs, o->dst_offs, al)
                  : cwb_parse_aligns("--align",
                                     o->aligns ? o->aligns
                                     : o->quick ? "0:0,1:3" : "0:0,0:1,5:0,3:13", al);
    if (bad || parse_states(o->states ? o->states : "hot,cold,random", st, &nst) != 0) {
        free(al);
        return 2;
    }
    size_t max = o->max_size ? o->max_size : o->quick ? (size_t)64 << 10 : (size_t)256 << 20;
    size_t sizes[MAX_SWEEP_SIZES], nsz = 0;
    if (o->n_sizes) {
        for (size_t i = 0; i < o->n_sizes; i++)
            if (o->sizes[i] <= max)
                sizes[nsz++] = o->sizes[i];
    } else if (o->quick) {
        static const size_t q[] = {0, 1, 7, 64, 100, 4096, 65536};
        for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
            if (q[i] <= max)
                sizes[nsz++] = q[i];
    } else {
        nsz = cwb_sweep_default_sizes(sizes, max);
    }
    /* Random offsets ignore the pairs: one cell per size, not one per pair. */
    size_t total = 0;
    for (size_t si = 0; si < nst; si++)
        total += st[si] == CWB_RANDOM ? nsz : nsz * al->n;
    if (nsz == 0 || total > MAX_CELLS) {
        free(al);
        if (nsz == 0)
            return cwb_usage_error("sweep: no size left at or below --max-size %zu", max);
        return cwb_usage_error("sweep: %zu cells (sizes x offset pairs x states), at most %d: "
                               "narrow --sizes, --align or --states", total, MAX_CELLS);
    }
    size_t biggest = 0;
    for (size_t i = 0; i < nsz; i++)
        if (sizes[i] > biggest)
            biggest = sizes[i];
    int samples = o->samples ? o->samples : o->quick ? 3 : 10;
    size_t llc = cwb_llc_bytes();
    /* The cold pool must outgrow the LLC several times over so a slot is
     * evicted before the rotation comes back to it. */
    size_t pool = o->quick ? (size_t)8 << 20 : 4 * llc;
    if (pool < 4 * biggest + ((size_t)64 << 10))
        pool = 4 * biggest + ((size_t)64 << 10);
    size_t nns = nst * al->n * nsz * nrt;
    double *ns = malloc(nns * sizeof *ns);
    struct cwb_engine e;
    if (ns == NULL || cwb_engine_open(&e, pool, samples, o) != 0) {
        if (ns == NULL)
            fprintf(stderr, "cwbench: out of memory\n");
        free(ns);
        free(al);
        return 1;
    }
    for (size_t i = 0; i < nns; i++)
        ns[i] = NAN;
    struct cwb_results res;
    cwb_results_init(&res);
    cwb_common_meta(&res, o, "cwbench sweep");
    cwb_emulation_banner(stdout, 1);
    struct cwb_ceiling ceil;
    cwb_measure_ceiling(&e, o->quick ? (size_t)8 << 20 : 4 * llc, &ceil);
    char buf[64];
    snprintf(buf, sizeof buf, "%.3f", ceil.ceiling_gbps);
    cwb_results_meta(&res, "copy_ceiling_gbps", buf);
    snprintf(buf, sizeof buf, "%.3f", ceil.both_gbps);
    cwb_results_meta(&res, "copy_traffic_gbps", buf);

    size_t g = cwb_routine_index(rt, nrt, "glibc_memcpy");
    printf("cwbench sweep: %zu routines x %zu sizes x %zu offset pairs x %zu states = %zu cells "
           "(random: one per size), %d samples per cell (bytes counted once)\n", nrt, nsz, al->n,
           nst, total, samples);
    printf("copy ceiling %.1f GB/s (read %.1f, streaming write %.1f; a copy's traffic alone, "
           "both at once, %.1f); ns = per call; vs glibc = %s\n\n",
           ceil.ceiling_gbps, ceil.read_gbps, ceil.write_gbps, ceil.both_gbps,
           g < nrt ? "glibc's time / the routine's in the same cell (above 1 = faster)"
                   : "- (glibc_memcpy not among the routines)");
    printf("%-6s %-9s %-10s %-22s %10s %9s %*s %6s %8s\n", "state", "src:dst", "size",
           "routine", "ns", "GB/s", cwb_colw("±%", 5), "±%", "%ceil", "vs glibc");
    int failed = 0;
    /* The plan in estimated milliseconds, one phase per state: a cold cell
     * of small copies costs 10-25 hot ones, so counting cells would put
     * the ETA of a hot,cold sweep 10x low at half way. Each state's cost
     * is measured as its cells finish, and its estimate is only the
     * starting point. */
    double state_ms[3] = {0, 0, 0}, plan_ms = 0;
    for (size_t si = 0; si < nst; si++) {
        for (size_t zi = 0; zi < nsz; zi++)
            state_ms[si] += cwb_progress_cell_ms(st[si], sizes[zi], nrt, samples) *
                            (double)(st[si] == CWB_RANDOM ? 1 : al->n);
        plan_ms += state_ms[si];
        /* The random state's reference buffer (the pool's size, touched
         * page by page: seconds for 4x a large L3) is set up now, not in
         * the first random cell, whose cost would stand for every other. */
        if (st[si] == CWB_RANDOM && e.ref == NULL)
            e.ref = cwb_alloc_huge(e.pool);
    }
    cwb_progress_plan(plan_ms);
    for (size_t si = 0; si < nst; si++) {
        static const char *const phase[3] = {"sweep hot", "sweep cold", "sweep random"};
        double done_ms = 0;
        cwb_progress_begin_items(phase[st[si]], (size_t)state_ms[si],
                                 st[si] == CWB_RANDOM ? nsz : nsz * al->n);
        for (size_t ai = 0; ai < (st[si] == CWB_RANDOM ? 1 : al->n); ai++) {
            for (size_t zi = 0; zi < nsz; zi++) {
                size_t size = sizes[zi];
                struct cwb_spec sp = {.state = st[si], .size = size, .src_off = al->pair[ai][0],
                                      .dst_off = al->pair[ai][1]};
                struct cwb_call *calls = NULL;
                struct cwb_run runs[CWB_MAX_ROUTINES];
                if (st[si] == CWB_RANDOM) {
                    size_t region = cwb_random_region(size, e.pool);
                    sp.region = region;
                    sp.src_off = sp.dst_off = -1;
                    /* offsets drawn afresh before every batch (dist.h): a
                     * short sequence replayed is one the predictor learns */
                    struct cwb_spec each[CWB_MAX_ROUTINES];
                    for (size_t j = 0; j < nrt; j++)
                        each[j] = sp;
                    int wrapped = 0;
                    if (cwb_measure_random(&e, each, rt, nrt, size, region - size + 1,
                                           o->seed + zi, runs, &wrapped) != 0)
                        failed = 1;
                } else if (cwb_measure(&e, &sp, rt, nrt, runs) != 0) {
                    failed = 1;
                }
                double *cell_ns = &ns[((si * al->n + ai) * nsz + zi) * nrt];
                for (size_t j = 0; j < nrt; j++)
                    if (!runs[j].failed && !runs[j].unavailable)
                        cell_ns[j] = median_ns(&runs[j]);
                char al_s[24];
                if (sp.state == CWB_RANDOM)
                    snprintf(al_s, sizeof al_s, "random");
                else
                    snprintf(al_s, sizeof al_s, "%d:%d", sp.src_off, sp.dst_off);
                cwb_progress_clear();
                print_cell_rows(&sp, al_s, rt, nrt, runs, cell_ns, g < nrt ? cell_ns[g] : NAN,
                                ceil.ceiling_gbps);
                for (size_t j = 0; j < nrt; j++) {
                    if (size > 0)
                        cwb_add_run(&res, rt[j]->name, "sweep", &sp, &runs[j]);
                    cwb_run_free(&runs[j]);
                }
                free(calls);
                done_ms += cwb_progress_cell_ms(st[si], size, nrt, samples);
                cwb_progress_step((size_t)done_ms);
            }
        }
        cwb_progress_end();
    }
    cwb_progress_plan(0);
    align_summary(st, nst, al, sizes, nsz, rt, nrt, ns);
    cwb_engine_close(&e);
    free(ns);
    free(al);
    return cwb_finish(&res, o, t_start, 0, failed);
}
