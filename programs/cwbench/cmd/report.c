/* SPDX-License-Identifier: MIT */
/* The default report: machine, timer, copy ceiling, throughput by size
 * class (with the misaligned-destination rows), pollution, and one verdict
 * line per routine against glibc memcpy. Budget: under 60 s on 2 cores. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/format.h"
#include "base/progress.h"
#include "cmd/cmd.h"
#include "cmd/common.h"
#include "cmd/options.h"
#include "engine/ceiling.h"
#include "engine/counters_table.h"
#include "engine/measure.h"
#include "engine/placement.h"
#include "engine/pollution.h"
#include "engine/routines.h"
#include "platform/counters.h"
#include "platform/machine.h"
#include "results/results.h"
#include "results/stats.h"
#include "results/verdict.h"
#include "cachewise.h"

#define MAX_ROWS 20

/* Placement: the engine puts a hot cell's source at page offset 0 and its
 * destination at 2048 (CWB_SRC_BASE, CWB_DST_BASE), plus the row's
 * offsets. What a row measures depends on (dst - src) mod 4096 as much as
 * on alignment: a load whose address matches an in-flight store's in the
 * low 12 bits waits for it on CPUs that compare only those bits (4K
 * aliasing), so misaligned rows keep the two halves of the page apart and
 * the aliased rows ask for it explicitly. */
enum kind { K_ALIGNED, K_MISALIGNED, K_ALIASED };
struct row { size_t size; int src_off, dst_off; enum kind kind; };

#define MIS(n) {n, 0, 1, K_MISALIGNED}   /* dst 1 byte past a line: mod 4096 = 2049 */
/* The misaligned rows' alignment at (dst - src) mod 4096 = 1: beside them
 * these rows show what 4K aliasing alone costs. */
#define ALIAS(n) {n, 2048, 1, K_ALIASED}
static const struct row full_rows[] = {
    {64, 0, 0, K_ALIGNED}, {256, 0, 0, K_ALIGNED}, {1 << 10, 0, 0, K_ALIGNED},
    {4 << 10, 0, 0, K_ALIGNED}, {16 << 10, 0, 0, K_ALIGNED}, {64 << 10, 0, 0, K_ALIGNED},
    {256 << 10, 0, 0, K_ALIGNED}, {1 << 20, 0, 0, K_ALIGNED}, {4 << 20, 0, 0, K_ALIGNED},
    {16 << 20, 0, 0, K_ALIGNED}, {64 << 20, 0, 0, K_ALIGNED}, {256 << 20, 0, 0, K_ALIGNED},
    MIS(4 << 10), MIS(64 << 10), MIS(1 << 20), ALIAS(4 << 10), ALIAS(64 << 10), ALIAS(1 << 20),
};
static const struct row quick_rows[] = {
    {64, 0, 0, K_ALIGNED}, {4 << 10, 0, 0, K_ALIGNED}, {64 << 10, 0, 0, K_ALIGNED},
    {1 << 20, 0, 0, K_ALIGNED}, MIS(4 << 10), ALIAS(4 << 10),
};

/* (dst - src) mod 4096 of a row's cell. */
static unsigned page_delta(const struct row *r)
{
    return (unsigned)((CWB_DST_BASE + (size_t)r->dst_off - CWB_SRC_BASE - (size_t)r->src_off) %
                      CWB_PAGE);
}

/* The cells of the table, kept as GB/s samples for the verdicts. */
struct cellv { double *x; size_t n; int preempted, failed, unavailable; };

static const char *short_name(const char *name)
{
    static const struct { const char *name, *label; } map[] = {
        {"cw_memcpy_nt", "cw_nt"},       {"cw_memcpy_flushcache", "cw_flush"},
        {"cw_copy_nta", "cw_nta"},       {"cw_copy_safe", "cw_safe"},
        {"glibc_memcpy", "glibc"},       {"pmem_memcpy_nt", "pmem_nt"},
        {"pmem_memcpy_t", "pmem_t"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(map[i].name, name) == 0)
            return map[i].label;
    return name;
}

static void fmt_gbps(double v, char *buf, size_t cap)
{
    if (!(v == v))
        snprintf(buf, cap, "-");
    else if (v >= 100)
        snprintf(buf, cap, "%.0f", v);
    else if (v >= 10)
        snprintf(buf, cap, "%.1f", v);
    else
        snprintf(buf, cap, "%.2f", v);
}

static void print_cell(const struct cellv *c)
{
    char num[32], cell[80];
    if (c->unavailable) {
        printf(" %12s", "n/a");
        return;
    }
    if (c->failed || c->n == 0) {
        printf(" %12s", "FAILED");
        return;
    }
    double med, spread;
    cwb_median_spread(c->x, c->n, &med, &spread);
    struct cwb_modes m;
    cwb_modes(c->x, c->n, &m);
    if (m.two) {
        /* Two modes: both, low|high (their shares are listed under the
         * table); a median and a half-IQR would describe neither. */
        char hi[16];
        fmt_gbps(m.lo, num, sizeof num);
        fmt_gbps(m.hi, hi, sizeof hi);
        snprintf(cell, sizeof cell, "%s|%s%s", num, hi, c->preempted ? "*" : "");
    } else {
        fmt_gbps(med, num, sizeof num);
        snprintf(cell, sizeof cell, "%s ±%.0f%%%s", num, spread * 100, c->preempted ? "*" : "");
    }
    printf(" %*s", cwb_colw(cell, 12), cell);
}

static void row_label(const struct row *r, char *buf, size_t cap)
{
    char s[32];
    cwb_fmt_size(r->size, s, sizeof s);
    if (r->kind == K_MISALIGNED)
        snprintf(buf, cap, "%s dst+%d", s, r->dst_off);
    else if (r->kind == K_ALIASED)
        snprintf(buf, cap, "%s alias", s);
    else
        snprintf(buf, cap, "%s", s);
}

/* Under the table: every two-mode cell with its modes and their shares. */
static void print_modes(const struct row *rows, size_t nrows,
                        const struct cwb_routine *const *rt, size_t nrt,
                        struct cellv (*cells)[CWB_MAX_ROUTINES])
{
    int any = 0;
    for (size_t i = 0; i < nrows; i++) {
        for (size_t j = 0; j < nrt; j++) {
            struct cwb_modes m;
            const struct cellv *c = &cells[i][j];
            if (c->n == 0 || c->failed)
                continue;
            cwb_modes(c->x, c->n, &m);
            if (!m.two)
                continue;
            char label[48], t[64];
            row_label(&rows[i], label, sizeof label);
            if (!any)
                printf("two-mode cells (shown low|high: the samples split into two groups; "
                       "median of each, share of the samples):\n");
            any = 1;
            printf("  %-12s %-14s %s GB/s\n", short_name(rt[j]->name), label,
                   cwb_modes_text(&m, t, sizeof t));
        }
    }
}

/* The line above a group of rows: what they vary and their page-offset
 * relation. */
static void group_header(const struct row *r)
{
    if (r->kind == K_MISALIGNED)
        printf("misaligned destination, source aligned: dst %d byte%s past a 64-byte line, "
               "(dst - src) mod 4096 = %u (no 4K aliasing)\n", r->dst_off,
               r->dst_off == 1 ? "" : "s", page_delta(r));
    else if (r->kind == K_ALIASED)
        printf("4K-aliased, the same alignment as the misaligned rows but (dst - src) mod 4096 = "
               "%u: each load\nmatches the low 12 bits of a store just issued, and a CPU that "
               "compares only those bits makes it wait\n", page_delta(r));
}

/* Routines that stream by design: they give up hot-cache speed to leave the
 * caches to others, so their losses to glibc at hot sizes are the price
 * the pollution table shows the benefit of. */
static int is_streaming(const char *name)
{
    static const char *const names[] = {"cw_memcpy_nt", "cw_memcpy_flushcache", "cw_copy_nta",
                                        "pmem_memcpy_nt"};
    if (strncmp(name, "stream_", 7) == 0)
        return 1;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

enum group { G_SMALL, G_CACHE, G_DRAM, G_MISALIGNED, G_ALIASED, G_ALL };

static enum group row_group(const struct row *r, size_t llc)
{
    if (r->kind == K_MISALIGNED)
        return G_MISALIGNED;
    if (r->kind == K_ALIASED)
        return G_ALIASED;
    if (2 * r->size >= llc)
        return G_DRAM;
    return r->size <= 256 ? G_SMALL : G_CACHE;
}

/* One verdict line: routine j against glibc (column g) over the rows of
 * group grp (G_ALL: every row). Nothing when the group has no row. */
static void verdict_line(const char *label, const struct row *rows, size_t nrows, size_t llc,
                         enum group grp, size_t g, size_t j,
                         struct cellv (*cells)[CWB_MAX_ROUTINES])
{
    double ratios[MAX_ROWS];
    size_t nr = 0, worst = 0, in_group = 0;
    struct cwb_tally tally;
    memset(&tally, 0, sizeof tally);
    size_t lo = SIZE_MAX, hi = 0;
    struct cwb_cmp worst_c;
    memset(&worst_c, 0, sizeof worst_c);
    for (size_t i = 0; i < nrows; i++) {
        if (grp != G_ALL && row_group(&rows[i], llc) != grp)
            continue;
        in_group++;
        lo = rows[i].size < lo ? rows[i].size : lo;
        hi = rows[i].size > hi ? rows[i].size : hi;
        struct cellv *a = &cells[i][g], *b = &cells[i][j];
        struct cwb_cmp c;
        if (a->n == 0 || b->n == 0 || a->failed || b->failed ||
            cwb_compare(a->x, a->n, b->x, b->n, 0.05, &c) != 0)
            continue;
        /* The worst row among those with a direction; an inconsistent row
         * only when there is no other. */
        if (nr == 0 || (worst_c.inconsistent && !c.inconsistent) ||
            (c.inconsistent == worst_c.inconsistent && c.ratio < worst_c.ratio)) {
            worst_c = c;
            worst = i;
        }
        ratios[nr++] = c.ratio;
        cwb_tally_add(&tally, &c);
    }
    if (in_group == 0)
        return;
    char full[64], a[32], b[32];
    if (grp == G_ALL || grp == G_SMALL)
        snprintf(full, sizeof full, "%s", label);
    else if (lo == hi)
        snprintf(full, sizeof full, "%s (%s)", label, cwb_fmt_size(lo, a, sizeof a));
    else
        snprintf(full, sizeof full, "%s (%s-%s)", label, cwb_fmt_size(lo, a, sizeof a),
                 cwb_fmt_size(hi, b, sizeof b));
    label = full;
    if (nr == 0) {
        printf("  %-26s no comparable cells\n", label);
        return;
    }
    char wl[48], v[320], sentence[320];
    row_label(&rows[worst], wl, sizeof wl);
    /* The sentence follows the significant rows; the geometric mean
     * includes the rows within noise, so it is a figure beside it. */
    printf("  %-26s %s; geomean HL ratio x%.2f; worst %s: %s\n", label,
           cwb_tally_sentence(&tally, NULL, "glibc", "row", sentence, sizeof sentence),
           cwb_geomean(ratios, nr), wl, cwb_verdict(&worst_c, 1, v, sizeof v));
}

static void verdicts(const struct row *rows, size_t nrows, const struct cwb_routine *const *rt,
                     size_t nrt, struct cellv (*cells)[CWB_MAX_ROUTINES], size_t llc)
{
    size_t g = cwb_routine_index(rt, nrt, "glibc_memcpy");
    printf("\nVerdicts against glibc memcpy (Mann-Whitney U, alpha 0.05; each row's estimate is "
           "the Hodges-Lehmann\nratio of GB/s with its Moses CI, a row whose ratio of medians "
           "points the other way is inconsistent;\ndocs/STATISTICS.md)\n");
    if (g == nrt) {
        printf("  glibc_memcpy not measured: no verdicts\n");
        return;
    }
    char streaming[256] = "";
    size_t slen = 0;
    for (size_t j = 0; j < nrt; j++) {
        if (j == g)
            continue;
        verdict_line(rt[j]->name, rows, nrows, llc, G_ALL, g, j, cells);
        if (strcmp(rt[j]->name, "cw_memcpy") == 0) {
            /* Where the drop-in wins and loses, not just on average. */
            static const char *const glabel[] = {"  small (<= 256 B)", "  in cache",
                                                 "  DRAM", "  misaligned", "  4K-aliased"};
            for (int grp = G_SMALL; grp <= G_ALIASED; grp++)
                verdict_line(glabel[grp], rows, nrows, llc, (enum group)grp, g, j, cells);
        }
        if (is_streaming(rt[j]->name) && slen < sizeof streaming) {
            int w = snprintf(streaming + slen, sizeof streaming - slen, "%s%s",
                             slen ? ", " : "", short_name(rt[j]->name));
            if (w > 0)
                slen += (size_t)w;
        }
    }
    if (slen > 0)
        printf("note: streaming routines (%s) trade hot-cache speed for not polluting the "
               "cache: their losses at hot sizes are by design (see the pollution table)\n",
               streaming);
}

/* Progress plan, in estimated milliseconds: a throughput row is each
 * routine's calibration (about 8 batches) and samples, a batch lasting
 * 0.3 ms or one copy at about 10 GB/s; a copy ceiling is three kernels over
 * its buffer per sample; the counters are 5 x 64 MiB per routine. */
static double row_ms(size_t size, size_t nrt, int samples)
{
    double batch = (double)size / 10e9 * 1e3;
    return (double)nrt * (samples + 8) * (batch > 0.3 ? batch : 0.3);
}

static double ceiling_ms(size_t bytes, int samples)
{
    return (samples + 1) * 3 * (double)bytes / 10e9 * 1e3;
}

/* A DRAM row's medians as percentages of a figure (the copy ceiling, the
 * copy-traffic kernel). */
static void share_row(const struct cellv *row, size_t nrt, const char *label, double gbps)
{
    printf("%-14s", label);
    for (size_t j = 0; j < nrt; j++) {
        double med = NAN, spread;
        if (row[j].n)
            cwb_median_spread(row[j].x, row[j].n, &med, &spread);
        char pc[24];
        if (med == med)
            snprintf(pc, sizeof pc, "%.0f%%", 100 * med / gbps);
        else
            snprintf(pc, sizeof pc, "-");
        printf(" %12s", pc);
    }
    printf("\n");
}

static const char *const default_routines[] = {
    "cw_memcpy", "cw_memcpy_nt", "cw_memcpy_flushcache", "cw_copy_nta", "glibc_memcpy",
    "rep_movsb", "stream_avx512", "stream_avx2", "stream_stnp", "pmem_memcpy_nt", "pmem_memcpy_t",
    NULL,
};

static void pick_default(const struct cwb_routine **rt, size_t *nrt)
{
    cwb_pick_routines(NULL, default_routines, rt, nrt);
    /* Only the widest streaming loop: it is the yardstick, the others are
     * in `cwbench sweep`. */
    size_t k = 0;
    int have512 = cwb_routine_find("stream_avx512") != NULL;
    for (size_t i = 0; i < *nrt; i++)
        if (!(have512 && strcmp(rt[i]->name, "stream_avx2") == 0))
            rt[k++] = rt[i];
    *nrt = k;
}

int cwb_cmd_report(const struct cwb_opts *o)
{
    double t_start = cwb_now();
    const struct cwb_routine *rt[CWB_MAX_ROUTINES];
    size_t nrt;
    if (o->routines != NULL) {
        if (cwb_pick_routines(o->routines, NULL, rt, &nrt) != 0)
            return 2;
    } else {
        pick_default(rt, &nrt);
    }
    const struct row *rows = o->quick ? quick_rows : full_rows;
    size_t nrows = o->quick ? sizeof quick_rows / sizeof quick_rows[0]
                            : sizeof full_rows / sizeof full_rows[0];
    int samples = o->samples ? o->samples : o->quick ? 3 : 10;
    size_t llc = cwb_llc_bytes();
    size_t ceil_bytes = o->quick ? (size_t)8 << 20 : 4 * llc;
    size_t pool = 0;
    for (size_t i = 0; i < nrows; i++)
        if (rows[i].size > pool)
            pool = rows[i].size;
    pool += (size_t)64 << 10;
    if (pool < ceil_bytes)
        pool = ceil_bytes;

    cwb_emulation_banner(stdout, 1);
    printf("cwbench %s: cachewise copy benchmark (docs/BENCHMARKS.md explains every column)\n\n",
           cw_version());
    cwb_print_machine(stdout);
    struct cwb_engine e;
    if (cwb_engine_open(&e, pool, samples, o) != 0)
        return 1;
    struct cwb_results res;
    cwb_results_init(&res);
    cwb_common_meta(&res, o, "cwbench");

    printf("\nMethod\n");
    printf("  timer        CLOCK_MONOTONIC, tick %.0f ns; each sample >= %.0f us (>= 20 ticks), "
           "batch grown until stable\n", cwb_timer_tick() * 1e9, e.min_sample * 1e6);
    printf("  samples      %d per cell after a discarded warm-up; routines interleaved in a "
           "random order per sample (seed %llu)\n", samples, (unsigned long long)o->seed);
    printf("  bytes        counted once: GB/s = bytes copied / second / 1e9\n");
    printf("  placement    2 MiB pages; src at page offset 0, dst at page offset 2048 (both "
           "64-byte aligned,\n               (dst - src) mod 4096 = 2048) unless a group of rows "
           "says otherwise\n");
    printf("  checks       every sample's copies compared with the source and the guard bytes "
           "around dst, outside the timed region\n");
    printf("  cpu time     CLOCK_PROCESS_CPUTIME_ID beside wall time: * marks cells with "
           "samples where they differ > 10%% (preempted)\n");
    fflush(stdout);

    size_t pollution_bytes = o->quick ? (size_t)1 << 20 : (size_t)16 << 20;
    int reps = o->samples ? o->samples : o->quick ? 3 : 10;
    size_t l2 = cw_get_info()->l2_size ? cw_get_info()->l2_size : (size_t)512 << 10;
    size_t counter_bytes = o->quick ? (size_t)1 << 20 : (size_t)64 << 20;
    double ms_rows = 0, ms_ceil = ceiling_ms(ceil_bytes, samples);
    double ms_counters = (double)nrt * 5 * (double)counter_bytes / 10e9 * 1e3;
    for (size_t i = 0; i < nrows; i++)
        ms_rows += row_ms(rows[i].size, nrt, samples);
    cwb_progress_plan(2 * ms_ceil + ms_rows + ms_counters +
                      cwb_pollution_estimate_ms(pollution_bytes, l2 / 4, nrt, reps));

    struct cwb_ceiling ceil, ceil2;
    cwb_progress_begin("ceiling", (size_t)ms_ceil);
    cwb_measure_ceiling(&e, ceil_bytes, &ceil);
    cwb_progress_end();
    char a[32];

    static struct cellv cells[MAX_ROWS][CWB_MAX_ROUTINES];
    memset(cells, 0, sizeof cells);
    int failed = 0;
    cwb_progress_begin("throughput", (size_t)ms_rows);
    double ms_done = 0;
    for (size_t i = 0; i < nrows; i++) {
        struct cwb_spec sp = {.state = CWB_HOT, .size = rows[i].size,
                              .src_off = rows[i].src_off, .dst_off = rows[i].dst_off};
        struct cwb_run runs[CWB_MAX_ROUTINES];
        if (cwb_measure(&e, &sp, rt, nrt, runs) != 0)
            failed = 1;
        for (size_t j = 0; j < nrt; j++) {
            struct cellv *c = &cells[i][j];
            c->failed = runs[j].failed;
            c->unavailable = runs[j].unavailable;
            c->preempted = runs[j].preempted;
            if (runs[j].failed)
                fprintf(stderr, "cwbench: %s\n", runs[j].err);
            c->x = malloc((runs[j].n + 1) * sizeof(double));
            if (c->x != NULL) {
                cwb_run_gbps(&runs[j], c->x, NULL);
                c->n = runs[j].n;
            }
            cwb_add_run(&res, rt[j]->name, "throughput", &sp, &runs[j]);
            cwb_run_free(&runs[j]);
        }
        ms_done += row_ms(rows[i].size, nrt, samples);
        cwb_progress_step((size_t)ms_done);
    }
    cwb_progress_end();
    /* Again after the DRAM rows: other tenants' memory traffic comes and
     * goes, and a ceiling is an upper bound, so the better of the two. */
    cwb_progress_begin("ceiling", (size_t)ms_ceil);
    cwb_measure_ceiling(&e, ceil_bytes, &ceil2);
    cwb_progress_end();
    printf("\nCopy ceiling over %s (%d samples, median; measured before and after the "
           "throughput table)\n", cwb_fmt_size(ceil.bytes, a, sizeof a), ceil.n);
    printf("  read-only %.1f / %.1f GB/s, streaming write-only %.1f / %.1f GB/s\n",
           ceil.read_gbps, ceil2.read_gbps, ceil.write_gbps, ceil2.write_gbps);
    double both = ceil2.both_gbps > ceil.both_gbps ? ceil2.both_gbps : ceil.both_gbps;
    printf("  both at once, no data passed: %.1f / %.1f GB/s\n", ceil.both_gbps,
           ceil2.both_gbps);
    if (ceil2.ceiling_gbps > ceil.ceiling_gbps)
        ceil = ceil2;
    printf("  a copy cannot beat %.1f GB/s (the slower kernel, the better of the two runs)\n",
           ceil.ceiling_gbps);
    if (both > 0 && ceil.ceiling_gbps > 0)
        printf("  a copy's traffic alone (its reads and writes at once, no data passed): %.1f "
               "GB/s,\n  %.0f%% of the ceiling (the better of the two runs)\n",
               both, 100 * both / ceil.ceiling_gbps);
    snprintf(a, sizeof a, "%.3f", ceil.ceiling_gbps);
    cwb_results_meta(&res, "copy_ceiling_gbps", a);
    snprintf(a, sizeof a, "%.3f", both);
    cwb_results_meta(&res, "copy_traffic_gbps", a);

    printf("\nThroughput, GB/s: median ±half the interquartile range (relative); where source "
           "+ destination\nreach the L3 size (%s) the copy is DRAM-bound: those rows also show "
           "%% of the copy ceiling\nand of a copy's traffic alone\n",
           cwb_fmt_size(llc, a, sizeof a));
    printf("%-14s", "size");
    for (size_t j = 0; j < nrt; j++)
        printf(" %12s", short_name(rt[j]->name));
    printf("\n");
    for (size_t i = 0; i < nrows; i++) {
        char label[48];
        row_label(&rows[i], label, sizeof label);
        if (i > 0 && rows[i].kind != rows[i - 1].kind)
            group_header(&rows[i]);
        printf("%-14s", label);
        for (size_t j = 0; j < nrt; j++)
            print_cell(&cells[i][j]);
        printf("\n");
        if (2 * rows[i].size >= llc && rows[i].kind == K_ALIGNED && ceil.ceiling_gbps > 0) {
            share_row(cells[i], nrt, "  % of ceiling", ceil.ceiling_gbps);
            if (both > 0)
                share_row(cells[i], nrt, "  % of traffic", both);
        }
    }
    print_modes(rows, nrows, rt, nrt, cells);
    printf("columns:\n");
    for (size_t j = 0; j < nrt; j++)
        printf("  %-12s %s\n", short_name(rt[j]->name), rt[j]->what);
    fflush(stdout);

    char why[160];
    cwb_progress_begin("counters", (size_t)ms_counters);
    if (cwb_counters_available(why, sizeof why) &&
        cwb_counters_table(&e, rt, nrt, counter_bytes, o->quick ? 3 : 5) == 1)
        failed = 1;
    cwb_progress_end();

    char pb[32];
    printf("\nPollution: what a %s copy evicts from a victim working set (evicted fraction, "
           "0 = nothing, 1 = all of it;\n`cwbench pollution` measures 1-64 MiB and every "
           "victim)\n", cwb_fmt_size(pollution_bytes, pb, sizeof pb));
    if (cwb_pollution_run(o, o->quick ? 1u : 2u, pollution_bytes, rt, nrt, reps, &res) != 0)
        failed = 1;
    cwb_progress_plan(0);
    fflush(stdout);

    verdicts(rows, nrows, rt, nrt, cells, llc);
    for (size_t i = 0; i < nrows; i++)
        for (size_t j = 0; j < nrt; j++)
            free(cells[i][j].x);

    cwb_engine_close(&e);
    failed = cwb_finish(&res, o, t_start, 1, failed);
    if (failed)
        fprintf(stderr, "cwbench: some routines copied wrong bytes (see above)\n");
    return failed;
}
