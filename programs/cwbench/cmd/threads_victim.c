/* SPDX-License-Identifier: MIT */
/* `cwbench threads --victim`: does splitting a large copy evict more of
 * what the caller keeps in its caches than one streaming call does? A
 * victim of a quarter of the L2, the pointer chain of engine/victim.c, is
 * walked on the calling thread's CPU before and after each copy, as
 * `cwbench pollution` and `cwbench tune` measure it; the copies are
 *   cw_memcpy_nt                  one streaming call (the reference)
 *   cw_copy_part, k = 1, 2, 4     the k slices one after another on the caller
 *   cw_copy_parallel, k = 2, 4    the pool (the caller copies its share)
 * and a background row that only waits as long as the reference copy
 * takes. A victim cached in one core's L2 can only be read back from that
 * core, so the evictions measured are those of the caller's CPU (the
 * caller's share of the copy, and what the copy does to the shared L3).
 * The rows rotate from round to round, so drift hits them alike; each
 * window (fill, walks, copy) runs at SCHED_FIFO where allowed, as in
 * `cwbench pollution`. The target: every k-part copy evicts at most the
 * reference's fraction + 0.05 (medians); printed, never asserted (it
 * depends on timing), and not judged where the background alone evicts
 * most of the victim. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/format.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "engine/pollution_util.h"
#include "engine/routines.h"
#include "engine/team.h"
#include "engine/victim.h"
#include "platform/memory.h"
#include "results/results.h"
#include "results/stats.h"
#include "cachewise.h"

#define MiB ((size_t)1 << 20)
#define TARGET_MARGIN 0.05
/* A background above this leaves too little of the victim to compare
 * copies by (the `own` column of `cwbench pollution` stops there too). */
#define BACKGROUND_MAX 0.8

enum vkind { V_ONE_CALL, V_PART, V_POOL, V_BACKGROUND };

struct vrow {
    struct cwb_routine rt;
    enum vkind kind;
    unsigned k;
    char name[48];
};

/* The caller runs on one CPU, where the victim lives, except inside
 * cw_copy_parallel, which caps its threads at the caller's affinity mask:
 * there the process's own mask is restored for the call, and the caller
 * pinned again after it (back on the victim's CPU if it moved). */
static cpu_set_t process_mask, victim_cpu;

static const struct vrow *current;

static void vrow_prepare(const void *ctx)
{
    current = ctx;
}

static void *vrow_copy(void *d, const void *s, size_t n)
{
    const struct vrow *r = current;
    switch (r->kind) {
    case V_PART:
        for (unsigned i = 0; i < r->k; i++)
            if (cw_copy_part(d, s, n, 0, i, r->k) == NULL)
                return NULL;
        return d;
    case V_POOL: {
        sched_setaffinity(0, sizeof process_mask, &process_mask);
        void *ret = cw_copy_parallel(d, s, n, 0, r->k);
        sched_setaffinity(0, sizeof victim_cpu, &victim_cpu);
        return ret;
    }
    default:
        return cw_memcpy_nt(d, s, n);
    }
}

static void vrow_set(struct vrow *r, enum vkind kind, unsigned k)
{
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->k = k;
    if (kind == V_ONE_CALL)
        snprintf(r->name, sizeof r->name, "cw_memcpy_nt");
    else if (kind == V_PART)
        snprintf(r->name, sizeof r->name, "cw_copy_part_%u", k);
    else if (kind == V_POOL)
        snprintf(r->name, sizeof r->name, "cw_copy_parallel_%ut", k);
    else
        snprintf(r->name, sizeof r->name, "background");
    r->rt.name = r->rt.what = r->name;
    r->rt.fn = vrow_copy;
    r->rt.prepare = vrow_prepare;
    r->rt.ctx = r;
}

static const char *row_label(const struct vrow *r, size_t n, char *buf, size_t cap)
{
    if (r->kind == V_ONE_CALL)
        snprintf(buf, cap, "cw_memcpy_nt (one streaming call)");
    else if (r->kind == V_PART)
        snprintf(buf, cap, "cw_copy_part, %u part%s on the caller", r->k, r->k == 1 ? "" : "s");
    else if (r->kind == V_POOL)
        snprintf(buf, cap, "cw_copy_parallel, %u threads (pool: %u)", r->k,
                 cwb_pool_threads(n, r->k));
    else
        snprintf(buf, cap, "background (no copy, same wait)");
    return buf;
}

static void add_cell(struct cwb_results *res, const struct vrow *r, size_t n, const double *x,
                     size_t reps)
{
    struct cwb_cell proto;
    memset(&proto, 0, sizeof proto);
    snprintf(proto.routine, sizeof proto.routine, "%s", r->name);
    snprintf(proto.bench, sizeof proto.bench, "threads_pollution");
    snprintf(proto.state, sizeof proto.state, "victim-L2");
    snprintf(proto.unit, sizeof proto.unit, "fraction");
    proto.size = n;
    proto.higher_is_better = 0;
    cwb_results_add(res, &proto, x, NULL, reps);
}

#define NROWS 7

int cwb_threads_victim(const struct cwb_opts *o, struct cwb_results *res)
{
    const struct cw_info *in = cw_get_info();
    size_t n = o->quick ? 16 * MiB : (size_t)1 << 30;
    size_t vbytes = in->l2_size != 0 ? in->l2_size / 4 : (size_t)256 << 10;
    size_t reps = o->samples ? (size_t)o->samples : o->quick ? 3 : 9;
    struct vrow rows[NROWS];
    vrow_set(&rows[0], V_ONE_CALL, 1);
    vrow_set(&rows[1], V_PART, 1);
    vrow_set(&rows[2], V_PART, 2);
    vrow_set(&rows[3], V_PART, 4);
    vrow_set(&rows[4], V_POOL, 2);
    vrow_set(&rows[5], V_POOL, 4);
    vrow_set(&rows[6], V_BACKGROUND, 0);

    double *frac = calloc(NROWS * reps, sizeof *frac);
    unsigned char *src = cwb_alloc_huge(n), *dst = cwb_alloc_huge(n);
    struct cwb_victim v = {NULL, 0};
    uint64_t rng = o->seed;
    if (frac == NULL || src == NULL || dst == NULL || cwb_victim_make(&v, vbytes, &rng) != 0) {
        fprintf(stderr, "cwbench threads: cannot allocate the victim and 2 x %zu MiB\n",
                n >> 20);
        free(frac);
        if (src != NULL)
            cwb_free_huge(src, n);
        if (dst != NULL)
            cwb_free_huge(dst, n);
        if (v.base != NULL)
            cwb_free_huge(v.base, vbytes);
        return 1;
    }
    int pinned = sched_getaffinity(0, sizeof process_mask, &process_mask) == 0;
    int cpu = sched_getcpu();
    CPU_ZERO(&victim_cpu);
    CPU_SET(cpu, &victim_cpu);
    pinned = pinned && sched_setaffinity(0, sizeof victim_cpu, &victim_cpu) == 0;

    rt_enter();
    rt_leave();
    char a[32], b[32];
    printf("\nPollution: a %s copy in k parts against one streaming call; victim %s (a "
           "quarter of\nthe L2), a pointer chain walked on the caller's CPU (%d%s) before and "
           "after each copy;\n%zu rounds, the rows rotated from round to round; evicted "
           "fraction = (t_after - t_hot) /\n(t_cold - t_hot) in [0, 1], median and IQR; own: "
           "max(0, 1 - (1 - evicted) / (1 - background))%s\n",
           cwb_fmt_size(n, a, sizeof a), cwb_fmt_size(vbytes, b, sizeof b), cpu,
           pinned ? ", pinned there" : ", not pinned: the scheduler may move the walks", reps,
           rt_ok == 1 ? ";\neach window (fill, walks, copy) at SCHED_FIFO" : "");
    fflush(stdout);
    double t0 = cwb_now();
    cw_memcpy_nt(dst, src, n);
    double wait = cwb_now() - t0;
    for (size_t r = 0; r < reps; r++)
        for (size_t j = 0; j < NROWS; j++) {
            size_t i = (r + j) % NROWS;
            const struct cwb_routine *rt = rows[i].kind == V_BACKGROUND ? NULL : &rows[i].rt;
            rt_enter();
            double f = cwb_victim_evicted(&v, rt, dst, src, n, 1, wait);
            rt_leave();
            /* into [0, 1] as in `cwbench pollution`: a walk slower than the
             * cold one pays for the copy's dirty lines, not for eviction */
            frac[i * reps + r] = f < 1 ? f : 1;
        }
    if (pinned)
        sched_setaffinity(0, sizeof process_mask, &process_mask);
    int wrong = memcmp(dst, src, n) != 0;

    printf("%-40s %7s %-11s %-5s %s\n", "copy", "evicted", "IQR", "own",
           "minus one call: median, HL [95% CI]");
    struct cwb_summary one, bg;
    cwb_summarize(frac, reps, &one);
    cwb_summarize(frac + (NROWS - 1) * reps, reps, &bg);
    /* The target is judged on each k-part row's HL shift against the one
     * call and its CI, not on the medians alone: met when every CI lies at
     * or below the margin, missed when one lies wholly above it. */
    int all_below = 1, one_above = 0;
    double worst = 0;
    const char *worst_name = NULL;
    for (size_t i = 0; i < NROWS; i++) {
        const double *x = frac + i * reps;
        struct cwb_summary s;
        struct cwb_cmp c;
        char label[64], iqr[32], diff[64], own[16] = "-";
        cwb_summarize(x, reps, &s);
        snprintf(iqr, sizeof iqr, "%.3f-%.3f", s.q1, s.q3);
        if (rows[i].kind != V_BACKGROUND && bg.median <= BACKGROUND_MAX) {
            double o_share = 1 - (1 - s.median) / (1 - bg.median);
            snprintf(own, sizeof own, "%.3f", o_share > 0 ? o_share : 0);
        } else if (rows[i].kind != V_BACKGROUND) {
            snprintf(own, sizeof own, "n/a");
        }
        int is_part = rows[i].kind == V_PART || rows[i].kind == V_POOL;
        if (i == 0) {
            snprintf(diff, sizeof diff, "(reference)");
        } else if (cwb_compare_shift(frac, reps, x, reps, 0.05, &c) == 0 && c.lo == c.lo) {
            snprintf(diff, sizeof diff, "%+.3f, %+.3f [%+.3f, %+.3f]", s.median - one.median,
                     c.ratio, c.lo, c.hi);
            if (is_part) {
                all_below = all_below && c.hi <= TARGET_MARGIN;
                one_above = one_above || c.lo > TARGET_MARGIN;
            }
        } else {
            snprintf(diff, sizeof diff, "%+.3f", s.median - one.median);
            all_below = 0;
        }
        printf("%-40s %7.3f %-11s %-5s %s\n", row_label(&rows[i], n, label, sizeof label),
               s.median, iqr, own, diff);
        if (is_part && (worst_name == NULL || s.median - one.median > worst)) {
            worst = s.median - one.median;
            worst_name = rows[i].name;
        }
        add_cell(res, &rows[i], n, x, reps);
    }
    if (bg.median > BACKGROUND_MAX)
        printf("target (k parts evict at most one streaming call + %.2f): not measurable "
               "here: a\nwait as long as one copy evicts %.3f of the victim with no copy at "
               "all; rerun on a quieter machine\n", TARGET_MARGIN, bg.median);
    else
        printf("target (k parts evict at most one streaming call + %.2f, by the HL shift's "
               "95%% CI): %s;\nlargest median difference %+.3f (%s)\n", TARGET_MARGIN,
               one_above    ? "MISSED (a CI lies wholly above the margin)"
               : all_below ? "met (every CI at or below the margin)"
                           : "not resolved (a CI spans the margin; more --samples narrow it)",
               worst, worst_name);
    if (wrong)
        printf("FAILED: the last copy is wrong\n");
    free(frac);
    cwb_free_huge(src, n);
    cwb_free_huge(dst, n);
    cwb_free_huge(v.base, vbytes);
    return wrong ? 1 : 0;
}
