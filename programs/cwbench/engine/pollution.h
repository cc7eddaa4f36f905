/* SPDX-License-Identifier: MIT */
/* The pollution measurement (pollution.c, its table pollution_table.c):
 * the evicted fraction of a victim working set after one copy. */
#ifndef CWB_POLLUTION_H
#define CWB_POLLUTION_H

#include <stddef.h>
#include <stdint.h>

struct cwb_results;
struct cwb_routine;

/* The estimate for progress plans: milliseconds of a pollution table of
 * nrt routines, a victim of `victim` bytes, copies of `copy` bytes. */
double cwb_pollution_estimate_ms(size_t copy, size_t victim, size_t nrt, int reps);

/* The tables of the victims in victims_mask (bit 0 = L1, 1 = L2, 2 = L3)
 * for each copy size, printed to stdout, cells added to res; seed seeds
 * the victims' chains and the source's pattern; pin < 0 (no --pin): the
 * tables stay on the CPU they start on. With plan
 * set this is the whole command: its estimate is the progress plan.
 * Returns 0, 1 on a runtime failure. */
int cwb_pollution_measure(uint64_t seed, int pin, unsigned victims_mask, const size_t *sizes,
                          size_t nsizes, const struct cwb_routine *const *rt, size_t nrt,
                          int reps, int plan, struct cwb_results *res);

#endif /* CWB_POLLUTION_H */
