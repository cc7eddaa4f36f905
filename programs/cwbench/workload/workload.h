/* SPDX-License-Identifier: MIT */
/* cwbench workloads: userspace re-creations of the kernel measurements that
 * motivated cachewise (docs/WORKLOADS.md). Shared by workload.c and workload_*.c only. */
#ifndef CWB_WORKLOAD_H
#define CWB_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "results/results.h"

struct cwb_wl_opts {
    int quick;        /* seconds-long smoke mode with tiny sizes */
    int runs;         /* samples per cell; 0 = the workload's default */
    int inject_fault; /* testing only: corrupt one byte before verifying */
};

/* Every workload returns 0 on success, 1 on a runtime failure (including a
 * data mismatch, which it reports on stderr). It adds its cells and meta
 * data to r. */
int cwb_wl_writeback(const struct cwb_wl_opts *o, struct cwb_results *r);
int cwb_wl_pmemlog(const struct cwb_wl_opts *o, struct cwb_results *r);
int cwb_wl_cachedread(const struct cwb_wl_opts *o, struct cwb_results *r);

/* ---- helpers shared by the workloads (workload.c) ---- */

/* Deterministic generator: the verification regenerates the same bytes. */
uint64_t cwb_wl_mix(uint64_t x);

/* Fisher-Yates shuffle of 0..n-1 driven by *state: the per-round order in
 * which variants run, so drift in the machine spreads over all of them. */
void cwb_wl_shuffle(int *order, int n, uint64_t *state);

/* Print "label: mean sigma n" style figures for one sample set. */
void cwb_wl_print_figure(const char *label, const double *x, size_t n, const char *unit,
                         int precision);

/* Print one verdict line comparing the sample sets a (baseline) and b:
 * "  verdict: B vs A: medians 1.23 -> 2.05 s: <cwb_verdict text>". The
 * figures above it are means; the medians beside the verdict are what its
 * estimate can be held against. */
void cwb_wl_print_verdict(const char *name_a, const double *a, size_t na, const char *name_b,
                          const double *b, size_t nb, int higher_is_better, const char *unit);

/* Add one cell (bench = "wl_<workload>") to r. */
void cwb_wl_add_cell(struct cwb_results *r, const char *workload, const char *routine,
                     const char *state, size_t size, const char *unit, int higher_is_better,
                     const double *samples, const double *cpu, size_t n);

/* Hardware counters (cycles, cache misses) for this process, user space.
 * cwb_wl_counters_open returns 0 when they can be read; otherwise -1 and
 * why in buf. */
struct cwb_wl_counters {
    int fd_cycles, fd_misses;
};
int cwb_wl_counters_open(struct cwb_wl_counters *c, char *why, size_t cap);
/* Read the running totals; 0 on success. */
int cwb_wl_counters_read(const struct cwb_wl_counters *c, uint64_t *cycles, uint64_t *misses);
void cwb_wl_counters_close(struct cwb_wl_counters *c);
/* Print the "counters: ..." line for a workload that does not collect them. */
void cwb_wl_print_counters_unavailable(void);

/* Directory for scratch files: $TMPDIR, else /tmp. */
const char *cwb_wl_tmpdir(void);

#endif /* CWB_WORKLOAD_H */
