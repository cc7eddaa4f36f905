/* SPDX-License-Identifier: MIT */
/* An armed copy as cw_copy_safe's two sides see it: src/safe.c arms the
 * copies and redoes a faulted one on the slow path, src/safe_fault.c (what
 * the signal handler runs) claims their faults. Here: which mechanism the
 * build arms with, the frame of an armed copy, the thread's block that
 * publishes it, and the entry points of the trampolines
 * (src/x86/safe_trampoline.S, which knows the layouts checked below).
 * src/safe.c's top comment describes the mechanism. Each includer defines
 * _GNU_SOURCE first. */
#ifndef CW_SAFE_FRAME_H
#define CW_SAFE_FRAME_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include "safe_internal.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SAFE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                       \
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
                   offsetof(struct safe_frame, src) == 24 &&
                   offsetof(struct safe_frame, n) == 32 &&
                   offsetof(struct safe_frame, flags) == 40 &&
                   offsetof(struct safe_frame, fast) == 44 &&
                   (!SAFE_TRAMPOLINE || sizeof(struct safe_frame) == 56),
               "the trampolines' frame layout");
_Static_assert(offsetof(struct cwi_impl, copy) == 16, "the trampoline's cwi_impl offset");

/* This thread's armed copy. initial-exec: reading it in the handler is one
 * %fs-relative load, never a __tls_get_addr call (which may allocate: not
 * async-signal-safe); 16 bytes, so dlopen's small static-TLS reserve is
 * enough. Not static: the trampolines refer to it by name. Defined in
 * src/safe_fault.c.
 * armed: NULL, or the frame of the innermost armed copy. cwi_safe_fast
 * stores only what the handler cannot know otherwise, the fewest stores a
 * store-bound copy can pay: src and n in its frame, then, in one 16-byte
 * store, dst here and its frame pointer tagged (SAFE_TAG_FAST,
 * SAFE_TAG_ZERO) in armed. prev (always NULL: a nested call takes the
 * general path), flags and dst are put in the frame by claim()
 * (src/safe_fault.c). */
struct safe_tls {
    struct safe_frame *volatile armed;
    volatile uintptr_t fast_dst;
};
_Static_assert(offsetof(struct safe_tls, armed) == 0 && offsetof(struct safe_tls, fast_dst) == 8,
               "the trampolines' thread block layout");
CWI_HIDDEN extern __thread struct safe_tls cwi_safe_tls
    __attribute__((tls_model("initial-exec"), aligned(16)));

/* frames are 8-byte aligned (uintptr_t members), so two low bits are free */
enum { SAFE_TAG_FAST = 1, SAFE_TAG_ZERO = 2, SAFE_TAG_MASK = 3 };
_Static_assert(_Alignof(struct safe_frame) > SAFE_TAG_MASK, "the armed pointer's tag bits");

#if SAFE_TRAMPOLINE
/* In src/x86/safe_trampoline.S. cwi_safe_call arms f (any copy), calls
 * op(f->dst, f->src, f->n, hints) (op NULL: the active row's temporal
 * copy), disarms, and returns 0, or 1 after a fault (resumed at
 * cwi_safe_landing). cwi_safe_fast is cw_copy_safe's common case, calling
 * kernel(dst, src, n); after a fault it returns cwi_safe_recover() (resumed
 * at cwi_safe_fast_landing). cwi_safe_resume is cw_safe_handle_fault's way
 * out of the program's handler without sigreturn. */
CWI_HIDDEN int cwi_safe_call(struct safe_frame *f, safe_op op, unsigned hints);
CWI_HIDDEN void cwi_safe_landing(void);
CWI_HIDDEN size_t cwi_safe_fast(void *dst, const void *src, size_t n, uintptr_t tag,
                                cwi_copy_fn kernel);
CWI_HIDDEN void cwi_safe_fast_landing(void);
CWI_HIDDEN __attribute__((noreturn)) void cwi_safe_resume(const uintptr_t regs[13]);
#endif

#if SAFE_REGS
/* The fast path with safe kernels: cw_copy_safe parks the copy in
 * xmm14/xmm15 (cwi_safe_enter) and jumps into the active row's safe kernel,
 * which never touches those registers nor the callee-saved ones and lives
 * in section cw_safe_text. A fault whose instruction lies in that section
 * is therefore such a copy, on this thread, and the registers say which:
 * nothing was stored to arm it, so the copy costs what cw_memcpy costs, and
 * signal handlers that copy in turn need no chain of frames. The handler
 * resumes it as a call of cwi_safe_regs_recover (src/safe.c) by
 * cw_copy_safe's caller. */
CWI_HIDDEN size_t cwi_safe_enter(void *dst, const void *src, size_t n, uintptr_t zero_tail,
                                 cwi_safe_fn kernel);
CWI_HIDDEN size_t cwi_safe_regs_recover(void *dst, const void *src, size_t n, unsigned flags,
                                        uintptr_t fault_addr);
#endif

#endif /* CW_SAFE_FRAME_H */
