/* SPDX-License-Identifier: MIT */
/* Hardware counters of this process through perf_event_open (counters.c):
 * cycles, instructions, LLC misses. */
#ifndef CWB_COUNTERS_H
#define CWB_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

/* 1 when perf_event_open can count cycles for this process; why[] says
 * why not otherwise. */
int cwb_counters_available(char *why, size_t cap);
/* Open one hardware counter (PERF_COUNT_HW_*) for this process, user space
 * only (allowed at perf_event_paranoid <= 2 without privileges), close-on-
 * exec. Returns the fd, or -1 with errno set. */
int cwb_perf_open(uint64_t hw_config);

#define CWB_N_COUNTERS 3
struct cwb_counters { int fd[CWB_N_COUNTERS]; };
/* 0 when at least cycles can be counted; -1 otherwise (all closed). */
int cwb_counters_open(struct cwb_counters *c);
/* Running totals; 0 for a counter that could not be opened. */
void cwb_counters_read(const struct cwb_counters *c, uint64_t *v);
void cwb_counters_close(struct cwb_counters *c);

#endif /* CWB_COUNTERS_H */
