/* SPDX-License-Identifier: MIT */
/* Hardware counters through perf_event_open (user space only): cycles,
 * instructions and last-level cache misses of this process, and whether
 * cycles can be counted at all (many VMs expose no PMU). The table built
 * from them is engine/counters_table.c's. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "platform/counters.h"

static const uint64_t events[CWB_N_COUNTERS] = {
    PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CACHE_MISSES,
};

int cwb_perf_open(uint64_t hw_config)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_HARDWARE;
    a.config = hw_config;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int cwb_counters_open(struct cwb_counters *c)
{
    for (int i = 0; i < CWB_N_COUNTERS; i++)
        c->fd[i] = cwb_perf_open(events[i]);
    if (c->fd[0] < 0) {
        cwb_counters_close(c);
        return -1;
    }
    return 0;
}

void cwb_counters_read(const struct cwb_counters *c, uint64_t *v)
{
    for (int i = 0; i < CWB_N_COUNTERS; i++) {
        v[i] = 0;
        if (c->fd[i] >= 0 && read(c->fd[i], &v[i], sizeof v[i]) != (ssize_t)sizeof v[i])
            v[i] = 0;
    }
}

void cwb_counters_close(struct cwb_counters *c)
{
    for (int i = 0; i < CWB_N_COUNTERS; i++) {
        if (c->fd[i] >= 0)
            close(c->fd[i]);
        c->fd[i] = -1;
    }
}

int cwb_counters_available(char *why, size_t cap)
{
    int fd = cwb_perf_open(PERF_COUNT_HW_CPU_CYCLES);
    if (fd < 0) {
        snprintf(why, cap, "perf_event_open(cycles): %s", strerror(errno));
        return 0;
    }
    for (unsigned i = 0; i < 100000; i++)
        __asm__ volatile("" : : : "memory");
    uint64_t v = 0;
    ssize_t got = read(fd, &v, sizeof v);
    close(fd);
    if (got != (ssize_t)sizeof v || v == 0) {
        snprintf(why, cap, "perf_event_open(cycles) opens but counts nothing (virtualised?)");
        return 0;
    }
    snprintf(why, cap, "cycles countable");
    return 1;
}
