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

#endif /* CWB_ESTIMATE_H */
