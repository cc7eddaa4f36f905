/* SPDX-License-Identifier: MIT */
/* What the pollution measurement (pollution.c) hands its table
 * (pollution_table.c): the victim, the rows' raw walk times, the run's
 * buffers and counters. Private to those two files. */
#ifndef CWB_POLLUTION_TABLE_H
#define CWB_POLLUTION_TABLE_H

#include <stddef.h>

#include "engine/routines.h"
#include "results/results.h"

struct victim { unsigned char *base; size_t bytes, lines; const char *name, *next; };

/* Rows of a table: the routines' copies, then for each routine a busy wait
 * as long as its copies take (its own background), then the push-down
 * reference (L1 and L2 victims only). after/hot/cold: walk times (ns) of
 * each repetition; cpu: the copy's CPU time (s); frac: the evicted
 * fraction the table computes, clamped into [0, 1]; clamp_hi/clamp_lo: how
 * many of them were above 1 or below 0 before the clamp. */
struct prow { double *after, *hot, *cold, *cpu, *frac; size_t n; int failed;
              size_t clamp_hi, clamp_lo; };

struct prun {
    const struct victim *v;
    const struct cwb_routine *const *rt;
    size_t nrt, nrow, copy_bytes;
    unsigned char *src, *dst, *scratch;
    size_t scratch_bytes, push_bytes; /* push_bytes: twice the victim's level */
    double *dur;    /* dur[j * cap + k]: wall time of routine j's k-th copy */
    size_t *ndur, cap;
    int retried, disturbed;
    double units_per_rep;   /* progress: this table's estimate / reps */
};

/* The table of one victim and copy size: fractions from the walks, one line
 * per routine, the cells added to res. */
void cwb_pollution_table(struct prun *p, struct prow *rows, struct cwb_results *res, int reps);

#endif /* CWB_POLLUTION_TABLE_H */
