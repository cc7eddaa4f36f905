/* SPDX-License-Identifier: MIT */
/* Unit tests for programs/cwbench/tune/rules.c: each rule in front of the
 * figures real tuner runs measured (their evidence lines are quoted from
 * the files under docs/results/) and of made-up ones at its edges. */
#include "../test_check.h"
#include "tune/rules.h"

#include <string.h>

enum { NONE, PREFETCHNTA, FLUSH, BOTH };

/* cache-control instructions per line, as decide_hints.c counts them */
static const int per_line[4] = {0, 1, 1, 2};

/* speed and evicted fractions as the tuner's evidence line prints them:
 * mode by mode, "GB/s/after 4 MiB|after 16 MiB" */
static struct tune_src_noreuse_evidence two_sizes(double bg4, double bg16, const double m[4][3])
{
    struct tune_src_noreuse_evidence ev;
    memset(&ev, 0, sizeof ev);
    ev.modes = 4;
    ev.sizes = 2;
    ev.background[0] = bg4;
    ev.background[1] = bg16;
    for (int i = 0; i < 4; i++) {
        ev.per_line[i] = per_line[i];
        ev.speed[i] = m[i][0];
        ev.evicted[0][i] = m[i][1];
        ev.evicted[1][i] = m[i][2];
    }
    return ev;
}

static void src_noreuse_recorded(void)
{
    /* AMD EPYC family 25 model 17, 57354e0-genericrow-tuned.conf: the run
     * whose file took prefetchnta, at 0.150 against a background of 0.072,
     * where flush and both kept all but 0.023 and 0.017; the report under
     * that file then lost 0.257 of the victim to cw_copy_nta */
    static const double a[4][3] = {{22.01, 0.109, 0.582},
                                   {21.89, 0.071, 0.150},
                                   {18.74, 0.069, 0.023},
                                   {18.33, 0.048, 0.017}};
    struct tune_src_noreuse_evidence ev = two_sizes(0.000, 0.072, a);
    CWT_CHECK(tune_pick_src_noreuse(&ev) == FLUSH, "got %d", tune_pick_src_noreuse(&ev));

    /* tune/tune-src16m-1.txt: prefetchnta 0.104 after 16 MiB, by 0.002
     * inside the background bound, flush 0.016 */
    static const double b[4][3] = {{21.55, 0.074, 0.126},
                                   {21.86, 0.072, 0.104},
                                   {19.35, 0.001, 0.016},
                                   {19.45, 0.001, 0.020}};
    ev = two_sizes(0.000, 0.006, b);
    /* both measured 0.5% faster, not significantly: flush, one instruction
     * a line fewer */
    CWT_CHECK(tune_pick_src_noreuse(&ev) == FLUSH, "got %d", tune_pick_src_noreuse(&ev));
    /* had it been significantly faster: both */
    ev.faster[BOTH][FLUSH] = 1;
    CWT_CHECK(tune_pick_src_noreuse(&ev) == BOTH, "got %d", tune_pick_src_noreuse(&ev));

    /* genericrow-6992d08/genericrow-tuned-4.conf: none and prefetchnta
     * within the background bound after 16 MiB (0.090, 0.088 against
     * 0.002), ten times what the flushes leave */
    static const double d[4][3] = {{24.70, 0.084, 0.090},
                                   {24.65, 0.073, 0.088},
                                   {19.86, 0.001, 0.014},
                                   {20.04, 0.001, 0.008}};
    ev = two_sizes(0.000, 0.002, d);
    ev.faster[NONE][FLUSH] = ev.faster[NONE][BOTH] = 1;
    ev.faster[PREFETCHNTA][FLUSH] = ev.faster[PREFETCHNTA][BOTH] = 1;
    CWT_CHECK(tune_pick_src_noreuse(&ev) == FLUSH, "got %d", tune_pick_src_noreuse(&ev));

    /* the Xeon's pattern (TUNING.md: flush 6.5-6.6 GB/s, both 4.1-4.2,
     * prefetchnta alone not protecting): flush */
    static const double x[4][3] = {
        {7.0, 0.66, 0.70}, {6.8, 0.49, 0.74}, {6.5, 0.01, 0.08}, {4.1, 0.01, 0.10}};
    ev = two_sizes(0.02, 0.10, x);
    ev.faster[FLUSH][BOTH] = 1;
    CWT_CHECK(tune_pick_src_noreuse(&ev) == FLUSH, "got %d", tune_pick_src_noreuse(&ev));

    /* a busy host (the 1672f5b record): no mode within bounds after 16 MiB;
     * of those that keep it after 4 MiB, the one that evicts least after
     * 16 MiB */
    static const double c[4][3] = {{18.31, 0.101, 0.681},
                                   {19.86, 0.097, 0.758},
                                   {16.42, 0.007, 0.336},
                                   {15.74, 0.044, 0.330}};
    ev = two_sizes(0.000, 0.045, c);
    CWT_CHECK(tune_pick_src_noreuse(&ev) == BOTH, "got %d", tune_pick_src_noreuse(&ev));

    /* AMD EPYC family 26 (cpus.md, one size): none protects as well as the
     * flushes there, and is the fastest */
    struct tune_src_noreuse_evidence z5;
    memset(&z5, 0, sizeof z5);
    z5.modes = 4;
    z5.sizes = 1;
    const double sp[4] = {23.3, 21.7, 19.9, 17.8}, fr[4] = {0.010, 0.119, 0.001, 0.002};
    for (int i = 0; i < 4; i++) {
        z5.per_line[i] = per_line[i];
        z5.speed[i] = sp[i];
        z5.evicted[0][i] = fr[i];
    }
    CWT_CHECK(tune_pick_src_noreuse(&z5) == NONE, "got %d", tune_pick_src_noreuse(&z5));
}

static void src_noreuse_edges(void)
{
    /* within the background bound but 0.06 above the least: not kept */
    static const double a[4][3] = {
        {20.0, 0.00, 0.00}, {25.0, 0.00, 0.07}, {19.0, 0.00, 0.01}, {18.0, 0.00, 0.02}};
    struct tune_src_noreuse_evidence ev = two_sizes(0.0, 0.05, a);
    CWT_CHECK(tune_pick_src_noreuse(&ev) == NONE, "got %d", tune_pick_src_noreuse(&ev));
    /* 0.04 above the least: kept, the fastest, but not significantly
     * faster than none: none */
    ev.evicted[1][PREFETCHNTA] = 0.04;
    CWT_CHECK(tune_pick_src_noreuse(&ev) == NONE, "got %d", tune_pick_src_noreuse(&ev));
    /* significantly faster than every other: prefetchnta */
    ev.faster[PREFETCHNTA][NONE] = ev.faster[PREFETCHNTA][FLUSH] = 1;
    ev.faster[PREFETCHNTA][BOTH] = 1;
    CWT_CHECK(tune_pick_src_noreuse(&ev) == PREFETCHNTA, "got %d", tune_pick_src_noreuse(&ev));
    /* of those it does not beat (itself, flush, both), the fewest
     * instructions a line, the faster of two with as many: prefetchnta */
    ev.faster[PREFETCHNTA][FLUSH] = ev.faster[PREFETCHNTA][BOTH] = 0;
    CWT_CHECK(tune_pick_src_noreuse(&ev) == PREFETCHNTA, "got %d", tune_pick_src_noreuse(&ev));
    /* none and prefetchnta out (0.07, 0.06 above the least), both the
     * fastest but not significantly: flush, one instruction a line fewer */
    ev.evicted[1][NONE] = ev.evicted[1][PREFETCHNTA] = 0.07;
    ev.speed[BOTH] = 19.5;
    CWT_CHECK(tune_pick_src_noreuse(&ev) == FLUSH, "got %d", tune_pick_src_noreuse(&ev));
    memset(ev.faster, 0, sizeof ev.faster);
    /* close to the least but not within background + 0.10 of its own size */
    ev.background[1] = 0.0;
    for (int m = 0; m < 4; m++)
        ev.evicted[1][m] = 0.20 + 0.01 * m;
    /* none within bounds after 16 MiB, all after 4 MiB: least at 16 MiB */
    CWT_CHECK(tune_pick_src_noreuse(&ev) == NONE, "got %d", tune_pick_src_noreuse(&ev));
    /* none within bounds at either size: least at the smallest */
    for (int m = 0; m < 4; m++)
        ev.evicted[0][m] = 0.50 - 0.01 * m;
    CWT_CHECK(tune_pick_src_noreuse(&ev) == BOTH, "got %d", tune_pick_src_noreuse(&ev));
    /* two modes (no clflushopt) */
    ev.modes = 2;
    CWT_CHECK(tune_pick_src_noreuse(&ev) == PREFETCHNTA, "got %d", tune_pick_src_noreuse(&ev));
    /* out of range */
    ev.modes = 0;
    CWT_EXPECT(tune_pick_src_noreuse(&ev) == -1);
    ev.modes = TUNE_SRC_NOREUSE_MODES + 1;
    CWT_EXPECT(tune_pick_src_noreuse(&ev) == -1);
    ev.modes = 2;
    ev.sizes = 0;
    CWT_EXPECT(tune_pick_src_noreuse(&ev) == -1);
    ev.sizes = TUNE_SRC_NOREUSE_SIZES + 1;
    CWT_EXPECT(tune_pick_src_noreuse(&ev) == -1);
}

static void over_incumbent(void)
{
    /* genericrow-1b06d4d/genericrow-tuned-2.conf's cold 64 MiB cell, from
     * the profile's prefetchnta 4K (index 6): no prefetch, t2 1-8K, t0 4K */
    const double sp[7] = {21.79, 21.50, 22.25, 16.79, 16.02, 21.90, 22.73};
    int beats[7] = {0};
    CWT_CHECK(tune_pick_over_incumbent(7, sp, beats, 6, 1.02) == 6, "got %d",
              tune_pick_over_incumbent(7, sp, beats, 6, 1.02));
    /* from no prefetch (index 0), prefetchnta 4K 4.3% faster and
     * significantly: it replaces the incumbent */
    beats[6] = 1;
    CWT_CHECK(tune_pick_over_incumbent(7, sp, beats, 0, 1.02) == 6, "got %d",
              tune_pick_over_incumbent(7, sp, beats, 0, 1.02));
    /* significantly faster, but by less than 2%: t2 2K (+2.1% over none)
     * does, prefetcht0 4K (+0.5%) does not */
    beats[6] = 0;
    beats[2] = beats[5] = 1;
    CWT_CHECK(tune_pick_over_incumbent(7, sp, beats, 0, 1.02) == 2, "got %d",
              tune_pick_over_incumbent(7, sp, beats, 0, 1.02));
    beats[2] = 0;
    CWT_CHECK(tune_pick_over_incumbent(7, sp, beats, 0, 1.02) == 0, "got %d",
              tune_pick_over_incumbent(7, sp, beats, 0, 1.02));
    /* of two that beat it, the faster */
    beats[2] = beats[6] = 1;
    CWT_CHECK(tune_pick_over_incumbent(7, sp, beats, 0, 1.02) == 6, "got %d",
              tune_pick_over_incumbent(7, sp, beats, 0, 1.02));
    /* out of range */
    CWT_EXPECT(tune_pick_over_incumbent(0, sp, beats, 0, 1.02) == -1);
    CWT_EXPECT(tune_pick_over_incumbent(7, sp, beats, 7, 1.02) == -1);
    CWT_EXPECT(tune_pick_over_incumbent(7, sp, beats, -1, 1.02) == -1);
}

int main(void)
{
    src_noreuse_recorded();
    src_noreuse_edges();
    over_incumbent();
    if (cwt_failures != 0) {
        printf("%ld failure(s)\n", cwt_failures);
        return 1;
    }
    puts("tune rules: ok");
    return 0;
}
