/* SPDX-License-Identifier: MIT */
/* cwbench statistics; methods and their justification: docs/STATISTICS.md. */
#include "stats.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* Linear interpolation between order statistics (R type 7, numpy default). */
static double quantile_sorted(const double *s, size_t n, double q)
{
    double h = q * (double)(n - 1);
    size_t lo = (size_t)h;
    if (lo + 1 >= n)
        return s[n - 1];
    return s[lo] + (h - (double)lo) * (s[lo + 1] - s[lo]);
}

void cwb_summarize(const double *x, size_t n, struct cwb_summary *out)
{
    out->n = n;
    out->mean = out->sd = out->cv = out->median = NAN;
    out->min = out->max = out->q1 = out->q3 = NAN;
    if (n == 0 || !x)
        return;
    double *s = malloc(n * sizeof *s);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    double mean = sum / (double)n, ss = 0;
    /* Two-pass variance: the one-pass formula cancels badly for samples
     * like 320.42 +- 0.9 where the mean dwarfs the spread. */
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    out->mean = mean;
    out->sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
    out->cv = mean != 0 ? out->sd / fabs(mean) : NAN;
    if (!s)
        return;  /* mean/sd known, order statistics stay NAN */
    for (size_t i = 0; i < n; i++)
        s[i] = x[i];
    qsort(s, n, sizeof *s, cmp_double);
    out->min = s[0];
    out->max = s[n - 1];
    out->median = quantile_sorted(s, n, 0.5);
    out->q1 = quantile_sorted(s, n, 0.25);
    out->q3 = quantile_sorted(s, n, 0.75);
    free(s);
}

double cwb_normal_p2(double z)
{
    return erfc(fabs(z) / sqrt(2.0));
}

double cwb_normal_quantile(double p)
{
    if (!(p > 0 && p < 1))
        return NAN;
    /* Bisection on the CDF: slow by textbook standards, but called a few
     * times per comparison and exact to the last bit of erfc. */
    double lo = -40, hi = 40;
    for (int i = 0; i < 200 && hi - lo > 1e-15; i++) {
        double mid = 0.5 * (lo + hi);
        if (0.5 * erfc(-mid / sqrt(2.0)) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

double cwb_mwu_exact_counts(size_t m, size_t n, double *c)
{
    /* The counts are the coefficients of the Gaussian binomial
     * [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i); each
     * partial product is itself a Gaussian binomial, so every
     * intermediate coefficient is a small non-negative integer. */
    size_t deg = m * n;
    for (size_t k = 0; k <= deg; k++)
        c[k] = 0;
    c[0] = 1;
    size_t cur = 0;
    for (size_t i = 1; i <= m; i++) {
        size_t up = n + i, newdeg = cur + n;
        /* Multiply by (1 - q^up), downwards so c[k - up] is still the old
         * value; terms above newdeg cancel in the division and are never
         * needed. */
        for (size_t k = newdeg; k >= up; k--)
            c[k] -= c[k - up];
        /* Divide by (1 - q^i): running sum with stride i. */
        for (size_t k = i; k <= newdeg; k++)
            c[k] += c[k - i];
        cur = newdeg;
    }
    double total = 0;
    for (size_t k = 0; k <= deg; k++)
        total += c[k];
    return total;
}

struct ranked { double v; int side; };

static int cmp_ranked(const void *pa, const void *pb)
{
    const struct ranked *a = pa, *b = pb;
    return (a->v > b->v) - (a->v < b->v);
}

/* U of a and the tie term sum(t^3 - t); -1 on NaN or no memory. */
static int rank_sum(const double *a, size_t na, const double *b, size_t nb,
                    double *u_a, double *ties)
{
    size_t N = na + nb;
    struct ranked *r = malloc(N * sizeof *r);
    if (!r)
        return -1;
    for (size_t i = 0; i < na; i++) {
        if (isnan(a[i])) { free(r); return -1; }
        r[i].v = a[i];
        r[i].side = 0;
    }
    for (size_t j = 0; j < nb; j++) {
        if (isnan(b[j])) { free(r); return -1; }
        r[na + j].v = b[j];
        r[na + j].side = 1;
    }
    qsort(r, N, sizeof *r, cmp_ranked);
    double ra = 0, t3 = 0;
    for (size_t i = 0; i < N;) {
        size_t j = i;
        while (j + 1 < N && r[j + 1].v == r[i].v)
            j++;
        double t = (double)(j - i + 1), mid = 0.5 * (double)(i + j) + 1.0;
        t3 += t * t * t - t;
        for (size_t k = i; k <= j; k++)
            if (r[k].side == 0)
                ra += mid;
        i = j + 1;
    }
    free(r);
    *u_a = ra - (double)na * (double)(na + 1) / 2.0;
    *ties = t3;
    return 0;
}

int cwb_mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct cwb_mwu *out)
{
    double u, t3;
    if (!a || !b || na == 0 || nb == 0 || !out)
        return -1;
    if (rank_sum(a, na, b, nb, &u, &t3) < 0)
        return -1;
    double m = (double)na, n = (double)nb, N = m + n, mu = m * n / 2.0;
    double var = m * n / 12.0 * ((N + 1) - t3 / (N * (N - 1)));
    double z = 0, p = 1;
    if (var > 0) {
        double d = fabs(u - mu) - 0.5;  /* continuity correction */
        if (d < 0)
            d = 0;
        z = (u >= mu ? d : -d) / sqrt(var);
        p = cwb_normal_p2(z);
    }
    if (t3 == 0 && na <= CWB_MWU_EXACT_MAX && nb <= CWB_MWU_EXACT_MAX) {
        size_t deg = na * nb;
        double c[CWB_MWU_EXACT_MAX * CWB_MWU_EXACT_MAX + 1];
        double total = cwb_mwu_exact_counts(na, nb, c);
        /* U is an integer without ties; by symmetry the upper tail at u is
         * the lower tail at m*n - u. */
        size_t k = (size_t)llround(u < mu ? u : (double)deg - u);
        double tail = 0;
        for (size_t i = 0; i <= k; i++)
            tail += c[i];
        p = 2.0 * tail / total;
    }
    out->u = u;
    out->z = z;
    out->p = p > 1 ? 1 : p;
    return 0;
}

/* Order-statistic rank k (1-based) of the Moses interval
 * [D_(k), D_(mn+1-k)]; 0 when no interval reaches level 1 - alpha. */
static size_t moses_rank(size_t m, size_t n, double alpha)
{
    size_t mn = m * n;
    if (m <= CWB_MWU_EXACT_MAX && n <= CWB_MWU_EXACT_MAX) {
        double c[CWB_MWU_EXACT_MAX * CWB_MWU_EXACT_MAX + 1];
        double total = cwb_mwu_exact_counts(m, n, c), cum = 0;
        /* Largest k with P(U <= k-1) <= alpha/2: the interval then misses
         * the true shift with probability at most alpha. */
        size_t k = 0;
        while (k < mn) {
            cum += c[k];
            if (cum / total > alpha / 2.0)
                break;
            k++;
        }
        return k;
    }
    double z = cwb_normal_quantile(1.0 - alpha / 2.0);
    double kk = floor((double)mn / 2.0 - z * sqrt((double)mn * (double)(m + n + 1) / 12.0));
    return kk < 1 ? 0 : (size_t)kk;
}

/* Doubles mapped to integers in the same order, so a bisection over
 * values ends on an exact double in at most 64 steps. */
static int64_t order_key(double x)
{
    int64_t b;
    memcpy(&b, &x, sizeof b);
    return b >= 0 ? b : INT64_MIN - b;
}

static double from_key(int64_t k)
{
    int64_t b = k >= 0 ? k : INT64_MIN - k;
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* Pairs (i, j) with lb[j] - la[i] <= x; both sorted ascending. For each
 * i the qualifying j form a prefix of lb that only grows with i (the
 * difference falls as la[i] rises), so one pointer sweeps lb once. */
static size_t pairs_at_most(const double *la, size_t na, const double *lb, size_t nb, double x)
{
    size_t count = 0, j = 0;
    for (size_t i = 0; i < na; i++) {
        while (j < nb && lb[j] - la[i] <= x)
            j++;
        count += j;
    }
    return count;
}

/* k-th smallest (1-based) of the na*nb differences lb[j] - la[i], without
 * materialising them: memory stays O(n) even for 10^5 samples a side. */
static double kth_difference(const double *la, size_t na, const double *lb, size_t nb, size_t k)
{
    int64_t lo = order_key(lb[0] - la[na - 1]), hi = order_key(lb[nb - 1] - la[0]);
    while (lo < hi) {
        int64_t mid = lo + (int64_t)(((uint64_t)hi - (uint64_t)lo) / 2);
        if (pairs_at_most(la, na, lb, nb, from_key(mid)) >= k)
            hi = mid;
        else
            lo = mid + 1;
    }
    return from_key(lo);
}

int cwb_compare(const double *a, size_t na, const double *b, size_t nb, double alpha, struct cwb_cmp *out)
{
    if (!a || !b || !out || na == 0 || nb == 0 || !(alpha > 0 && alpha < 1))
        return -1;
    for (size_t i = 0; i < na; i++)
        if (!isfinite(a[i]) || a[i] <= 0)
            return -1;
    for (size_t j = 0; j < nb; j++)
        if (!isfinite(b[j]) || b[j] <= 0)
            return -1;
    if (nb > SIZE_MAX / na)
        return -1;
    struct cwb_mwu t;
    if (cwb_mann_whitney(a, na, b, nb, &t) < 0)
        return -1;
    double *la = malloc((na + nb) * sizeof *la), *lb = la + na;
    if (!la)
        return -1;
    /* Logs make the shift model multiplicative: a change of x% means the
     * same on a 1 GB/s and a 100 GB/s cell. */
    for (size_t i = 0; i < na; i++)
        la[i] = log(a[i]);
    for (size_t j = 0; j < nb; j++)
        lb[j] = log(b[j]);
    qsort(la, na, sizeof *la, cmp_double);
    qsort(lb, nb, sizeof *lb, cmp_double);
    size_t mn = na * nb;
    double hl = kth_difference(la, na, lb, nb, mn / 2 + 1);
    if (mn % 2 == 0)
        hl = 0.5 * (hl + kth_difference(la, na, lb, nb, mn / 2));
    size_t k = moses_rank(na, nb, alpha);
    out->ratio = exp(hl);
    if (k >= 1 && k <= mn + 1 - k) {
        out->lo = exp(kth_difference(la, na, lb, nb, k));
        out->hi = exp(kth_difference(la, na, lb, nb, mn + 1 - k));
    } else {
        out->lo = out->hi = NAN;
    }
    free(la);
    out->p = t.p;
    out->few_samples = na < CWB_MIN_SAMPLES || nb < CWB_MIN_SAMPLES;
    out->significant = t.p < alpha && fabs(out->ratio - 1.0) >= CWB_PRACTICAL_THRESHOLD;
    return 0;
}

/* Percent change rounded to the printed 0.1, with -0.0 turned into 0 so
 * no "-0.0%" appears. */
static double pct(double speed_ratio)
{
    double v = round((speed_ratio - 1.0) * 1000.0) / 10.0;
    return v == 0 ? 0.0 : v;
}

const char *cwb_verdict(const struct cwb_cmp *c, int higher_is_better, char *buf, size_t cap)
{
    if (!buf || cap == 0)
        return buf;
    double r = c->ratio, lo = c->lo, hi = c->hi;
    if (!higher_is_better) {
        /* Times: B is faster when it takes less, so speed ratio = a/b and
         * the interval flips. */
        r = 1.0 / c->ratio;
        lo = 1.0 / c->hi;
        hi = 1.0 / c->lo;
    }
    double ch = pct(r), shown = fabs(ch);
    const char *dir = shown == 0 ? "unchanged" : ch > 0 ? "faster by" : "slower by";
    char ci[64];
    if (isnan(lo) || isnan(hi))
        snprintf(ci, sizeof ci, "[CI n/a: too few samples]");
    else
        snprintf(ci, sizeof ci, "[%.1f%%, %.1f%%]", pct(lo), pct(hi));
    const char *why = c->significant ? "significant"
                      : fabs(c->ratio - 1.0) < CWB_PRACTICAL_THRESHOLD
                          ? "within noise, below the 1% threshold"
                          : "within noise";
    char pbuf[32];
    if (c->p < 0.001)
        snprintf(pbuf, sizeof pbuf, "p<0.001");
    else
        snprintf(pbuf, sizeof pbuf, "p=%.3f", c->p);
    if (shown == 0)
        snprintf(buf, cap, "%s %s, %s (%s)%s", dir, ci, why, pbuf,
                 c->few_samples ? ", few samples (< 9 per side)" : "");
    else
        snprintf(buf, cap, "%s %.1f%% %s, %s (%s)%s", dir, shown, ci, why, pbuf,
                 c->few_samples ? ", few samples (< 9 per side)" : "");
    return buf;
}

void cwb_tally_add(struct cwb_tally *t, const struct cwb_cmp *c)
{
    double ch = fabs(pct(c->ratio));
    if (!c->significant) {
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
    char f[48], s[48], rest[96] = "";
    change_range(t->fast_lo, t->fast_hi, f, sizeof f);
    change_range(t->slow_lo, t->slow_hi, s, sizeof s);
    if (t->noise > 0 && t->noise < n)
        snprintf(rest, sizeof rest, "; no significant difference at the other %zu", t->noise);
    if (n == 0) {
        snprintf(buf, cap, "no %s compared", what);
    } else if (t->faster == 0 && t->slower == 0) {
        if (n <= 2)
            snprintf(buf, cap, "no significant difference at %s %s", n == 1 ? "the" : "either",
                     what);
        else
            snprintf(buf, cap, "no significant difference at any of the %zu %ss", n, what);
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

double cwb_geomean(const double *x, size_t n)
{
    if (!x || n == 0)
        return NAN;
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || x[i] <= 0)
            return NAN;
        s += log(x[i]);
    }
    return exp(s / (double)n);
}
