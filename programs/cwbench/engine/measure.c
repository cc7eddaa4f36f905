/* SPDX-License-Identifier: MIT */
/* The measurement engine: batch calibration, interleaved samples, CPU time
 * beside wall time, verification of every copy outside the timed region,
 * and the copy ceiling kernels. Methodology: docs/BENCHMARKS.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/rng.h"
#include "engine/measure.h"
#include "engine/placement.h"
#include "engine/routines.h"
#include "platform/arch.h"
#include "platform/machine.h"
#include "platform/memory.h"
#include "cachewise.h"

#define GUARD CWB_LINE
#define POISON 0
#define MAX_BATCH ((size_t)1 << 26)

const char *cwb_state_name(enum cwb_state s)
{
    return s == CWB_HOT ? "hot" : s == CWB_COLD ? "cold" : "random";
}

int cwb_engine_init(struct cwb_engine *e, size_t pool, int samples, double min_sample,
                    uint64_t seed)
{
    memset(e, 0, sizeof *e);
    pool = (pool + ((size_t)2 << 20) - 1) & ~(((size_t)2 << 20) - 1);
    e->pool = pool;
    e->samples = samples;
    double tick = cwb_timer_tick();
    e->min_sample = min_sample > 20 * tick ? min_sample : 20 * tick;
    /* Short enough to fit in a scheduler slice on a busy machine. */
    e->max_sample = e->min_sample * 10 > 0.001 ? e->min_sample * 10 : 0.001;
    e->rng = seed;
    e->stack_at = -1;
    e->src = cwb_alloc_huge(pool);
    e->dst = cwb_alloc_huge(pool);
    if (e->src == NULL || e->dst == NULL) {
        cwb_engine_free(e);
        return -1;
    }
    cwb_fill_pattern(e->src, pool, seed ^ 0x5eedu);
    return 0;
}

void cwb_engine_free(struct cwb_engine *e)
{
    if (e->src != NULL)
        cwb_free_huge(e->src, e->pool);
    if (e->dst != NULL)
        cwb_free_huge(e->dst, e->pool);
    if (e->ref != NULL)
        cwb_free_huge(e->ref, e->pool);
    e->src = e->dst = e->ref = NULL;
}

void cwb_run_free(struct cwb_run *r)
{
    free(r->wall);
    free(r->cpu);
    r->wall = r->cpu = NULL;
    r->n = 0;
}

void cwb_run_gbps(const struct cwb_run *r, double *x, double *cpu)
{
    for (size_t i = 0; i < r->n; i++) {
        x[i] = r->bytes / r->wall[i] / 1e9;
        if (cpu != NULL)
            cpu[i] = r->cpu[i] > 0 ? r->bytes / r->cpu[i] / 1e9 : NAN;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cwb_run_median_gbps(const struct cwb_run *r)
{
    if (r->n == 0)
        return NAN;
    double *x = malloc(r->n * sizeof *x);
    if (x == NULL)
        return NAN;
    cwb_run_gbps(r, x, NULL);
    qsort(x, r->n, sizeof *x, cmp_double);
    double m = r->n % 2 ? x[r->n / 2] : (x[r->n / 2 - 1] + x[r->n / 2]) / 2;
    free(x);
    return m;
}

/* ---- cell geometry -------------------------------------------------------- */

struct geom {
    size_t stride, nslots; /* COLD */
    int nt_poison;         /* poison with streaming stores */
};

static void geometry(const struct cwb_engine *e, const struct cwb_spec *sp, struct geom *g)
{
    size_t llc = cwb_llc_bytes();
    g->stride = (sp->size + 2 * CWB_PAGE + CWB_PAGE - 1) & ~(size_t)(CWB_PAGE - 1);
    g->nslots = (e->pool - 2 * CWB_PAGE) / g->stride;
    if (g->nslots == 0)
        g->nslots = 1;
    /* A temporal memset bigger than the L3 would only pollute: poison the
     * DRAM-sized and the cold cases with streaming stores. */
    g->nt_poison = sp->state == CWB_COLD || sp->size > llc / 2;
}

static void window(unsigned char *d, size_t n, unsigned char **lo, unsigned char **hi)
{
    *lo = (unsigned char *)(((uintptr_t)d - GUARD) & ~(uintptr_t)(CWB_LINE - 1));
    *hi = (unsigned char *)(((uintptr_t)d + n + GUARD + CWB_LINE - 1) &
                            ~(uintptr_t)(CWB_LINE - 1));
}

static void poison(unsigned char *d, size_t n, int nt)
{
    unsigned char *lo, *hi;
    window(d, n, &lo, &hi);
    if (nt)
        cwb_fill_nt(lo, POISON, (size_t)(hi - lo));
    else
        memset(lo, POISON, (size_t)(hi - lo));
}

static const unsigned char *first_nonpoison(const unsigned char *p, const unsigned char *end)
{
    for (; p < end; p++)
        if (*p != POISON)
            return p;
    return NULL;
}

/* Checks dst against src (fill >= 0: against that byte, for the routines
 * cwb_routine_fills() names) and that the guard bytes around it are
 * untouched. */
static int verify_one(const unsigned char *d, const unsigned char *s, size_t n, int fill,
                      char *err, size_t cap)
{
    unsigned char *lo, *hi;
    window((unsigned char *)d, n, &lo, &hi);
    const unsigned char *bad = first_nonpoison(lo, d);
    if (bad == NULL)
        bad = first_nonpoison(d + n, hi);
    if (bad != NULL) {
        snprintf(err, cap, "wrote outside the destination (byte %td relative to dst)",
                 bad - d);
        return -1;
    }
    if (fill >= 0) {
        for (size_t i = 0; i < n; i++) {
            if (d[i] != fill) {
                snprintf(err, cap, "wrong byte at offset %zu of %zu (fill)", i, n);
                return -1;
            }
        }
        return 0;
    }
    if (n != 0 && memcmp(d, s, n) != 0) {
        size_t i = 0;
        while (d[i] == s[i])
            i++;
        snprintf(err, cap, "wrong byte at offset %zu of %zu", i, n);
        return -1;
    }
    return 0;
}

static int fill_byte(const struct cwb_routine *rt)
{
    return cwb_routine_fills(rt) ? CWB_FILL_BYTE : -1;
}

/* ---- one sample ----------------------------------------------------------- */

struct sample { double wall, cpu; double bytes; };

/* The timed loops. Each routine measured in one cell calls through copies
 * of them of its own (sample_site below): with one shared call site the
 * indirect branch alternates between routines from batch to batch, and the
 * predictor state it leaves behind favoured one routine or the other for a
 * whole process (256 B hot: glibc 59 GB/s and cw_memcpy 69, or 75 and 55,
 * from one process to the next on AMD EPYC family 25 model 1;
 * docs/results/amd-25-1/README.md, "2. In-cache sizes, hot"). A program's own
 * call sites are monomorphic; so are these. */
#define CWB_SITES 64
typedef void *(*copy_fn)(void *, const void *, size_t);
typedef void (*hot_loop)(copy_fn, unsigned char *, const unsigned char *, size_t, size_t);
typedef void (*cold_loop)(copy_fn, unsigned char *, const unsigned char *, size_t, size_t,
                          size_t, size_t, size_t);
typedef void (*replay_loop)(copy_fn, unsigned char *, const unsigned char *,
                            const struct cwb_call *, size_t, size_t);

#define CWB_LOOPS(N)                                                                          \
    __attribute__((noinline, aligned(64))) static void hot_##N(                              \
        copy_fn fn, unsigned char *d, const unsigned char *s, size_t n, size_t k)            \
    {                                                                                        \
        for (size_t i = 0; i < k; i++)                                                       \
            fn(d, s, n);                                                                     \
        __asm__ volatile("" ::: "memory"); /* keep the copies apart from each other */       \
    }                                                                                        \
    __attribute__((noinline, aligned(64))) static void cold_##N(                             \
        copy_fn fn, unsigned char *db, const unsigned char *sb, size_t n, size_t k,          \
        size_t stride, size_t nslots, size_t slot)                                           \
    {                                                                                        \
        for (size_t i = 0; i < k; i++) {                                                     \
            fn(db + slot * stride, sb + slot * stride, n);                                   \
            if (++slot == nslots)                                                            \
                slot = 0;                                                                    \
        }                                                                                    \
        __asm__ volatile("" ::: "memory");                                                   \
    }                                                                                        \
    __attribute__((noinline, aligned(64))) static void replay_##N(                           \
        copy_fn fn, unsigned char *db, const unsigned char *sb, const struct cwb_call *calls, \
        size_t nc, size_t k)                                                                 \
    {                                                                                        \
        for (size_t i = 0, j = 0; i < k; i++) {                                              \
            fn(db + calls[j].doff, sb + calls[j].soff, calls[j].n);                          \
            if (++j == nc)                                                                   \
                j = 0;                                                                       \
        }                                                                                    \
        __asm__ volatile("" ::: "memory");                                                   \
    }
/* CWB_SITES copies: eight times eight, named by two octal digits */
#define CWB_LOOPS8(B)                                                                         \
    CWB_LOOPS(B##0)                                                                          \
    CWB_LOOPS(B##1)                                                                          \
    CWB_LOOPS(B##2)                                                                          \
    CWB_LOOPS(B##3)                                                                          \
    CWB_LOOPS(B##4)                                                                          \
    CWB_LOOPS(B##5)                                                                          \
    CWB_LOOPS(B##6)                                                                          \
    CWB_LOOPS(B##7)
CWB_LOOPS8(0)
CWB_LOOPS8(1)
CWB_LOOPS8(2)
CWB_LOOPS8(3)
CWB_LOOPS8(4)
CWB_LOOPS8(5)
CWB_LOOPS8(6)
CWB_LOOPS8(7)
#define CWB_TABLE8(K, B) K##_##B##0, K##_##B##1, K##_##B##2, K##_##B##3, K##_##B##4, K##_##B##5, K##_##B##6, K##_##B##7
#define CWB_TABLE(K)                                                                          \
    {                                                                                        \
        CWB_TABLE8(K, 0), CWB_TABLE8(K, 1), CWB_TABLE8(K, 2), CWB_TABLE8(K, 3),              \
            CWB_TABLE8(K, 4), CWB_TABLE8(K, 5), CWB_TABLE8(K, 6), CWB_TABLE8(K, 7)           \
    }
static const hot_loop hot_loops[CWB_SITES] = CWB_TABLE(hot);
static const cold_loop cold_loops[CWB_SITES] = CWB_TABLE(cold);
static const replay_loop replay_loops[CWB_SITES] = CWB_TABLE(replay);

/* The loop copy that times sample s of routine i of nrt: the sites
 * i, i + nrt, i + 2 nrt, ... below CWB_SITES in turn (routine i alone uses
 * them), so each routine's samples spread over up to CWB_SITES / nrt loops
 * at different addresses. From one fixed loop a copy of a few nanoseconds
 * reads faster or slower, whichever address the loop got: on AMD EPYC
 * family 26 model 2, 64 B hot 0.72-1.17x glibc from one loop copy to the
 * next in one binary, 512 B 0.80-1.02x from process to process against
 * 0.98-1.04x with the samples spread over eight (docs/results/amd-26-2/README.md, "Timed
 * from eight call sites"). 64 copies, so that the default report's nine
 * routines still get seven each: with 16 they had one, and its 64 B hot
 * row read cw_memcpy 0.70-1.43x glibc from run to run, 0.98-1.06x with
 * seven (docs/results/amd-26-2/README.md, "Seven call sites per routine in the default
 * report"). Calibration uses the first (s = 0). With more than
 * CWB_SITES / 2 routines each keeps one site. */
static size_t sample_site(size_t i, size_t nrt, int s)
{
    size_t per = nrt <= CWB_SITES / 2 ? CWB_SITES / nrt : 1;
    return i + nrt * ((size_t)s % per);
}

/* Runs k calls of rt and verifies them. Returns 0, or -1 with err set. */
static int run_sample(struct cwb_engine *e, const struct cwb_spec *sp, const struct geom *g,
                      const struct cwb_routine *rt, size_t site, size_t k, struct sample *out,
                      char *err, size_t cap)
{
    /* Moves this frame's stack pointer to the chosen page offset: the
     * loops below are called from there (the cold loop's two stack
     * arguments sit 16 bytes lower). */
    unsigned char *top = __builtin_alloca(16);
    size_t drop = ((uintptr_t)top - cwb_stack_offset(e, sp)) & (CWB_PAGE - 1);
    unsigned char *volatile below = __builtin_alloca(drop);
    (void)below;
    double t0, t1, c0, c1;
    out->bytes = 0;
    cwb_routine_prepare(rt);
    if (sp->state == CWB_HOT) {
        unsigned char *d = e->dst + CWB_DST_BASE + sp->dst_off;
        const unsigned char *s = e->src + CWB_SRC_BASE + sp->src_off;
        poison(d, sp->size, g->nt_poison);
        c0 = cwb_cpu_now();
        t0 = cwb_now();
        hot_loops[site % CWB_SITES](cwb_routine_fn(rt, sp->size), d, s, sp->size, k);
        cwb_store_drain();
        t1 = cwb_now();
        c1 = cwb_cpu_now();
        out->bytes = (double)sp->size * (double)k;
        if (verify_one(d, s, sp->size, fill_byte(rt), err, cap) != 0)
            return -1;
    } else if (sp->state == CWB_COLD) {
        size_t first = e->cold_cursor;
        if (k > g->nslots)
            k = g->nslots;
        for (size_t i = 0; i < k; i++) {
            size_t slot = (first + i) % g->nslots;
            poison(e->dst + CWB_DST_BASE + slot * g->stride + sp->dst_off, sp->size, 1);
        }
        size_t n = sp->size, stride = g->stride, nslots = g->nslots;
        unsigned char *db = e->dst + CWB_DST_BASE + sp->dst_off;
        const unsigned char *sb = e->src + CWB_SRC_BASE + sp->src_off;
        c0 = cwb_cpu_now();
        t0 = cwb_now();
        cold_loops[site % CWB_SITES](cwb_routine_fn(rt, n), db, sb, n, k, stride, nslots,
                                     first % nslots);
        cwb_store_drain();
        t1 = cwb_now();
        c1 = cwb_cpu_now();
        e->cold_cursor = (first + k) % nslots;
        out->bytes = (double)n * (double)k;
        for (size_t i = 0; i < k; i++) {
            size_t sl = (first + i) % nslots;
            if (verify_one(db + sl * stride, sb + sl * stride, n, fill_byte(rt), err, cap) != 0)
                return -1;
        }
    } else {
        unsigned char *db = e->dst + CWB_PAGE, *rb = e->ref + CWB_PAGE;
        const unsigned char *sb = e->src + CWB_PAGE;
        const struct cwb_call *calls = sp->calls;
        size_t nc = sp->n_calls;
        memset(db - GUARD, POISON, sp->region + 2 * GUARD);
        memset(rb - GUARD, POISON, sp->region + 2 * GUARD);
        c0 = cwb_cpu_now();
        t0 = cwb_now();
        replay_loops[site % CWB_SITES](rt->fn, db, sb, calls, nc, k);
        cwb_store_drain();
        t1 = cwb_now();
        c1 = cwb_cpu_now();
        int fill = fill_byte(rt);
        for (size_t i = 0, j = 0; i < k; i++) {
            if (fill >= 0)
                memset(rb + calls[j].doff, fill, calls[j].n);
            else
                memcpy(rb + calls[j].doff, sb + calls[j].soff, calls[j].n);
            out->bytes += (double)calls[j].n;
            if (++j == nc)
                j = 0;
        }
        if (memcmp(db - GUARD, rb - GUARD, sp->region + 2 * GUARD) != 0) {
            size_t i = 0;
            while (db[i - GUARD] == rb[i - GUARD])
                i++;
            snprintf(err, cap, "wrong byte at offset %zd of the random-offset region",
                     (ptrdiff_t)i - (ptrdiff_t)GUARD);
            return -1;
        }
    }
    out->wall = t1 - t0;
    out->cpu = c1 - c0;
    return 0;
}

/* Batches shorter than this are timed twice before they end a calibration. */
#define CONFIRM_BELOW 64

/* The discarded warm-up: checks the routine copies at all, then grows the
 * batch until a sample lasts min_sample and the per-call time settles
 * (moves < 2% between doublings) or the batch reaches max_sample. */
static int calibrate(struct cwb_engine *e, const struct cwb_spec *sp, const struct geom *g,
                     const struct cwb_routine *rt, size_t site, struct cwb_run *run,
                     size_t *k_out)
{
    /* One checked call first: a routine returning NULL did not copy. */
    unsigned char *d = e->dst + CWB_DST_BASE, *s = e->src + CWB_SRC_BASE;
    size_t n0 = sp->state == CWB_RANDOM ? 64 : sp->size;
    poison(d, n0, 0);
    cwb_routine_prepare(rt);
    if (rt->fn(d, s, n0) == NULL) {
        if (strcmp(rt->name, "cw_copy_safe") == 0) {
            run->unavailable = 1;
            snprintf(run->err, sizeof run->err,
                     "%s: returned bytes not copied on valid buffers (not implemented yet?)",
                     rt->name);
            return -1;
        }
        snprintf(run->err, sizeof run->err, "returned NULL");
        run->failed = 1;
        return -1;
    }
    size_t k = 1;
    double prev = 0;
    for (int iter = 0; iter < 40; iter++) {
        /* A batch of a few calls reaches min_sample by itself only when an
         * interrupt or a preemption lands in it: the sample that would end
         * the calibration there is taken again, and the faster of the two
         * counts (otherwise one hiccup can leave every sample a batch of
         * one or two calls, timed mostly by the clock's own overhead). */
        struct sample smp;
        for (int take = 0; take < 2; take++) {
            struct sample one;
            if (run_sample(e, sp, g, rt, site, k, &one, run->err, sizeof run->err) != 0) {
                run->failed = 1;
                return -1;
            }
            if (take == 0 || one.wall < smp.wall)
                smp = one;
            if (smp.wall < e->min_sample || k >= CONFIRM_BELOW)
                break;
        }
        double per = smp.wall / (double)k;
        if (smp.wall >= e->min_sample) {
            int settled = prev > 0 && fabs(per - prev) <= 0.02 * prev;
            if (settled || smp.wall >= e->max_sample || k >= MAX_BATCH)
                break;
            prev = per;
            k *= 2;
        } else {
            double grow = smp.wall > 0 ? 1.5 * e->min_sample / smp.wall : 100;
            if (grow < 2)
                grow = 2;
            if (grow > 100)
                grow = 100;
            k = (size_t)((double)k * grow);
            prev = 0;
        }
        if (k > MAX_BATCH)
            k = MAX_BATCH;
        if (sp->state == CWB_COLD && k > g->nslots) {
            k = g->nslots;
            break;
        }
    }
    *k_out = k;
    return 0;
}

/* Bytes of the pool a cell touches, counted from the buffer's start. */
static size_t cell_need(const struct cwb_spec *sp)
{
    if (sp->state == CWB_RANDOM)
        return CWB_PAGE + sp->region + 2 * GUARD;
    if (sp->src_off < 0 || sp->dst_off < 0 || sp->size > SIZE_MAX / 2)
        return SIZE_MAX;
    size_t d = CWB_DST_BASE + (size_t)sp->dst_off + sp->size + GUARD + CWB_LINE;
    size_t s = CWB_SRC_BASE + (size_t)sp->src_off + sp->size;
    return d > s ? d : s;
}

static void fail_all(struct cwb_run *out, size_t nrt, const char *why)
{
    for (size_t i = 0; i < nrt; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].failed = 1;
        snprintf(out[i].err, sizeof out[i].err, "%s", why);
    }
}

void cwb_round_order(size_t *round, size_t *base, size_t nrt, int s, uint64_t *rng)
{
    if ((size_t)s % nrt == 0)
        cwb_shuffle(base, nrt, rng);
    for (size_t j = 0; j < nrt; j++)
        round[j] = base[(j + (size_t)s) % nrt];
}

/* specs[i * each] is routine i's cell: each = 0 shares one cell. */
static int measure(struct cwb_engine *e, const struct cwb_spec *specs, size_t each,
                   const struct cwb_routine *const *rt, size_t nrt, struct cwb_run *out)
{
    for (size_t i = 0; i < nrt; i++) {
        const struct cwb_spec *sp = &specs[i * each];
        size_t need = cell_need(sp);
        /* The reference buffer only serves the random-offset replay. */
        if (sp->state == CWB_RANDOM && e->ref == NULL &&
            (e->ref = cwb_alloc_huge(e->pool)) == NULL)
            need = SIZE_MAX;
        if (need > e->pool || (sp->state == CWB_RANDOM && sp->n_calls == 0)) {
            fail_all(out, nrt, "cell does not fit the buffers (or out of memory)");
            e->failures++;
            return -1;
        }
    }
    size_t *k = calloc(nrt, sizeof *k), *order = calloc(nrt, sizeof *order);
    size_t *round = calloc(nrt, sizeof *round);
    struct geom *g = calloc(nrt, sizeof *g);
    int rc = 0;
    if (k == NULL || order == NULL || round == NULL || g == NULL) {
        free(k);
        free(order);
        free(round);
        free(g);
        fail_all(out, nrt, "out of memory");
        e->failures++;
        return -1;
    }
    for (size_t i = 0; i < nrt; i++) {
        geometry(e, &specs[i * each], &g[i]);
        memset(&out[i], 0, sizeof out[i]);
        out[i].wall = calloc((size_t)e->samples, sizeof(double));
        out[i].cpu = calloc((size_t)e->samples, sizeof(double));
        order[i] = i;
        if (out[i].wall == NULL || out[i].cpu == NULL) {
            out[i].failed = 1;
            snprintf(out[i].err, sizeof out[i].err, "out of memory");
        }
    }
    cwb_shuffle(order, nrt, &e->rng);
    for (size_t j = 0; j < nrt; j++) {
        size_t i = order[j];
        if (!out[i].failed && calibrate(e, &specs[i * each], &g[i], rt[i], i, &out[i], &k[i]) == 0)
            out[i].calls = k[i];
    }
    for (int s = 0; s < e->samples; s++) {
        cwb_round_order(round, order, nrt, s, &e->rng);
        for (size_t j = 0; j < nrt; j++) {
            size_t i = round[j];
            struct cwb_run *r = &out[i];
            if (r->failed || r->unavailable)
                continue;
            struct sample smp;
            int preempted = 0;
            /* A sample the scheduler interrupted measures the machine, not
             * the routine: take it again (twice at most), and flag it if
             * the machine never lets it run undisturbed. */
            for (int attempt = 0; attempt < 3; attempt++) {
                if (run_sample(e, &specs[i * each], &g[i], rt[i], sample_site(i, nrt, s), k[i],
                               &smp, r->err, sizeof r->err) != 0) {
                    r->failed = 1;
                    break;
                }
                preempted = fabs(smp.cpu - smp.wall) > 0.1 * smp.wall;
                /* Samples longer than a scheduler slice get interrupted on
                 * a busy machine whatever we do: flag those, don't retry. */
                if (!preempted || smp.wall > 0.005)
                    break;
                e->retried++;
            }
            if (r->failed)
                continue;
            r->wall[r->n] = smp.wall;
            r->cpu[r->n] = smp.cpu;
            r->bytes = smp.bytes;
            if (preempted) {
                r->preempted++;
                e->preempted++;
            }
            r->n++;
            e->total_samples++;
        }
    }
    for (size_t i = 0; i < nrt; i++) {
        if (out[i].failed) {
            char tmp[sizeof out[i].err];
            snprintf(tmp, sizeof tmp, "%s", out[i].err);
            snprintf(out[i].err, sizeof out[i].err, "%s: %.130s", rt[i]->name, tmp);
            rc = -1;
        }
    }
    if (rc != 0)
        e->failures++;
    free(round);
    free(k);
    free(order);
    free(g);
    return rc;
}

int cwb_measure(struct cwb_engine *e, const struct cwb_spec *sp,
                const struct cwb_routine *const *rt, size_t nrt, struct cwb_run *out)
{
    return measure(e, sp, 0, rt, nrt, out);
}

int cwb_measure_each(struct cwb_engine *e, const struct cwb_spec *specs,
                     const struct cwb_routine *const *rt, size_t nrt, struct cwb_run *out)
{
    return measure(e, specs, 1, rt, nrt, out);
}
