/* SPDX-License-Identifier: MIT */
/* cwbench tune: what the run (tune.c) and its decisions of the copy policy
 * (decide_copy_kernels.c, decide_hints.c) share: the architecture's
 * measurable decisions, the policy and evidence the decisions fill in, the
 * progress and size text they print, and the decisions themselves. Private
 * to tune/. */
#ifndef CWB_TUNE_DECIDE_H
#define CWB_TUNE_DECIDE_H

#include <stddef.h>

#include "tune/candidates.h"
#include "tune/tune.h"
#include "cachewise.h"

/* What the library's kernels of this architecture have instructions for
 * (the comment at the top of tune.c). */
#if defined(__x86_64__)
#define TUNE_X86 1
#endif
#if defined(__x86_64__) || defined(__aarch64__)
#define TUNE_PREFETCH 1
#endif

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

/* What the decisions found so far: each starts from the policy the ones
 * before it left and writes its evidence line, why[k] for decision k + 1
 * (the numbers of the decisions' comments; tune_write_file's why[]). */
struct tune_found {
    struct tune_policy pol; /* what the measurements chose */
    char why[10][480];      /* one line of evidence per decision */
};

/* "cwbench tune: PHASE (I/N)" on stderr, before each cell of a long run. */
void tune_say(const char *phase, size_t i, size_t n);
/* n as the evidence lines write a size ("4 KiB", "1.5 MiB": cwb_fmt_size)
 * in buf; buf. */
const char *tune_fmt_size(size_t n, char buf[32]);

/* The decisions, in the order cwb_cmd_tune makes them, each on the
 * architectures that have instructions for it. Each sets its settings in
 * f->pol and writes its evidence line; 0, or -1 when a measurement failed
 * or memory ran out. */
#ifdef TUNE_PREFETCH
/* 1: stream_prefetch and stream_prefetch_hint, cold copies of t->big
 * bytes (decide_copy_kernels.c) */
int tune_stream_prefetch(struct cwb_engine *e, const struct tune_opts *t, struct tune_found *f);
#endif
/* 2: nt_threshold (decide_copy_kernels.c) */
int tune_nt_threshold(struct cwb_engine *e, const struct tune_opts *t, struct tune_found *f);
#ifdef TUNE_X86
/* 3: rep_movsb, rep_movsb_min and rep_movsb_max below the threshold
 * decision 2 set; have_erms: the CPU has ERMS (decide_copy_kernels.c) */
int tune_rep_movsb(struct cwb_engine *e, const struct tune_opts *t, struct tune_found *f,
                   int have_erms);
/* 6: stream_method and stream_rep_min (decide_copy_kernels.c) */
int tune_stream_method(struct cwb_engine *e, const struct tune_opts *t, struct tune_found *f,
                       const struct cw_info *cpu);
#endif
#ifdef TUNE_PREFETCH
/* 4: src_noreuse (decide_hints.c) */
int tune_src_noreuse(struct cwb_engine *e, const struct tune_opts *t, struct tune_found *f,
                     const struct cw_info *cpu);
#endif
#ifdef TUNE_X86
/* 5: persist_small (decide_hints.c) */
int tune_persist_small(struct cwb_engine *e, struct tune_found *f, const struct cw_info *cpu);
#endif

#endif
