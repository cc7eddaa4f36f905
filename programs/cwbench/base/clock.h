/* SPDX-License-Identifier: MIT */
/* Clocks (clock.c). */
#ifndef CWB_CLOCK_H
#define CWB_CLOCK_H

double cwb_now(void);     /* seconds, CLOCK_MONOTONIC */
double cwb_cpu_now(void); /* seconds, CLOCK_PROCESS_CPUTIME_ID */
/* Smallest observable step of cwb_now() in seconds (measured once, cached). */
double cwb_timer_tick(void);

#endif /* CWB_CLOCK_H */
