/* SPDX-License-Identifier: MIT */
/* Progress on stderr, beyond the phase calls of bench.h: a plan for the
 * whole command, so that the ETA covers every phase still to come, and
 * --quiet. */
#ifndef CWB_PROGRESS_H
#define CWB_PROGRESS_H

#include <stddef.h>

/* --quiet: no progress at all. */
void cwb_progress_set_quiet(int quiet);
/* The whole command's work in the units its phases count (estimated
 * milliseconds, say): cwb_progress_begin(phase, total) then declares each
 * phase's share of it and the ETA is for what is left of the command, at
 * the pace measured so far. Without a plan a phase's ETA is its own. */
void cwb_progress_plan(double units);

/* Estimates for plans. Milliseconds of a pollution table (pollution.c):
 * nrt routines, a victim of `victim` bytes, copies of `copy` bytes. */
double cwb_pollution_estimate_ms(size_t copy, size_t victim, size_t nrt, int reps);

#endif /* CWB_PROGRESS_H */
