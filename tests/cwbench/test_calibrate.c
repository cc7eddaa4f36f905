/* SPDX-License-Identifier: MIT */
/* The engine's calibration against one hiccup: a routine whose first timed
 * call stalls (as an interrupt or a preemption would stall it) must not
 * leave every sample a batch of one call. Without the repeated sample
 * that ends a short calibration (engine/measure.c, calibrate), the stall
 * alone reaches the sample time and the batch stays at one call. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../test_check.h"
#include "engine/measure.h"
#include "engine/routines.h"

static unsigned long g_calls;

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Copies; the second call (the calibration's first timed one, after its
 * checked call) spins for 3 ms, longer than any sample may last. */
static void *stalling_copy(void *d, const void *s, size_t n)
{
    if (++g_calls == 2) {
        double until = seconds() + 3e-3;
        while (seconds() < until)
            ;
    }
    return memcpy(d, s, n);
}

int main(void)
{
    struct cwb_engine e;
    if (cwb_engine_init(&e, (size_t)4 << 20, 5, 20e-6, 1) != 0) {
        fprintf(stderr, "test_calibrate: out of memory\n");
        return 1;
    }
    struct cwb_routine r = {"stalling", stalling_copy, "memcpy, one stall", NULL, NULL, NULL};
    const struct cwb_routine *rt[1] = {&r};
    struct cwb_spec sp = {.state = CWB_HOT, .size = 64, .src_off = 0, .dst_off = 0};
    struct cwb_run run;
    CWT_EXPECT(cwb_measure(&e, &sp, rt, 1, &run) == 0);
    CWT_EXPECT(!run.failed);
    /* a 64-byte copy takes nanoseconds: 20 us hold hundreds of them even
     * on a slow emulator; one stalled call is no batch size */
    CWT_EXPECT(run.calls >= 16);
    printf("test_calibrate: %zu calls a sample after a stall in the first (%lu calls)\n",
           run.calls, g_calls);
    cwb_run_free(&run);
    cwb_engine_free(&e);
    if (cwt_failures) {
        fprintf(stderr, "test_calibrate: %ld check(s) failed\n", cwt_failures);
        return 1;
    }
    return 0;
}
