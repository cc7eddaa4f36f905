/* SPDX-License-Identifier: MIT */
/* Unit tests for the decision every cwbench verdict goes through
 * (programs/cwbench/results/stats.c, decide()) and its wording (verdict.c): samples
 * built to make the Hodges-Lehmann estimate and the ratio of the medians
 * part (two modes, a skewed mode, the 110.7 -> 121.9 GB/s cell that read
 * -0.1%), a plain shift that must stay a verdict, the two-mode test, and
 * the difference estimate for values that can be 0. */
#include "../test_check.h"
#include "results/stats.h"
#include "results/verdict.h"
#include "verdict_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>



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


/* No direction word anywhere in a verdict that claims none. */
static int directionless(const char *v)
{
    return !strstr(v, "faster") && !strstr(v, "slower") && !strstr(v, "higher") &&
           !strstr(v, "lower") && !strstr(v, "better") && !strstr(v, "worse");
}

static double median_of(const double *x, size_t n)
{
    struct cwb_summary s;
    cwb_summarize(x, n, &s);
    return s.median;
}

/* Each way the Hodges-Lehmann estimate and the ratio of the medians can
 * part: the row must then claim no direction, and say why. */
static void test_disagreement(void)
{
    char v[320];
    struct cwb_cmp c;
    /* Two modes with their shares swapped: A mostly high, B mostly low.
     * Most pairs say B is 5% up (each mode against the same mode), the
     * medians say B is half of A. */
    double a[11], b[11];
    for (int i = 0; i < 11; i++) {
        a[i] = i < 5 ? 1.0 + 0.001 * i : 2.0 + 0.001 * i;
        b[i] = i < 6 ? 1.05 + 0.001 * i : 2.1 + 0.001 * i;
    }
    CWT_EXPECT(cwb_compare(a, 11, b, 11, 0.05, &c) == 0);
    CWT_EXPECT(c.ratio > 1.0 && median_of(b, 11) / median_of(a, 11) < 0.6);
    CWT_NEAR(c.med_a, median_of(a, 11), 1e-12);
    CWT_NEAR(c.med_b, median_of(b, 11), 1e-12);
    CWT_EXPECT(c.inconsistent && !c.significant && cwb_cmp_direction(&c, 1) == 0);
    CWT_EXPECT(c.modes_a.two && c.modes_b.two);
    cwb_verdict(&c, 1, v, sizeof v);
    printf("two modes: %s\n", v);
    CWT_EXPECT(strncmp(v, "inconsistent: two-mode or skewed samples (HL ratio ", 51) == 0);
    CWT_EXPECT(strstr(v, "median ratio 0.5") != NULL && strstr(v, "two-mode: A and B") != NULL);
    CWT_EXPECT(strstr(v, "%") == NULL); /* the interval as ratios, like the estimate */
    CWT_EXPECT(directionless(v));
    CWT_EXPECT(strcmp(cwb_verdict_word(&c, 1), "inconsistent") == 0);
    cwb_verdict(&c, 0, v, sizeof v);
    CWT_EXPECT(directionless(v));

    /* Skewed, one mode: B's median sits a little below A's, B's long
     * upper tail pulls most pairs up. */
    const double sa[] = {10.0, 10.1, 10.2, 10.3, 10.4, 10.5, 10.6, 10.7, 10.8, 10.9, 11.0};
    const double sb[] = {9.0, 9.5, 10.0, 10.2, 10.3, 10.35, 12.5, 13.5, 15, 16.5, 18};
    CWT_EXPECT(cwb_compare(sa, 11, sb, 11, 0.05, &c) == 0);
    CWT_EXPECT(!c.modes_a.two && !c.modes_b.two);
    CWT_EXPECT(c.ratio > 1.0 && c.med_b < c.med_a);
    CWT_EXPECT(c.inconsistent && !c.significant);
    cwb_verdict(&c, 1, v, sizeof v);
    printf("skewed: %s\n", v);
    CWT_EXPECT(strstr(v, "inconsistent: two-mode or skewed samples") && directionless(v));
    CWT_EXPECT(strstr(v, "two-mode") == strstr(v, "two-mode or skewed")); /* no mode mark */

    /* The compare case: a cell from 110.7 to 121.9 GB/s (medians, +10%)
     * read as -0.1%: both runs hop between the same two levels, A mostly
     * on the lower, B mostly on the upper, so most pairs compare a level
     * with itself. */
    double ca[11], cb[11];
    for (int i = 0; i < 11; i++) {
        ca[i] = i < 6 ? 110.6 + 0.02 * i : 122.0 + 0.02 * i;
        cb[i] = i < 5 ? 110.5 + 0.02 * i : 121.8 + 0.02 * i;
    }
    CWT_EXPECT(cwb_compare(ca, 11, cb, 11, 0.05, &c) == 0);
    printf("compare case: medians %.1f -> %.1f, HL %.4f\n", c.med_a, c.med_b, c.ratio);
    CWT_EXPECT(c.med_b / c.med_a > 1.09 && c.ratio < 1.0 && c.ratio > 0.995);
    CWT_EXPECT(c.inconsistent && cwb_cmp_direction(&c, 1) == 0);
    char e[200];
    cwb_estimate_text(&c, e, sizeof e);
    CWT_EXPECT(strncmp(e, "inconsistent (two-mode or skewed samples", 40) == 0);

    /* Shifted: the same shape 7% up. Estimate, interval and medians all
     * agree; a plain verdict with its estimate named. */
    double ua[12], ub[12];
    fake_samples(ua, 12, 68.76, 0.5, 2);
    for (int i = 0; i < 12; i++)
        ub[(i * 5) % 12] = ua[i] * 1.07;
    CWT_EXPECT(cwb_compare(ua, 12, ub, 12, 0.05, &c) == 0);
    CWT_EXPECT(!c.inconsistent && !c.opposed && c.significant);
    CWT_NEAR(c.ratio, 1.07, 1e-9);
    CWT_NEAR(c.med_b / c.med_a, 1.07, 1e-9);
    CWT_EXPECT(c.lo > 1 && c.lo <= c.ratio && c.ratio <= c.hi);
    cwb_verdict(&c, 1, v, sizeof v);
    printf("shifted: %s\n", v);
    CWT_EXPECT(strncmp(v, "faster by 7.0% [+", 17) == 0 && strstr(v, "(HL ratio 1.070), significant"));
    cwb_estimate_text(&c, e, sizeof e);
    CWT_EXPECT(strncmp(e, "+7.0% [+", 8) == 0 && strstr(e, "(HL ratio 1.070)"));

    /* Opposite signs, both below the threshold: no direction either, but
     * no alarm: unchanged within 1%. HL +0.5%, medians -0.1%. */
    const double oa[] = {99, 100, 101}, ob[] = {99.5, 99.9, 103};
    CWT_EXPECT(cwb_compare(oa, 3, ob, 3, 0.05, &c) == 0);
    CWT_EXPECT(c.opposed && !c.inconsistent && !c.significant);
    cwb_verdict(&c, 1, v, sizeof v);
    printf("opposed: %s\n", v);
    CWT_EXPECT(strncmp(v, "unchanged within 1% ", 20) == 0 && strstr(v, "median ratio 0.999"));
    CWT_EXPECT(directionless(v));
}

static void test_modes(void)
{
    struct cwb_modes m;
    /* A streaming copy at 64 B hot: batches alternate between ~5 and
     * ~150 GB/s. */
    const double sw[] = {5.1, 150, 5.3, 148, 152, 4.9, 151, 149, 5.0, 150.5};
    cwb_modes(sw, 10, &m);
    CWT_EXPECT(m.two && m.n_lo == 4 && m.n_hi == 6);
    CWT_NEAR(m.lo, sqrt(5.0 * 5.1), 1e-9); /* medians of the logs, taken back */
    CWT_NEAR(m.hi, sqrt(150 * 150.5), 1e-9);
    char t[64];
    cwb_modes_text(&m, t, sizeof t);
    CWT_EXPECT(strcmp(t, "5.05 (40%) | 150 (60%)") == 0);
    /* One mode with a 2% spread, and one preempted sample: neither splits
     * (a side needs a fifth of the samples). */
    double x[20];
    fake_samples(x, 20, 100, 2, 7);
    cwb_modes(x, 20, &m);
    CWT_EXPECT(!m.two);
    x[3] = 40;
    cwb_modes(x, 20, &m);
    CWT_EXPECT(!m.two);
    x[4] = 41;
    x[5] = 39;
    x[6] = 40.5;
    cwb_modes(x, 20, &m);
    CWT_EXPECT(m.two && m.n_lo == 4 && m.n_hi == 16);
    /* Two groups 5% apart are one mode (below the 10% separation), and 3
     * samples are too few to split. */
    const double near[] = {100, 100.1, 100.2, 100.3, 105, 105.1, 105.2, 105.3};
    cwb_modes(near, 8, &m);
    CWT_EXPECT(!m.two);
    cwb_modes(sw, 3, &m);
    CWT_EXPECT(!m.two);
    /* Fractions (zeros allowed) split on the linear scale. */
    const double fr[] = {0, 0.01, 0, 0.02, 0.9, 0.95, 0.92, 0.91, 0.93, 0.94};
    cwb_modes(fr, 10, &m);
    CWT_EXPECT(m.two && m.n_lo == 4 && m.n_hi == 6);
}

/* Values that can be 0 (evicted fractions): the estimate is a difference,
 * decided the same way. */
static void test_shift(void)
{
    double a[10], b[10];
    for (int i = 0; i < 10; i++) {
        a[i] = 0.10 + 0.01 * i;
        b[i] = 0.50 + 0.01 * ((i * 3) % 10);
    }
    a[0] = 0;
    struct cwb_cmp c;
    CWT_EXPECT(cwb_compare(a, 10, b, 10, 0.05, &c) == -1); /* no ratio with a zero */
    CWT_EXPECT(cwb_compare_shift(a, 10, b, 10, 0.05, &c) == 0);
    CWT_EXPECT(c.additive && c.significant && !c.inconsistent);
    CWT_NEAR(c.ratio, 0.40, 1e-9);
    CWT_EXPECT(c.lo <= c.ratio && c.ratio <= c.hi && c.lo > 0);
    char v[240];
    cwb_verdict(&c, 0, v, sizeof v);
    printf("fractions: %s\n", v);
    CWT_EXPECT(strncmp(v, "higher by 0.400 [+0.", 20) == 0 && strstr(v, ", worse (HL difference +0.400)"));
    CWT_EXPECT(cwb_cmp_direction(&c, 0) == -1 && strcmp(cwb_verdict_word(&c, 0), "WORSE") == 0);
    /* The same samples: nothing. */
    CWT_EXPECT(cwb_compare_shift(a, 10, a, 10, 0.05, &c) == 0);
    CWT_EXPECT(!c.significant && !c.inconsistent && c.ratio == 0);
    cwb_verdict(&c, 0, v, sizeof v);
    CWT_EXPECT(strncmp(v, "unchanged ", 10) == 0);
    /* Below the 0.01 threshold: within noise whatever p says. */
    for (int i = 0; i < 10; i++)
        b[i] = a[i] + 0.005;
    CWT_EXPECT(cwb_compare_shift(a, 10, b, 10, 0.05, &c) == 0);
    CWT_EXPECT(!c.significant && strcmp(cwb_verdict_word(&c, 0), "within noise (small)") == 0);
    const double bad[] = {0.1, NAN};
    CWT_EXPECT(cwb_compare_shift(a, 10, bad, 2, 0.05, &c) == -1);
}

/* Inconsistent rows count with the ones within noise, and say so. */
static void test_tally_inconsistent(void)
{
    struct cwb_tally t;
    memset(&t, 0, sizeof t);
    struct cwb_cmp f = cmp(1.05, 1), i = cmp(0.98, 0);
    i.inconsistent = 1;
    cwb_tally_add(&t, &f);
    cwb_tally_add(&t, &i);
    CWT_EXPECT(t.faster == 1 && t.noise == 1 && t.inconsistent == 1);
    SENTENCE(t, "B is faster than A at 1 of 2 sizes (by 5.0%, significant); no significant "
                "difference at the other 1 (1 inconsistent: two-mode or skewed samples)");
    memset(&t, 0, sizeof t);
    cwb_tally_add(&t, &i);
    SENTENCE(t, "no significant difference at the size (1 inconsistent: two-mode or skewed "
                "samples)");
}

int main(void)
{
    test_disagreement();
    test_modes();
    test_shift();
    test_tally_inconsistent();
    if (cwt_failures) {
        fprintf(stderr, "test_verdict: %ld check(s) failed\n", cwt_failures);
        return 1;
    }
    puts("test_verdict: all checks passed");
    return 0;
}
