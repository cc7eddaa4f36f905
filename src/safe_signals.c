/* SPDX-License-Identifier: MIT */
/* cw_copy_safe's signal plumbing: SIGSEGV/SIGBUS handlers installed once
 * and chained to the ones the program had, and what a handler that leaves
 * without sigreturn must put back (docs/SAFE.md, "The signal-handler
 * contract"). The handler itself, which tells cachewise's faults from the
 * others, is cwi_safe_on_fault in src/safe_fault.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <ucontext.h>
#include <unistd.h>

#include "safe_internal.h"

static struct sigaction g_old_segv, g_old_bus; /* written once, before g_ready */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static atomic_int g_ready;
static int g_init_errno;

uintptr_t cwi_safe_page = 4096;
_Atomic size_t cwi_safe_fast_below;
_Atomic size_t cwi_safe_regs_below;
_Atomic size_t cwi_safe_regs_page_below;

/* Valgrind's RUNNING_ON_VALGRIND client request: a no-op sequence on a real
 * CPU (the rotations add up to 128 bits, xchg rbx,rbx changes nothing),
 * which valgrind recognises and answers in rdx (request 0x1001, arguments
 * pointed at by rax; docs of valgrind.h). */
static int running_on_valgrind(void)
{
#if defined(__x86_64__)
    volatile unsigned long request[6] = {0x1001, 0, 0, 0, 0, 0};
    unsigned long answer = 0, scratch = 0;
    __asm__ volatile("rolq $3, %%rdi\n\trolq $13, %%rdi\n\t"
                     "rolq $61, %%rdi\n\trolq $51, %%rdi\n\t"
                     "xchgq %%rbx, %%rbx"
                     : "+d"(answer), "+D"(scratch)
                     : "a"(&request[0])
                     : "cc", "memory");
    return answer != 0;
#else
    return 0;
#endif
}

/* Jumping out of a handler skips sigreturn, so put back by hand what the
 * kernel changed for the handler: the signal mask (a program handler that
 * calls cw_safe_handle_fault may run with SIGSEGV blocked, and a later fault
 * with SIGSEGV blocked kills the process) and the floating-point control
 * state (x86-64: the SSE and x87 control words, which the handler starts
 * with at their defaults; aarch64: FPCR and FPSR), so that the program's
 * rounding/flush-to-zero modes survive the copy. */
void cwi_safe_restore_state(int sig, void *ucontext)
{
    sigset_t m;
    sigemptyset(&m);
    if (ucontext == NULL) {
        sigaddset(&m, sig);
        pthread_sigmask(SIG_UNBLOCK, &m, NULL);
        return;
    }
    ucontext_t *uc = ucontext;
    /* Member by member: the kernel frame holds only 64 mask bits where
     * glibc's sigset_t is 1024. sigaddset refuses glibc's internal signals
     * (errno is put back by the caller); pthread_sigmask keeps those anyway. */
    for (int s = 1; s <= 64; s++)
        if (sigismember(&uc->uc_sigmask, s) == 1)
            sigaddset(&m, s);
    pthread_sigmask(SIG_SETMASK, &m, NULL);
#if defined(__x86_64__)
    if (uc->uc_mcontext.fpregs != NULL) {
        unsigned int mxcsr = uc->uc_mcontext.fpregs->mxcsr;
        unsigned short fcw = uc->uc_mcontext.fpregs->cwd;
        __asm__ volatile("ldmxcsr %0" : : "m"(mxcsr));
        __asm__ volatile("fldcw %0" : : "m"(fcw));
    }
#elif defined(__aarch64__) && defined(__linux__)
    /* The floating-point control and status registers, from the frame's
     * first record, the FPSIMD one (struct fpsimd_context of
     * <asm/sigcontext.h>: magic, size, fpsr, fpcr): the handler may have
     * changed the rounding or flush-to-zero mode. */
    const unsigned char *rec = (const unsigned char *)uc->uc_mcontext.__reserved;
    uint32_t head[4];
    for (unsigned i = 0; i < sizeof head; i++)
        ((unsigned char *)head)[i] = rec[i];
    if (head[0] == 0x46508001u) { /* FPSIMD_MAGIC */
        uint64_t fpsr = head[2], fpcr = head[3];
        __asm__ volatile("msr fpsr, %0" : : "r"(fpsr));
        __asm__ volatile("msr fpcr, %0" : : "r"(fpcr));
    }
#endif
}

/* Hand a fault that is not ours to whoever had the signal before, as the
 * kernel would have: the old handler with its own mask and flags, or the
 * default action (re-executing the faulting instruction, so a crash is still
 * a crash with the right signal and core dump). */
void cwi_safe_chain(int sig, siginfo_t *si, void *uc)
{
    const struct sigaction *old = sig == SIGBUS ? &g_old_bus : &g_old_segv;
    int has_info = (old->sa_flags & SA_SIGINFO) != 0;
    void (*plain)(int) = old->sa_handler;

    if ((has_info && old->sa_sigaction == NULL) ||
        (!has_info && (plain == SIG_DFL || plain == SIG_IGN))) {
        if (!has_info && plain == SIG_IGN && si->si_code <= 0)
            return; /* an ignored kill(): stays ignored */
        /* a real fault is never ignorable (Linux forces the default) */
        struct sigaction dfl;
        sigemptyset(&dfl.sa_mask);
        dfl.sa_flags = 0;
        dfl.sa_handler = SIG_DFL;
        sigaction(sig, &dfl, NULL);
        if (si->si_code <= 0)
            raise(sig); /* nothing re-executes after a kill() */
        return;
    }

    sigset_t block, before;
    pthread_sigmask(SIG_BLOCK, &old->sa_mask, &before);
    if (!(old->sa_flags & SA_NODEFER)) {
        sigemptyset(&block);
        sigaddset(&block, sig);
        pthread_sigmask(SIG_BLOCK, &block, NULL);
    }
    if (has_info)
        old->sa_sigaction(sig, si, uc);
    else
        plain(sig);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
}

static void install_once(void)
{
    long p = sysconf(_SC_PAGESIZE);
    if (p > 0 && ((unsigned long)p & ((unsigned long)p - 1)) == 0)
        cwi_safe_page = (uintptr_t)p;

    /* Read the old actions before replacing them: the handler may run on
     * another thread the instant sigaction() installs it, and must find
     * them already stored. */
    if (sigaction(SIGSEGV, NULL, &g_old_segv) != 0 || sigaction(SIGBUS, NULL, &g_old_bus) != 0) {
        g_init_errno = errno;
        return;
    }
    struct sigaction sa;
    sigemptyset(&sa.sa_mask);
    /* NODEFER and an empty mask: the handler runs with the interrupted
     * code's mask, which chain() builds the old handler's mask on and which
     * stays right when the sigsetjmp path jumps out without sigreturn.
     * ONSTACK: a program that sets up sigaltstack does so to survive stack
     * overflows; keep that working. */
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sa.sa_sigaction = cwi_safe_on_fault;
    if (sigaction(SIGSEGV, &sa, &g_old_segv) != 0) {
        g_init_errno = errno;
        return;
    }
    if (sigaction(SIGBUS, &sa, &g_old_bus) != 0) {
        g_init_errno = errno;
        sigaction(SIGSEGV, &g_old_segv, NULL);
        return;
    }
    atomic_store_explicit(&g_ready, 1, memory_order_release);
    cwi_init(); /* normally done at load already */
    size_t t = cwi_info.nt_threshold, below = t != 0 ? t - 1 : 0;
    atomic_store_explicit(&cwi_safe_fast_below, below, memory_order_release);
    size_t regs = running_on_valgrind() ? 0 : below;
    atomic_store_explicit(&cwi_safe_regs_page_below, regs < 4096 ? regs : 4096,
                          memory_order_release);
    atomic_store_explicit(&cwi_safe_regs_below, regs, memory_order_release);
}

int cw_safe_init(void)
{
    if (atomic_load_explicit(&g_ready, memory_order_acquire))
        return 0;
    pthread_once(&g_once, install_once);
    if (!atomic_load_explicit(&g_ready, memory_order_acquire)) {
        errno = g_init_errno;
        return -1;
    }
    return 0;
}
