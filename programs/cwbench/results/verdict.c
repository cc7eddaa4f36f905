/* SPDX-License-Identifier: MIT */
/* cwbench verdicts as text: what stats.c decided (decide()), worded so that
 * every line names its estimate and moves the way the medians printed
 * beside it do; the tallies and sentences over many comparisons; the two
 * modes of a cell. How to read them: docs/STATISTICS.md, "Verdicts". */
#include "results/stats.h"
#include "results/verdict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Percent change rounded to the printed 0.1, with -0.0 turned into 0 so
 * no "-0.0%" appears. */
static double pct(double ratio)
{
    double v = round((ratio - 1.0) * 1000.0) / 10.0;
    return v == 0 ? 0.0 : v;
}

/* A difference as printed: three significant decimals, no "-0.000". */
static double rounded(double d)
{
    double v = round(d * 1000.0) / 1000.0;
    return v == 0 ? 0.0 : v;
}

/* The estimate's change: percent for a ratio, the difference itself. */
static double change(const struct cwb_cmp *c, double est)
{
    return c->additive ? rounded(est) : pct(est);
}

static void fmt_change(const struct cwb_cmp *c, double v, int sign, char *buf, size_t cap)
{
    if (c->additive)
        snprintf(buf, cap, sign ? "%+.3f" : "%.3f", v);
    else
        snprintf(buf, cap, sign ? "%+.1f%%" : "%.1f%%", v);
}

/* "[+8.1%, +16.0%]" or "[CI n/a: too few samples]". */
static void fmt_ci(const struct cwb_cmp *c, char *buf, size_t cap)
{
    char lo[24], hi[24];
    if (isnan(c->lo) || isnan(c->hi)) {
        snprintf(buf, cap, "[CI n/a: too few samples]");
        return;
    }
    fmt_change(c, change(c, c->lo), 1, lo, sizeof lo);
    fmt_change(c, change(c, c->hi), 1, hi, sizeof hi);
    snprintf(buf, cap, "[%s, %s]", lo, hi);
}

/* The interval in the estimate's own terms: "[0.951, 1.002]". */
static void fmt_ci_raw(const struct cwb_cmp *c, char *buf, size_t cap)
{
    if (isnan(c->lo) || isnan(c->hi))
        snprintf(buf, cap, "[CI n/a]");
    else if (c->additive)
        snprintf(buf, cap, "[%+.3f, %+.3f]", rounded(c->lo), rounded(c->hi));
    else
        snprintf(buf, cap, "[%.3f, %.3f]", c->lo, c->hi);
}

/* "HL ratio 1.123" / "HL difference +0.123". */
static void fmt_estimate(const struct cwb_cmp *c, char *buf, size_t cap)
{
    if (c->additive)
        snprintf(buf, cap, "HL difference %+.3f", rounded(c->ratio));
    else
        snprintf(buf, cap, "HL ratio %.3f", c->ratio);
}

/* "median ratio 1.072" / "median difference +0.100". */
static void fmt_median(const struct cwb_cmp *c, char *buf, size_t cap)
{
    double m = cwb_cmp_median_change(c);
    if (c->additive)
        snprintf(buf, cap, "median difference %+.3f", rounded(m));
    else
        snprintf(buf, cap, "median ratio %.3f", m);
}

static void fmt_p(double p, char *buf, size_t cap)
{
    if (p < 0.001)
        snprintf(buf, cap, "p<0.001");
    else
        snprintf(buf, cap, "p=%.3f", p);
}

/* "; two-mode: A and B" when either side has two modes. */
static const char *modes_mark(const struct cwb_cmp *c)
{
    if (c->modes_a.two && c->modes_b.two)
        return "; two-mode: A and B";
    if (c->modes_a.two)
        return "; two-mode: A";
    if (c->modes_b.two)
        return "; two-mode: B";
    return "";
}

const char *cwb_verdict(const struct cwb_cmp *c, int higher_is_better, char *buf, size_t cap)
{
    if (!buf || cap == 0)
        return buf;
    char ci[64], est[48], med[48], pb[24], amount[24];
    fmt_ci(c, ci, sizeof ci);
    fmt_estimate(c, est, sizeof est);
    fmt_median(c, med, sizeof med);
    fmt_p(c->p, pb, sizeof pb);
    const char *few = c->few_samples ? ", few samples (< 9 per side)" : "";
    if (c->inconsistent) {
        /* No direction word: the estimate and the medians disagree. */
        fmt_ci_raw(c, ci, sizeof ci);
        snprintf(buf, cap, "inconsistent: two-mode or skewed samples (%s %s, %s): no verdict "
                 "(%s)%s%s", est, ci, med, pb, few, modes_mark(c));
        return buf;
    }
    double ch = change(c, c->ratio), thr = cwb_cmp_threshold(c);
    const char *why = c->significant ? "significant"
                      : fabs(c->additive ? c->ratio : c->ratio - 1.0) < thr
                          ? (c->additive ? "within noise, below the practical threshold"
                                         : "within noise, below the 1% threshold")
                          : "within noise";
    if (ch == 0 || c->opposed) {
        snprintf(buf, cap, "unchanged%s %s (%s%s%s), %s (%s)%s%s",
                 c->opposed ? (c->additive ? " within the threshold" : " within 1%") : "", ci,
                 est, c->opposed ? ", " : "", c->opposed ? med : "", why, pb, few,
                 modes_mark(c));
        return buf;
    }
    fmt_change(c, fabs(ch), 0, amount, sizeof amount);
    if (higher_is_better) {
        snprintf(buf, cap, "%s %s %s (%s), %s (%s)%s%s", ch > 0 ? "faster by" : "slower by",
                 amount, ci, est, why, pb, few, modes_mark(c));
    } else {
        /* Times, fractions, misses: the quantity's own change, so the sign
         * follows the medians; what it means for B comes after. */
        snprintf(buf, cap, "%s %s %s%s (%s), %s (%s)%s%s", ch > 0 ? "higher by" : "lower by",
                 amount, ci, !c->significant ? "" : ch > 0 ? ", worse" : ", better", est, why,
                 pb, few, modes_mark(c));
    }
    return buf;
}

const char *cwb_verdict_word(const struct cwb_cmp *c, int higher_is_better)
{
    int dir = cwb_cmp_direction(c, higher_is_better);
    if (c->inconsistent)
        return "inconsistent";
    if (dir > 0)
        return higher_is_better ? "faster" : "better";
    if (dir < 0)
        return higher_is_better ? "SLOWER" : "WORSE";
    if (fabs(c->additive ? c->ratio : c->ratio - 1.0) < cwb_cmp_threshold(c))
        return c->additive ? "within noise (small)" : "within noise (<1%)";
    return "within noise";
}

const char *cwb_estimate_text(const struct cwb_cmp *c, char *buf, size_t cap)
{
    char ci[64], est[48], med[48], amount[24];
    fmt_ci(c, ci, sizeof ci);
    fmt_estimate(c, est, sizeof est);
    if (c->inconsistent) {
        fmt_median(c, med, sizeof med);
        snprintf(buf, cap, "inconsistent (two-mode or skewed samples: %s, %s)", est, med);
        return buf;
    }
    fmt_change(c, change(c, c->ratio), 1, amount, sizeof amount);
    snprintf(buf, cap, "%s %s (%s)", amount, ci, est);
    return buf;
}

const char *cwb_modes_text(const struct cwb_modes *m, char *buf, size_t cap)
{
    size_t n = m->n_lo + m->n_hi;
    if (!m->two || n == 0) {
        snprintf(buf, cap, "-");
        return buf;
    }
    snprintf(buf, cap, "%.3g (%.0f%%) | %.3g (%.0f%%)", m->lo, 100.0 * (double)m->n_lo / (double)n,
             m->hi, 100.0 * (double)m->n_hi / (double)n);
    return buf;
}

/* ---- tallies and sentences ------------------------------------------------ */

void cwb_tally_add(struct cwb_tally *t, const struct cwb_cmp *c)
{
    double ch = fabs(pct(c->ratio));
    if (c->inconsistent) {
        t->inconsistent++;
        t->noise++;
    } else if (!c->significant) {
        t->noise++;
    } else if (c->ratio > 1) {
        t->fast_lo = t->faster == 0 || ch < t->fast_lo ? ch : t->fast_lo;
        t->fast_hi = t->faster == 0 || ch > t->fast_hi ? ch : t->fast_hi;
        t->faster++;
    } else {
        t->slow_lo = t->slower == 0 || ch < t->slow_lo ? ch : t->slow_lo;
        t->slow_hi = t->slower == 0 || ch > t->slow_hi ? ch : t->slow_hi;
        t->slower++;
    }
}

/* "8.1%" or "3.0-9.9%": the significant changes one way (already rounded
 * to the printed 0.1 by pct). */
static void change_range(double lo, double hi, char *buf, size_t cap)
{
    if (lo == hi)
        snprintf(buf, cap, "%.1f%%", hi);
    else
        snprintf(buf, cap, "%.1f-%.1f%%", lo, hi);
}

const char *cwb_tally_sentence(const struct cwb_tally *t, const char *b, const char *a,
                               const char *what, char *buf, size_t cap)
{
    if (!buf || cap == 0)
        return buf;
    size_t n = t->faster + t->slower + t->noise;
    const char *pl = n == 1 ? "" : "s"; /* "of 1 size", "of 2 sizes" */
    char f[48], s[48], rest[160] = "", inc[80] = "";
    change_range(t->fast_lo, t->fast_hi, f, sizeof f);
    change_range(t->slow_lo, t->slow_hi, s, sizeof s);
    if (t->inconsistent > 0)
        snprintf(inc, sizeof inc, " (%zu inconsistent: two-mode or skewed samples)",
                 t->inconsistent);
    if (t->noise > 0 && t->noise < n)
        snprintf(rest, sizeof rest, "; no significant difference at the other %zu%s", t->noise,
                 inc);
    if (n == 0) {
        snprintf(buf, cap, "no %s compared", what);
    } else if (t->faster == 0 && t->slower == 0) {
        if (n <= 2)
            snprintf(buf, cap, "no significant difference at %s %s%s", n == 1 ? "the" : "either",
                     what, inc);
        else
            snprintf(buf, cap, "no significant difference at any of the %zu %ss%s", n, what, inc);
    } else if (t->faster == 0 || t->slower == 0) {
        int fast = t->slower == 0;
        size_t k = fast ? t->faster : t->slower;
        char count[48];
        if (k == n && n == 1)
            snprintf(count, sizeof count, "the %s", what);
        else if (k == n)
            snprintf(count, sizeof count, "all %zu %ss", n, what);
        else
            snprintf(count, sizeof count, "%zu of %zu %s%s", k, n, what, pl);
        snprintf(buf, cap, "%s%s%s than %s at %s (by %s, significant)%s", b ? b : "",
                 b ? " is " : "", fast ? "faster" : "slower", a, count, fast ? f : s, rest);
    } else {
        snprintf(buf, cap, "mixed: %s%sfaster than %s at %zu %s%s (by %s) and slower at %zu "
                 "(by %s), all significant%s", b ? b : "", b ? " is " : "", a, t->faster, what,
                 t->faster == 1 ? "" : "s", f, t->slower, s, rest);
    }
    return buf;
}
