/* SPDX-License-Identifier: MIT */
/* What test_stats.c and test_verdict.c both build verdicts from: a
 * comparison as cwb_compare would report it, and the check of a tally's
 * sentence (counting into the including file's `cwt_failures`). */
#ifndef CWB_TEST_VERDICT_FIXTURE_H
#define CWB_TEST_VERDICT_FIXTURE_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results/stats.h"
#include "results/verdict.h"

/* A comparison as cwb_compare would report it. */
static struct cwb_cmp cmp(double ratio, int significant)
{
    struct cwb_cmp c;
    memset(&c, 0, sizeof c);
    c.ratio = ratio;
    c.lo = c.hi = NAN;
    c.p = significant ? 0.001 : 0.4;
    c.significant = significant;
    c.med_a = 1;
    c.med_b = ratio;
    return c;
}

#define SENTENCE(t, want) do { char b_[256]; \
    cwb_tally_sentence(&(t), "B", "A", "size", b_, sizeof b_); \
    if (strcmp(b_, (want)) != 0) { cwt_failures++; \
    fprintf(stderr, "%s:%d: sentence\n  got:  %s\n  want: %s\n", __FILE__, __LINE__, b_, \
            (want)); } } while (0)

#endif
