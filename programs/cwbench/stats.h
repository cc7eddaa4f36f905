/* SPDX-License-Identifier: MIT */
/* cwbench statistics: summaries, the Mann-Whitney U test, the ratio of two
 * samples with a distribution-free confidence interval, and verdicts.
 * See docs/STATISTICS.md for the methods and how to read a verdict. */
#ifndef CWB_STATS_H
#define CWB_STATS_H

#include <stddef.h>

/* Fewer samples per side than this and a comparison is flagged: with the
 * U test nothing below about 9 reaches useful power (3 vs 3 can never
 * reach p < 0.05). */
#define CWB_MIN_SAMPLES 9
/* A significant change smaller than this fraction is still reported as
 * "within noise": run-to-run drift of a machine (frequency, placement,
 * co-tenants) routinely exceeds it. */
#define CWB_PRACTICAL_THRESHOLD 0.01
/* Both samples at most this large and without ties: exact U distribution. */
#define CWB_MWU_EXACT_MAX 20

/* Every field NAN (n = 0) for an empty input; sd is the sample (n-1)
 * standard deviation; quartiles interpolate linearly between order
 * statistics. Non-finite inputs propagate into mean/sd. */
struct cwb_summary { size_t n; double mean, sd, cv, median, min, max, q1, q3; };
void cwb_summarize(const double *x, size_t n, struct cwb_summary *out);

/* u: U statistic of the first sample (pairs a_i > b_j, ties count 1/2);
 * z: normal score with tie and continuity correction (signed: > 0 when a
 * tends to be larger); p: two-sided p-value, exact when both sizes are
 * <= CWB_MWU_EXACT_MAX and there are no ties. Returns -1 for an empty
 * side or a NaN sample. */
struct cwb_mwu { double u, z, p; };
int cwb_mann_whitney(const double *a, size_t na, const double *b, size_t nb, struct cwb_mwu *out);

/* ratio: Hodges-Lehmann estimate of b/a (median of log(b_j) - log(a_i)
 * over all pairs, exponentiated); lo/hi: Moses confidence interval of
 * the ratio at level 1 - alpha, NAN when the samples are too small to
 * reach that level; significant: p < alpha and |ratio - 1| >=
 * CWB_PRACTICAL_THRESHOLD. Returns -1 (out untouched) for an empty side,
 * a non-finite or non-positive sample, alpha outside (0, 1) or no memory. */
struct cwb_cmp { double ratio;
                 double lo, hi;
                 double p; int significant; int few_samples; };
int cwb_compare(const double *a, size_t na, const double *b, size_t nb, double alpha, struct cwb_cmp *out);

/* "faster by 12.3% [8.1%, 16.0%], significant (p=0.001)". The change is
 * always in speed: for times (higher_is_better = 0) the speed ratio is
 * a/b. Returns buf. */
const char *cwb_verdict(const struct cwb_cmp *c, int higher_is_better, char *buf, size_t cap);

/* Verdicts counted over many comparisons of speeds (ratio above 1 = B
 * faster): significantly faster, significantly slower, within noise, and
 * the smallest and largest significant change each way in percent (set
 * once the count is above 0; a tally starts as all zeros). */
struct cwb_tally { size_t faster, slower, noise;
                   double fast_lo, fast_hi, slow_lo, slow_hi; };
void cwb_tally_add(struct cwb_tally *t, const struct cwb_cmp *c);
/* The overall sentence of a tally over compared `what`s ("size", "row"),
 * b against a (b may be NULL: the sentence then starts at "faster than"):
 * it follows the significant results alone, and never calls b faster (or
 * slower) when no comparison was significantly so. With b "B", a "A":
 *   "no significant difference at any of the 2 sizes"
 *   "B is slower than A at 1 of 2 sizes (by 8.1%, significant); no
 *    significant difference at the other 1"
 *   "mixed: B is faster than A at 2 sizes (by 3.0-9.9%) and slower at 1
 *    (by 4.2%), all significant; no significant difference at the other 3"
 * Returns buf. */
const char *cwb_tally_sentence(const struct cwb_tally *t, const char *b, const char *a,
                               const char *what, char *buf, size_t cap);

/* exp(mean(log x)); NAN when n = 0 or any x <= 0 or not finite. */
double cwb_geomean(const double *x, size_t n);

/* Two-sided normal tail: P(|Z| >= |z|). */
double cwb_normal_p2(double z);
/* Quantile of the standard normal distribution, 0 < p < 1. */
double cwb_normal_quantile(double p);
/* Exact null distribution of U for sizes m, n (no ties): counts[k] =
 * number of orderings with U = k, k = 0..m*n; counts must hold m*n+1
 * doubles. Returns the total C(m+n, m). Exact in doubles for m+n <= 50. */
double cwb_mwu_exact_counts(size_t m, size_t n, double *counts);

#endif
