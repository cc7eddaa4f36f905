/* SPDX-License-Identifier: MIT */
/* The rules of the tuner's decisions (rules.h). */
#include "tune/rules.h"

static int keeps(const struct tune_src_noreuse_evidence *ev, int size, int mode)
{
    double least = ev->evicted[size][0];
    for (int m = 1; m < ev->modes; m++)
        if (ev->evicted[size][m] < least)
            least = ev->evicted[size][m];
    double fr = ev->evicted[size][mode];
    return fr <= ev->background[size] + TUNE_KEEP_ABOVE_BACKGROUND &&
           fr <= least + TUNE_KEEP_ABOVE_LEAST;
}

int tune_pick_src_noreuse(const struct tune_src_noreuse_evidence *ev)
{
    if (ev->modes < 1 || ev->modes > TUNE_SRC_NOREUSE_MODES || ev->sizes < 1 ||
        ev->sizes > TUNE_SRC_NOREUSE_SIZES)
        return -1;
    int last = ev->sizes - 1, best = -1, kept[TUNE_SRC_NOREUSE_MODES];
    for (int m = 0; m < ev->modes; m++) {
        kept[m] = 1;
        for (int s = 0; s < ev->sizes; s++)
            kept[m] &= keeps(ev, s, m);
        if (kept[m] && (best < 0 || ev->speed[m] > ev->speed[best]))
            best = m;
    }
    if (best >= 0) {
        int fastest = best;
        for (int m = 0; m < ev->modes; m++) {
            if (!kept[m] || ev->faster[fastest][m])
                continue;
            if (ev->per_line[m] < ev->per_line[best] ||
                (ev->per_line[m] == ev->per_line[best] && ev->speed[m] > ev->speed[best]))
                best = m;
        }
        return best;
    }
    /* Where none keeps it after the largest copy, the hint earns its cost
     * there: the least evicting of those that keep it at the smallest (on
     * AMD EPYC family 25 model 17 a run where none stayed within bounds after
     * 16 MiB read none 0.75, prefetchnta 0.77, flush 0.53, both 0.40, and
     * "the fastest within it at 4 MiB" would have taken prefetchnta). */
    if (ev->sizes > 1)
        for (int m = 0; m < ev->modes; m++)
            if (keeps(ev, 0, m) && (best < 0 || ev->evicted[last][m] < ev->evicted[last][best]))
                best = m;
    if (best >= 0)
        return best;
    best = 0;
    for (int m = 1; m < ev->modes; m++)
        if (ev->evicted[0][m] < ev->evicted[0][best])
            best = m;
    return best;
}

int tune_pick_over_incumbent(int n, const double *speed, const int *beats, int incumbent,
                             double min_gain)
{
    if (n < 1 || incumbent < 0 || incumbent >= n)
        return -1;
    int best = incumbent;
    for (int i = 0; i < n; i++)
        if (i != incumbent && beats[i] && speed[i] >= min_gain * speed[incumbent] &&
            (best == incumbent || speed[i] > speed[best]))
            best = i;
    return best;
}
