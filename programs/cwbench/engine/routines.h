/* SPDX-License-Identifier: MIT */
/* The routine registry (routines.c): every copy and fill cwbench can time,
 * the library's entry points and the references they are held against. */
#ifndef CWB_ROUTINES_H
#define CWB_ROUTINES_H

#include <stddef.h>

/* The most routines one run measures (a run's list, a chart's series). */
#define CWB_MAX_ROUTINES 24

/* Every routine copies n bytes from src to dst (no overlap) and returns dst,
 * or NULL when it could not copy (cw_copy_safe reporting bytes not copied). */
typedef void *(*cwb_copy_fn)(void *, const void *, size_t);
struct cwb_routine {
    const char *name;
    cwb_copy_fn fn;
    const char *what;
    /* Optional: the routine's function for size n alone, or NULL for fn.
     * Lets a routine that stands for "a caller with a compile-time constant
     * size" run without a size dispatch in the timed hot and cold loops. */
    cwb_copy_fn (*for_size)(size_t n);
    /* Optional: called with ctx before each of the routine's batches and
     * its calibration, outside the timed region (cwbench tune: puts the
     * candidate policy in force, so candidates interleave like routines). */
    void (*prepare)(const void *ctx);
    const void *ctx;
};

static inline void cwb_routine_prepare(const struct cwb_routine *rt)
{
    if (rt->prepare != NULL)
        rt->prepare(rt->ctx);
}

/* The function the timed loops call for copies of exactly n bytes. */
static inline cwb_copy_fn cwb_routine_fn(const struct cwb_routine *rt, size_t n)
{
    cwb_copy_fn f = rt->for_size != NULL ? rt->for_size(n) : NULL;
    return f != NULL ? f : rt->fn;
}

/* cw_memcpy, cw_memcpy_nt, cw_memcpy_flushcache, cw_copy_nta
 * (CW_SRC_NOREUSE|CW_DST_NOREUSE), cw_copy_safe, glibc_memcpy; on x86-64
 * rep_movsb and stream_sse2/stream_avx2/stream_avx512 (plain streaming-store
 * loops, only those this CPU runs), on aarch64 stream_stnp; pmem_memcpy_nt /
 * pmem_memcpy_t when built with libpmem. Static storage. */
const struct cwb_routine *cwb_routines(size_t *count);
/* NULL when the name is unknown (or not runnable here). */
const struct cwb_routine *cwb_routine_find(const char *name);
/* Index of the routine called name in rt[0..nrt), or nrt when absent. */
size_t cwb_routine_index(const struct cwb_routine *const *rt, size_t nrt, const char *name);
/* Comma-separated names of every routine, for usage messages. */
const char *cwb_routine_names(void);
/* The fill routines (cw_memset_*, glibc_memset, pmem_memset_*, the plain
 * streaming fill loops) ignore src and set every byte of dst to
 * CWB_FILL_BYTE: 1 for those (by rt->fn), 0 for the copies. The engine
 * checks a fill routine's dst against that byte instead of src. 0xa5: not
 * the poison byte (0), so a byte left unwritten shows, and not a zero fill,
 * which some cores can complete faster over lines already zero. */
#define CWB_FILL_BYTE 0xa5
int cwb_routine_fills(const struct cwb_routine *rt);

#endif /* CWB_ROUTINES_H */
