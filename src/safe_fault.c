/* SPDX-License-Identifier: MIT */
/* cw_copy_safe's fault side: what its SIGSEGV/SIGBUS handler runs
 * (cwi_safe_on_fault, installed by src/safe_signals.c), and
 * cw_safe_handle_fault for a program's own handler. It tells a fault of a
 * copy armed on this thread from every other one, claims it, and resumes
 * the copy: at a call of the slow path by cw_copy_safe's caller (the
 * frameless fast path), at its trampoline's exit, or at its sigsetjmp.
 * All of it runs in a signal handler and is async-signal-safe. What it
 * shares with the copies, src/safe_frame.h; the mechanism, src/safe.c's
 * top comment. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <ucontext.h>

#include "safe_frame.h"

/* This thread's armed copy (src/safe_frame.h). The attributes again: GCC
 * takes a definition's TLS model from the definition alone. */
CWI_HIDDEN __thread struct safe_tls cwi_safe_tls
    __attribute__((tls_model("initial-exec"), aligned(16)));

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
/* The fast path with safe kernels (src/safe_frame.h): a fault in section
 * cw_safe_text is such a copy, which the registers describe. */
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
