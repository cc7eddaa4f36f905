/* SPDX-License-Identifier: MIT */
/* What the pollution windows (pollution.c; threads_victim.c takes its
 * SCHED_FIFO windows) need around the walks and the copy: SCHED_FIFO
 * windows where allowed, the context-switch count that tells a disturbed
 * window, the background's busy wait, the push-down reference read and the
 * fill check. Static functions in a header, not a file of their own, so that
 * the compiler inlines them into the measured windows (no call around the
 * timestamps); marked unused because an includer may need only some of
 * them.
 * Nothing here is architecture-specific. */
#ifndef CWB_POLLUTION_UTIL_H
#define CWB_POLLUTION_UTIL_H

#include <sched.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "base/clock.h"
#include "engine/placement.h"
#include "engine/routines.h"

/* Voluntary + involuntary context switches so far (-1: unknown): a window
 * they grew in was disturbed. */
__attribute__((unused)) static long ctx_switches(void)
{
    struct rusage u;
    if (getrusage(RUSAGE_THREAD, &u) != 0)
        return -1;
    return u.ru_nvcsw + u.ru_nivcsw;
}

/* Where allowed (root, CAP_SYS_NICE, RLIMIT_RTPRIO), each measured window
 * (a few walks and one copy, milliseconds) runs at SCHED_FIFO so that the
 * other processes on a loaded machine cannot run on this CPU in the middle
 * of it; between windows the process is an ordinary one again.
 * CWBENCH_NO_RT=1 turns this off. */
static int rt_ok = -1;

__attribute__((unused)) static void rt_enter(void)
{
    if (rt_ok == 0)
        return;
    if (rt_ok < 0) {
        /* a policy the user chose (chrt, SCHED_BATCH...) is left alone */
        const char *e = getenv("CWBENCH_NO_RT");
        if ((e != NULL && e[0] != '\0' && e[0] != '0') || sched_getscheduler(0) != SCHED_OTHER) {
            rt_ok = 0;
            return;
        }
    }
    struct sched_param sp = {.sched_priority = 1};
    rt_ok = sched_setscheduler(0, SCHED_FIFO, &sp) == 0;
}

__attribute__((unused)) static void rt_leave(void)
{
    struct sched_param sp = {.sched_priority = 0};
    if (rt_ok == 1)
        sched_setscheduler(0, SCHED_OTHER, &sp);
}

/* A routine's background row: as long as its copies take, no copy. */
__attribute__((unused)) static void busy_wait(double seconds)
{
    double w0 = cwb_now();
    while (cwb_now() - w0 < seconds)
        ;
}

/* Read a buffer twice the victim's level, twice: what the walk costs once
 * the victim sits one level down. */
__attribute__((unused)) static void push_down(const unsigned char *scratch, size_t bytes)
{
    unsigned sum = 0;
    for (int r = 0; r < 2; r++)
        for (size_t i = 0; i < bytes; i += CWB_LINE)
            sum += ((const volatile unsigned char *)scratch)[i];
    __asm__ volatile("" : : "r"(sum));
}

/* The fill routines (cw_memset_nt, glibc_memset, ...) write CWB_FILL_BYTE. */
__attribute__((unused)) static int filled(const unsigned char *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (d[i] != CWB_FILL_BYTE)
            return 0;
    return 1;
}

#endif /* CWB_POLLUTION_UTIL_H */
