/* SPDX-License-Identifier: MIT */
/* Internal interfaces of libcachewise-preload.so (the LD_PRELOAD shim).
 * Everything here is hidden; the shim exports only the interposed libc
 * functions (see preload.map). */
#ifndef CW_PRELOAD_H
#define CW_PRELOAD_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* The shim is preloaded at startup, so its TLS lives in the static block:
 * initial-exec avoids __tls_get_addr (and any allocation) on the hot path. */
#define CWP_TLS __thread __attribute__((tls_model("initial-exec")))

/* Histogram: every size 0..4096 exactly, then one bucket per power of two
 * [2^k, 2^(k+1)) for k = 12..63 (the k = 12 bucket starts at 4097). Bucket
 * edges at powers of two keep "share of bytes >= 2^k" exact. */
#define CWP_EXACT_MAX 4096u
#define CWP_LOG_FIRST 12
#define CWP_NLOG (64 - CWP_LOG_FIRST)
#define CWP_NBUCKETS (CWP_EXACT_MAX + 1 + CWP_NLOG)

/* Entry points, counted separately (the header reports them). */
enum cwp_fn {
    CWP_MEMCPY, CWP_MEMMOVE, CWP_MEMPCPY,
    CWP_MEMCPY_CHK, CWP_MEMMOVE_CHK, CWP_MEMPCPY_CHK,
    CWP_NFN
};

/* Counters of one thread. A slot has one writer at a time (its owning
 * thread), so increments are relaxed load + store, not locked adds; the
 * shared overflow slot (used once CWP_MAX_SLOTS are taken) uses atomic adds.
 * Readers (exit, signal flush) may read while the owner writes: relaxed
 * atomics make that well defined, and a count read one call late is fine. */
struct cwp_slot {
    _Atomic(uint64_t) count[CWP_NBUCKETS];
    _Atomic(uint64_t) big_bytes[CWP_NLOG]; /* bytes per log2 bucket */
    _Atomic(uint64_t) calls[CWP_NFN];
    _Atomic(uint64_t) nt_calls, nt_bytes;  /* n >= nt_threshold */
    _Atomic(uint64_t) sn_calls, sn_bytes;  /* n >= src_noreuse threshold */
    _Atomic(uint64_t) path_calls[CWI_NPATH], path_bytes[CWI_NPATH]; /* CACHEWISE_STATS */
    _Atomic int state;                     /* CWP_FREE / CWP_USED */
    int shared;
    struct cwp_slot *next;                 /* registry, push-only */
};

/* Every slot summed (cwp_merge), for the profile and the statistics. */
struct cwp_totals {
    uint64_t count[CWP_NBUCKETS], big[CWP_NLOG], calls[CWP_NFN];
    uint64_t nt_calls, nt_bytes, sn_calls, sn_bytes;
    uint64_t path_calls[CWI_NPATH], path_bytes[CWI_NPATH];
};

CWI_HIDDEN extern CWP_TLS struct cwp_slot *cwp_tls_slot;
/* cwp_profiling: CACHEWISE_PROFILE is set; cwp_stats: CACHEWISE_STATS is;
 * cwp_counting: either (the calls are counted). These and the thresholds
 * are written once, during init, before the shim is marked ready. */
CWI_HIDDEN extern int cwp_profiling, cwp_stats, cwp_counting;
CWI_HIDDEN extern size_t cwp_nt_threshold, cwp_srcnta_threshold;
CWI_HIDDEN extern size_t cwp_large_threshold; /* the smaller of the two */

/* Read CACHEWISE_PROFILE*; safe in the lazy init path (no malloc, no
 * memcpy). */
CWI_HIDDEN void cwp_setup(void);
/* The parts that may allocate (pthread key, atfork handler, signal
 * handler): only from the shim's constructor. */
CWI_HIDDEN void cwp_setup_late(void);
/* The profile's path template (absolute, with %p), or NULL when not profiling. */
CWI_HIDDEN const char *cwp_profile_path(void);
/* The file this process writes its profile to (the template with %p and %%
 * expanded) into buf; 0, or -1 when not profiling or too long for cap. */
CWI_HIDDEN int cwp_profile_name(char *buf, size_t cap);
/* Write the profile now (exit, signal). Async-signal-safe. */
CWI_HIDDEN void cwp_write(void);
/* The rare cases of cwp_record: this thread has no slot yet, or counts
 * into the shared overflow slot. */
CWI_HIDDEN void cwp_record_slow(size_t n, enum cwp_fn fn);

/* Sums every thread's slot into cwp_total. Async-signal-safe; called with
 * cwp_out_lock() held. */
CWI_HIDDEN extern struct cwp_totals cwp_total;
CWI_HIDDEN void cwp_merge(void);
/* From cwp_total: bytes of the calls of lo..hi bytes (hi UINT64_MAX: no
 * upper end); exact where lo and hi + 1 are at most 4097 or powers of two. */
CWI_HIDDEN uint64_t cwp_bytes_ge(uint64_t lo);
CWI_HIDDEN uint64_t cwp_bytes_between(uint64_t lo, uint64_t hi);
/* This program's path (/proc/self/exe), in a static buffer. */
CWI_HIDDEN const char *cwp_program(void);

/* CACHEWISE_STATS (src/preload/stats.c): read the setting (init path: no
 * malloc, no memcpy), count one call's path into this thread's slot (after
 * cwp_record), write the statistics (exit). */
CWI_HIDDEN void cwp_stats_setup(void);
CWI_HIDDEN void cwp_count_path(const void *dst, const void *src, size_t n);
CWI_HIDDEN void cwp_stats_write(void);
/* "stderr", the statistics file's name (%p expanded) or "off", for the
 * verbose line. */
CWI_HIDDEN const char *cwp_stats_target(char *buf, size_t cap);

/* Whether [a, a+n) and [b, b+n) do not overlap. */
static inline int cwp_disjoint(const void *a, const void *b, size_t n)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return (x > y ? x - y : y - x) >= n;
}

static inline void cwp_bump(_Atomic(uint64_t) *c, uint64_t v)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v,
                          memory_order_relaxed);
}

static inline unsigned cwp_log_bucket(size_t n)
{
    return 63u - (unsigned)__builtin_clzll((unsigned long long)n) - CWP_LOG_FIRST;
}

/* Counts one call into this thread's own slot; returns 0 (nothing counted)
 * when cwp_record_slow() must do it. No calls: the caller needs no frame. */
static inline int cwp_record(size_t n, enum cwp_fn fn)
{
    struct cwp_slot *s = cwp_tls_slot;
    if (__builtin_expect(s == NULL || s->shared, 0))
        return 0;
    cwp_bump(&s->calls[fn], 1);
    if (__builtin_expect(n <= CWP_EXACT_MAX, 1)) {
        cwp_bump(&s->count[n], 1);
    } else {
        unsigned j = cwp_log_bucket(n);
        cwp_bump(&s->count[CWP_EXACT_MAX + 1 + j], 1);
        cwp_bump(&s->big_bytes[j], n);
    }
    if (__builtin_expect(n >= cwp_large_threshold, 0)) {
        if (n >= cwp_nt_threshold) {
            cwp_bump(&s->nt_calls, 1);
            cwp_bump(&s->nt_bytes, n);
        }
        if (n >= cwp_srcnta_threshold) {
            cwp_bump(&s->sn_calls, 1);
            cwp_bump(&s->sn_bytes, n);
        }
    }
    return 1;
}

#endif /* CW_PRELOAD_H */
