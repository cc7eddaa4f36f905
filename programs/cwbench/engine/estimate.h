/* SPDX-License-Identifier: MIT */
/* Estimates for progress plans (base/progress.h): estimate.c. */
#ifndef CWB_ESTIMATE_H
#define CWB_ESTIMATE_H

#include <stddef.h>
#include "engine/measure.h"

/* Estimated milliseconds of one sweep cell of nrt routines, `samples`
 * samples each, `size`-byte copies in state st (measured shape: a cold
 * cell of small copies costs 10-25x a hot one). */
double cwb_progress_cell_ms(enum cwb_state st, size_t size, size_t nrt, int samples);

/* The sizes `cwbench sweep` measures when none are given, those up to max,
 * ascending, into s (room for CWB_SWEEP_DEFAULT_SIZES); returns how many.
 * Here beside the cost model because the ETA's tests plan the same sweep. */
#define CWB_SWEEP_DEFAULT_SIZES 64
size_t cwb_sweep_default_sizes(size_t *s, size_t max);

#endif /* CWB_ESTIMATE_H */
