/* SPDX-License-Identifier: MIT */
/* The entry points that write around or out of the caches: the streaming
 * copy and fill (non-temporal stores, then a fence), the flushcache and
 * persist copies and fills, cw_flush, cw_persist and cw_drain, and cw_copy,
 * whose hints choose among these and the temporal copy. Each reaches the
 * active row and the streaming threshold as the temporal entries of
 * src/dispatch.c do (cwi_active_row_or_init, cwi_nt_threshold_now:
 * src/internal.h). Compiled for the baseline ISA (x86-64 = SSE2): it may
 * run on any CPU. */
#include <errno.h>

#include "internal.h"

void *cw_memcpy_nt(void *restrict dst, const void *restrict src, size_t n)
{
    if (__builtin_expect(n > CWI_MAX_COPY, 0))
        cwi_size_overflow("cw_memcpy_nt", n);
    cwi_active_row_or_init()->copy_nt(dst, src, n);
    cwi_sfence();
    return dst;
}

void *cw_memcpy_flushcache_fn(void *restrict dst, const void *restrict src, size_t n)
{
    if (__builtin_expect(n > CWI_MAX_COPY, 0))
        cwi_size_overflow("cw_memcpy_flushcache", n);
    return cwi_active_row_or_init()->flushcache(dst, src, n);
}

void cw_drain(void)
{
    cwi_sfence();
}

void *cw_memcpy_persist(void *restrict dst, const void *restrict src, size_t n)
{
    if (__builtin_expect(n > CWI_MAX_COPY, 0))
        cwi_size_overflow("cw_memcpy_persist", n);
    cwi_active_row_or_init()->persist(dst, src, n);
    cwi_sfence();
    return dst;
}

/* ---- Persistence in place and fills ---- */

/* The write-back instruction depends on the CPU's flush features alone,
 * not on the vector width, so cw_flush and cw_persist have no kernel in
 * the row: every implementation shares cwi_flush_range (src/x86/flush.c).
 * Initialised first all the same, so that the instruction is the one
 * cw_get_info() names even for a flush made before the library's
 * constructor ran (the static default is clflush). */
void cw_flush(const void *addr, size_t n)
{
    if (__builtin_expect(n > CWI_MAX_COPY, 0))
        cwi_size_overflow("cw_flush", n);
    (void)cwi_active_row_or_init();
    cwi_flush_range(addr, n);
}

void cw_persist(const void *addr, size_t n)
{
    if (__builtin_expect(n > CWI_MAX_COPY, 0))
        cwi_size_overflow("cw_persist", n);
    (void)cwi_active_row_or_init();
    cwi_flush_range(addr, n);
    cwi_sfence();
}

void *cw_memset_nt(void *dst, int c, size_t n)
{
    if (__builtin_expect(n > CWI_MAX_COPY, 0))
        cwi_size_overflow("cw_memset_nt", n);
    cwi_active_row_or_init()->memset_nt(dst, c, n);
    cwi_sfence();
    return dst;
}

void *cw_memset_flushcache(void *dst, int c, size_t n)
{
    if (__builtin_expect(n > CWI_MAX_COPY, 0))
        cwi_size_overflow("cw_memset_flushcache", n);
    return cwi_active_row_or_init()->memset_flushcache(dst, c, n);
}

void *cw_memset_persist(void *dst, int c, size_t n)
{
    if (__builtin_expect(n > CWI_MAX_COPY, 0))
        cwi_size_overflow("cw_memset_persist", n);
    cwi_active_row_or_init()->memset_persist(dst, c, n);
    cwi_sfence();
    return dst;
}

int cwi_hints_valid(unsigned hints)
{
    const unsigned known = CW_DST_NOREUSE | CW_DST_REUSE | CW_SRC_NOREUSE | CW_PERSIST;
    if (hints & ~known)
        return 0;
    if ((hints & CW_DST_NOREUSE) && (hints & CW_DST_REUSE))
        return 0;
    if ((hints & CW_PERSIST) && (hints & CW_DST_REUSE))
        return 0;
    return 1;
}

void cwi_copy_hinted(void *restrict dst, const void *restrict src, size_t n, unsigned hints)
{
    const struct cwi_impl *impl = cwi_active_row_or_init();
    if (hints & CW_PERSIST) {
        impl->persist(dst, src, n);
        cwi_sfence();
    } else if (hints & CW_DST_NOREUSE) {
        (hints & CW_SRC_NOREUSE ? impl->copy_nt_srcnta : impl->copy_nt)(dst, src, n);
        cwi_sfence();
    } else if (hints & CW_DST_REUSE) {
        (hints & CW_SRC_NOREUSE ? impl->copy_srcnta : impl->copy)(dst, src, n);
    } else if (n >= cwi_nt_threshold_now()) {
        (hints & CW_SRC_NOREUSE ? impl->copy_nt_srcnta : impl->copy_nt)(dst, src, n);
        cwi_sfence();
    } else {
        (hints & CW_SRC_NOREUSE ? impl->copy_srcnta : impl->copy)(dst, src, n);
    }
}

void *cw_copy(void *restrict dst, const void *restrict src, size_t n, unsigned hints)
{
    if (!cwi_hints_valid(hints) || n > CWI_MAX_COPY) {
        errno = EINVAL;
        return NULL;
    }
    cwi_copy_hinted(dst, src, n, hints);
    return dst;
}
