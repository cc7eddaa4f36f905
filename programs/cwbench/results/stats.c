/* SPDX-License-Identifier: MIT */
/* cwbench statistics; methods and their justification: docs/STATISTICS.md. */
#include "results/stats.h"

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

/* ---- two modes --------------------------------------------------------- */

/* Twice the interquartile range of s[0..n): about the range for the two or
 * three samples a side may hold, and robust to a stray sample for more. */
static double side_spread(const double *s, size_t n)
{
    return 2.0 * (quantile_sorted(s, n, 0.75) - quantile_sorted(s, n, 0.25));
}

void cwb_modes(const double *x, size_t n, struct cwb_modes *out)
{
    memset(out, 0, sizeof *out);
    out->lo = out->hi = NAN;
    size_t min_side = (size_t)ceil(CWB_MODE_MIN_SHARE * (double)n);
    if (min_side < 2)
        min_side = 2;
    if (!x || n < 2 * min_side)
        return;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return;
    int logs = 1;
    double big = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i])) {
            free(s);
            return;
        }
        logs &= x[i] > 0;
        big = fabs(x[i]) > big ? fabs(x[i]) : big;
    }
    /* Logs: a gap of 10% means the same at 1 and at 100 GB/s. Values that
     * can be 0 (fractions) are split on the linear scale. */
    for (size_t i = 0; i < n; i++)
        s[i] = logs ? log(x[i]) : x[i];
    qsort(s, n, sizeof *s, cmp_double);
    double min_gap = logs ? log1p(CWB_MODE_MIN_SEP) : CWB_MODE_MIN_SEP * big;
    double best = 0;
    size_t split = 0;
    for (size_t k = min_side; k + min_side <= n; k++) {
        double gap = s[k] - s[k - 1];
        if (!(gap >= min_gap) || gap <= 0)
            continue;
        double sl = side_spread(s, k), sh = side_spread(s + k, n - k);
        double spread = sl > sh ? sl : sh;
        if (gap <= CWB_MODE_GAP * spread)
            continue;
        /* Spread 0 on both sides (ties): any gap above min_gap splits. */
        double score = spread > 0 ? gap / spread : INFINITY;
        if (split == 0 || score > best) {
            best = score;
            split = k;
        }
    }
    if (split != 0) {
        out->two = 1;
        out->n_lo = split;
        out->n_hi = n - split;
        out->lo = quantile_sorted(s, split, 0.5);
        out->hi = quantile_sorted(s + split, n - split, 0.5);
        if (logs) {
            out->lo = exp(out->lo);
            out->hi = exp(out->hi);
        }
    }
    free(s);
}

/* ---- comparisons and the decision ----------------------------------------- */

/* The one place a comparison becomes a verdict. Every caller (--ab, dist,
 * compare, the default report, the workloads, pollution's copy-against-
 * background) goes through cwb_compare or cwb_compare_shift, so all of
 * them claim a direction on the same grounds: the rank test, the
 * practical threshold, and an estimate that points the way the printed
 * medians do. The Hodges-Lehmann estimate and the medians can disagree on
 * two-mode samples (a cell alternating between ~5 and ~150 GB/s) or
 * skewed ones: the medians of cw_memcpy and glibc read 73.73 and 68.76
 * Mcalls/s while the estimate said 2.4% slower. Such a row gets no
 * direction at all. */
static void decide(struct cwb_cmp *c, double alpha)
{
    double thr = cwb_cmp_threshold(c), eps = 0.05 * thr;
    double h = c->additive ? c->ratio : c->ratio - 1.0;
    double m = cwb_cmp_median_change(c);
    if (!c->additive)
        m -= 1.0;
    int sh = fabs(h) < eps ? 0 : h > 0 ? 1 : -1;
    int sm = !(fabs(m) >= eps) ? 0 : m > 0 ? 1 : -1;
    c->inconsistent = sh != sm && (fabs(h) >= thr || fabs(m) >= thr);
    c->opposed = !c->inconsistent && sh * sm < 0;
    c->significant = !c->inconsistent && c->p < alpha && fabs(h) >= thr;
}

double cwb_cmp_threshold(const struct cwb_cmp *c)
{
    if (!c->additive)
        return CWB_PRACTICAL_THRESHOLD;
    /* Differences: 0.01 in the cell's unit (an evicted fraction), or 1% of
     * the larger median where the unit is larger. */
    double m = fabs(c->med_a) > fabs(c->med_b) ? fabs(c->med_a) : fabs(c->med_b);
    return CWB_PRACTICAL_THRESHOLD * (m > 1.0 ? m : 1.0);
}

double cwb_cmp_median_change(const struct cwb_cmp *c)
{
    return c->additive ? c->med_b - c->med_a : c->med_b / c->med_a;
}

int cwb_cmp_direction(const struct cwb_cmp *c, int higher_is_better)
{
    if (!c->significant)
        return 0;
    int up = c->additive ? c->ratio > 0 : c->ratio > 1;
    return up == (higher_is_better != 0) ? 1 : -1;
}

/* Sorted copies of a and b (logs of them for a ratio), the estimate, its
 * interval, the medians and the modes; then decide(). */
static int compare(const double *a, size_t na, const double *b, size_t nb, double alpha,
                   int additive, struct cwb_cmp *out)
{
    if (!a || !b || !out || na == 0 || nb == 0 || !(alpha > 0 && alpha < 1))
        return -1;
    for (size_t i = 0; i < na; i++)
        if (!isfinite(a[i]) || (!additive && a[i] <= 0))
            return -1;
    for (size_t j = 0; j < nb; j++)
        if (!isfinite(b[j]) || (!additive && b[j] <= 0))
            return -1;
    if (nb > SIZE_MAX / na)
        return -1;
    struct cwb_mwu t;
    if (cwb_mann_whitney(a, na, b, nb, &t) < 0)
        return -1;
    double *la = malloc((na + nb) * sizeof *la), *lb = la + na;
    if (!la)
        return -1;
    struct cwb_cmp c;
    memset(&c, 0, sizeof c);
    c.additive = additive;
    /* Logs make the shift model multiplicative: a change of x% means the
     * same on a 1 GB/s and a 100 GB/s cell. */
    for (size_t i = 0; i < na; i++)
        la[i] = additive ? a[i] : log(a[i]);
    for (size_t j = 0; j < nb; j++)
        lb[j] = additive ? b[j] : log(b[j]);
    qsort(la, na, sizeof *la, cmp_double);
    qsort(lb, nb, sizeof *lb, cmp_double);
    /* The medians as cwb_summarize gives them (the tables print those),
     * from the sorted logs: the log of a median of an even count is not
     * the median of the values, so take the values back first. */
    double ma0 = la[(na - 1) / 2], ma1 = la[na / 2], mb0 = lb[(nb - 1) / 2], mb1 = lb[nb / 2];
    c.med_a = additive ? 0.5 * (ma0 + ma1) : 0.5 * (exp(ma0) + exp(ma1));
    c.med_b = additive ? 0.5 * (mb0 + mb1) : 0.5 * (exp(mb0) + exp(mb1));
    size_t mn = na * nb;
    double hl = kth_difference(la, na, lb, nb, mn / 2 + 1);
    if (mn % 2 == 0)
        hl = 0.5 * (hl + kth_difference(la, na, lb, nb, mn / 2));
    size_t k = moses_rank(na, nb, alpha);
    c.ratio = additive ? hl : exp(hl);
    if (k >= 1 && k <= mn + 1 - k) {
        double lo = kth_difference(la, na, lb, nb, k);
        double hi = kth_difference(la, na, lb, nb, mn + 1 - k);
        c.lo = additive ? lo : exp(lo);
        c.hi = additive ? hi : exp(hi);
    } else {
        c.lo = c.hi = NAN;
    }
    free(la);
    c.p = t.p;
    c.few_samples = na < CWB_MIN_SAMPLES || nb < CWB_MIN_SAMPLES;
    cwb_modes(a, na, &c.modes_a);
    cwb_modes(b, nb, &c.modes_b);
    decide(&c, alpha);
    *out = c;
    return 0;
}

int cwb_compare(const double *a, size_t na, const double *b, size_t nb, double alpha, struct cwb_cmp *out)
{
    return compare(a, na, b, nb, alpha, 0, out);
}

int cwb_compare_shift(const double *a, size_t na, const double *b, size_t nb, double alpha,
                      struct cwb_cmp *out)
{
    return compare(a, na, b, nb, alpha, 1, out);
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
