/* SPDX-License-Identifier: MIT */
/* Shared by src/safe.c and src/safe_signals.c only: cw_copy_safe's signal
 * plumbing. Both files define _GNU_SOURCE before including it. */
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

#endif /* CW_SAFE_INTERNAL_H */
