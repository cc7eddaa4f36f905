/* SPDX-License-Identifier: MIT */
/* Shared by src/safe.c, src/safe_signals.c and the safe instances of the
 * copy kernels (src/safe_generic.c, src/x86/safe_<isa>.c): cw_copy_safe's
 * signal plumbing and its sanitizer-build kernels. Each defines _GNU_SOURCE
 * before including it. */
#ifndef CW_SAFE_INTERNAL_H
#define CW_SAFE_INTERNAL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* cachewise's SIGSEGV/SIGBUS handler (src/safe.c) */
CWI_HIDDEN void cwi_safe_on_fault(int sig, siginfo_t *si, void *uc);
/* hand a fault that is not cachewise's to the handler installed before */
CWI_HIDDEN void cwi_safe_chain(int sig, siginfo_t *si, void *uc);
/* leaving a handler without sigreturn: put back the interrupted signal
 * mask and x87/SSE control words (ucontext NULL: unblock sig) */
CWI_HIDDEN void cwi_safe_restore_state(int sig, void *ucontext);
/* the page size; cw_copy_safe's fast path takes n - 1 < cwi_safe_fast_below
 * (0 < n < the streaming threshold), 0 until the handlers are installed */
CWI_HIDDEN extern uintptr_t cwi_safe_page;
CWI_HIDDEN extern _Atomic size_t cwi_safe_fast_below;
/* the same limit for the frameless fast path (src/safe.c, SAFE_REGS),
 * which needs a signal context carrying the xmm registers it parks the
 * copy in: valgrind's synthesised frames leave them zero, so under valgrind
 * it stays 0 and the trampoline serves every copy */
CWI_HIDDEN extern _Atomic size_t cwi_safe_regs_below;

/* The safe instances also emit their section kernel (CWL_SAFE_KERNEL_DEF,
 * generic.c's) where the build has no section (sanitizers): an ordinary
 * function there, which nothing calls. */
#ifndef CWI_SAFE_SECTION
#define CWI_SAFE_SECTION __attribute__((noinline))
#endif

/* Sanitizer builds (CWI_SAFE_UNINSTRUMENTED, src/CMakeLists.txt): what runs
 * inside an armed copy is built without instrumentation. A sanitizer checks
 * each access against its shadow memory first, and the shadow of an address
 * outside the application's memory (the kernel half, the non-canonical hole,
 * past the last user page) is itself unmapped or non-canonical: that check
 * would fault at an address outside the copy's buffers, which the handler
 * rightly does not claim, and the process would die where the plain build
 * reports the fault. So the safe instances (src/safe_generic.c,
 * src/x86/safe_<isa>.c) are compiled with -fno-sanitize=all and each defines
 * a twin of its row holding the kernels an armed copy calls (copy, copy_nt,
 * copy_nt_srcnta, copy_srcnta, persist; the other fields are NULL). The
 * rest of the library stays instrumented. */
#if defined(CWI_SAFE_UNINSTRUMENTED)
CWI_HIDDEN extern const struct cwi_impl cwi_safe_twin_generic;
#if defined(__x86_64__)
CWI_HIDDEN extern const struct cwi_impl cwi_safe_twin_sse2;
CWI_HIDDEN extern const struct cwi_impl cwi_safe_twin_avx2;
CWI_HIDDEN extern const struct cwi_impl cwi_safe_twin_avx512;
/* in src/x86/safe_<isa>.c, after the ISA file: its copy_ladder.h kernels */
#define CWI_SAFE_TWIN(NAME, ROW)                                                                 \
    const struct cwi_impl NAME = {.name = (ROW), .copy = cwl_k_copy, .copy_nt = cwl_k_copy_nt,   \
                                  .copy_nt_srcnta = cwl_k_copy_nt_srcnta,                        \
                                  .copy_srcnta = cwl_k_copy_srcnta, .persist = cwl_k_persist};
#endif
#endif

#endif /* CW_SAFE_INTERNAL_H */
