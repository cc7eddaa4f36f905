/* SPDX-License-Identifier: MIT */
/* The pollution measurement (`cwbench pollution`, and the default report's
 * table): what a copy costs everyone else. A victim working
 * set (a randomly permuted pointer chain, one node per cache line, on huge
 * pages so TLB misses don't dominate) is walked cold (after a flush of
 * every line: clflush, on aarch64 dc civac), hot (re-walked until resident)
 * and right after a routine copies N bytes:
 *   evicted fraction = (t_after - t_hot) / (t_cold - t_hot).
 * On a shared machine the victim also decays with no copy at all, so each
 * routine has a background row that busy-waits as long as its copies take;
 * the routine's own share is what it evicted of what that background left
 * (docs/BENCHMARKS.md, "Pollution"). The table, with the fractions clamped
 * into [0, 1], is pollution_table.c's. */
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/format.h"
#include "base/progress.h"
#include "base/rng.h"
#include "engine/pollution.h"
#include "engine/pollution_table.h"
#include "engine/pollution_util.h"
#include "engine/routines.h"
#include "engine/victim.h"
#include "platform/arch.h"
#include "platform/machine.h"
#include "platform/memory.h"
#include "results/results.h"
#include "results/stats.h"
#include "cachewise.h"

#define LINE 64
/* Walks until two in a row agree within this ratio: one walk after a
 * flush or a big copy leaves part of an L2-sized victim outside the L2
 * (measured on Zen 3: the second walk was up to 12x slower than the third). */
#define WARM_SETTLED 1.03
#define WARM_MAX 8
/* A repetition disturbed by a context switch is repeated up to this many
 * times, then kept and counted as disturbed; LONG_RETRIES for windows
 * longer than SHORT_WINDOW seconds. */
#define MAX_RETRIES 20
#define LONG_RETRIES 2
#define SHORT_WINDOW 0.005
/* The L3 victim's share of the default run's two minutes. */
#define L3_BUDGET_S 50.0

static int victim_make(struct victim *v, size_t bytes, uint64_t *rng)
{
    struct cwb_victim chain;
    int rc = cwb_victim_make(&chain, bytes, rng);
    v->bytes = bytes;
    v->lines = chain.lines;
    v->base = chain.base;
    return rc != 0 || v->lines < 2 ? -1 : 0;
}

static double tsc_ns;

/* The TSC (aarch64: CNTVCT_EL0): a full L1-resident walk is a few hundred
 * nanoseconds, too close to the clock_gettime tick for 20-tick samples. Its
 * rate is calibrated against the clock where the architecture does not
 * state it (x86); aarch64 states it in CNTFRQ_EL0. */
static void calibrate_tsc(void)
{
    if (tsc_ns > 0)
        return;
    uint64_t hz = cwb_ts_hz();
    if (hz != 0) {
        tsc_ns = 1e9 / (double)hz;
        return;
    }
    double t0 = cwb_now();
    uint64_t c0 = cwb_ts_raw();
    while (cwb_now() - t0 < 0.02)
        ;
    double t1 = cwb_now();
    uint64_t c1 = cwb_ts_raw();
    tsc_ns = (t1 - t0) * 1e9 / (double)(c1 - c0);
}

static double walk_ns(const struct victim *v)
{
    void *p = v->base;
    uint64_t c0 = cwb_ts_begin();
    for (size_t i = v->lines; i > 0; i--)
        p = *(void **)p;
    uint64_t c1 = cwb_ts_end();
    __asm__ volatile("" : : "r"(p));
    return (double)(c1 - c0) * tsc_ns;
}

static double walk_settled(const struct victim *v)
{
    double prev = walk_ns(v), t = prev;
    for (int i = 1; i < WARM_MAX; i++) {
        t = walk_ns(v);
        if (t * WARM_SETTLED >= prev)
            break;
        prev = t;
    }
    return t;
}

static void victim_flush(const struct victim *v)
{
    for (size_t i = 0; i < v->bytes; i += LINE)
        cwb_flush_line(v->base + i);
    cwb_mfence();
}

/* Routine j's background row waits as long as its median copy so far. */
static double median_duration(const struct prun *p, size_t j)
{
    struct cwb_summary s;
    if (p->ndur[j] == 0)
        return 0;
    cwb_summarize(&p->dur[j * p->cap], p->ndur[j], &s);
    return s.median;
}

/* One repetition of row j; 0, or 1 when the routine copied wrong bytes. */
static int measure_once(struct prun *p, size_t j, struct prow *row)
{
    size_t nrt = p->nrt;
    double wait = j >= nrt && j < 2 * nrt ? median_duration(p, j - nrt) : 0;
    double t_cold, t_hot, t_after, c0 = 0, c1 = 0, w0 = 0, w1 = 0;
    for (int attempt = 0;; attempt++) {
        if (j < nrt)
            cwb_fill_nt(p->dst, 0, p->copy_bytes);
        rt_enter();
        long s0 = ctx_switches();
        victim_flush(p->v);
        t_cold = walk_ns(p->v);
        t_hot = walk_settled(p->v);
        c0 = cwb_cpu_now(), w0 = cwb_now();
        if (j < nrt)
            p->rt[j]->fn(p->dst, p->src, p->copy_bytes);
        else if (j < 2 * nrt)
            busy_wait(wait);
        else
            push_down(p->scratch, p->push_bytes);
        cwb_store_drain();
        c1 = cwb_cpu_now(), w1 = cwb_now();
        t_after = walk_ns(p->v);
        double c2 = cwb_cpu_now(), w2 = cwb_now();
        long s1 = ctx_switches();
        rt_leave();
        /* Another task on this CPU between the warm walks and the last
         * walk evicts the victim too. */
        int disturbed = s1 != s0 || fabs((c2 - c0) - (w2 - w0)) > 0.05 * (w2 - w0);
        if (!disturbed)
            break;
        /* A window longer than a scheduler slice is seldom left alone on
         * a busy machine: retrying it 20 times would only multiply the
         * run time (an L3 victim's window is tens of milliseconds). */
        if (attempt == (w2 - w0 > SHORT_WINDOW ? LONG_RETRIES : MAX_RETRIES)) {
            p->disturbed++;
            break;
        }
        p->retried++;
    }
    if (j < nrt) {
        if (cwb_routine_fills(p->rt[j]) ? !filled(p->dst, p->copy_bytes)
                                         : memcmp(p->dst, p->src, p->copy_bytes) != 0) {
            fprintf(stderr, "cwbench: %s: wrong bytes after a %zu-byte copy\n", p->rt[j]->name,
                    p->copy_bytes);
            row->failed = 1;
            return 1;
        }
        if (p->ndur[j] < p->cap)
            p->dur[j * p->cap + p->ndur[j]++] = w1 - w0;
    }
    row->after[row->n] = t_after;
    row->hot[row->n] = t_hot;
    row->cold[row->n] = t_cold;
    row->cpu[row->n] = c1 - c0;
    row->n++;
    return 0;
}

static int victim_run(struct prun *p, int reps, uint64_t *rng, struct cwb_results *res)
{
    size_t nrow = p->nrow, n = (size_t)reps;
    struct prow *rows = calloc(nrow, sizeof *rows);
    size_t *order = malloc(nrow * sizeof *order);
    double *block = calloc(nrow * 5 * n, sizeof *block); /* the rows' five arrays */
    p->cap = n + 2;
    p->dur = malloc(p->nrt * p->cap * sizeof *p->dur + 1);
    p->ndur = calloc(p->nrt + 1, sizeof *p->ndur);
    int rc = 0, oom = !rows || !order || !block || !p->dur || !p->ndur;
    for (size_t j = 0; !oom && j < nrow; j++) {
        double *b = block + j * 5 * n;
        rows[j] = (struct prow){b, b + n, b + 2 * n, b + 3 * n, b + 4 * n, 0, 0, 0, 0};
        order[j] = j;
    }
    if (!oom) {
        p->retried = p->disturbed = 0;
        /* A discarded copy of every routine (page faults, first-touch
         * effects), then a timed one: the first wait of its background. */
        for (size_t j = 0; j < p->nrt; j++) {
            p->rt[j]->fn(p->dst, p->src, p->copy_bytes);
            double w0 = cwb_now();
            p->rt[j]->fn(p->dst, p->src, p->copy_bytes);
            p->dur[j * p->cap + p->ndur[j]++] = cwb_now() - w0;
        }
        for (int r = 0; r < reps; r++) {
            cwb_shuffle(order, nrow, rng);
            for (size_t k = 0; k < nrow; k++) {
                size_t j = order[k];
                /* a failed routine's background has nothing to match */
                int dead = rows[j].failed || (j >= p->nrt && j < 2 * p->nrt &&
                                              rows[j - p->nrt].failed);
                if (!dead && measure_once(p, j, &rows[j]) != 0)
                    rc = 1;
            }
            cwb_progress_step((size_t)(p->units_per_rep * (r + 1)));
        }
        cwb_progress_clear();
        cwb_pollution_table(p, rows, res, reps);
    } else {
        fprintf(stderr, "cwbench: out of memory for the %s victim\n", p->v->name);
        rc = 1;
    }
    free(rows);
    free(block);
    free(order);
    free(p->dur);
    free(p->ndur);
    p->dur = NULL;
    p->ndur = NULL;
    return rc;
}

/* Why the L3 victim cannot be measured here, or NULL. Two reasons: the
 * largest copy cannot evict it for lack of room (source and destination
 * fit in the L3 beside it), or its walks would blow the time budget (a
 * quarter of a 260 MiB L3 is a million lines: about 0.3 s a window, 11
 * minutes for the table). */
static const char *l3_skip(const struct victim *v, size_t llc, size_t max_copy, size_t windows,
                           char *buf, size_t cap)
{
    char a[32], b[32], c[32];
    if (2 * max_copy + v->bytes <= llc) {
        snprintf(buf, cap, "source and destination of the largest copy (2 x %s) fit in the %s "
                 "L3 beside the %s victim: no copy here can evict it for lack of room",
                 cwb_fmt_size(max_copy, a, sizeof a), cwb_fmt_size(llc, b, sizeof b),
                 cwb_fmt_size(v->bytes, c, sizeof c));
        return buf;
    }
    /* A window: a flush, a cold walk, about three warm walks and the walk
     * after the copy; the cold walk, timed once here, is the dearest. */
    victim_flush(v);
    double w0 = cwb_now();
    double cold = walk_ns(v) * 1e-9;
    double flush = cwb_now() - w0 - cold;
    double est = (double)windows * (flush + 2.5 * cold);
    if (est > L3_BUDGET_S) {
        snprintf(buf, cap, "its %zu windows would take about %.0f s (one cold walk of the %s "
                 "victim: %.1f ms), over the %.0f s budget", windows, est,
                 cwb_fmt_size(v->bytes, a, sizeof a), cold * 1e3, L3_BUDGET_S);
        return buf;
    }
    return NULL;
}

double cwb_pollution_estimate_ms(size_t copy, size_t victim, size_t nrt, int reps)
{
    /* per routine and repetition: the fill of the destination, the copy,
     * its check and its background's wait, at about 8 GB/s; the walks of
     * the copy's and the background's windows at about 100 ns a line */
    double copy_ms = (double)copy / 8e9 * 1e3, walk_ms = (double)victim / 64 * 100e-6 * 4;
    return (double)reps * ((double)nrt * (4 * copy_ms + 2 * walk_ms) + walk_ms) + 1;
}

int cwb_pollution_measure(uint64_t seed, int pin, unsigned victims_mask, const size_t *sizes,
                          size_t nsizes, const struct cwb_routine *const *rt, size_t nrt,
                          int reps, int plan, struct cwb_results *res)
{
    const struct cw_info *in = cw_get_info();
    size_t l1 = in->l1d_size ? in->l1d_size : 32 << 10;
    size_t l2 = in->l2_size ? in->l2_size : 512 << 10;
    size_t llc = cwb_llc_bytes(), max_copy = 0;
    for (size_t k = 0; k < nsizes; k++)
        max_copy = sizes[k] > max_copy ? sizes[k] : max_copy;
    /* Well inside each level: half of L1 (nothing else competes there
     * between walks), a quarter of L2 and of L3 (the L2 also holds page
     * tables and the code; the L3 is shared). */
    size_t vsize[3] = {l1 / 2, l2 / 4, llc / 4};
    const char *names[3] = {"L1", "L2", "L3"}, *next[3] = {"L2", "L3", NULL};
    uint64_t rng = seed ^ 0x9011u;
    calibrate_tsc();
    struct prun p;
    memset(&p, 0, sizeof p);
    p.rt = rt;
    p.nrt = nrt;
    p.scratch_bytes = 2 * l2;
    p.src = cwb_alloc_huge(max_copy);
    p.dst = cwb_alloc_huge(max_copy);
    p.scratch = cwb_alloc_huge(p.scratch_bytes);
    if (p.src == NULL || p.dst == NULL || p.scratch == NULL) {
        fprintf(stderr, "cwbench: cannot allocate 2 x %zu bytes\n", max_copy);
        cwb_free_huge(p.src, max_copy);
        cwb_free_huge(p.dst, max_copy);
        cwb_free_huge(p.scratch, p.scratch_bytes);
        return 1;
    }
    cwb_fill_pattern(p.src, max_copy, seed);
    printf("median and quartiles over %d repetitions, rows interleaved in a random order; "
           "victims: half the L1,\na quarter of the L2 and of the L3. Each walk after the copy "
           "follows a victim re-walked until\nresident. evicted = (walk after - hot) / (cold - "
           "hot), hot and cold the medians of all the\ntable's walks, clamped into [0, 1] "
           "(\"clamped\": samples above 1 or below 0 before that). \"same\nwait\": the evicted "
           "fraction after a busy wait as long as that routine's copy, what the rest of\nthe "
           "machine evicts meanwhile; \"own\": the share of what that background left that the "
           "copy evicted,\nmax(0, 1 - (1 - evicted) / (1 - same wait)); \"copy vs same wait\": "
           "Mann-Whitney U and the HL\ndifference, alpha 0.05. \"(victim pushed down)\": the "
           "whole victim one level down (\"left\" = evicted\nover it, at most 1).\n", reps);
    /* A migration between walks would read the victim from another core's
     * caches: stay on this CPU for the pollution runs unless --pin chose. */
    cpu_set_t saved;
    int repin = pin < 0 && sched_getaffinity(0, sizeof saved, &saved) == 0;
    if (repin) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(sched_getcpu(), &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0)
            repin = 0;
    }
    rt_enter();
    rt_leave();
    printf("(on CPU %d%s)\n", sched_getcpu(),
           rt_ok == 1 ? "; measured windows at SCHED_FIFO, no other process can interrupt them"
                      : "; windows disturbed by a context switch are repeated");
#if !CWB_HAVE_FLUSH
    printf("no cache-line flush on this architecture: the \"cold\" walks are not cold, so the "
           "fractions below are not evictions\n");
#endif
    fflush(stdout);
    /* Every victim first, so that the plan (and the ETA) leaves out an L3
     * victim that cannot be measured. */
    int rc = 0;
    struct victim v[3];
    const char *skip[3] = {NULL, NULL, NULL};
    char why[256];
    double units = 0;
    memset(v, 0, sizeof v);
    for (int i = 0; i < 3; i++) {
        if (!(victims_mask & (1u << i)))
            continue;
        v[i].name = names[i];
        v[i].next = next[i];
        if (victim_make(&v[i], vsize[i] & ~(size_t)(LINE - 1), &rng) != 0) {
            fprintf(stderr, "cwbench: cannot allocate the %s victim\n", names[i]);
            rc = 1;
            skip[i] = "";
        } else if (next[i] == NULL) {
            skip[i] = l3_skip(&v[i], llc, max_copy, (size_t)reps * 2 * nrt * nsizes, why,
                              sizeof why);
        }
        for (size_t k = 0; skip[i] == NULL && k < nsizes; k++)
            units += cwb_pollution_estimate_ms(sizes[k], v[i].bytes, nrt, reps);
    }
    if (plan)
        cwb_progress_plan(units);
    for (int i = 0; i < 3; i++) {
        if (!(victims_mask & (1u << i)) || (skip[i] != NULL && skip[i][0] == '\0'))
            continue;
        if (skip[i] != NULL) {
            printf("\nvictim %s: skipped: %s\n", v[i].name, skip[i]);
            fflush(stdout);
            continue;
        }
        p.v = &v[i];
        p.nrow = 2 * nrt + (next[i] != NULL ? 1 : 0);
        p.push_bytes = i == 0 ? 2 * l1 : p.scratch_bytes;
        for (size_t k = 0; k < nsizes; k++) {
            double u = cwb_pollution_estimate_ms(sizes[k], v[i].bytes, nrt, reps);
            p.copy_bytes = sizes[k];
            p.units_per_rep = u / reps;
            printf("\n");
            cwb_progress_begin("pollution", (size_t)u);
            if (victim_run(&p, reps, &rng, res) != 0)
                rc = 1;
            cwb_progress_end();
            fflush(stdout); /* a piped run shows each table as it is done */
        }
    }
    for (int i = 0; i < 3; i++)
        cwb_free_huge(v[i].base, v[i].bytes);
    if (plan)
        cwb_progress_plan(0);
    if (repin)
        sched_setaffinity(0, sizeof saved, &saved);
    cwb_free_huge(p.src, max_copy);
    cwb_free_huge(p.dst, max_copy);
    cwb_free_huge(p.scratch, p.scratch_bytes);
    return rc;
}
