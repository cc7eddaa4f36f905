/* SPDX-License-Identifier: MIT */
/* The pollution table: evicted fractions from the walk times pollution.c
 * measured, one line per routine, the cells of the result file.
 *
 * Every fraction lies in [0, 1] by construction: a walk after the copy is
 * placed between the table's hot and cold references and clamped to them,
 * and each row counts the samples the clamp moved. Unclamped, the default
 * report's 16 MiB copies read 1.005-1.161 on an AMD EPYC Zen 5 guest and
 * `cwbench pollution` read 1.43 ("own" 1.43, "left L2" 1.79) for a measure
 * defined as a share of the victim. docs/BENCHMARKS.md, "Pollution". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/format.h"
#include "engine/pollution_table.h"
#include "results/results.h"
#include "results/stats.h"
#include "results/verdict.h"

/* Copy against its own background: the same decision as every verdict
 * (stats.c), on the difference of the fractions (they can be 0). */
static const char *vs_background(const struct prow *r, const struct prow *bg, char *buf,
                                 size_t cap)
{
    struct cwb_cmp c;
    if (bg->n == 0 || cwb_compare_shift(bg->frac, bg->n, r->frac, r->n, 0.05, &c) != 0)
        return "-";
    int dir = cwb_cmp_direction(&c, 1); /* +1: the copy's fraction is higher */
    double d = round(c.ratio * 1000) / 1000;
    snprintf(buf, cap, "%s, HL %+.3f (p%s%.3f)%s",
             c.inconsistent ? "inconsistent" : dir > 0 ? "above" : dir < 0 ? "below" : "within",
             d == 0 ? 0.0 : d, c.p < 0.001 ? "<" : "=", c.p < 0.001 ? 0.001 : c.p,
             r->n < CWB_MIN_SAMPLES || bg->n < CWB_MIN_SAMPLES ? ", few samples" : "");
    return buf;
}

static void add_cell(struct cwb_results *res, const struct prun *p, const char *routine,
                     const char *bench, const struct prow *row)
{
    struct cwb_cell proto;
    memset(&proto, 0, sizeof proto);
    snprintf(proto.routine, sizeof proto.routine, "%s", routine);
    snprintf(proto.bench, sizeof proto.bench, "%s", bench);
    snprintf(proto.state, sizeof proto.state, "victim-%s", p->v->name);
    snprintf(proto.unit, sizeof proto.unit, "fraction");
    proto.size = p->copy_bytes;
    proto.higher_is_better = 0;
    cwb_results_add(res, &proto, row->frac, row->cpu, row->n);
}

/* "3>1", "1<0", "3>1 1<0" or "-": the row's samples the clamp moved. */
static void clamp_text(const struct prow *r, char *buf, size_t cap)
{
    if (r->clamp_hi && r->clamp_lo)
        snprintf(buf, cap, "%zu>1 %zu<0", r->clamp_hi, r->clamp_lo);
    else if (r->clamp_hi)
        snprintf(buf, cap, "%zu>1", r->clamp_hi);
    else if (r->clamp_lo)
        snprintf(buf, cap, "%zu<0", r->clamp_lo);
    else
        snprintf(buf, cap, "-");
}

/* One routine's line: its copy, its background, the copy's own share.
 * *beyond is set when "left" reached its cap. */
static void print_row(const struct prun *p, const struct prow *rows, size_t j, double pushed,
                      struct cwb_results *res, int *beyond)
{
    const struct prow *r = &rows[j], *bg = &rows[p->nrt + j];
    const char *name = p->rt[j]->name;
    if (r->failed) {
        printf("  %-22s FAILED\n", name);
        return;
    }
    if (r->n == 0)
        return;
    struct cwb_summary f, b, cpu;
    cwb_summarize(r->frac, r->n, &f);
    cwb_summarize(bg->frac, bg->n, &b);
    cwb_summarize(r->cpu, r->n, &cpu);
    /* Survival multiplies: of the share 1 - b the background left in
     * place, the copy evicted own. Once the background took nearly all of
     * the victim what is left is too little to divide. With both fractions
     * in [0, 1] own is at most 1; a copy that evicted less than its
     * background (noise) evicted nothing of its own: 0. */
    char own[16] = "n/a", lv[16] = "-", vb[80], cl[48];
    if (bg->n > 0 && 1 - b.median >= 0.2) {
        double o = 1 - (1 - f.median) / (1 - b.median);
        snprintf(own, sizeof own, "%.2f", o > 0 ? o : 0.0);
    }
    /* The pushed-down reference is the whole victim one level down: a walk
     * slower than that means all of it left the level and part went on to
     * DRAM, which "left" cannot say beyond 1 ("1.00+"; evicted, on the DRAM
     * scale, says how much). */
    if (!isnan(pushed)) {
        double l = f.median / pushed;
        snprintf(lv, sizeof lv, l > 1 ? "1.00+" : "%.2f", l);
        *beyond |= l > 1;
    }
    clamp_text(r, cl, sizeof cl);
    printf("  %-22s %7.3f  [%6.3f, %6.3f] %8s %9.3f %6s %7s %8.2f  %s\n", name, f.median, f.q1,
           f.q3, cl, b.median, own, lv, cpu.median * 1e3, vs_background(r, bg, vb, sizeof vb));
    struct cwb_modes m;
    cwb_modes(r->frac, r->n, &m);
    if (m.two) {
        char t[64];
        printf("  %-22s two-mode: %s (median of each mode, share of the samples)\n", "",
               cwb_modes_text(&m, t, sizeof t));
    }
    add_cell(res, p, name, "pollution", r);
    add_cell(res, p, name, "pollution-bg", bg);
}

/* The fractions of every row: (t_after - H) / (C - H) with H and C the
 * medians of all the table's hot and cold walks, clamped into [0, 1]. */
static void fractions(const struct prun *p, struct prow *rows, double hot, double cold)
{
    for (size_t j = 0; j < p->nrow; j++) {
        rows[j].clamp_hi = rows[j].clamp_lo = 0;
        for (size_t k = 0; k < rows[j].n; k++) {
            double f = (rows[j].after[k] - hot) / (cold - hot);
            if (f > 1) {
                f = 1;
                rows[j].clamp_hi++;
            } else if (f < 0) {
                f = 0;
                rows[j].clamp_lo++;
            }
            rows[j].frac[k] = f;
        }
    }
}

static void not_measurable(const struct prun *p, const struct prow *rows)
{
    /* The rows stay, without a fraction: the table's shape (and the copy
     * times) must not depend on what the host's timing allowed. */
    printf("  not measurable: hot and cold walks within 20%% of each other (the level is "
           "taken by other\n  tenants, or an emulator times every access alike), so no "
           "evicted fraction can be told from noise\n");
    printf("  %-22s %7s  %8s\n", "routine", "evicted", "copy ms");
    for (size_t j = 0; j < p->nrt; j++) {
        struct cwb_summary cpu;
        if (rows[j].failed) {
            printf("  %-22s FAILED\n", p->rt[j]->name);
            continue;
        }
        if (rows[j].n == 0)
            continue;
        cwb_summarize(rows[j].cpu, rows[j].n, &cpu);
        printf("  %-22s %7s  %8.2f\n", p->rt[j]->name, "n/a", cpu.median * 1e3);
    }
}

/* The footer on the clamp: how many samples of the copies and of the
 * backgrounds it moved, and why a walk can be slower than a cold one. */
static void clamp_footer(const struct prun *p, const struct prow *rows, int beyond)
{
    size_t hi[2] = {0, 0}, lo[2] = {0, 0}, n[2] = {0, 0};
    for (size_t j = 0; j < 2 * p->nrt && j < p->nrow; j++) {
        int bg = j >= p->nrt;
        hi[bg] += rows[j].clamp_hi;
        lo[bg] += rows[j].clamp_lo;
        n[bg] += rows[j].n;
    }
    if (hi[0] + hi[1] + lo[0] + lo[1] > 0)
        printf("  clamped into [0, 1]: copies %zu above 1, %zu below 0 of %zu samples; same waits "
               "%zu above 1, %zu below 0 of %zu\n  (above 1: the walk after it was slower than "
               "the median cold walk; below 0: faster than the median hot walk)\n",
               hi[0], lo[0], n[0], hi[1], lo[1], n[1]);
    if (beyond)
        printf("  left %s 1.00+: the walk after the copy was slower than with the whole victim "
               "one level down: all of it left\n  %s and part of it went on to DRAM (evicted, on "
               "the DRAM scale, says how much)\n", p->v->name, p->v->name);
}

void cwb_pollution_table(struct prun *p, struct prow *rows, struct cwb_results *res, int reps)
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
    char a[32], b[32];
    printf("victim %s: %s chain (%zu lines), walk hot %.2f ns/line (±%.0f%%), cold %.1f "
           "ns/line (±%.0f%%) over %zu walks each; copy %s\n", p->v->name,
           cwb_fmt_size(p->v->bytes, a, sizeof a), p->v->lines, h.median / (double)p->v->lines,
           50 * (h.q3 - h.q1) / h.median, c.median / (double)p->v->lines,
           50 * (c.q3 - c.q1) / c.median, total, cwb_fmt_size(p->copy_bytes, b, sizeof b));
    if (!(c.median - h.median > 0.2 * c.median)) {
        not_measurable(p, rows);
        return;
    }
    fractions(p, rows, h.median, c.median);
    /* On a victim cache hierarchy (AMD: lines leaving the L2 go to the L3)
     * a victim that left its level entirely reads far below 1: scale by the
     * pushed-down reference too, so "left L2" = 1 means all of it left. */
    double pushed = NAN;
    struct cwb_summary ps;
    memset(&ps, 0, sizeof ps);
    if (p->nrow > 2 * p->nrt && rows[2 * p->nrt].n > 0) {
        cwb_summarize(rows[2 * p->nrt].frac, rows[2 * p->nrt].n, &ps);
        if (ps.median > 0.005)
            pushed = ps.median;
    }
    char left[16] = "";
    if (p->v->next != NULL)
        snprintf(left, sizeof left, "left %s", p->v->name);
    printf("  %-22s %7s  %-16s %8s %9s %6s %7s %8s  %s\n", "routine", "evicted", "[q1, q3]",
           "clamped", "same wait", "own", left, "copy ms", "copy vs same wait");
    int beyond = 0;
    for (size_t j = 0; j < p->nrt; j++)
        print_row(p, rows, j, pushed, res, &beyond);
    if (p->nrow > 2 * p->nrt && rows[2 * p->nrt].n > 0) {
        char cl[48];
        clamp_text(&rows[2 * p->nrt], cl, sizeof cl);
        printf("  %-22s %7.3f  [%6.3f, %6.3f] %8s\n", "(victim pushed down)", ps.median, ps.q1,
               ps.q3, cl);
    }
    clamp_footer(p, rows, beyond);
    if (p->retried || p->disturbed)
        printf("  %d windows repeated after a context switch, %d kept disturbed, of %zu\n",
               p->retried, p->disturbed, (size_t)reps * p->nrow);
}
