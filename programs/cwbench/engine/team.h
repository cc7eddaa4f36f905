/* SPDX-License-Identifier: MIT */
/* Copies split over threads, as routines the measurement engine can time
 * (team.c): cw_copy_parallel at a chosen thread count, and the same copy
 * split by hand over a team of helper threads started together by a
 * barrier (the ceiling `cwbench threads` compares the pool with). Used by
 * `cwbench threads` (threads.c, threads_victim.c) and `cwbench tune`'s
 * thread-count decision (tune_threads.c). */
#ifndef CWB_TEAM_H
#define CWB_TEAM_H

#include <stddef.h>

#include "engine/routines.h"

/* The most threads any of these use: cw_copy_parallel's own cap. */
#define CWB_TEAM_MAX 64

/* CPUs in the calling thread's affinity mask (at least 1). */
unsigned cwb_affinity_cpus(void);
/* The threads cw_copy_parallel(dst, src, n, 0, t) uses, by its contract:
 * t capped at CWB_TEAM_MAX, at the CPUs of the caller's mask and at one per
 * parallel_min / 2 bytes (parallel_min as cw_get_info() reports it); 1
 * below parallel_min. */
unsigned cwb_pool_threads(size_t n, unsigned t);

/* Helper threads for copies split by hand: threads - 1 of them (the caller
 * is the first thread of every split copy), created with the caller's
 * affinity mask and asleep between copies. 0, or -1 when a thread could
 * not be created (none is left running then). */
int cwb_team_start(unsigned threads);
void cwb_team_stop(void);

enum cwb_split {
    CWB_SPLIT_POOL,   /* cw_copy_parallel(dst, src, n, 0, threads) */
    CWB_SPLIT_STREAM, /* the plain streaming loop on each slice (cwb_split_stream_name) */
    CWB_SPLIT_GLIBC,  /* glibc memcpy on each slice */
};

/* The routine each slice of CWB_SPLIT_STREAM runs: "stream_sse2" (movntdq)
 * on x86-64, "stream_stnp" on aarch64, "glibc_memcpy" elsewhere (no plain
 * streaming loop there). */
const char *cwb_split_stream_name(void);

/* One split copy as an engine routine: its prepare hook makes it the one
 * the shared copy function runs, so routines of different kinds and
 * thread counts interleave in one cwb_measure like any others. A split by
 * hand needs cwb_team_start(threads) or more first. */
struct cwb_split_routine {
    struct cwb_routine rt;
    enum cwb_split kind;
    unsigned threads;
    char name[48];
};
/* name: "cw_copy_parallel_2t", "stream_sse2_2t", "glibc_memcpy_2t". */
void cwb_split_routine_set(struct cwb_split_routine *r, enum cwb_split kind, unsigned threads);

#endif /* CWB_TEAM_H */
