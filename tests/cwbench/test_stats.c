/* SPDX-License-Identifier: MIT */
/* Unit tests for programs/cwbench/results/stats.c. Expected values come from
 * published examples (scipy's mannwhitneyu documentation, the standard
 * U critical-value table) or from brute-force enumeration here. */
#include "../test_check.h"
#include "results/stats.h"
#include "results/verdict.h"
#include "verdict_fixture.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>



static void test_summary(void)
{
    const double x[] = {9, 2, 4, 4, 5, 4, 5, 7};
    struct cwb_summary s;
    cwb_summarize(x, 8, &s);
    CWT_EXPECT(s.n == 8);
    CWT_NEAR(s.mean, 5.0, 1e-12);
    CWT_NEAR(s.sd, sqrt(32.0 / 7.0), 1e-12);
    CWT_NEAR(s.cv, sqrt(32.0 / 7.0) / 5.0, 1e-12);
    CWT_NEAR(s.median, 4.5, 0);
    CWT_NEAR(s.min, 2, 0);
    CWT_NEAR(s.max, 9, 0);
    CWT_NEAR(s.q1, 4, 0);
    CWT_NEAR(s.q3, 5.5, 0);
    cwb_summarize(x, 1, &s);
    CWT_EXPECT(s.n == 1 && s.sd == 0 && s.median == 9 && s.q1 == 9 && s.q3 == 9);
    cwb_summarize(x, 0, &s);
    CWT_EXPECT(s.n == 0 && isnan(s.mean) && isnan(s.median) && isnan(s.sd));
    /* Large offset, tiny spread: a one-pass variance would lose it. */
    const double y[] = {1e9 + 1, 1e9 + 2, 1e9 + 3};
    cwb_summarize(y, 3, &s);
    CWT_NEAR(s.sd, 1.0, 1e-6);
}

static double binom(unsigned n, unsigned k)
{
    double r = 1;
    for (unsigned i = 1; i <= k; i++)
        r = r * (n - k + i) / i;
    return r;
}

/* Every split of m+n ranks into m for A: U counts the B ranks below each A. */
static void test_exact_counts(void)
{
    for (unsigned m = 1; m <= 8; m++) {
        for (unsigned n = 1; n <= 8; n++) {
            double want[65] = {0}, got[65];
            unsigned N = m + n;
            for (unsigned mask = 0; mask < (1u << N); mask++) {
                if ((unsigned)__builtin_popcount(mask) != m)
                    continue;
                unsigned u = 0, below_b = 0;
                for (unsigned r = 0; r < N; r++) {
                    if (mask & (1u << r))
                        u += below_b;
                    else
                        below_b++;
                }
                want[u] += 1;
            }
            double total = cwb_mwu_exact_counts(m, n, got);
            CWT_NEAR(total, binom(N, m), 0);
            for (unsigned k = 0; k <= m * n; k++)
                CWT_NEAR(got[k], want[k], 0);
        }
    }
    /* Largest exact case must still be integral and sum to C(40, 20). */
    static double c[401];
    CWT_NEAR(cwb_mwu_exact_counts(20, 20, c), binom(40, 20), 0);
    CWT_NEAR(c[0], 1, 0);
    CWT_EXPECT(c[1] == 1 && c[2] == 2 && c[399] == 1 && c[400] == 1);
}

static void test_mwu_published(void)
{
    /* scipy.stats.mannwhitneyu documentation (males vs females): U1 = 17,
     * exact p = 0.1111 (= 14/126), asymptotic p = 0.11134688653314041. */
    const double males[] = {19, 22, 16, 29, 24}, females[] = {20, 11, 17, 12};
    struct cwb_mwu t;
    CWT_EXPECT(cwb_mann_whitney(males, 5, females, 4, &t) == 0);
    CWT_NEAR(t.u, 17, 0);
    CWT_NEAR(t.p, 14.0 / 126.0, 1e-12);
    CWT_NEAR(cwb_normal_p2(t.z), 0.11134688653314041, 1e-12);
    CWT_EXPECT(cwb_mann_whitney(females, 4, males, 5, &t) == 0);
    CWT_NEAR(t.u, 3, 0);
    CWT_NEAR(t.p, 14.0 / 126.0, 1e-12);
    CWT_EXPECT(t.z < 0);

    /* U table (two-sided alpha 0.05): critical value 23 for 10 vs 10,
     * i.e. P(U <= 23) <= 0.025 < P(U <= 24). */
    double c[101], total = cwb_mwu_exact_counts(10, 10, c), cum = 0;
    for (int k = 0; k <= 23; k++)
        cum += c[k];
    CWT_EXPECT(cum / total <= 0.025);
    CWT_EXPECT((cum + c[24]) / total > 0.025);
}

static void test_mwu_ties(void)
{
    /* With ties: tie-corrected normal approximation with continuity
     * correction; expected values worked out by hand from the formula
     * (and U by counting pairs). */
    const double a[] = {1, 2, 2, 3, 7}, b[] = {2, 3, 3, 4, 5, 6};
    struct cwb_mwu t;
    CWT_EXPECT(cwb_mann_whitney(a, 5, b, 6, &t) == 0);
    CWT_NEAR(t.u, 9, 0);
    CWT_NEAR(t.z, -1.0229289554014698, 1e-9);
    CWT_NEAR(t.p, 0.306341437827711, 1e-9);
    const double a2[] = {1.1, 2.2, 2.2, 3.3, 3.3, 3.3, 4.4, 5.5, 6.6, 7.7, 8.8, 9.9};
    const double b2[] = {3.3, 4.4, 5.5, 5.5, 9.9, 10.1, 11.1, 12.2, 13.3, 14.4, 15.5, 16.6, 17.7};
    CWT_EXPECT(cwb_mann_whitney(a2, 12, b2, 13, &t) == 0);
    CWT_NEAR(t.u, 22.5, 0);
    CWT_NEAR(t.p, 0.002687112073003242, 1e-9);
    /* All equal: no evidence at all. */
    const double e[] = {5, 5, 5};
    CWT_EXPECT(cwb_mann_whitney(e, 3, e, 3, &t) == 0);
    CWT_NEAR(t.p, 1, 0);
}

static void test_three_vs_three(void)
{
    /* No arrangement of 3 vs 3 reaches p < 0.05: the smallest two-sided
     * p is 2/20. */
    double minp = 1;
    for (unsigned mask = 0; mask < 64; mask++) {
        if (__builtin_popcount(mask) != 3)
            continue;
        double a[3], b[3];
        int na = 0, nb = 0;
        for (int r = 0; r < 6; r++) {
            if (mask & (1u << r))
                a[na++] = r + 1;
            else
                b[nb++] = r + 1;
        }
        struct cwb_mwu t;
        CWT_EXPECT(cwb_mann_whitney(a, 3, b, 3, &t) == 0);
        if (t.p < minp)
            minp = t.p;
    }
    CWT_NEAR(minp, 0.1, 1e-12);
    /* Same through the normal path (ties force it). */
    const double a[] = {1, 1, 2}, b[] = {9, 9, 10};
    struct cwb_mwu t;
    CWT_EXPECT(cwb_mann_whitney(a, 3, b, 3, &t) == 0);
    CWT_EXPECT(t.p >= 0.05);
    struct cwb_cmp c;
    CWT_EXPECT(cwb_compare(a, 3, b, 3, 0.05, &c) == 0);
    CWT_EXPECT(!c.significant && c.few_samples && isnan(c.lo) && isnan(c.hi));
    char buf[200];
    cwb_verdict(&c, 1, buf, sizeof buf);
    CWT_EXPECT(strstr(buf, "CI n/a") && strstr(buf, "within noise") && strstr(buf, "few samples"));
}

static void test_large_normal(void)
{
    /* 30 vs 30 (beyond the exact limit): the normal approximation must
     * agree with the exact tail computed from the counts. */
    double a[30], b[30];
    for (int i = 0; i < 30; i++) {
        a[i] = 2 * i;            /* interleaved: U = 435 of 900 */
        b[i] = 2 * i + 1 + (i >= 20 ? 20 : 0);
    }
    struct cwb_mwu t;
    CWT_EXPECT(cwb_mann_whitney(a, 30, b, 30, &t) == 0);
    static double c[901];
    double total = cwb_mwu_exact_counts(30, 30, c), tail = 0;
    for (int k = 0; k <= (int)t.u; k++)
        tail += c[k];
    CWT_NEAR(t.p, 2 * tail / total, 0.005);
    CWT_EXPECT(t.p > 0 && t.p < 1);
}

/* n deterministic samples with exactly this mean and sample sd: normal
 * quantiles, rescaled, in a shuffled order. */
static void fake_samples(double *x, int n, double mean, double sd, unsigned seed)
{
    double z[64], m = 0, ss = 0;
    for (int i = 0; i < n; i++)
        m += z[i] = cwb_normal_quantile((i + 0.5) / n);
    m /= n;
    for (int i = 0; i < n; i++)
        ss += (z[i] - m) * (z[i] - m);
    double s = sqrt(ss / (n - 1));
    for (int i = 0; i < n; i++)
        x[(i * 7 + seed) % n] = mean + sd * (z[i] - m) / s;
}

static void test_hdparm(void)
{
    /* hdparm -T, 20 runs each: 320.42 MB/s sigma 0.88 against 318.77 MB/s
     * sigma 1.00, judged "down in the noise" by the kernel maintainers. */
    double a[20], b[20];
    fake_samples(a, 20, 320.42, 0.88, 3);
    fake_samples(b, 20, 318.77, 1.00, 11);
    struct cwb_summary s;
    cwb_summarize(a, 20, &s);
    CWT_NEAR(s.mean, 320.42, 1e-9);
    CWT_NEAR(s.sd, 0.88, 1e-9);
    cwb_summarize(b, 20, &s);
    CWT_NEAR(s.mean, 318.77, 1e-9);
    CWT_NEAR(s.sd, 1.00, 1e-9);
    struct cwb_cmp c;
    CWT_EXPECT(cwb_compare(a, 20, b, 20, 0.05, &c) == 0);
    CWT_EXPECT(!c.significant);
    CWT_EXPECT(!c.few_samples);
    CWT_EXPECT(c.ratio < 1 && c.ratio > 0.99);
    CWT_EXPECT(c.lo <= c.ratio && c.ratio <= c.hi);
    char buf[200];
    cwb_verdict(&c, 1, buf, sizeof buf);
    printf("hdparm: %s\n", buf);
    CWT_EXPECT(strncmp(buf, "slower by 0.5% [", 16) == 0);
    CWT_EXPECT(strstr(buf, "within noise, below the 1% threshold") != NULL);
    CWT_EXPECT(strstr(buf, "(HL ratio 0.995)") != NULL);
    CWT_EXPECT(!c.inconsistent && !c.modes_a.two && !c.modes_b.two);

    /* A clear 10% gain with the same noise is significant. */
    fake_samples(b, 20, 352.46, 1.00, 5);
    CWT_EXPECT(cwb_compare(a, 20, b, 20, 0.05, &c) == 0);
    CWT_EXPECT(c.significant && c.p < 0.001);
    CWT_EXPECT(c.lo > 1.05 && c.hi < 1.15 && c.lo <= c.ratio && c.ratio <= c.hi);
    cwb_verdict(&c, 1, buf, sizeof buf);
    printf("clear gain: %s\n", buf);
    CWT_EXPECT(strncmp(buf, "faster by 10.0% [", 17) == 0);
    CWT_EXPECT(strstr(buf, "significant (p<0.001)") != NULL);
    CWT_EXPECT(strstr(buf, "(HL ratio 1.100)") != NULL);
    /* The same numbers as times: B takes 10% longer. The verdict speaks of
     * the quantity itself, so it moves the way the medians do (up), and
     * says what that means. */
    cwb_verdict(&c, 0, buf, sizeof buf);
    printf("as times: %s\n", buf);
    CWT_EXPECT(strncmp(buf, "higher by 10.0% [+", 18) == 0);
    CWT_EXPECT(strstr(buf, ", worse (HL ratio 1.100), significant") != NULL);
    CWT_EXPECT(strstr(buf, "slower") == NULL && strstr(buf, "faster") == NULL);
    CWT_EXPECT(strcmp(cwb_verdict_word(&c, 0), "WORSE") == 0);
    CWT_EXPECT(strcmp(cwb_verdict_word(&c, 1), "faster") == 0);
    CWT_EXPECT(cwb_cmp_direction(&c, 1) == 1 && cwb_cmp_direction(&c, 0) == -1);

    /* A 3% difference buried in noise (sd 10%) is not significant. */
    fake_samples(a, 12, 100, 10, 1);
    fake_samples(b, 12, 103, 10, 4);
    CWT_EXPECT(cwb_compare(a, 12, b, 12, 0.05, &c) == 0);
    CWT_EXPECT(!c.significant && c.p > 0.05);
    cwb_verdict(&c, 1, buf, sizeof buf);
    CWT_EXPECT(strstr(buf, "within noise (p=") != NULL);
}

static void test_moses_ci(void)
{
    /* 10 vs 10 at alpha 0.05: the interval is [D(24), D(77)] of the 100
     * sorted log-ratios (critical value 23 from the table above). */
    double a[10], b[10], d[100];
    for (int i = 0; i < 10; i++) {
        a[i] = 100 + 3.1 * i + (i % 3);
        b[i] = 104 + 2.7 * i + (i % 4);
    }
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < 10; j++)
            d[i * 10 + j] = log(b[j]) - log(a[i]);
    for (int i = 1; i < 100; i++)     /* insertion sort */
        for (int k = i; k > 0 && d[k - 1] > d[k]; k--) {
            double t = d[k]; d[k] = d[k - 1]; d[k - 1] = t;
        }
    struct cwb_cmp c;
    CWT_EXPECT(cwb_compare(a, 10, b, 10, 0.05, &c) == 0);
    CWT_NEAR(c.lo, exp(d[23]), 1e-12);
    CWT_NEAR(c.hi, exp(d[76]), 1e-12);
    CWT_NEAR(c.ratio, exp(0.5 * (d[49] + d[50])), 1e-12);
    /* Scale invariance: multiplying both sides changes nothing. */
    for (int i = 0; i < 10; i++) { a[i] *= 1000; b[i] *= 1000; }
    struct cwb_cmp c2;
    CWT_EXPECT(cwb_compare(a, 10, b, 10, 0.05, &c2) == 0);
    CWT_NEAR(c2.ratio, c.ratio, 1e-12);
    CWT_NEAR(c2.lo, c.lo, 1e-12);
    /* Normal-approximation interval (beyond the exact limit) brackets the
     * estimate and narrows as alpha grows. */
    double x[40], y[40];
    fake_samples(x, 40, 50, 2, 3);
    fake_samples(y, 40, 55, 2, 9);
    struct cwb_cmp w, n2;
    CWT_EXPECT(cwb_compare(x, 40, y, 40, 0.01, &w) == 0);
    CWT_EXPECT(cwb_compare(x, 40, y, 40, 0.20, &n2) == 0);
    CWT_EXPECT(w.lo < n2.lo && n2.lo <= n2.ratio && n2.ratio <= n2.hi && n2.hi < w.hi);
    CWT_NEAR(w.ratio, 1.1, 0.01);
}

static int cmp_dbl(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static void test_large_samples(void)
{
    /* Ties galore (small integers) at 300 vs 400: the selection of order
     * statistics must equal sorting all 120000 log differences. */
    static double a[300], b[400], d[120000];
    uint32_t x = 1;
    for (int i = 0; i < 300; i++) {
        x = x * 1664525u + 1013904223u;
        a[i] = 10 + (x >> 28);
    }
    for (int j = 0; j < 400; j++) {
        x = x * 1664525u + 1013904223u;
        b[j] = 11 + (x >> 28);
    }
    for (int i = 0; i < 300; i++)
        for (int j = 0; j < 400; j++)
            d[i * 400 + j] = log(b[j]) - log(a[i]);
    qsort(d, 120000, sizeof d[0], cmp_dbl);
    struct cwb_cmp c;
    CWT_EXPECT(cwb_compare(a, 300, b, 400, 0.05, &c) == 0);
    CWT_NEAR(c.ratio, exp(0.5 * (d[59999] + d[60000])), 1e-12);
    double z = cwb_normal_quantile(0.975);
    size_t k = (size_t)floor(60000.0 - z * sqrt(120000.0 * 701 / 12));
    CWT_NEAR(c.lo, exp(d[k - 1]), 1e-12);
    CWT_NEAR(c.hi, exp(d[120000 - k]), 1e-12);

    /* 100000 a side (cwbench's --samples limit) in O(n) memory: B is A
     * scaled by 1.05, so the estimate is exactly that. */
    enum { BIG = 100000 };
    double *p = malloc(2 * BIG * sizeof *p), *q = p + BIG;
    CWT_EXPECT(p != NULL);
    if (!p)
        return;
    for (int i = 0; i < BIG; i++) {
        x = x * 1664525u + 1013904223u;
        p[i] = 20 + (x >> 8) * 1e-6;
        q[(i * 7919) % BIG] = p[i] * 1.05;
    }
    CWT_EXPECT(cwb_compare(p, BIG, q, BIG, 0.05, &c) == 0);
    CWT_NEAR(c.ratio, 1.05, 1e-9);
    CWT_EXPECT(c.lo < 1.05 && c.hi > 1.05 && c.hi / c.lo < 1.01);
    CWT_EXPECT(c.significant && !c.few_samples);
    free(p);
}

static void test_bad_input(void)
{
    const double ok[] = {1, 2, 3}, neg[] = {1, -2, 3}, nan_[] = {1, NAN, 3};
    struct cwb_cmp c;
    struct cwb_mwu t;
    CWT_EXPECT(cwb_compare(ok, 3, neg, 3, 0.05, &c) == -1);
    CWT_EXPECT(cwb_compare(ok, 3, nan_, 3, 0.05, &c) == -1);
    CWT_EXPECT(cwb_compare(ok, 0, ok, 3, 0.05, &c) == -1);
    CWT_EXPECT(cwb_compare(ok, 3, ok, 3, 0, &c) == -1);
    CWT_EXPECT(cwb_compare(ok, 3, ok, 3, 1, &c) == -1);
    CWT_EXPECT(cwb_compare(NULL, 3, ok, 3, 0.05, &c) == -1);
    CWT_EXPECT(cwb_mann_whitney(ok, 3, nan_, 3, &t) == -1);
    CWT_EXPECT(cwb_mann_whitney(ok, 3, ok, 0, &t) == -1);
    CWT_EXPECT(cwb_mann_whitney(ok, 3, neg, 3, &t) == 0);  /* ranks need no sign */
    /* Identical samples: no change, nothing to report. */
    CWT_EXPECT(cwb_compare(ok, 3, ok, 3, 0.05, &c) == 0);
    char buf[160];
    cwb_verdict(&c, 1, buf, sizeof buf);
    CWT_EXPECT(strncmp(buf, "unchanged ", 10) == 0);
    /* A tiny buffer truncates, never overflows. */
    char tiny[8];
    cwb_verdict(&c, 1, tiny, sizeof tiny);
    CWT_EXPECT(strlen(tiny) == 7);
}

static void test_geomean_quantile(void)
{
    const double x[] = {1, 4, 16}, z[] = {2, 0};
    CWT_NEAR(cwb_geomean(x, 3), 4, 1e-12);
    CWT_EXPECT(isnan(cwb_geomean(z, 2)));
    CWT_EXPECT(isnan(cwb_geomean(x, 0)));
    CWT_NEAR(cwb_normal_quantile(0.975), 1.959963984540054, 1e-9);
    CWT_NEAR(cwb_normal_quantile(0.5), 0, 1e-12);
    CWT_NEAR(cwb_normal_p2(1.959963984540054), 0.05, 1e-12);
    CWT_EXPECT(isnan(cwb_normal_quantile(0)) && isnan(cwb_normal_quantile(1)));
}


/* The overall line follows the significant results, whatever the
 * geometric mean of all of them says. */
static void test_tally_sentence(void)
{
    struct cwb_tally t;
    memset(&t, 0, sizeof t);
    SENTENCE(t, "no size compared");
    /* The case that read "B is faster than A by 6.2% ... significantly
     * faster at 0, slower at 1": a big ratio within noise and one
     * significant loss. */
    struct cwb_cmp big = cmp(1.30, 0), loss = cmp(0.919, 1);
    cwb_tally_add(&t, &big);
    cwb_tally_add(&t, &loss);
    CWT_EXPECT(t.faster == 0 && t.slower == 1 && t.noise == 1);
    SENTENCE(t, "B is slower than A at 1 of 2 sizes (by 8.1%, significant); no significant "
                "difference at the other 1");
    char b[256];
    cwb_tally_sentence(&t, "B", "A", "size", b, sizeof b);
    CWT_EXPECT(strstr(b, "faster") == NULL);

    memset(&t, 0, sizeof t);
    cwb_tally_add(&t, &big);
    SENTENCE(t, "no significant difference at the size");
    cwb_tally_add(&t, &big);
    SENTENCE(t, "no significant difference at either size");
    cwb_tally_add(&t, &big);
    SENTENCE(t, "no significant difference at any of the 3 sizes");

    memset(&t, 0, sizeof t);
    struct cwb_cmp f1 = cmp(1.03, 1), f2 = cmp(1.099, 1), s1 = cmp(0.958, 1);
    cwb_tally_add(&t, &f1);
    SENTENCE(t, "B is faster than A at the size (by 3.0%, significant)");
    cwb_tally_add(&t, &f2);
    SENTENCE(t, "B is faster than A at all 2 sizes (by 3.0-9.9%, significant)");
    cwb_tally_add(&t, &big);
    SENTENCE(t, "B is faster than A at 2 of 3 sizes (by 3.0-9.9%, significant); no significant "
                "difference at the other 1");
    cwb_tally_add(&t, &s1);
    SENTENCE(t, "mixed: B is faster than A at 2 sizes (by 3.0-9.9%) and slower at 1 (by 4.2%), "
                "all significant; no significant difference at the other 1");
    /* A tiny buffer truncates, never overflows. */
    char small[8];
    cwb_tally_sentence(&t, "B", "A", "size", small, sizeof small);
    CWT_EXPECT(strlen(small) == 7);
    /* Without a subject, as the default report's verdict lines use it. */
    char line[256];
    cwb_tally_sentence(&t, NULL, "glibc", "row", line, sizeof line);
    CWT_EXPECT(strcmp(line, "mixed: faster than glibc at 2 rows (by 3.0-9.9%) and slower at 1 (by "
                       "4.2%), all significant; no significant difference at the other 1") == 0);
    memset(&t, 0, sizeof t);
    cwb_tally_add(&t, &loss);
    cwb_tally_sentence(&t, NULL, "glibc", "row", line, sizeof line);
    CWT_EXPECT(strcmp(line, "slower than glibc at the row (by 8.1%, significant)") == 0);
}

int main(void)
{
    test_summary();
    test_exact_counts();
    test_mwu_published();
    test_mwu_ties();
    test_three_vs_three();
    test_large_normal();
    test_hdparm();
    test_moses_ci();
    test_large_samples();
    test_bad_input();
    test_geomean_quantile();
    test_tally_sentence();
    if (cwt_failures) {
        fprintf(stderr, "test_stats: %ld check(s) failed\n", cwt_failures);
        return 1;
    }
    puts("test_stats: all checks passed");
    return 0;
}
