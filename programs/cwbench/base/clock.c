/* SPDX-License-Identifier: MIT */
/* Wall and CPU clocks, and the wall clock's smallest observable step. */
#include <time.h>

#include "base/clock.h"

double cwb_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

double cwb_cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

double cwb_timer_tick(void)
{
    static double tick;
    if (tick > 0)
        return tick;
    /* The smallest step two back-to-back reads can see: the clock's
     * granularity or the cost of reading it, whichever is larger. */
    double best = 1.0;
    for (int i = 0; i < 2000; i++) {
        double t0 = cwb_now(), t1;
        while ((t1 = cwb_now()) == t0)
            ;
        if (t1 - t0 < best)
            best = t1 - t0;
    }
    struct timespec res;
    if (clock_getres(CLOCK_MONOTONIC, &res) == 0) {
        double r = (double)res.tv_sec + (double)res.tv_nsec * 1e-9;
        if (r > best)
            best = r;
    }
    tick = best;
    return tick;
}
