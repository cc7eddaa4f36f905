/* SPDX-License-Identifier: MIT */
/* cw_copy_safe: a copy that survives SIGSEGV/SIGBUS in its source or
 * destination and reports exactly how many bytes it could not copy, the
 * userspace counterpart of the kernel's copy_from_user (docs/SAFE.md).
 *
 * The kernel finds the faulting instruction in an exception table. The
 * common call here does the same (x86-64 Linux, GCC builds): the temporal
 * copy kernels are compiled a second time into section cw_safe_text, never
 * touching the callee-saved registers nor xmm14/xmm15; cw_copy_safe parks
 * the copy and its caller's stack pointer in xmm14/xmm15 and jumps into
 * one. A fault whose instruction lies in that section is such a copy; the
 * handler rewrites the context into a call of the slow path by the same
 * caller, and sigreturn restores the signal mask, FPU state and registers
 * as for any handler. Nothing is stored to arm the copy: it costs what
 * cw_memcpy costs (a 4 KiB copy in L1 is bound by store throughput, about
 * 40 ns, and each store a wrapper adds shows).
 *
 * Every other copy (hints, streaming sizes, the slow path's chunks, builds
 * without the safe kernels) arms a per-thread recovery point: a small
 * assembly trampoline (src/x86/safe_trampoline.S) publishes a frame and
 * calls the kernel, and the handler resumes at the trampoline's exit.
 * sigsetjmp would cost 10-20 ns per call (it stores and mangles every
 * register). Elsewhere, and under sanitizers (which must see the jump),
 * sigsetjmp(env, 0) and siglongjmp are used.
 *
 * A copy that faults is redone by a slow path that can say where the first
 * inaccessible byte is: the vector kernels touch bytes out of order
 * (overlapping head/tail moves), so a fault address alone does not prove
 * that every byte below it was accessible. They store in address order
 * though, all but the x86 temporal kernel's backward walk, which the copies
 * where it could write past a hole avoid (may_store_backward): a fault
 * leaves every byte from the first inaccessible one on untouched.
 *
 * Here: the armed operations, the slow path and cw_copy_safe. What the
 * handler runs (recognising and claiming a fault, resuming the copy) is in
 * src/safe_fault.c; what both sides share, in src/safe_frame.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stddef.h>

#include "safe_frame.h"

/* The slow path after a fault (below); not static: the trampoline calls it. */
CWI_HIDDEN size_t cwi_safe_recover(struct safe_frame *f);

/* ---- armed operations --------------------------------------------------- */

/* What an armed copy runs besides the kernels (the zero fill) touches the
 * buffers too: in sanitizer builds it is kept free of instrumentation like
 * the kernels (src/safe_internal.h), and never inlined into instrumented
 * code. */
#if defined(CWI_SAFE_UNINSTRUMENTED)
#define SAFE_UNINSTRUMENTED                                                                      \
    __attribute__((noinline, no_sanitize("address", "undefined", "thread")))
#else
#define SAFE_UNINSTRUMENTED
#endif

typedef uint64_t safe_word __attribute__((may_alias));

/* a loop, not memset: the library never calls the mem* functions */
SAFE_UNINSTRUMENTED static void zero_op(void *restrict dst, const void *restrict src, size_t len,
                                        unsigned hints)
{
    (void)src;
    (void)hints;
    unsigned char *d = dst;
    for (; len != 0 && ((uintptr_t)d & 7); len--)
        *d++ = 0;
    for (; len >= 8; len -= 8, d += 8)
        *(safe_word *)d = 0;
    for (; len != 0; len--)
        *d++ = 0;
}

#if defined(__x86_64__)
/* The avx512 row or its zmm16-31 build (avx512-evex): one set of forward
 * and safe kernels serves both, the bytes they copy being the same. */
static int avx512_row(const struct cwi_impl *row)
{
#if defined(CWI_HAVE_AVX512_EVEX)
    if (row == &cwi_impl_avx512_evex)
        return 1;
#endif
    return row == &cwi_impl_avx512;
}
#endif

#if !defined(CWI_SAFE_UNINSTRUMENTED)
/* A copy the active row's temporal kernel may store backward: x86, more
 * than a page (a hole with bytes of the copy above it takes that), dst less
 * than 256 bytes (four AVX-512 vectors, cwl_aliases_fwd's bound for the
 * widest row) above src modulo 4 KiB, and hints for which cwi_copy_hinted
 * picks that kernel (CW_SRC_NOREUSE, streaming and persisting copies go
 * forward anyway). Such a copy takes the row's forward copy instead
 * (src/safe_internal.h), so that a fault leaves every byte from the first
 * inaccessible one on untouched. (Sanitizer builds need no check: their
 * twin rows' temporal copy is the forward one.) */
static inline int may_store_backward(const void *d, const void *s, size_t n, unsigned hints)
{
#if defined(__x86_64__)
    return n > 4096 && (((uintptr_t)d - (uintptr_t)s) & 4095) < 256 &&
           !(hints & (CW_PERSIST | CW_DST_NOREUSE | CW_SRC_NOREUSE)) &&
           ((hints & CW_DST_REUSE) || n < cwi_info.nt_threshold);
#else
    (void)d;
    (void)s;
    (void)n;
    (void)hints;
    return 0;
#endif
}

/* The row's temporal copy without the backward walk: its forward copy on
 * x86 (the generic row, and aarch64's, only go forward). */
static cwi_copy_fn forward_copy(const struct cwi_impl *row)
{
#if defined(__x86_64__)
    if (avx512_row(row))
        return cwi_avx512_copy_forward;
    if (row == &cwi_impl_avx2)
        return cwi_avx2_copy_forward;
    if (row == &cwi_impl_sse2)
        return cwi_sse2_copy_forward;
#endif
    return row->copy;
}
#endif

/* Every armed copy but the fast path's: cw_copy()'s engine with the given
 * hints. In sanitizer builds the same choice as cwi_copy_hinted
 * (src/bypass.c), made among the uninstrumented twin of the active row's
 * kernels, whose temporal copy is the forward one. */
#if defined(CWI_SAFE_UNINSTRUMENTED)
static const struct cwi_impl *twin(const struct cwi_impl *row)
{
#if defined(__x86_64__)
    if (avx512_row(row))
        return &cwi_safe_twin_avx512;
    if (row == &cwi_impl_avx2)
        return &cwi_safe_twin_avx2;
    if (row == &cwi_impl_sse2)
        return &cwi_safe_twin_sse2;
#endif
    (void)row; /* generic, and the rows of ISAs without a twin (aarch64) */
    return &cwi_safe_twin_generic;
}

static void copy_op(void *restrict d, const void *restrict s, size_t n, unsigned hints)
{
    const struct cwi_impl *k = twin(cwi_active());
    if (hints & CW_PERSIST) {
        k->persist(d, s, n);
        cwi_sfence();
    } else if ((hints & CW_DST_NOREUSE) ||
               (!(hints & CW_DST_REUSE) && n >= cwi_info.nt_threshold)) {
        (hints & CW_SRC_NOREUSE ? k->copy_nt_srcnta : k->copy_nt)(d, s, n);
        cwi_sfence();
    } else {
        (hints & CW_SRC_NOREUSE ? k->copy_srcnta : k->copy)(d, s, n);
    }
}
#else
static void copy_op(void *restrict d, const void *restrict s, size_t n, unsigned hints)
{
    if (__builtin_expect(may_store_backward(d, s, n, hints), 0))
        forward_copy(cwi_active())(d, s, n);
    else
        cwi_copy_hinted(d, s, n, hints);
}
#endif

#if SAFE_REGS
/* The same for the frameless fast path: the row's forward safe kernel */
static cwi_safe_fn forward_safe_kernel(const struct cwi_impl *row)
{
    if (avx512_row(row))
        return cwi_avx512fwd_copy_safe;
    if (row == &cwi_impl_avx2)
        return cwi_avx2fwd_copy_safe;
    if (row == &cwi_impl_sse2)
        return cwi_sse2fwd_copy_safe;
    return row->copy_safe;
}
#endif

#if SAFE_TRAMPOLINE
/* The kernel of cw_copy_safe's fast path with a frame (cwi_safe_fast): the
 * row's temporal copy, or its forward copy where that would walk backward
 * (the twin's in builds with UBSan alone, which keep the trampoline). */
static cwi_copy_fn fast_kernel(const struct cwi_impl *row, const void *d, const void *s, size_t n)
{
#if defined(CWI_SAFE_UNINSTRUMENTED)
    (void)d;
    (void)s;
    (void)n;
    return twin(row)->copy;
#else
    return __builtin_expect(may_store_backward(d, s, n, 0), 0) ? forward_copy(row) : row->copy;
#endif
}
#endif

/* op(f->dst, f->src, f->n, hints) with f armed (op NULL: the temporal
 * copy, for calls below the streaming threshold): 0, or -1 after a fault
 * (f->fault_addr says where). */
#if SAFE_TRAMPOLINE
static inline int armed(struct safe_frame *f, safe_op op, unsigned hints)
{
    return -cwi_safe_call(f, op, hints);
}
#else
/* Not inlined, so that no local of the caller lives across sigsetjmp. */
__attribute__((noinline)) static int armed(struct safe_frame *f, safe_op op, unsigned hints)
{
    if (sigsetjmp(f->env, 0) != 0)
        return -1;
    cwi_safe_tls.armed = f;
    (op != NULL ? op : copy_op)((void *)f->dst, (const void *)f->src, f->n, hints);
    cwi_safe_tls.armed = f->prev;
    return 0;
}
#endif

/* Arm f for one operation on part of the copy. */
static int armed_op(struct safe_frame *f, safe_op op, void *d, const void *s, size_t n,
                    unsigned hints)
{
    f->dst = (uintptr_t)d;
    f->src = (uintptr_t)s;
    f->n = n;
    return armed(f, op, hints);
}

/* ---- slow path ----------------------------------------------------------- */

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

static size_t to_page_end(uintptr_t a)
{
    return (size_t)(cwi_safe_page - (a & (cwi_safe_page - 1)));
}

/* Offset, within the first `lim` bytes of d or s, of the start of the page
 * holding fault address a (0 when a is elsewhere or unknown). */
static size_t page_start_offset(uintptr_t d, uintptr_t s, uintptr_t a, size_t lim)
{
    uintptr_t base;
    if (a - s < lim)
        base = s;
    else if (a - d < lim)
        base = d;
    else
        return 0;
    uintptr_t page = a & ~(cwi_safe_page - 1);
    return page > base ? (size_t)(page - base) : 0;
}

/* After a fault of the whole copy described by f: find the first byte k of
 * the source or destination that cannot be accessed and leave [0, k)
 * copied.
 *
 * 1. Copy everything below the page that faulted in one armed call; if that
 *    faults too, retry below the new fault (strictly lower each time).
 * 2. Copy the rest in chunks that end at the next page boundary of src or of
 *    dst, whichever comes first. Each chunk after the first shares a source
 *    page or a destination page with the chunk before, which was copied
 *    whole, so when a chunk faults the inaccessible page is one that starts
 *    at the chunk's first byte: k is that offset, exact to the byte even
 *    though faults are only page-granular. */
/* Zeroes [d + off, d + n) as far as it is writable (page by page, each
 * operation armed with f), written back too for CW_PERSIST. */
static void zero_tail(struct safe_frame *f, unsigned char *d, size_t off, size_t n,
                      unsigned hints)
{
    size_t z = off;
    while (z < n) {
        size_t page = to_page_end((uintptr_t)(d + z));
        size_t len = n - z < page ? n - z : page;
        if (armed_op(f, zero_op, d + z, d + z, len, 0) != 0)
            break;
        z += len;
    }
    if (hints & CW_PERSIST)
        cwi_flush_range(d + off, z - off);
}

__attribute__((noinline, cold)) size_t cwi_safe_recover(struct safe_frame *f)
{
    unsigned char *d = (unsigned char *)f->dst;
    const unsigned char *s = (const unsigned char *)f->src;
    size_t n = f->n;
    unsigned flags = f->flags;
    unsigned hints = flags & ~CW_ZERO_TAIL;
    f->fast = 0; /* re-armed below by cwi_safe_call, which resumes elsewhere */
    /* chunks are small: keep the whole copy's cache policy, not the chunk's */
    if (!(hints & (CW_DST_NOREUSE | CW_DST_REUSE | CW_PERSIST)) && n >= cwi_info.nt_threshold)
        hints |= CW_DST_NOREUSE;

    size_t off = 0, lim = n;
    for (;;) {
        size_t p = page_start_offset((uintptr_t)d, (uintptr_t)s, f->fault_addr, lim);
        if (p == 0)
            break;
        if (armed_op(f, copy_op, d, s, p, hints) == 0) {
            off = p;
            break;
        }
        lim = p;
    }
    while (off < n) {
        size_t len = min3(n - off, to_page_end((uintptr_t)(s + off)),
                          to_page_end((uintptr_t)(d + off)));
        if (armed_op(f, copy_op, d + off, s + off, len, hints) != 0)
            break;
        off += len;
    }

    /* Zero only after a source fault; an unknown address (general-protection
     * fault) is tried too: if it was the destination, the first store faults
     * and nothing is written. f still describes the chunk that faulted. */
    if ((flags & CW_ZERO_TAIL) && off < n && f->fault_addr - f->dst >= f->n)
        zero_tail(f, d, off, n, hints);
    /* streaming stores cut short by the fault, and any flushes, complete */
    cwi_sfence();
#if !SAFE_TRAMPOLINE
    errno = f->caller_errno;
#endif
    return n - off;
}

static void frame_init(struct safe_frame *f, void *dst, const void *src, size_t n,
                       unsigned flags)
{
    f->prev = cwi_safe_tls.armed;
    f->dst = (uintptr_t)dst;
    f->src = (uintptr_t)src;
    f->n = n;
    f->flags = flags;
    f->fast = 0;
#if !SAFE_TRAMPOLINE
    f->caller_errno = errno;
#endif
}

/* Any flags, any size: the hinted copy engine. */
__attribute__((noinline)) static size_t copy_safe_hinted(void *dst, const void *src, size_t n,
                                                         unsigned flags)
{
    if (!cwi_hints_valid(flags & ~CW_ZERO_TAIL) || n > CWI_MAX_COPY) {
        errno = EINVAL;
        return n;
    }
    if (n == 0)
        return 0;
    if (dst == NULL)
        return n;
    /* without the handlers a fault would kill the process: copy nothing */
    if (cw_safe_init() != 0)
        return n;

    struct safe_frame f;
    frame_init(&f, dst, src, n, flags);
    /* NULL is a source that cannot be read, like any unmapped one: nothing
     * is copied, and CW_ZERO_TAIL zeroes the destination as far as it is
     * writable, as after a fault at the source's first byte */
    if (src == NULL) {
        if (flags & CW_ZERO_TAIL) {
            zero_tail(&f, dst, 0, n, flags & ~CW_ZERO_TAIL);
            cwi_sfence();
        }
        return n;
    }
    if (armed(&f, copy_op, flags & ~CW_ZERO_TAIL) == 0)
        return 0;
    return cwi_safe_recover(&f);
}

#if SAFE_REGS
/* Where a claimed fast-path fault resumes, called as if by cw_copy_safe's
 * caller: the slow path, armed the general way. */
size_t cwi_safe_regs_recover(void *dst, const void *src, size_t n, unsigned flags,
                             uintptr_t fault_addr)
{
    struct safe_frame f;
    frame_init(&f, dst, src, n, flags);
    f.fault_addr = fault_addr;
    return cwi_safe_recover(&f);
}
#endif

size_t cw_copy_safe(void *dst, const void *src, size_t n, unsigned flags)
{
    /* The common call (no hints, below the streaming threshold) goes
     * straight to the temporal kernel, as cw_memcpy does: the budget is a
     * few nanoseconds per call. Until the handlers are installed the limits
     * read 0, and the general path installs them. */
    if (__builtin_expect((flags & ~CW_ZERO_TAIL) == 0 && dst != NULL && src != NULL, 1)) {
#if SAFE_REGS
        /* no frame, nothing stored: the copy's registers are its armour;
         * over a page, the row's forward safe kernel where its temporal one
         * may walk backward */
        if (__builtin_expect(
                n - 1 < atomic_load_explicit(&cwi_safe_regs_page_below, memory_order_acquire),
                1)) {
            const struct cwi_impl *row =
                atomic_load_explicit(&cwi_active_row, memory_order_acquire);
            return cwi_safe_enter(dst, src, n, (flags & CW_ZERO_TAIL) != 0, row->copy_safe);
        }
        if (n - 1 < atomic_load_explicit(&cwi_safe_regs_below, memory_order_acquire)) {
            const struct cwi_impl *row =
                atomic_load_explicit(&cwi_active_row, memory_order_acquire);
            cwi_safe_fn kernel = row->copy_safe;
            if (__builtin_expect(may_store_backward(dst, src, n, 0), 0))
                kernel = forward_safe_kernel(row);
            return cwi_safe_enter(dst, src, n, (flags & CW_ZERO_TAIL) != 0, kernel);
        }
#endif
        if (n - 1 < atomic_load_explicit(&cwi_safe_fast_below, memory_order_acquire)) {
#if SAFE_TRAMPOLINE
            /* nested in another copy armed on this thread (from a signal
             * handler): the general path, which keeps the chain of frames */
            if (__builtin_expect(cwi_safe_tls.armed == NULL, 1)) {
                const struct cwi_impl *row =
                    atomic_load_explicit(&cwi_active_row, memory_order_acquire);
                return cwi_safe_fast(dst, src, n,
                                     SAFE_TAG_FAST | (flags & CW_ZERO_TAIL ? SAFE_TAG_ZERO : 0),
                                     fast_kernel(row, dst, src, n));
            }
#else
            struct safe_frame f;
            frame_init(&f, dst, src, n, flags);
            if (__builtin_expect(armed(&f, NULL, 0) == 0, 1))
                return 0;
            return cwi_safe_recover(&f);
#endif
        }
    }
    return copy_safe_hinted(dst, src, n, flags);
}
