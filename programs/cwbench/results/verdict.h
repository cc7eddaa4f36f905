/* SPDX-License-Identifier: MIT */
/* Verdicts as text (verdict.c): what a comparison of stats.h decided,
 * worded so that it cannot be misread. See docs/STATISTICS.md. */
#ifndef CWB_VERDICT_H
#define CWB_VERDICT_H

#include <stddef.h>

#include "results/stats.h"

/* "5.12 (40%) | 151 (60%)": the two modes with their shares. Returns buf. */
const char *cwb_modes_text(const struct cwb_modes *m, char *buf, size_t cap);

/* The verdict, naming its estimate (verdict.c):
 *   "faster by 12.3% [+8.1%, +16.0%] (HL ratio 1.123), significant (p<0.001)"
 *   "higher by 66.5% [+50.1%, +80.2%], worse (HL ratio 1.665), significant (p<0.001)"
 *   "inconsistent: two-mode or skewed samples (HL ratio 0.976 [0.951, 1.002],
 *    median ratio 1.072): no verdict (p=0.210)"
 * Percentages are changes of the cell's own quantity (B/A - 1), so they
 * move the way the medians do; for speeds (higher_is_better) the words are
 * faster/slower, otherwise higher/lower with better/worse. Two-mode sides
 * are marked ("; two-mode: B"). Returns buf. */
const char *cwb_verdict(const struct cwb_cmp *c, int higher_is_better, char *buf, size_t cap);
/* The short form for a table column: "faster", "SLOWER", "better", "WORSE",
 * "within noise", "within noise (<1%)", "inconsistent". */
const char *cwb_verdict_word(const struct cwb_cmp *c, int higher_is_better);
/* The estimate alone, in the verdict's terms: "+66.5% [+50.1%, +80.2%]
 * (HL ratio 1.665)", or "inconsistent (two-mode or skewed samples)".
 * Returns buf. */
const char *cwb_estimate_text(const struct cwb_cmp *c, char *buf, size_t cap);

/* Verdicts counted over many comparisons of speeds (ratio above 1 = B
 * faster): significantly faster, significantly slower, within noise (of
 * which `inconsistent` had no direction at all), and the smallest and
 * largest significant change each way in percent (set once the count is
 * above 0; a tally starts as all zeros). */
struct cwb_tally { size_t faster, slower, noise;
                   double fast_lo, fast_hi, slow_lo, slow_hi;
                   size_t inconsistent; };
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
 * and, when some were inconsistent, " (1 inconsistent: two-mode or skewed
 * samples)" after the count of the others. Returns buf. */
const char *cwb_tally_sentence(const struct cwb_tally *t, const char *b, const char *a,
                               const char *what, char *buf, size_t cap);

#endif /* CWB_VERDICT_H */
