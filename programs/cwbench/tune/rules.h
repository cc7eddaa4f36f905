/* SPDX-License-Identifier: MIT */
/* The rules that turn a tuner decision's measurements into its setting:
 * pure functions of the figures, so tests can put any figures in front of
 * them (tests/cwbench/test_tune_rules.c). */
#ifndef CWB_TUNE_RULES_H
#define CWB_TUNE_RULES_H

/* The most modes and copy sizes tune_pick_src_noreuse compares. */
#define TUNE_SRC_NOREUSE_MODES 4
#define TUNE_SRC_NOREUSE_SIZES 2

/* What the CW_SRC_NOREUSE decision measured. Sizes in increasing order. */
struct tune_src_noreuse_evidence {
    int modes; /* 1..TUNE_SRC_NOREUSE_MODES */
    int sizes; /* 1..TUNE_SRC_NOREUSE_SIZES */
    /* a cold copy, GB/s (medians), and faster[i][j] 1 where mode i was
     * significantly faster than mode j */
    double speed[TUNE_SRC_NOREUSE_MODES];
    int faster[TUNE_SRC_NOREUSE_MODES][TUNE_SRC_NOREUSE_MODES];
    /* cache-control instructions (prefetch, flush) per line */
    int per_line[TUNE_SRC_NOREUSE_MODES];
    /* the evicted fraction of the victim after the same wait without a
     * copy, and after each mode's copy */
    double background[TUNE_SRC_NOREUSE_SIZES];
    double evicted[TUNE_SRC_NOREUSE_SIZES][TUNE_SRC_NOREUSE_MODES];
};

/* A mode keeps the victim at a size when it evicts no more than the
 * background + TUNE_KEEP_ABOVE_BACKGROUND and no more than the mode that
 * evicts least there + TUNE_KEEP_ABOVE_LEAST: the hint is asked for to
 * protect other data, so a faster mode is taken only where it protects as
 * well as the best one does, not merely inside a bound a noisy background
 * can widen. */
#define TUNE_KEEP_ABOVE_BACKGROUND 0.10
#define TUNE_KEEP_ABOVE_LEAST 0.05

/* The mode (index into the evidence) to write:
 *  1. of the modes that keep the victim at every size, the one with the
 *     fewest instructions per line that the fastest of them is not
 *     significantly faster than (an instruction that does not measurably
 *     pay is left out: on AMD EPYC family 25 model 17 flush and both ran
 *     level cold, and each run took whichever measured faster by 1%);
 *  2. else, of those that keep it at the smallest size, the one that evicts
 *     least at the largest;
 *  3. else the one that evicts least at the smallest size.
 * -1 when the evidence is out of range. */
int tune_pick_src_noreuse(const struct tune_src_noreuse_evidence *ev);

/* A decision that keeps the policy's value unless a candidate beats it:
 * of n candidates (speed: medians; beats[i] 1 where candidate i was
 * significantly faster than the incumbent), the fastest of those that beat
 * the incumbent by at least min_gain (a ratio of medians, e.g. 1.02), else
 * the incumbent. The profile's value was chosen on more measurements than
 * one tuner cell holds, so a candidate within noise of it does not replace
 * it. -1 when n or incumbent is out of range. */
int tune_pick_over_incumbent(int n, const double *speed, const int *beats, int incumbent,
                             double min_gain);

#endif
