/* `cwbench pollution`: what a copy costs everyone else. A victim working
 * set (a randomly permuted pointer chain, one node per cache line, on huge
 * pages so TLB misses don't dominate) is walked hot, cold (after clflush of
 * every line) and right after a routine copies N bytes:
 *   evicted fraction = (t_after - t_hot) / (t_cold - t_hot). */
#include <emmintrin.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "cmd.h"
#include "stats.h"

#define LINE 64

struct victim { unsigned char *base; size_t bytes, lines; const char *name; };

static int victim_make(struct victim *v, const char *name, size_t bytes, uint64_t *rng)
{
    v->name = name;
    v->bytes = bytes;
    v->lines = bytes / LINE;
    v->base = cwb_alloc_huge(bytes);
    size_t *order = malloc(v->lines * sizeof *order);
    if (v->base == NULL || order == NULL || v->lines < 2) {
        free(order);
        return -1;
    }
    for (size_t i = 0; i < v->lines; i++)
        order[i] = i;
    cwb_shuffle(order, v->lines, rng);
    /* One cycle through every line in a random order: no stride for the
     * prefetchers to learn. */
    for (size_t i = 0; i < v->lines; i++) {
        void **node = (void **)(v->base + order[i] * LINE);
        *node = v->base + order[(i + 1) % v->lines] * LINE;
    }
    free(order);
    return 0;
}

static void victim_free(struct victim *v)
{
    cwb_free_huge(v->base, v->bytes);
    v->base = NULL;
}

static double tsc_ns;

/* The TSC: a full L1-resident walk is a few hundred nanoseconds, too close
 * to the clock_gettime tick for 20-tick samples. */
static void calibrate_tsc(void)
{
    if (tsc_ns > 0)
        return;
    double t0 = cwb_now();
    uint64_t c0 = __rdtsc();
    while (cwb_now() - t0 < 0.02)
        ;
    double t1 = cwb_now();
    uint64_t c1 = __rdtsc();
    tsc_ns = (t1 - t0) * 1e9 / (double)(c1 - c0);
}

static double walk_ns(const struct victim *v)
{
    void *p = v->base;
    _mm_lfence();
    uint64_t c0 = __rdtsc();
    _mm_lfence();
    for (size_t i = v->lines; i > 0; i--)
        p = *(void **)p;
    _mm_lfence();
    uint64_t c1 = __rdtsc();
    __asm__ volatile("" : : "r"(p));
    return (double)(c1 - c0) * tsc_ns;
}

static void victim_flush(const struct victim *v)
{
    for (size_t i = 0; i < v->bytes; i += LINE)
        _mm_clflush(v->base + i);
    _mm_mfence();
}

struct prow { double *frac, *cpu, *hot, *cold; size_t n; int failed; };

static void print_summary(const char *name, const struct prow *p)
{
    struct cwb_summary f, c;
    cwb_summarize(p->frac, p->n, &f);
    cwb_summarize(p->cpu, p->n, &c);
    printf("  %-22s %7.3f  [%6.3f, %6.3f]  %9.2f\n", name, f.median, f.q1, f.q3,
           c.median * 1e3);
}

static int victim_run(const struct cwb_opts *o, const struct victim *v, size_t copy_bytes,
                      const struct cwb_routine *const *rt, size_t nrt, int reps,
                      unsigned char *src, unsigned char *dst, struct cwb_results *res,
                      uint64_t *rng)
{
    /* Row nrt is the control: no copy, a busy wait as long as the last
     * copy took, so what the other tenants evict in that time shows. */
    size_t nrow = nrt + 1;
    struct prow *rows = calloc(nrow, sizeof *rows);
    size_t *order = malloc(nrow * sizeof *order);
    int rc = 0;
    if (rows == NULL || order == NULL) {
        free(rows);
        free(order);
        return 1;
    }
    for (size_t j = 0; j < nrow; j++) {
        rows[j].frac = calloc((size_t)reps, sizeof(double));
        rows[j].cpu = calloc((size_t)reps, sizeof(double));
        rows[j].hot = calloc((size_t)reps, sizeof(double));
        rows[j].cold = calloc((size_t)reps, sizeof(double));
        order[j] = j;
    }
    /* A level that other tenants keep full shows hot walks as slow as
     * cold ones: say so instead of dividing noise by noise. */
    double ph[3], pc[3];
    for (int t = 0; t < 3; t++) {
        walk_ns(v);
        ph[t] = walk_ns(v);
        victim_flush(v);
        pc[t] = walk_ns(v);
    }
    struct cwb_summary sh, sc;
    cwb_progress_clear();
    cwb_summarize(ph, 3, &sh);
    cwb_summarize(pc, 3, &sc);
    if (!(sc.median - sh.median > 0.2 * sc.median)) {
        char a[32];
        printf("victim %s: %s chain (%zu lines); walk hot %.1f us, cold %.1f us: the victim "
               "does not stay\n  cached here (the level is taken by other tenants), so no "
               "evicted fraction can be measured\n", v->name,
               cwb_fmt_size(v->bytes, a, sizeof a), v->lines, sh.median / 1e3, sc.median / 1e3);
        for (size_t j = 0; j < nrow; j++) {
            free(rows[j].frac);
            free(rows[j].cpu);
            free(rows[j].hot);
            free(rows[j].cold);
        }
        free(rows);
        free(order);
        return 0;
    }
    double last_copy = 0;
    int retries = 0;
    for (int r = 0; r < reps; r++) {
        cwb_shuffle(order, nrow, rng);
        for (size_t k = 0; k < nrow; k++) {
            size_t j = order[k];
            struct prow *p = &rows[j];
            if (p->frac == NULL || p->cpu == NULL || p->hot == NULL || p->cold == NULL ||
                p->failed)
                continue;
            if (j < nrt)
                cwb_fill_nt(dst, 0, copy_bytes);
            walk_ns(v);
            double t_hot = walk_ns(v);
            victim_flush(v);
            double t_cold = walk_ns(v);
            double c0 = cwb_cpu_now(), w0 = cwb_now();
            if (j < nrt)
                rt[j]->fn(dst, src, copy_bytes);
            else
                while (cwb_now() - w0 < last_copy)
                    ;
            _mm_sfence();
            double c1 = cwb_cpu_now(), w1 = cwb_now();
            if (j < nrt)
                last_copy = w1 - w0;
            double t_after = walk_ns(v);
            double c2 = cwb_cpu_now(), w2 = cwb_now();
            /* Another task on this CPU between the copy and the walk
             * evicts the victim too: repeat such a repetition (at most
             * as many repeats as planned repetitions, then keep all). */
            if (fabs((c2 - c0) - (w2 - w0)) > 0.05 * (w2 - w0) && retries < reps * (int)nrow) {
                retries++;
                k--;
                continue;
            }
            if (j < nrt && memcmp(dst, src, copy_bytes) != 0) {
                fprintf(stderr, "cwbench: %s: wrong bytes after a %zu-byte copy\n",
                        rt[j]->name, copy_bytes);
                p->failed = 1;
                rc = 1;
                continue;
            }
            p->frac[p->n] = t_after;
            p->cpu[p->n] = c1 - c0;
            p->hot[p->n] = t_hot;
            p->cold[p->n] = t_cold;
            p->n++;
        }
    }
    cwb_progress_clear();
    /* The hot and cold walk times pooled over every repetition of every
     * row: one preempted walk then moves a quartile, not a fraction. */
    size_t total = 0;
    for (size_t j = 0; j < nrow; j++)
        total += rows[j].n;
    double *hot = malloc((total + 1) * sizeof *hot), *cold = malloc((total + 1) * sizeof *cold);
    struct cwb_summary h, c;
    if (hot == NULL || cold == NULL) {
        free(hot);
        free(cold);
        hot = cold = NULL;
        rc = 1;
    }
    total = 0;
    for (size_t j = 0; j < nrow && hot != NULL && cold != NULL; j++)
        for (size_t k = 0; k < rows[j].n; k++) {
            hot[total] = rows[j].hot[k];
            cold[total++] = rows[j].cold[k];
        }
    cwb_summarize(hot, total, &h);
    cwb_summarize(cold, total, &c);
    free(hot);
    free(cold);
    for (size_t j = 0; j < nrow; j++)
        for (size_t k = 0; k < rows[j].n; k++)
            rows[j].frac[k] = (rows[j].frac[k] - h.median) / (c.median - h.median);
    char a[32], b[32];
    printf("victim %s: %s chain (%zu lines); walk hot %.1f us (±%.0f%%), cold %.1f us "
           "(±%.0f%%) over %zu walks each; copy %s\n", v->name, cwb_fmt_size(v->bytes, a, sizeof a), v->lines,
           h.median / 1e3, 50 * (h.q3 - h.q1) / h.median, c.median / 1e3,
           50 * (c.q3 - c.q1) / c.median, total, cwb_fmt_size(copy_bytes, b, sizeof b));
    if (!(c.median - h.median > 0.2 * c.median)) {
        printf("  the victim does not stay cached here (hot and cold walks within 20%%: the "
               "level is\n  taken by other tenants), so no evicted fraction can be measured\n");
        for (size_t j = 0; j < nrow; j++)
            rows[j].n = 0;
    } else {
        printf("  %-22s %7s  %-16s  %9s\n", "routine", "evicted", "[q1, q3]", "copy cpu ms");
    }
    for (size_t j = 0; j < nrow; j++) {
        const char *name = j < nrt ? rt[j]->name : "(no copy, same wait)";
        if (rows[j].failed) {
            printf("  %-22s FAILED\n", name);
            continue;
        }
        if (rows[j].n == 0)
            continue;
        print_summary(name, &rows[j]);
        struct cwb_cell proto;
        memset(&proto, 0, sizeof proto);
        snprintf(proto.routine, sizeof proto.routine, "%s", j < nrt ? rt[j]->name : "no_copy");
        snprintf(proto.bench, sizeof proto.bench, "pollution");
        snprintf(proto.state, sizeof proto.state, "victim-%s", v->name);
        snprintf(proto.unit, sizeof proto.unit, "fraction");
        proto.size = copy_bytes;
        proto.higher_is_better = 0;
        cwb_results_add(res, &proto, rows[j].frac, rows[j].cpu, rows[j].n);
    }
    (void)o;
    for (size_t j = 0; j < nrow; j++) {
        free(rows[j].frac);
        free(rows[j].cpu);
        free(rows[j].hot);
        free(rows[j].cold);
    }
    free(rows);
    free(order);
    return rc;
}

int cwb_pollution_run(const struct cwb_opts *o, unsigned victims_mask, size_t copy_bytes,
                      const struct cwb_routine *const *rt, size_t nrt, int reps,
                      struct cwb_results *res)
{
    const struct cw_info *in = cw_get_info();
    size_t sizes[3] = {in->l1d_size ? in->l1d_size / 2 : 16 << 10,
                       in->l2_size ? in->l2_size / 2 : 128 << 10, cwb_llc_bytes() / 2};
    const char *names[3] = {"L1", "L2", "L3"};
    uint64_t rng = o->seed ^ 0x9011u;
    calibrate_tsc();
    unsigned char *src = cwb_alloc_huge(copy_bytes), *dst = cwb_alloc_huge(copy_bytes);
    if (src == NULL || dst == NULL) {
        fprintf(stderr, "cwbench: cannot allocate 2 x %zu bytes\n", copy_bytes);
        cwb_free_huge(src, copy_bytes);
        cwb_free_huge(dst, copy_bytes);
        return 1;
    }
    cwb_fill_pattern(src, copy_bytes, o->seed);
    printf("median and quartiles over %d repetitions, routines interleaved; each victim is "
           "half its cache level.\nThe \"(no copy, same wait)\" row waits as long as a copy "
           "takes: what other tenants evict meanwhile.\nThe L3 (and the L2, if the vCPUs are "
           "SMT siblings) is shared with other tenants: that row and the\nquartiles are "
           "the noise; read differences smaller than them as noise.\n", reps);
    /* A migration between walks would read the victim from another core's
     * caches: stay on this CPU for the pollution runs unless --pin chose. */
    cpu_set_t saved;
    int repin = o->pin < 0 && sched_getaffinity(0, sizeof saved, &saved) == 0;
    if (repin) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(sched_getcpu(), &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0)
            repin = 0;
        else
            printf("(pinned to CPU %d for these walks)\n", sched_getcpu());
    }
    int rc = 0;
    for (int i = 0; i < 3; i++) {
        if (!(victims_mask & (1u << i)))
            continue;
        struct victim v;
        if (victim_make(&v, names[i], sizes[i] & ~(size_t)(LINE - 1), &rng) != 0) {
            fprintf(stderr, "cwbench: cannot allocate the %s victim\n", names[i]);
            rc = 1;
            continue;
        }
        cwb_progress_begin("pollution", 1);
        if (victim_run(o, &v, copy_bytes, rt, nrt, reps, src, dst, res, &rng) != 0)
            rc = 1;
        cwb_progress_end();
        victim_free(&v);
    }
    if (repin)
        sched_setaffinity(0, sizeof saved, &saved);
    cwb_free_huge(src, copy_bytes);
    cwb_free_huge(dst, copy_bytes);
    fflush(stdout);
    return rc;
}

static const char *const default_routines[] = {
    "cw_memcpy", "cw_memcpy_nt", "cw_memcpy_flushcache", "cw_copy_nta", "glibc_memcpy",
    "rep_movsb", "stream_avx2", "pmem_memcpy_nt", "pmem_memcpy_t", NULL,
};

int cwb_cmd_pollution(const struct cwb_opts *o)
{
    double t0 = cwb_now();
    const struct cwb_routine *rt[CWB_MAX_ROUTINES];
    size_t nrt;
    if (cwb_pick_routines(o->routines, default_routines, rt, &nrt) != 0)
        return 2;
    size_t n = o->size ? o->size : o->quick ? (size_t)1 << 20 : (size_t)64 << 20;
    int reps = o->samples ? o->samples : o->quick ? 3 : 10;
    struct cwb_results res;
    cwb_results_init(&res);
    cwb_common_meta(&res, o, "cwbench pollution");
    printf("cwbench pollution: evicted fraction of a victim working set after one copy\n\n");
    cwb_print_machine(stdout);
    printf("\n");
    int rc = cwb_pollution_run(o, o->quick ? 3u : 7u, n, rt, nrt, reps, &res);
    if (cwb_write_outputs(&res, o) != 0)
        rc = 1;
    cwb_results_free(&res);
    printf("\ntotal time %.1f s\n", cwb_now() - t0);
    return rc;
}
