/* SPDX-License-Identifier: MIT */
/* The report's table of hardware counts per byte (counters_table.c). */
#ifndef CWB_COUNTERS_TABLE_H
#define CWB_COUNTERS_TABLE_H

#include <stddef.h>

struct cwb_engine;
struct cwb_routine;

/* Per-routine table of counts per byte (4 KiB hot batch, one copy of
 * `big` bytes) on stdout. -1 when counters are not available, 1 when a
 * routine copied wrong bytes, else 0. */
int cwb_counters_table(struct cwb_engine *e, const struct cwb_routine *const *rt, size_t nrt,
                       size_t big, int reps);

#endif /* CWB_COUNTERS_TABLE_H */
