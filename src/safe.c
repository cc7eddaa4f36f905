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
 * leaves every byte from the first inaccessible one on untouched. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <ucontext.h>
#include <unistd.h>

#include "safe_internal.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SAFE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define SAFE_SANITIZED 1
#endif
#endif
/* __CET__: a shadow stack would refuse the trampoline's redirected return */
#if defined(__x86_64__) && defined(__linux__) && !defined(SAFE_SANITIZED) && !defined(__CET__)
#define SAFE_TRAMPOLINE 1
#else
#define SAFE_TRAMPOLINE 0
#endif

/* The fast path without a frame (cwi_safe_enter): needs the trampoline
 * build and kernels compiled with the registers it uses reserved. */
#if SAFE_TRAMPOLINE && defined(CWI_SAFE_KERNELS)
#define SAFE_REGS 1
#else
#define SAFE_REGS 0
#endif

typedef void (*safe_op)(void *restrict d, const void *restrict s, size_t n, unsigned hints);

/* One armed copy, on the stack (the fast trampoline's own frame, or
 * cw_copy_safe's); the thread-local pointer below makes it visible to the
 * signal handler. dst/src/n are the operation running now (the whole copy,
 * a chunk of it, or a zeroing with src == dst): the handler claims only
 * faults inside them. The trampolines know the offsets. */
struct safe_frame {
    uintptr_t rsp;           /* trampoline's stack pointer, to resume at (not fast) */
    struct safe_frame *prev; /* outer copy on this thread (signal handlers nest) */
    uintptr_t dst, src;
    size_t n;
    unsigned flags; /* the call's */
    unsigned fast;  /* armed by cwi_safe_fast: resume at its landing, %rsp = the frame */
    volatile uintptr_t fault_addr; /* written by the handler */
#if !SAFE_TRAMPOLINE
    int caller_errno; /* put back after a fault: TSan's handler wrapper sets errno */
    sigjmp_buf env;
#endif
};
_Static_assert(offsetof(struct safe_frame, rsp) == 0 && offsetof(struct safe_frame, prev) == 8 &&
                   offsetof(struct safe_frame, dst) == 16 &&
                   offsetof(struct safe_frame, src) == 24 && offsetof(struct safe_frame, n) == 32 &&
                   offsetof(struct safe_frame, flags) == 40 &&
                   offsetof(struct safe_frame, fast) == 44 &&
                   (!SAFE_TRAMPOLINE || sizeof(struct safe_frame) == 56),
               "the trampolines' frame layout");
_Static_assert(offsetof(struct cwi_impl, copy) == 16, "the trampoline's cwi_impl offset");

/* The slow path after a fault (below); not static: the trampoline calls it. */
CWI_HIDDEN size_t cwi_safe_recover(struct safe_frame *f);

/* This thread's armed copy. initial-exec: reading it in the handler is one
 * %fs-relative load, never a __tls_get_addr call (which may allocate: not
 * async-signal-safe); 16 bytes, so dlopen's small static-TLS reserve is
 * enough. Not static: the trampolines refer to it by name.
 * armed: NULL, or the frame of the innermost armed copy. cwi_safe_fast
 * stores only what the handler cannot know otherwise, the fewest stores a
 * store-bound copy can pay: src and n in its frame, then, in one 16-byte
 * store, dst here and its frame pointer tagged (SAFE_TAG_FAST,
 * SAFE_TAG_ZERO) in armed. prev (always NULL: a nested call takes the
 * general path), flags and dst are put in the frame by claim(). */
struct safe_tls {
    struct safe_frame *volatile armed;
    volatile uintptr_t fast_dst;
};
_Static_assert(offsetof(struct safe_tls, armed) == 0 && offsetof(struct safe_tls, fast_dst) == 8,
               "the trampolines' thread block layout");
CWI_HIDDEN __thread struct safe_tls cwi_safe_tls
    __attribute__((tls_model("initial-exec"), aligned(16)));

/* frames are 8-byte aligned (uintptr_t members), so two low bits are free */
enum { SAFE_TAG_FAST = 1, SAFE_TAG_ZERO = 2, SAFE_TAG_MASK = 3 };
_Static_assert(_Alignof(struct safe_frame) > SAFE_TAG_MASK, "the armed pointer's tag bits");

/* ---- fault recognition (async-signal-safe) ----------------------------- */

#if defined(__x86_64__)
/* A general-protection fault (an access crossing into the non-canonical
 * hole) reports SI_KERNEL and no address. */
static int reaches_hole(uintptr_t base, size_t n)
{
    uintptr_t last = base + (n - 1);
    return last < base || last > (uintptr_t)0x00007fffffffffffULL;
}
#endif

static int fault_is_ours(const struct safe_frame *f, const siginfo_t *si)
{
    /* si_code <= 0: sent by kill()/sigqueue()/tgkill(), and si_addr is not
     * an address at all (it overlays si_pid/si_uid). */
    if (si->si_code <= 0)
        return 0;
    uintptr_t a = (uintptr_t)si->si_addr;
    /* unsigned distance: also right for buffers that wrap the address space */
    if (a - f->src < f->n || a - f->dst < f->n)
        return 1;
#if defined(__x86_64__)
    if (si->si_code == SI_KERNEL && a == 0 &&
        (reaches_hole(f->src, f->n) || reaches_hole(f->dst, f->n)))
        return 1;
#endif
    return 0;
}

#if SAFE_TRAMPOLINE
/* In src/x86/safe_trampoline.S. cwi_safe_call arms f (any copy), calls
 * op(f->dst, f->src, f->n, hints) (op NULL: the active row's temporal
 * copy), disarms, and returns 0, or 1 after a fault (resumed at
 * cwi_safe_landing). cwi_safe_fast is cw_copy_safe's common case, calling
 * kernel(dst, src, n); after a fault it returns cwi_safe_recover() (resumed
 * at cwi_safe_fast_landing). */
CWI_HIDDEN int cwi_safe_call(struct safe_frame *f, safe_op op, unsigned hints);
CWI_HIDDEN void cwi_safe_landing(void);
CWI_HIDDEN size_t cwi_safe_fast(void *dst, const void *src, size_t n, uintptr_t tag,
                                cwi_copy_fn kernel);
CWI_HIDDEN void cwi_safe_fast_landing(void);
CWI_HIDDEN __attribute__((noreturn)) void cwi_safe_resume(const uintptr_t regs[13]);

/* Where the handler resumes a claimed fault: the fast path's frame sits at
 * its own stack pointer. */
static uintptr_t landing_for(const struct safe_frame *f)
{
    return f->fast ? (uintptr_t)cwi_safe_fast_landing : (uintptr_t)cwi_safe_landing;
}

static uintptr_t resume_sp(const struct safe_frame *f)
{
    return f->fast ? (uintptr_t)f : f->rsp;
}
#endif

#if SAFE_REGS
/* ---- the fast path with safe kernels ------------------------------------
 * cw_copy_safe parks the copy in xmm14/xmm15 (cwi_safe_enter) and jumps
 * into the active row's safe kernel, which never touches those registers
 * nor the callee-saved ones and lives in section cw_safe_text. A fault
 * whose instruction lies in that section is therefore such a copy, on this
 * thread, and the registers say which: nothing was stored to arm it, so
 * the copy costs what cw_memcpy costs, and signal handlers that copy in
 * turn need no chain of frames. */
CWI_HIDDEN size_t cwi_safe_enter(void *dst, const void *src, size_t n, uintptr_t zero_tail,
                                 cwi_safe_fn kernel);
CWI_HIDDEN size_t cwi_safe_regs_recover(void *dst, const void *src, size_t n, unsigned flags,
                                        uintptr_t fault_addr);
CWI_HIDDEN extern const char __start_cw_safe_text[], __stop_cw_safe_text[];

/* The registers to resume with: a call of cwi_safe_regs_recover made by
 * cw_copy_safe's caller, at its stack pointer (which points at its return
 * address), with the copy's arguments and the fault address. */
struct regs_claim {
    uintptr_t rsp, rdi, rsi, rdx, rcx, r8;
};

/* 64-bit lane i of a saved xmm register */
static uintptr_t lane(const struct _libc_xmmreg *x, int i)
{
    return (uintptr_t)x->element[2 * i] | (uintptr_t)x->element[2 * i + 1] << 32;
}

static int claim_regs(int sig, const siginfo_t *si, const ucontext_t *uc, struct regs_claim *r)
{
    if (si == NULL || uc == NULL || (sig != SIGSEGV && sig != SIGBUS))
        return 0;
    uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    if (pc - (uintptr_t)__start_cw_safe_text >=
            (uintptr_t)(__stop_cw_safe_text - __start_cw_safe_text) ||
        uc->uc_mcontext.fpregs == NULL)
        return 0;
    const struct _libc_xmmreg *x = uc->uc_mcontext.fpregs->_xmm;
    uintptr_t caller = lane(&x[14], 1);
    struct safe_frame f; /* only what fault_is_ours reads */
    f.dst = lane(&x[15], 0);
    f.src = lane(&x[15], 1);
    f.n = lane(&x[14], 0);
    if (!fault_is_ours(&f, si))
        return 0;
    r->rsp = caller & ~(uintptr_t)1;
    r->rdi = f.dst;
    r->rsi = f.src;
    r->rdx = f.n;
    r->rcx = caller & 1 ? CW_ZERO_TAIL : 0;
    r->r8 = (uintptr_t)si->si_addr;
    return 1;
}

#endif

/* Claims the fault for the copy armed on this thread: records it and
 * disarms (anything faulting from here on is not this copy's). */
static struct safe_frame *claim(int sig, const siginfo_t *si)
{
    uintptr_t armed_ptr = (uintptr_t)cwi_safe_tls.armed;
    struct safe_frame *f = (struct safe_frame *)(armed_ptr & ~(uintptr_t)SAFE_TAG_MASK);
    if (f == NULL || si == NULL || (sig != SIGSEGV && sig != SIGBUS))
        return NULL;
    /* the fast frame's own space: written whether or not the fault is ours */
    if (armed_ptr & SAFE_TAG_FAST)
        f->dst = cwi_safe_tls.fast_dst;
    if (!fault_is_ours(f, si))
        return NULL;
    if (armed_ptr & SAFE_TAG_FAST) {
        f->prev = NULL;
        f->flags = armed_ptr & SAFE_TAG_ZERO ? CW_ZERO_TAIL : 0;
        f->fast = 1;
    }
    f->fault_addr = (uintptr_t)si->si_addr;
    cwi_safe_tls.armed = f->prev;
    return f;
}

int cw_safe_handle_fault(int sig, void *siginfo, void *ucontext)
{
#if SAFE_TRAMPOLINE
    /* the callee-saved registers to resume with are in the context only */
    if (ucontext == NULL)
        return 0;
#endif
#if SAFE_REGS
    struct regs_claim rc;
    if (claim_regs(sig, siginfo, ucontext, &rc)) {
        int saved_errno = errno;
        cwi_safe_restore_state(sig, ucontext);
        errno = saved_errno;
        const greg_t *g = ((const ucontext_t *)ucontext)->uc_mcontext.gregs;
        const uintptr_t regs[13] = {
            rc.rsp, (uintptr_t)cwi_safe_regs_recover, (uintptr_t)g[REG_RBX],
            (uintptr_t)g[REG_RBP], (uintptr_t)g[REG_R12], (uintptr_t)g[REG_R13],
            (uintptr_t)g[REG_R14], (uintptr_t)g[REG_R15], rc.rdi, rc.rsi, rc.rdx, rc.rcx, rc.r8};
        cwi_safe_resume(regs);
    }
#endif
    struct safe_frame *f = claim(sig, siginfo);
    if (f == NULL)
        return 0;
    /* called from the program's own handler: leave it without sigreturn */
    int saved_errno = errno;
    cwi_safe_restore_state(sig, ucontext);
    errno = saved_errno;
#if SAFE_TRAMPOLINE
    /* the landings put back the registers the trampolines saved */
    const greg_t *g = ((const ucontext_t *)ucontext)->uc_mcontext.gregs;
    const uintptr_t regs[13] = {resume_sp(f), landing_for(f),
                                (uintptr_t)g[REG_RBX], (uintptr_t)g[REG_RBP],
                                (uintptr_t)g[REG_R12], (uintptr_t)g[REG_R13],
                                (uintptr_t)g[REG_R14], (uintptr_t)g[REG_R15], 0, 0, 0, 0, 0};
    cwi_safe_resume(regs);
#else
    siglongjmp(f->env, 1);
#endif
}

void cwi_safe_on_fault(int sig, siginfo_t *si, void *uc)
{
    int saved_errno = errno;
#if SAFE_REGS
    struct regs_claim rc;
    if (claim_regs(sig, si, uc, &rc)) {
        /* sigreturn then makes the call: the mask, FPU state and the
         * callee-saved registers come back from the context */
        greg_t *g = ((ucontext_t *)uc)->uc_mcontext.gregs;
        g[REG_RSP] = (greg_t)rc.rsp;
        g[REG_RIP] = (greg_t)(uintptr_t)cwi_safe_regs_recover;
        g[REG_RDI] = (greg_t)rc.rdi;
        g[REG_RSI] = (greg_t)rc.rsi;
        g[REG_RDX] = (greg_t)rc.rdx;
        g[REG_RCX] = (greg_t)rc.rcx;
        g[REG_R8] = (greg_t)rc.r8;
        errno = saved_errno;
        return;
    }
#endif
#if SAFE_TRAMPOLINE
    struct safe_frame *f;
    if (uc != NULL && (f = claim(sig, si)) != NULL) {
        /* resume at the trampoline's exit; sigreturn restores the mask and
         * the FPU state */
        ucontext_t *u = uc;
        u->uc_mcontext.gregs[REG_RSP] = (greg_t)resume_sp(f);
        u->uc_mcontext.gregs[REG_RIP] = (greg_t)landing_for(f);
        errno = saved_errno;
        return;
    }
#endif
    cw_safe_handle_fault(sig, si, uc); /* returns only if not ours */
    cwi_safe_chain(sig, si, uc);
    errno = saved_errno;
}

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
