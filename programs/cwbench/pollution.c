/* `cwbench pollution`: what a copy costs everyone else. A victim working
 * set (a randomly permuted pointer chain, one node per cache line, on huge
 * pages so TLB misses don't dominate) is walked cold (after clflush of
 * every line), hot (re-walked until resident) and right after a routine
 * copies N bytes:
 *   evicted fraction = (t_after - t_hot) / (t_cold - t_hot).
 * On a shared machine the victim also decays with no copy at all, so every
 * table has a no-copy row that waits as long as the copies take, and each
 * routine is tested against it (docs/BENCHMARKS.md, "Pollution"). */
#include <emmintrin.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <x86intrin.h>

#include "cmd.h"
#include "stats.h"

#define LINE 64
/* Walks until two in a row agree within this ratio: one walk after a
 * flush or a big copy leaves part of an L2-sized victim outside the L2
 * (measured on Zen 3: the second walk was up to 12x slower than the third). */
#define WARM_SETTLED 1.03
#define WARM_MAX 8
/* A repetition disturbed by a context switch is repeated up to this many
 * times, then kept and counted as disturbed. */
#define MAX_RETRIES 20

struct victim { unsigned char *base; size_t bytes, lines; const char *name, *next; };

static int victim_make(struct victim *v, size_t bytes, uint64_t *rng)
{
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
        _mm_clflush(v->base + i);
    _mm_mfence();
}

/* Read a buffer twice the victim's level, twice: what the walk costs once
 * the victim sits one level down. */
static void push_down(const unsigned char *scratch, size_t bytes)
{
    unsigned sum = 0;
    for (int r = 0; r < 2; r++)
        for (size_t i = 0; i < bytes; i += LINE)
            sum += ((const volatile unsigned char *)scratch)[i];
    __asm__ volatile("" : : "r"(sum));
}

static long ctx_switches(void)
{
    struct rusage u;
    if (getrusage(RUSAGE_THREAD, &u) != 0)
        return -1;
    return u.ru_nvcsw + u.ru_nivcsw;
}

/* Where allowed (root, CAP_SYS_NICE, RLIMIT_RTPRIO), each measured window
 * (a few walks and one copy, milliseconds) runs at SCHED_FIFO so that the
 * other processes on a loaded machine cannot run on this CPU in the middle
 * of it; between windows the process is an ordinary one again.
 * CWBENCH_NO_RT=1 turns this off. */
static int rt_ok = -1;

static void rt_enter(void)
{
    if (rt_ok == 0)
        return;
    if (rt_ok < 0) {
        /* a policy the user chose (chrt, SCHED_BATCH...) is left alone */
        const char *e = getenv("CWBENCH_NO_RT");
        if ((e != NULL && e[0] != '\0' && e[0] != '0') || sched_getscheduler(0) != SCHED_OTHER) {
            rt_ok = 0;
            return;
        }
    }
    struct sched_param sp = {.sched_priority = 1};
    rt_ok = sched_setscheduler(0, SCHED_FIFO, &sp) == 0;
}

static void rt_leave(void)
{
    struct sched_param sp = {.sched_priority = 0};
    if (rt_ok == 1)
        sched_setscheduler(0, SCHED_OTHER, &sp);
}

static void busy_wait(double seconds)
{
    double w0 = cwb_now();
    while (cwb_now() - w0 < seconds)
        ;
}

/* Rows: the routines, then the no-copy control, then the push-down
 * reference (L1 and L2 victims only). */
struct prow { double *after, *hot, *cold, *cpu, *frac; size_t n; int failed; };

struct prun {
    const struct victim *v;
    const struct cwb_routine *const *rt;
    size_t nrt, nrow, copy_bytes;
    unsigned char *src, *dst, *scratch;
    size_t scratch_bytes, push_bytes; /* push_bytes: twice the victim's level */
    double *durations; /* wall time of every copy so far */
    size_t n_durations;
    int retried, disturbed;
};

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The no-copy row waits as long as the median copy so far takes. */
static double median_duration(struct prun *p)
{
    if (p->n_durations == 0)
        return 0;
    double *t = malloc(p->n_durations * sizeof *t);
    if (t == NULL)
        return p->durations[0];
    for (size_t i = 0; i < p->n_durations; i++)
        t[i] = p->durations[i];
    qsort(t, p->n_durations, sizeof *t, cmp_d);
    double m = t[p->n_durations / 2];
    free(t);
    return m;
}

/* One repetition of row j; 0, or 1 when the routine copied wrong bytes. */
static int measure_once(struct prun *p, size_t j, struct prow *row)
{
    size_t nrt = p->nrt;
    double wait = j == nrt ? median_duration(p) : 0;
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
        else if (j == nrt)
            busy_wait(wait);
        else
            push_down(p->scratch, p->push_bytes);
        _mm_sfence();
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
        if (attempt == MAX_RETRIES) {
            p->disturbed++;
            break;
        }
        p->retried++;
    }
    if (j < nrt) {
        if (memcmp(p->dst, p->src, p->copy_bytes) != 0) {
            fprintf(stderr, "cwbench: %s: wrong bytes after a %zu-byte copy\n", p->rt[j]->name,
                    p->copy_bytes);
            row->failed = 1;
            return 1;
        }
        p->durations[p->n_durations++] = w1 - w0;
    }
    row->after[row->n] = t_after;
    row->hot[row->n] = t_hot;
    row->cold[row->n] = t_cold;
    row->cpu[row->n] = c1 - c0;
    row->n++;
    return 0;
}

static void rows_free(struct prow *rows, size_t nrow)
{
    for (size_t j = 0; rows != NULL && j < nrow; j++) {
        free(rows[j].after);
        free(rows[j].hot);
        free(rows[j].cold);
        free(rows[j].cpu);
        free(rows[j].frac);
    }
    free(rows);
}

static const char *row_name(const struct prun *p, size_t j)
{
    static char buf[48];
    if (j < p->nrt)
        return p->rt[j]->name;
    if (j == p->nrt)
        return "(no copy, same wait)";
    snprintf(buf, sizeof buf, "(victim pushed to %s)", p->v->next);
    return buf;
}

/* "above background" when the routine's fractions are significantly
 * larger than the no-copy row's (two-sided Mann-Whitney U, alpha 0.05). */
static const char *vs_background(const struct prow *r, const struct prow *bg, char *buf,
                                 size_t cap)
{
    struct cwb_mwu u;
    if (bg->n == 0 || cwb_mann_whitney(r->frac, r->n, bg->frac, bg->n, &u) != 0)
        return "-";
    struct cwb_summary a, b;
    cwb_summarize(r->frac, r->n, &a);
    cwb_summarize(bg->frac, bg->n, &b);
    /* Survival multiplies: what the copy itself evicted, given that the
     * background alone left 1 - b of the victim in place (only for a copy
     * significantly above the background: otherwise it is noise). */
    char own[32] = "";
    int above = u.p < 0.05 && a.median > b.median;
    if (above && 1 - b.median >= 0.2)
        snprintf(own, sizeof own, ", own %.2f", 1 - (1 - a.median) / (1 - b.median));
    snprintf(buf, cap, "%s (p=%.3f%s%s)",
             above ? "above bg" : u.p < 0.05 ? "below bg" : "within bg", u.p, own,
             r->n < CWB_MIN_SAMPLES || bg->n < CWB_MIN_SAMPLES ? ", few samples" : "");
    return buf;
}

static void report(struct prun *p, struct prow *rows, struct cwb_results *res, int reps)
{
    size_t total = 0;
    for (size_t j = 0; j < p->nrow; j++)
        total += rows[j].n;
    double *hot = malloc((total + 1) * sizeof *hot), *cold = malloc((total + 1) * sizeof *cold);
    if (hot == NULL || cold == NULL) {
        free(hot);
        free(cold);
        return;
    }
    /* Hot and cold walks pooled over every repetition of every row: one
     * disturbed walk then moves a quartile, not a fraction. */
    total = 0;
    for (size_t j = 0; j < p->nrow; j++)
        for (size_t k = 0; k < rows[j].n; k++) {
            hot[total] = rows[j].hot[k];
            cold[total++] = rows[j].cold[k];
        }
    struct cwb_summary h, c;
    cwb_summarize(hot, total, &h);
    cwb_summarize(cold, total, &c);
    free(hot);
    free(cold);
    for (size_t j = 0; j < p->nrow; j++)
        for (size_t k = 0; k < rows[j].n; k++)
            rows[j].frac[k] = (rows[j].after[k] - h.median) / (c.median - h.median);
    char a[32], b[32];
    printf("victim %s: %s chain (%zu lines); walk hot %.2f ns/line (±%.0f%%), cold %.1f "
           "ns/line (±%.0f%%) over %zu walks each; copy %s\n", p->v->name,
           cwb_fmt_size(p->v->bytes, a, sizeof a), p->v->lines, h.median / (double)p->v->lines,
           50 * (h.q3 - h.q1) / h.median, c.median / (double)p->v->lines,
           50 * (c.q3 - c.q1) / c.median, total, cwb_fmt_size(p->copy_bytes, b, sizeof b));
    if (!(c.median - h.median > 0.2 * c.median)) {
        printf("  the victim does not stay cached here (hot and cold walks within 20%%: the "
               "level is\n  taken by other tenants), so no evicted fraction can be measured\n");
        return;
    }
    /* On a victim cache hierarchy (AMD: lines leaving the L2 go to the L3)
     * a victim that left its level entirely reads far below 1: scale by the
     * pushed-down reference too, so "left L2" = 1 means all of it left. */
    double pushed = NAN;
    if (p->nrow > p->nrt + 1 && rows[p->nrt + 1].n > 0) {
        struct cwb_summary s;
        cwb_summarize(rows[p->nrt + 1].frac, rows[p->nrt + 1].n, &s);
        if (s.median > 0.005)
            pushed = s.median;
    }
    char left[16] = "";
    if (p->v->next != NULL)
        snprintf(left, sizeof left, "left %s", p->v->name);
    printf("  %-24s %7s  %-16s %7s %7s  %s\n", "routine", "evicted", "[q1, q3]", left,
           "cpu ms", "vs no copy");
    const struct prow *bg = &rows[p->nrt];
    for (size_t j = 0; j < p->nrow; j++) {
        const char *name = row_name(p, j);
        if (rows[j].failed) {
            printf("  %-24s FAILED\n", name);
            continue;
        }
        if (rows[j].n == 0)
            continue;
        struct cwb_summary f, cpu;
        cwb_summarize(rows[j].frac, rows[j].n, &f);
        cwb_summarize(rows[j].cpu, rows[j].n, &cpu);
        char vb[64];
        char lv[16] = "-";
        if (!isnan(pushed))
            snprintf(lv, sizeof lv, "%.2f", f.median / pushed);
        printf("  %-24s %7.3f  [%6.3f, %6.3f] %7s %7.2f  %s\n", name, f.median, f.q1, f.q3, lv,
               cpu.median * 1e3, j < p->nrt ? vs_background(&rows[j], bg, vb, sizeof vb) : "");
        if (j > p->nrt)
            continue;
        struct cwb_cell proto;
        memset(&proto, 0, sizeof proto);
        snprintf(proto.routine, sizeof proto.routine, "%s", j < p->nrt ? name : "no_copy");
        snprintf(proto.bench, sizeof proto.bench, "pollution");
        snprintf(proto.state, sizeof proto.state, "victim-%s", p->v->name);
        snprintf(proto.unit, sizeof proto.unit, "fraction");
        proto.size = p->copy_bytes;
        proto.higher_is_better = 0;
        cwb_results_add(res, &proto, rows[j].frac, rows[j].cpu, rows[j].n);
    }
    printf("  no-copy wait %.2f ms (median copy time)", median_duration(p) * 1e3);
    if (p->retried || p->disturbed)
        printf("; %d repetitions repeated after a context switch, %d kept disturbed of %zu",
               p->retried, p->disturbed, (size_t)reps * p->nrow);
    printf("\n");
}

static int victim_run(struct prun *p, int reps, uint64_t *rng, struct cwb_results *res)
{
    size_t nrow = p->nrow;
    struct prow *rows = calloc(nrow, sizeof *rows);
    size_t *order = malloc(nrow * sizeof *order);
    p->durations = malloc(((size_t)reps * p->nrt + 1) * sizeof *p->durations);
    int rc = 0, oom = rows == NULL || order == NULL || p->durations == NULL;
    for (size_t j = 0; !oom && j < nrow; j++) {
        size_t n = (size_t)reps;
        rows[j].after = calloc(n, sizeof(double));
        rows[j].hot = calloc(n, sizeof(double));
        rows[j].cold = calloc(n, sizeof(double));
        rows[j].cpu = calloc(n, sizeof(double));
        rows[j].frac = calloc(n, sizeof(double));
        oom = !rows[j].after || !rows[j].hot || !rows[j].cold || !rows[j].cpu || !rows[j].frac;
        order[j] = j;
    }
    if (oom) {
        fprintf(stderr, "cwbench: out of memory for the %s victim\n", p->v->name);
        rows_free(rows, nrow);
        free(order);
        free(p->durations);
        return 1;
    }
    p->n_durations = 0;
    p->retried = p->disturbed = 0;
    /* A discarded first repetition of the first routine: page faults,
     * first-touch effects and a first duration for the no-copy row. */
    if (p->nrt > 0) {
        p->rt[0]->fn(p->dst, p->src, p->copy_bytes);
        double w0 = cwb_now();
        p->rt[0]->fn(p->dst, p->src, p->copy_bytes);
        p->durations[p->n_durations++] = cwb_now() - w0;
    }
    for (int r = 0; r < reps; r++) {
        cwb_shuffle(order, nrow, rng);
        for (size_t k = 0; k < nrow; k++) {
            size_t j = order[k];
            if (!rows[j].failed && measure_once(p, j, &rows[j]) != 0)
                rc = 1;
        }
        cwb_progress_step((size_t)r + 1);
    }
    cwb_progress_clear();
    report(p, rows, res, reps);
    rows_free(rows, nrow);
    free(order);
    free(p->durations);
    p->durations = NULL;
    return rc;
}

int cwb_pollution_run(const struct cwb_opts *o, unsigned victims_mask, size_t copy_bytes,
                      const struct cwb_routine *const *rt, size_t nrt, int reps,
                      struct cwb_results *res)
{
    const struct cw_info *in = cw_get_info();
    size_t l1 = in->l1d_size ? in->l1d_size : 32 << 10;
    size_t l2 = in->l2_size ? in->l2_size : 512 << 10;
    /* Well inside each level: half of L1 (nothing else competes there
     * between walks), a quarter of L2 and of L3 (the L2 also holds page
     * tables and the code; the L3 is shared). */
    size_t sizes[3] = {l1 / 2, l2 / 4, cwb_llc_bytes() / 4};
    const char *names[3] = {"L1", "L2", "L3"}, *next[3] = {"L2", "L3", NULL};
    uint64_t rng = o->seed ^ 0x9011u;
    calibrate_tsc();
    struct prun p;
    memset(&p, 0, sizeof p);
    p.rt = rt;
    p.nrt = nrt;
    p.copy_bytes = copy_bytes;
    p.scratch_bytes = 2 * l2;
    p.src = cwb_alloc_huge(copy_bytes);
    p.dst = cwb_alloc_huge(copy_bytes);
    p.scratch = cwb_alloc_huge(p.scratch_bytes);
    if (p.src == NULL || p.dst == NULL || p.scratch == NULL) {
        fprintf(stderr, "cwbench: cannot allocate 2 x %zu bytes\n", copy_bytes);
        cwb_free_huge(p.src, copy_bytes);
        cwb_free_huge(p.dst, copy_bytes);
        cwb_free_huge(p.scratch, p.scratch_bytes);
        return 1;
    }
    cwb_fill_pattern(p.src, copy_bytes, o->seed);
    printf("median and quartiles over %d repetitions, routines interleaved; victims: half the "
           "L1,\na quarter of the L2 and of the L3. Each walk after the copy follows a victim "
           "re-walked until\nresident. \"(no copy, same wait)\" waits as long as the median "
           "copy takes: what the rest of\nthe machine evicts meanwhile; \"vs no copy\" tests "
           "each routine against it (\"own\": the share\nthe copy itself evicted of what the "
           "background left). \"(victim pushed to L3)\": the value\nwhen the whole victim "
           "sits one level down.\n", reps);
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
    }
    rt_enter();
    rt_leave();
    printf("(on CPU %d%s)\n", sched_getcpu(),
           rt_ok == 1 ? "; measured windows at SCHED_FIFO, no other process can interrupt them"
                      : "; windows disturbed by a context switch are repeated");
    int rc = 0;
    for (int i = 0; i < 3; i++) {
        if (!(victims_mask & (1u << i)))
            continue;
        struct victim v;
        memset(&v, 0, sizeof v);
        v.name = names[i];
        v.next = next[i];
        if (victim_make(&v, sizes[i] & ~(size_t)(LINE - 1), &rng) != 0) {
            fprintf(stderr, "cwbench: cannot allocate the %s victim\n", names[i]);
            cwb_free_huge(v.base, v.bytes);
            rc = 1;
            continue;
        }
        p.v = &v;
        p.nrow = nrt + (next[i] != NULL ? 2 : 1);
        p.push_bytes = i == 0 ? 2 * l1 : p.scratch_bytes;
        cwb_progress_begin("pollution", (size_t)reps);
        if (victim_run(&p, reps, &rng, res) != 0)
            rc = 1;
        cwb_progress_end();
        cwb_free_huge(v.base, v.bytes);
    }
    if (repin)
        sched_setaffinity(0, sizeof saved, &saved);
    cwb_free_huge(p.src, copy_bytes);
    cwb_free_huge(p.dst, copy_bytes);
    cwb_free_huge(p.scratch, p.scratch_bytes);
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
