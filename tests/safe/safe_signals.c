/* SPDX-License-Identifier: MIT */
/* The signal-handler contract of cw_copy_safe, one mode per process (the
 * handlers are process-wide):
 *   before   the program's SIGSEGV/SIGBUS handlers, installed before
 *            cachewise, still get unrelated faults, with their own mask
 *   after    a program handler installed after cachewise calls
 *            cw_safe_handle_fault first; both keep working
 *   crash    wild accesses outside cw_copy_safe still kill a child process
 *            with the right signal (also when SIG_IGN was set, after raise()
 *            and on stack overflow)
 *   nested   cw_copy_safe inside a signal handler that interrupts another
 *            cw_copy_safe
 *   altstack handlers on a sigaltstack, and a stack overflow caught by the
 *            program's own SA_ONSTACK handler through the chain */
#include "safe_util.h"

#include <fenv.h>
#include <pthread.h>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>

static size_t P;
static unsigned char *g_wild;  /* PROT_NONE page touched outside cw_copy_safe */
static unsigned char *g_trunc; /* shared file mapping, 2 pages, file 1 page */
static int g_fd;
static unsigned char *g_bad; /* 2 pages, the second PROT_NONE: copy source */
static volatile sig_atomic_t g_segv_seen, g_bus_seen, g_mask_ok, g_unexpected;

static void setup_memory(void)
{
    P = page_size();
    g_wild = map_pages(1);
    mprotect(g_wild, P, PROT_NONE);
    g_bad = map_pages(2);
    for (size_t i = 0; i < 2 * P; i++)
        g_bad[i] = pattern(i, 5);
    mprotect(g_bad + P, P, PROT_NONE);
    g_fd = memfd_create("cw_safe_signals", MFD_CLOEXEC);
    if (g_fd < 0 || ftruncate(g_fd, (off_t)(2 * P)) != 0)
        die("memfd");
    g_trunc = mmap(NULL, 2 * P, PROT_READ | PROT_WRITE, MAP_SHARED, g_fd, 0);
    if (g_trunc == MAP_FAILED)
        die("mmap");
    if (ftruncate(g_fd, (off_t)P) != 0)
        die("ftruncate");
}

static int blocked(int sig)
{
    sigset_t cur;
    pthread_sigmask(SIG_BLOCK, NULL, &cur);
    return sigismember(&cur, sig) == 1;
}

/* A copy that faults 100 bytes in, in the source (SIGSEGV or SIGBUS). */
static void check_faulting_copies(const char *when)
{
    unsigned char dst[300];
    memset(dst, CANARY, sizeof dst);
    errno = 777;
    size_t r = cw_copy_safe(dst, g_bad + P - 100, 300, CW_ZERO_TAIL);
    CWT_CHECK(errno == 777, "%s: errno changed to %d", when, errno);
    CWT_CHECK(r == 200, "%s: SIGSEGV copy returned %zu", when, r);
    CWT_CHECK(memcmp(dst, g_bad + P - 100, 100) == 0 && dst[100] == 0 && dst[299] == 0,
              "%s: SIGSEGV copy bytes", when);
    r = cw_copy_safe(dst, g_trunc + P - 100, 300, 0);
    CWT_CHECK(r == 200, "%s: SIGBUS copy returned %zu", when, r);
    CWT_CHECK(!blocked(SIGSEGV) && !blocked(SIGBUS), "%s: fault signals left blocked", when);
}

/* The interrupted code's floating-point modes survive the recovery (the
 * kernel gives a handler the default ones). */
static void check_fp_modes(const char *when)
{
    fesetround(FE_TOWARDZERO);
#if defined(__x86_64__)
    unsigned int csr = _mm_getcsr() | 0x8040; /* and flush-to-zero, denormals-are-zero */
    _mm_setcsr(csr);
#elif defined(__aarch64__)
    uint64_t fpcr, now;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    fpcr |= (uint64_t)3 << 24; /* and flush-to-zero (FZ), default NaN (DN) */
    __asm__ volatile("msr fpcr, %0" : : "r"(fpcr));
#endif
    check_faulting_copies(when);
    CWT_CHECK(fegetround() == FE_TOWARDZERO, "%s: x87 rounding mode lost by the recovery", when);
#if defined(__x86_64__)
    CWT_CHECK(_mm_getcsr() == csr, "%s: MXCSR %#x after the recovery, expected %#x", when,
              _mm_getcsr(), csr);
    _mm_setcsr(csr & ~0x8040u);
#elif defined(__aarch64__)
    __asm__ volatile("mrs %0, fpcr" : "=r"(now));
    CWT_CHECK(now == fpcr, "%s: FPCR %#llx after the recovery, expected %#llx", when,
              (unsigned long long)now, (unsigned long long)fpcr);
    fpcr &= ~((uint64_t)3 << 24);
    __asm__ volatile("msr fpcr, %0" : : "r"(fpcr));
#endif
    fesetround(FE_TONEAREST);
}

#if defined(__x86_64__) && !defined(SAFE_ASAN) && !defined(SAFE_TSAN)
#define CHECK_REGISTERS 1
/* cw_copy_safe with magic values in every callee-saved register; stores
 * what the registers hold afterwards in out[0..5] and returns the result.
 * A fault recovery must give the caller its registers back like a return. */
size_t regs_call(void *dst, const void *src, size_t n, uint64_t *out, unsigned flags);
__asm__(".text\n"
        ".globl regs_call\n"
        "regs_call:\n"
        "  push %rbx\n  push %rbp\n  push %r12\n  push %r13\n  push %r14\n  push %r15\n"
        "  push %rcx\n"
        "  mov %r8d, %ecx\n"
        "  movabs $0x1111111111111111, %rbx\n"
        "  movabs $0x2222222222222222, %rbp\n"
        "  movabs $0x3333333333333333, %r12\n"
        "  movabs $0x4444444444444444, %r13\n"
        "  movabs $0x5555555555555555, %r14\n"
        "  movabs $0x6666666666666666, %r15\n"
        "  call cw_copy_safe\n"
        "  pop %rcx\n"
        "  mov %rbx, (%rcx)\n  mov %rbp, 8(%rcx)\n  mov %r12, 16(%rcx)\n"
        "  mov %r13, 24(%rcx)\n  mov %r14, 32(%rcx)\n  mov %r15, 40(%rcx)\n"
        "  pop %r15\n  pop %r14\n  pop %r13\n  pop %r12\n  pop %rbp\n  pop %rbx\n"
        "  ret\n");
#define N_REGS 6
#elif defined(__aarch64__) && !defined(SAFE_ASAN) && !defined(SAFE_TSAN)
#define CHECK_REGISTERS 1
/* The same on aarch64: x19-x28 and d8-d15 hold regs_magic[0..17] across
 * cw_copy_safe (whose recovery is a siglongjmp there); out[0..17] receives
 * what they hold afterwards. */
#define N_REGS 18
uint64_t regs_magic[N_REGS];
size_t regs_call(void *dst, const void *src, size_t n, uint64_t *out, unsigned flags);
__asm__(".text\n"
        ".globl regs_call\n"
        ".type regs_call, %function\n"
        "regs_call:\n"
        "  stp x29, x30, [sp, #-176]!\n"
        "  mov x29, sp\n"
        "  stp x19, x20, [sp, #16]\n  stp x21, x22, [sp, #32]\n  stp x23, x24, [sp, #48]\n"
        "  stp x25, x26, [sp, #64]\n  stp x27, x28, [sp, #80]\n"
        "  stp d8, d9, [sp, #96]\n  stp d10, d11, [sp, #112]\n  stp d12, d13, [sp, #128]\n"
        "  stp d14, d15, [sp, #144]\n"
        "  str x3, [sp, #160]\n"
        "  adrp x9, regs_magic\n"
        "  add x9, x9, :lo12:regs_magic\n"
        "  ldp x19, x20, [x9]\n  ldp x21, x22, [x9, #16]\n  ldp x23, x24, [x9, #32]\n"
        "  ldp x25, x26, [x9, #48]\n  ldp x27, x28, [x9, #64]\n"
        "  ldp d8, d9, [x9, #80]\n  ldp d10, d11, [x9, #96]\n  ldp d12, d13, [x9, #112]\n"
        "  ldp d14, d15, [x9, #128]\n"
        "  mov w3, w4\n"
        "  bl cw_copy_safe\n"
        "  ldr x3, [sp, #160]\n"
        "  stp x19, x20, [x3]\n  stp x21, x22, [x3, #16]\n  stp x23, x24, [x3, #32]\n"
        "  stp x25, x26, [x3, #48]\n  stp x27, x28, [x3, #64]\n"
        "  stp d8, d9, [x3, #80]\n  stp d10, d11, [x3, #96]\n  stp d12, d13, [x3, #112]\n"
        "  stp d14, d15, [x3, #128]\n"
        "  ldp x19, x20, [sp, #16]\n  ldp x21, x22, [sp, #32]\n  ldp x23, x24, [sp, #48]\n"
        "  ldp x25, x26, [sp, #64]\n  ldp x27, x28, [sp, #80]\n"
        "  ldp d8, d9, [sp, #96]\n  ldp d10, d11, [sp, #112]\n  ldp d12, d13, [sp, #128]\n"
        "  ldp d14, d15, [sp, #144]\n"
        "  ldp x29, x30, [sp], #176\n"
        "  ret\n"
        ".size regs_call, .-regs_call\n");
#endif

#if defined(CHECK_REGISTERS)

/* Every runnable implementation, every size class (the fault stops the
 * kernel inside its small-size blocks, its loop, rep movsb, the streaming
 * loop), every path of cw_copy_safe (the fast one with flags 0 and
 * CW_ZERO_TAIL, the general one with hints). The fast path saves no
 * registers where the kernels are built never to touch them: this is what
 * proves they don't. */
static void check_registers(const char *when)
{
    const unsigned flags[] = {0, CW_ZERO_TAIL, CW_DST_NOREUSE, CW_PERSIST | CW_ZERO_TAIL};
    const size_t sizes[] = {40, 300, 5000, 70000, 300000, 20u << 20};
    const size_t most = 20u << 20, pages = most / P + 1;
    unsigned char *src = map_pages(pages + 1);
    mprotect(src + pages * P, P, PROT_NONE);
    unsigned char *dst = map_pages(pages);
    const char *initial = cw_get_info()->impl;
#if defined(__aarch64__)
    for (int reg = 0; reg < N_REGS; reg++)
        regs_magic[reg] = 0x1111111111111111ull * (uint64_t)(reg + 1);
#endif
    for (const char *const *impl = cw_impl_list(); *impl != NULL; impl++) {
        if (cw_impl_select(*impl) != 0)
            continue; /* not runnable on this CPU */
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            size_t n = sizes[z], k = n / 3 * 2 + 1; /* readable source bytes */
            for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
                uint64_t out[N_REGS] = {0};
                size_t r = regs_call(dst, src + pages * P - k, n, out, flags[i]);
                CWT_CHECK(r == n - k, "%s: %s n %zu flags %#x returned %zu", when, *impl, n,
                          flags[i], r);
                for (int reg = 0; reg < N_REGS; reg++)
                    CWT_CHECK(out[reg] == 0x1111111111111111ull * (uint64_t)(reg + 1),
                              "%s: %s n %zu flags %#x: callee-saved register %d is %#llx after "
                              "the recovery",
                              when, *impl, n, flags[i], reg, (unsigned long long)out[reg]);
            }
        }
    }
    cw_impl_select(initial);
    munmap(src, (pages + 1) * P);
    munmap(dst, pages * P);
}
#else
static void check_registers(const char *when)
{
    (void)when;
}
#endif

static void wild_write(void)
{
    *(volatile unsigned char *)g_wild = 1;
}

static unsigned char wild_bus_read(void)
{
    return *(volatile unsigned char *)(g_trunc + P + 10);
}

/* ---- before: the program's handlers come first ------------------------ */

static void prog_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    /* as the kernel would run it: SIGSEGV blocked (no SA_NODEFER) and the
     * sa_mask (SIGUSR2) blocked too */
    g_mask_ok = blocked(SIGSEGV) && blocked(SIGUSR2);
    if ((unsigned char *)si->si_addr != g_wild) {
        g_unexpected = 1;
        _exit(3);
    }
    g_segv_seen++;
    mprotect(g_wild, P, PROT_READ | PROT_WRITE); /* the access then succeeds */
}

static void prog_bus_plain(int sig)
{
    (void)sig;
    g_bus_seen++;
    /* grow the file back so the faulting read succeeds when it restarts */
    if (ftruncate(g_fd, (off_t)(2 * P)) != 0)
        _exit(4);
}

static int mode_before(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = prog_segv;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGUSR2);
    sigaction(SIGSEGV, &sa, NULL);
    signal(SIGBUS, prog_bus_plain);

    CWT_CHECK(cw_safe_init() == 0 && cw_safe_init() == 0, "cw_safe_init");
    struct sigaction now;
    sigaction(SIGSEGV, NULL, &now);
    CWT_CHECK(now.sa_sigaction != prog_segv, "cachewise handler not installed");

    check_faulting_copies("before, first");
    check_fp_modes("before");
    check_registers("before");
    CWT_CHECK(g_segv_seen == 0 && g_bus_seen == 0, "program handler saw a cachewise fault");

    wild_write();
    CWT_CHECK(g_segv_seen == 1 && g_mask_ok, "program SIGSEGV handler: seen %d, mask ok %d",
              (int)g_segv_seen, (int)g_mask_ok);
    CWT_CHECK(!blocked(SIGSEGV) && !blocked(SIGUSR2), "mask not restored after chained handler");
    CWT_CHECK(*g_wild == 1, "the wild write did not happen after the handler fixed the page");

    unsigned char v = wild_bus_read();
    CWT_CHECK(g_bus_seen == 1 && v == 0, "program SIGBUS handler: seen %d", (int)g_bus_seen);
    raise(SIGBUS); /* a sent signal, not a fault: chained the same way */
    CWT_CHECK(g_bus_seen == 2, "raise(SIGBUS) not chained");

    if (ftruncate(g_fd, (off_t)P) != 0)
        die("ftruncate");
    check_faulting_copies("before, after chaining");
    CWT_CHECK(g_segv_seen == 1 && g_bus_seen == 2 && !g_unexpected, "stray program handler call");
    return cwt_finish("safe_signals before");
}

/* ---- after: the program's handler replaces cachewise's ---------------- */

static void prog_after(int sig, siginfo_t *si, void *uc)
{
    if (cw_safe_handle_fault(sig, si, uc) != 0)
        _exit(5); /* it either jumps away or returns 0 */
    if (sig == SIGSEGV && (unsigned char *)si->si_addr == g_wild) {
        g_segv_seen++;
        mprotect(g_wild, P, PROT_READ | PROT_WRITE);
        return;
    }
    if (sig == SIGBUS) {
        g_bus_seen++;
        if (ftruncate(g_fd, (off_t)(2 * P)) != 0)
            _exit(4);
        return;
    }
    _exit(3);
}

static int mode_after(void)
{
    CWT_CHECK(cw_safe_init() == 0, "cw_safe_init");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = prog_after;
    sa.sa_flags = SA_SIGINFO; /* no SA_NODEFER: SIGSEGV is blocked inside */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);

    /* several in a row: a signal left blocked by the first recovery would
     * make the next fault fatal */
    for (int i = 0; i < 5; i++)
        check_faulting_copies("after");

    check_fp_modes("after");
    check_registers("after");

    wild_write();
    CWT_CHECK(g_segv_seen == 1, "program handler did not get the wild fault");
    unsigned char v = wild_bus_read();
    CWT_CHECK(g_bus_seen == 1 && v == 0, "program handler did not get the SIGBUS");

    siginfo_t fake;
    memset(&fake, 0, sizeof fake);
    fake.si_code = SEGV_MAPERR;
    CWT_CHECK(cw_safe_handle_fault(SIGSEGV, &fake, NULL) == 0, "fault outside any copy claimed");
    CWT_CHECK(cw_safe_handle_fault(SIGUSR1, &fake, NULL) == 0, "other signal claimed");
    CWT_CHECK(cw_safe_handle_fault(SIGSEGV, NULL, NULL) == 0, "NULL siginfo claimed");

    if (ftruncate(g_fd, (off_t)P) != 0)
        die("ftruncate");
    check_faulting_copies("after, at the end");
    return cwt_finish("safe_signals after");
}

/* ---- crash: real faults outside cw_copy_safe stay fatal ---------------- */

static volatile int g_depth_limit = 1 << 30; /* far beyond any stack */

static void deep(volatile unsigned char *p, int depth)
{
    volatile unsigned char pad[512];
    pad[0] = (unsigned char)depth;
    if (p != NULL)
        *p = 1;
    if (depth < g_depth_limit)
        deep(pad, depth + 1);
    pad[1] = 0; /* not a tail call */
}

static void on_altstack(void)
{
    static unsigned char stack[1 << 16];
    stack_t ss = {.ss_sp = stack, .ss_size = sizeof stack, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) != 0)
        die("sigaltstack");
}

static void prog_overflow(int sig)
{
    (void)sig;
    _exit(42);
}

/* Runs fn in a child; returns its wait status. */
static int in_child(void (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        alarm(20); /* a fault that re-executes forever ends as SIGALRM */
        fn();
        _exit(0);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid)
        die("waitpid");
    return st;
}

static void c_wild(void)
{
    cw_safe_init();
    wild_write();
}
static void c_bus(void)
{
    cw_safe_init();
    wild_bus_read();
}
static void c_raise(void)
{
    cw_safe_init();
    raise(SIGSEGV);
}
static void c_ignored(void)
{
    signal(SIGSEGV, SIG_IGN);
    cw_safe_init();
    wild_write();
}
static void c_ignored_raise(void)
{
    signal(SIGBUS, SIG_IGN);
    cw_safe_init();
    raise(SIGBUS); /* stays ignored: the child exits 0 */
}
static void c_after_recovery(void)
{
    check_faulting_copies("child");
    wild_write();
}
static void c_same_page_after(void)
{
    check_faulting_copies("child");
    /* the page the last copy survived is no longer protected afterwards */
    (void)*(volatile unsigned char *)(g_trunc + P);
}
static void c_finished_copy_buffer(void)
{
    /* the program's handler must get it (exit 42), not a stale recovery */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = prog_overflow;
    sigaction(SIGSEGV, &sa, NULL);
    unsigned char *page = map_pages(1);
    unsigned char src[64] = {1};
    cw_copy_safe(page, src, sizeof src, 0); /* no fault */
    mprotect(page, P, PROT_READ);
    page[10] = 1; /* a fault in the finished copy's destination is not its */
}
static volatile uintptr_t g_near_null = 8;
static void c_null(void)
{
    cw_safe_init();
    *(volatile int *)g_near_null = 1;
}
static void c_overflow(void)
{
    on_altstack();
    cw_safe_init();
    deep(NULL, 0);
}
static void c_overflow_caught(void)
{
    on_altstack();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = prog_overflow;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGSEGV, &sa, NULL);
    cw_safe_init();
    deep(NULL, 0);
}

static int sanitized(void)
{
#if defined(SAFE_ASAN) || defined(SAFE_TSAN)
    return 1;
#else
    return 0;
#endif
}

static int mode_crash(void)
{
    struct {
        const char *name;
        void (*fn)(void);
        int sig; /* 0: must exit with code `code` */
        int code;
    } cases[] = {
        {"wild write", c_wild, SIGSEGV, 0},
        {"read past end of file", c_bus, SIGBUS, 0},
        {"raise(SIGSEGV)", c_raise, SIGSEGV, 0},
        {"SIG_IGN then fault", c_ignored, SIGSEGV, 0},
        {"SIG_IGN then raise", c_ignored_raise, 0, 0},
        {"wild write after recoveries", c_after_recovery, SIGSEGV, 0},
        {"same bad page after the copy", c_same_page_after, SIGBUS, 0},
        {"finished copy's buffer", c_finished_copy_buffer, 0, 42},
        {"near-NULL write", c_null, SIGSEGV, 0},
        {"stack overflow", c_overflow, SIGSEGV, 0},
        {"stack overflow, program handler", c_overflow_caught, 0, 42},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].fn == c_overflow || cases[i].fn == c_overflow_caught) {
            if (sanitized()) {
                printf("  %s: skipped under a sanitizer\n", cases[i].name);
                continue;
            }
        }
        int st = in_child(cases[i].fn);
        if (cases[i].sig != 0)
            CWT_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == cases[i].sig,
                      "%s: status %#x, expected death by signal %d", cases[i].name, st,
                      cases[i].sig);
        else
            CWT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == cases[i].code,
                      "%s: status %#x, expected exit %d", cases[i].name, st, cases[i].code);
        printf("  %s: status %#x\n", cases[i].name, st);
    }
    return cwt_finish("safe_signals crash");
}

/* ---- nested: a handler's copy interrupts another copy ------------------ */

static volatile sig_atomic_t g_ticks, g_tick_errors;

static void on_tick(int sig)
{
    (void)sig;
    int saved = errno;
    unsigned char d[200];
    if (cw_copy_safe(d, g_bad + P - 50, 200, CW_ZERO_TAIL) != 150 || d[49] != g_bad[P - 1] ||
        d[50] != 0 || d[199] != 0)
        g_tick_errors++;
    g_ticks++;
    errno = saved;
}

static int mode_nested(void)
{
#if defined(SAFE_ASAN)
    /* ASan's siglongjmp hook reads /proc/self/maps through stdio and malloc:
     * a handler interrupting it can deadlock */
    printf("SKIP: the recovery path is not async-signal-safe under ASan\n");
    return CWT_SKIP;
#endif
#if defined(SAFE_TSAN)
    /* TSan defers asynchronous handlers and runs them with every signal
     * blocked: a fault inside one kills the process before any handler */
    printf("SKIP: TSan blocks SIGSEGV while it runs deferred signal handlers\n");
    return CWT_SKIP;
#endif
    CWT_CHECK(cw_safe_init() == 0, "cw_safe_init"); /* before any handler may copy */
    size_t big = 4u << 20;
    unsigned char *src = map_pages(big / P + 1), *dst = map_pages(big / P + 1);
    for (size_t i = 0; i < big; i += 64)
        src[i] = pattern(i, 11);
    mprotect(src + big, P, PROT_NONE);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_tick;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval tv = {{0, 300}, {0, 300}};
    setitimer(ITIMER_REAL, &tv, NULL);

    int wrong = 0;
    for (int it = 0; it < 150; it++) {
        size_t off = (size_t)it * 64;
        if (cw_copy_safe(dst, src + off, big, it & 1 ? CW_DST_NOREUSE : 0) != off ||
            dst[0] != src[off] || dst[big - off - 64] != src[big - 64])
            wrong++;
    }
    /* below the streaming threshold, flags 0 or CW_ZERO_TAIL: the outer
     * copy takes the fast path, whose armed frame the handler's copy must
     * chain to and put back */
    size_t small = cw_get_info()->nt_threshold / 2;
    small = (small < big ? small : big) & ~(size_t)(P - 1);
    for (int it = 0; small >= P && it < 1500; it++) {
        size_t off = (size_t)(it % 64) * 64;
        const unsigned char *s = src + big - small + off;
        if (cw_copy_safe(dst, s, small, it & 1 ? CW_ZERO_TAIL : 0) != off || dst[0] != s[0] ||
            dst[small - off - 64] != s[small - off - 64] || ((it & 1) && dst[small - 1] != 0))
            wrong++;
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    CWT_CHECK(wrong == 0, "%d interrupted copies wrong", wrong);
    CWT_CHECK(g_tick_errors == 0, "%d copies inside the handler wrong", (int)g_tick_errors);
    printf("  %d handler copies\n", (int)g_ticks);
    CWT_CHECK(g_ticks > 0, "the timer never fired");
    return cwt_finish("safe_signals nested");
}

/* ---- altstack ----------------------------------------------------------- */

static void *altstack_thread(void *arg)
{
    (void)arg;
    static unsigned char stack[1 << 16];
    stack_t ss = {.ss_sp = stack, .ss_size = sizeof stack, .ss_flags = 0};
    sigaltstack(&ss, NULL);
    for (int i = 0; i < 100; i++)
        check_faulting_copies("altstack thread");
    stack_t off = {.ss_flags = SS_DISABLE};
    sigaltstack(&off, NULL); /* the stack is ours, not the thread library's */
    return NULL;
}

static int mode_altstack(void)
{
    on_altstack();
    for (int i = 0; i < 100; i++)
        check_faulting_copies("altstack");
    pthread_t t;
    pthread_create(&t, NULL, altstack_thread, NULL);
    pthread_join(t, NULL);
    if (!sanitized()) {
        int st = in_child(c_overflow_caught);
        CWT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 42, "overflow not caught by program: %#x",
                  st);
    }
    return cwt_finish("safe_signals altstack");
}

int main(int argc, char **argv)
{
    setup_memory();
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "before") == 0)
        return mode_before();
    if (strcmp(mode, "after") == 0)
        return mode_after();
    if (strcmp(mode, "crash") == 0)
        return mode_crash();
    if (strcmp(mode, "nested") == 0)
        return mode_nested();
    if (strcmp(mode, "altstack") == 0)
        return mode_altstack();
    fprintf(stderr, "usage: %s before|after|crash|nested|altstack\n", argv[0]);
    return 2;
}
