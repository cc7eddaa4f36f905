/* SPDX-License-Identifier: MIT */
/* Shared by src/safe.c, src/safe_fault.c, src/safe_signals.c and the safe
 * instances of the copy kernels (src/safe_generic.c, src/x86/safe_<isa>.c):
 * cw_copy_safe's signal plumbing, its forward copies and its sanitizer-build
 * kernels (the armed copy itself: src/safe_frame.h). Each defines
 * _GNU_SOURCE before including it. */
#ifndef CW_SAFE_INTERNAL_H
#define CW_SAFE_INTERNAL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* cachewise's SIGSEGV/SIGBUS handler (src/safe_fault.c) */
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
/* min(cwi_safe_regs_below, 4096): copies of at most a page never need the
 * forward copy (cw_copy_safe's may_store_backward), so they take the
 * frameless path after this one compare and nothing else */
CWI_HIDDEN extern _Atomic size_t cwi_safe_regs_page_below;

/* After a fault cw_copy_safe leaves every byte of dst from offset n - ret
 * on as it was (docs/SAFE.md), as the kernel's copy_to_user does: an armed
 * copy stores in address order. The x86 temporal kernel (cwl_k_copy,
 * src/x86/copy_ladder.h) walks backward when dst sits less than four
 * vectors above src modulo 4 KiB, to dodge 4K-aliasing stalls, and across a
 * hole in either buffer that writes what lies above the hole before the
 * fault. A hole with bytes of the copy above it takes more than a page, so
 * such copies (cw_copy_safe's may_store_backward) take a forward copy
 * instead, defined in each src/x86/safe_<isa>.c with that ISA's
 * copy_ladder.h: cwl_k_copy's choices in cwl_k_copy's order, the rep movsb
 * window included, but never backward (on AMD EPYC family 26 model 2,
 * forward ran as fast as backward at 8-16 KiB in L1). Two instances: a
 * plain function for the armed paths, and where the build has safe kernels
 * a second safe kernel in cw_safe_text for the frameless fast path (section
 * code is entered only through cwi_safe_enter, whose registers the handler
 * reads). */
#if defined(__x86_64__)
CWI_HIDDEN void *cwi_sse2_copy_forward(void *restrict dst, const void *restrict src, size_t n);
CWI_HIDDEN void *cwi_avx2_copy_forward(void *restrict dst, const void *restrict src, size_t n);
CWI_HIDDEN void *cwi_avx512_copy_forward(void *restrict dst, const void *restrict src, size_t n);
#if defined(CWI_SAFE_KERNELS)
CWI_HIDDEN size_t cwi_sse2fwd_copy_safe(void *restrict dst, const void *restrict src, size_t n);
CWI_HIDDEN size_t cwi_avx2fwd_copy_safe(void *restrict dst, const void *restrict src, size_t n);
CWI_HIDDEN size_t cwi_avx512fwd_copy_safe(void *restrict dst, const void *restrict src,
                                          size_t n);
#endif
/* in src/x86/safe_<isa>.c, after the ISA file: the plain instance (and the
 * body the safe kernel below inlines) */
#define CWI_SAFE_FORWARD_DEF(NAME)                                                               \
    static inline __attribute__((always_inline)) void cwl_forward(cwl_u8 *d, const cwl_u8 *s,   \
                                                                  size_t n)                      \
    {                                                                                            \
        if (n <= 2 * CWL_W)                                                                      \
            cwl_upto2(d, s, n);                                                                  \
        else if (n <= 8 * CWL_W)                                                                 \
            cwl_upto8(d, s, n);                                                                  \
        else if (n <= 16 * CWL_W && n > 12 * CWL_W)                                              \
            cwl_ht8(d, s, n);                                                                    \
        else if (cwl_rep_movsb_wins(d, s, n))                                                    \
            cwl_rep_movsb_align_dst(d, s, n);                                                    \
        else                                                                                     \
            cwl_fwd(d, s, n, NULL);                                                              \
    }                                                                                            \
    void *NAME(void *restrict dst, const void *restrict src, size_t n)                           \
    {                                                                                            \
        cwl_forward(dst, src, n);                                                                \
        return dst;                                                                              \
    }
/* the safe kernel: like CWL_SAFE_KERNEL_DEF's, returns the bytes not
 * copied (0) */
#define CWI_SAFE_FORWARD_KERNEL_DEF(NAME)                                                        \
    CWI_SAFE_SECTION size_t NAME(void *restrict dst, const void *restrict src, size_t n)        \
    {                                                                                            \
        cwl_forward(dst, src, n);                                                                \
        return 0;                                                                                \
    }
#endif

/* The safe instances also emit their section kernel (CWL_SAFE_KERNEL_DEF,
 * generic.c's) where the build has no section (clang, sanitizers): an
 * ordinary function there, which nothing calls. */
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
 * a twin of its row holding the kernels an armed copy calls (copy, which on
 * x86 is the forward copy above; copy_nt, copy_nt_srcnta, copy_srcnta,
 * persist; the other fields are NULL). The rest of the library stays
 * instrumented. */
#if defined(CWI_SAFE_UNINSTRUMENTED)
CWI_HIDDEN extern const struct cwi_impl cwi_safe_twin_generic;
#if defined(__x86_64__)
CWI_HIDDEN extern const struct cwi_impl cwi_safe_twin_sse2;
CWI_HIDDEN extern const struct cwi_impl cwi_safe_twin_avx2;
CWI_HIDDEN extern const struct cwi_impl cwi_safe_twin_avx512;
/* in src/x86/safe_<isa>.c, after the ISA file: its copy_ladder.h kernels */
#define CWI_SAFE_TWIN(NAME, ROW, FORWARD)                                                        \
    const struct cwi_impl NAME = {.name = (ROW), .copy = (FORWARD), .copy_nt = cwl_k_copy_nt,    \
                                  .copy_nt_srcnta = cwl_k_copy_nt_srcnta,                        \
                                  .copy_srcnta = cwl_k_copy_srcnta, .persist = cwl_k_persist};
#endif
#endif

#endif /* CW_SAFE_INTERNAL_H */
