/* SPDX-License-Identifier: MIT */
/* cwbench statistics (stats.c): summaries, the Mann-Whitney U test, the
 * ratio of two samples with a distribution-free confidence interval and the
 * decision of a comparison; its wording is verdict.h's.
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

/* Two modes in a sample (a gap test on the sorted values, on logs when
 * every value is positive): the largest gap between consecutive sorted
 * samples that is at least CWB_MODE_GAP times the spread within each side
 * (twice its interquartile range) and at least CWB_MODE_MIN_SEP apart (10%
 * on logs; a tenth of the largest magnitude on the linear scale), with at
 * least CWB_MODE_MIN_SHARE of the samples (and 2) on each side. Streaming
 * copies of 64 B-1 KiB hot alternate between ~5 and ~150 GB/s: a median
 * and a half-IQR say nothing about such a cell, its two modes do.
 * lo/hi: the medians of the lower and upper group, n_lo/n_hi their sizes. */
#define CWB_MODE_GAP 3.0
#define CWB_MODE_MIN_SHARE 0.2
#define CWB_MODE_MIN_SEP 0.10
struct cwb_modes { int two; size_t n_lo, n_hi; double lo, hi; };
void cwb_modes(const double *x, size_t n, struct cwb_modes *out);

/* A comparison of b against a, decided in one place (stats.c, decide()):
 *
 * ratio: Hodges-Lehmann estimate of b/a (median of log(b_j) - log(a_i)
 * over all pairs, exponentiated); lo/hi: Moses confidence interval of
 * the ratio at level 1 - alpha, NAN when the samples are too small to
 * reach that level. With `additive` set (cwb_compare_shift) the three are
 * the estimate of b - a and its interval instead.
 *
 * med_a/med_b: the medians of the two samples, which the tables print.
 * The estimate and the ratio (difference) of the medians can point
 * opposite ways on two-mode or skewed samples; then `inconsistent` is set,
 * and no direction is claimed: it is set when their signs differ (a
 * change that rounds to 0.0% counts as no sign) and either is at least
 * the practical threshold. When both are below it and their signs
 * differ, `opposed` is set: "unchanged within 1%".
 *
 * significant: p < alpha, |change| >= CWB_PRACTICAL_THRESHOLD (relative
 * for ratios; absolute, in the cell's unit, for differences) and not
 * inconsistent. modes_a/modes_b: cwb_modes of each side.
 *
 * cwb_compare returns -1 (out untouched) for an empty side, a non-finite
 * or non-positive sample, alpha outside (0, 1) or no memory;
 * cwb_compare_shift accepts any finite values. */
struct cwb_cmp { double ratio;
                 double lo, hi;
                 double p; int significant; int few_samples;
                 int inconsistent, opposed, additive;
                 double med_a, med_b;
                 struct cwb_modes modes_a, modes_b; };
int cwb_compare(const double *a, size_t na, const double *b, size_t nb, double alpha, struct cwb_cmp *out);
int cwb_compare_shift(const double *a, size_t na, const double *b, size_t nb, double alpha,
                      struct cwb_cmp *out);
/* The direction a comparison claims: +1 B better (in the direction
 * higher_is_better says), -1 B worse, 0 none (within noise, opposed or
 * inconsistent). */
int cwb_cmp_direction(const struct cwb_cmp *c, int higher_is_better);
/* The practical threshold of c on its estimate's scale: CWB_PRACTICAL_
 * THRESHOLD relative for ratios; for differences that much in the cell's
 * unit, or of the larger median when it exceeds 1. */
double cwb_cmp_threshold(const struct cwb_cmp *c);
/* The ratio of the medians (their difference when additive). */
double cwb_cmp_median_change(const struct cwb_cmp *c);

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
