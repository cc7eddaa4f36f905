/* SPDX-License-Identifier: MIT */
/* Copies larger than one core can move (docs/PARALLEL.md).
 *
 * cw_copy_part: slice i of k of one copy, for callers that bring their own
 * threads. The copy's policy (temporal, streaming, persist) is decided for
 * the whole n, then the slice is copied by cwi_copy_hinted with that
 * decision spelled out as hints, so that every slice of a streaming copy
 * streams however small it is, and fences its own stores.
 *
 * cw_copy_parallel: the same slices, copied by the caller and a small pool
 * of worker threads started on first use. One copy owns the pool at a
 * time; a caller that finds it owned copies alone (it never waits for
 * another copy), which is what makes concurrent callers safe. The owner
 * publishes a job under the lock and wakes the workers; the caller and the
 * workers then take slices through one atomic ticket that carries the
 * job's generation, so a worker that wakes late cannot take a slice of a
 * later job with an earlier job's buffers.
 *
 * Compiled for the baseline ISA; nothing here copies a byte itself (the
 * kernels do), and no struct is copied by assignment, which GCC may turn
 * into a call to memcpy even with -fno-builtin. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT, pthread_setname_np, strerrordesc_np */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* ---- slices ---------------------------------------------------------------- */

/* Slice bounds fall on boundaries of the destination's address: lines,
 * so that no two slices store into one cache line (two cores writing
 * halves of a line take turns owning it, and a streaming store of a
 * partial line is an ordinary store); pages once a slice spans a few of
 * them, so that a NUMA-aware caller can place each slice's pages and the
 * kernels' page-sized steps (rep movsb, the prefetchers) see whole pages.
 * 4096 is the smallest page size of every target. */
#define PART_LINE 64u
#define PART_PAGE 4096u
#define PART_PAGE_MIN (4u * PART_PAGE)

/* Offset of the first byte of slice i (0 <= i <= k): i * n / k rounded up
 * to the granule of the destination's address, clamped to n. Monotonic in
 * i, 0 at i = 0 and n at i = k, so the slices tile [0, n) exactly. */
static size_t part_bound(uintptr_t dst, size_t n, unsigned i, unsigned k)
{
    if (i == 0)
        return 0;
    if (i >= k)
        return n;
    size_t q = n / k, r = n % k;
    /* q * i <= n; r * i < k * k < 2^64: neither product overflows */
    size_t off = q * i + (size_t)((uint64_t)r * i / k);
    size_t g = q >= PART_PAGE_MIN ? PART_PAGE : PART_LINE;
    size_t mis = (size_t)(dst & (g - 1));
    size_t b = ((mis + off + g - 1) & ~(size_t)(g - 1)) - mis;
    return b < n ? b : n;
}

/* The whole copy's decision as explicit hints: what cw_copy would do for
 * n bytes (streaming at and above the threshold), so that a slice never
 * decides by its own size. Needs cwi_init() first. */
static unsigned whole_copy_hints(unsigned hints, size_t n)
{
    if (hints & (CW_PERSIST | CW_DST_NOREUSE | CW_DST_REUSE))
        return hints;
    return hints | (n >= cwi_info.nt_threshold ? CW_DST_NOREUSE : CW_DST_REUSE);
}

/* Slice i of k with hints already resolved by whole_copy_hints. */
static void copy_slice(void *dst, const void *src, size_t n, unsigned hints, unsigned i,
                       unsigned k)
{
    size_t lo = part_bound((uintptr_t)dst, n, i, k);
    size_t hi = part_bound((uintptr_t)dst, n, i + 1, k);
    if (hi > lo)
        cwi_copy_hinted((unsigned char *)dst + lo, (const unsigned char *)src + lo, hi - lo,
                        hints);
}

void *cw_copy_part(void *restrict dst, const void *restrict src, size_t n, unsigned hints,
                   unsigned i, unsigned k)
{
    if (!cwi_hints_valid(hints) || k == 0 || i >= k || n > CWI_MAX_COPY) {
        errno = EINVAL;
        return NULL;
    }
    cwi_init();
    copy_slice(dst, src, n, whole_copy_hints(hints, n), i, k);
    return dst;
}

/* ---- the pool -------------------------------------------------------------- */

/* Threads per copy, the caller's included: past a few dozen cores a socket's
 * memory bandwidth is shared out long before, and each thread is a wake-up. */
#define POOL_MAX 64u
/* Slices per participating thread: a thread that starts late (woken late,
 * descheduled) leaves its slices to the others instead of making every
 * other thread wait for a whole share. */
#define SLICES_PER_THREAD 4u
/* The workers' stacks: the kernels use a few hundred bytes; sanitizers
 * want more than that, glibc's default (8 MiB of address space) is waste. */
#define WORKER_STACK ((size_t)256 << 10)

/* Thread creation, a variable so that the tests (linked with the static
 * library, where hidden symbols resolve) can make it fail on demand. */
CWI_HIDDEN extern int (*cwi_parallel_spawn)(pthread_t *, const pthread_attr_t *,
                                            void *(*)(void *), void *);
int (*cwi_parallel_spawn)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
                          void *) = pthread_create;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_wake = PTHREAD_COND_INITIALIZER; /* workers: a job, or quit */
static pthread_cond_t g_done_cv = PTHREAD_COND_INITIALIZER; /* the owner: all slices done */
static atomic_flag g_owned = ATOMIC_FLAG_INIT; /* held by the copy that has the pool */
static pthread_once_t g_atfork_once = PTHREAD_ONCE_INIT;

/* The job, under g_lock: written by the owner before g_gen moves on,
 * read by each worker as it joins. */
static void *g_dst;
static const void *g_src;
static size_t g_n;
static unsigned g_hints, g_k, g_helpers, g_joined;
static unsigned g_gen;  /* bumped once per job */
static int g_quit;      /* the library is being unloaded */
/* (generation << 32) | next slice: taking a slice is one compare-and-swap
 * that fails once the generation is not the taker's */
static _Atomic uint64_t g_ticket;
static atomic_uint g_done; /* slices of the current job finished */

/* Under g_lock. */
static pthread_t g_workers[POOL_MAX - 1];
static unsigned g_nworkers;
static int g_spawn_error; /* the errno of a failed creation; never retried */
static char g_note[200];
static const char g_note_ok[] = "worker threads started as copies needed them";

/* Takes slices of job gen until none is left; the taker of the last one
 * wakes the owner. */
static void take_slices(void *dst, const void *src, size_t n, unsigned hints, unsigned k,
                        unsigned gen)
{
    uint64_t t = atomic_load_explicit(&g_ticket, memory_order_relaxed);
    for (;;) {
        if ((unsigned)(t >> 32) != gen || (unsigned)(t & 0xffffffffu) >= k)
            return;
        if (!atomic_compare_exchange_weak_explicit(&g_ticket, &t, t + 1, memory_order_relaxed,
                                                   memory_order_relaxed))
            continue;
        copy_slice(dst, src, n, hints, (unsigned)(t & 0xffffffffu), k);
        /* release: the slice's bytes (fenced by the slice itself if
         * streamed) before the count the owner reads */
        if (atomic_fetch_add_explicit(&g_done, 1, memory_order_acq_rel) + 1 == k) {
            pthread_mutex_lock(&g_lock);
            pthread_cond_broadcast(&g_done_cv);
            pthread_mutex_unlock(&g_lock);
        }
        t = atomic_load_explicit(&g_ticket, memory_order_relaxed);
    }
}

static void *worker(void *arg)
{
    unsigned seen = (unsigned)(uintptr_t)arg; /* the generation before its first job */
    pthread_setname_np(pthread_self(), "cachewise");
    pthread_mutex_lock(&g_lock);
    for (;;) {
        while (g_gen == seen && !g_quit)
            pthread_cond_wait(&g_wake, &g_lock);
        if (g_quit)
            break;
        seen = g_gen;
        /* a pool larger than this copy asked for: the rest sleep on */
        if (g_joined >= g_helpers)
            continue;
        g_joined++;
        void *dst = g_dst;
        const void *src = g_src;
        size_t n = g_n;
        unsigned hints = g_hints, k = g_k;
        pthread_mutex_unlock(&g_lock);
        take_slices(dst, src, n, hints, k, seen);
        pthread_mutex_lock(&g_lock);
    }
    pthread_mutex_unlock(&g_lock);
    return NULL;
}

/* cw_get_info's fields: written under g_lock, atomically, for readers that
 * do not take it. */
static void publish_info(const char *note)
{
    __atomic_store_n(&cwi_info.parallel_threads_started, (int)g_nworkers, __ATOMIC_RELAXED);
    __atomic_store_n(&cwi_info.parallel_note, note, __ATOMIC_RELEASE);
}

/* Starts workers until there are want, under g_lock. A failure is
 * recorded and never retried: the process is at a limit (RLIMIT_NPROC,
 * memory, a sandbox), and trying again would cost every later copy a
 * failing clone. */
static void grow(unsigned want)
{
    /* Workers take no asynchronous signal (a program's handlers expect
     * its own threads), but the faults a bad buffer raises stay
     * unblocked, so that they reach the program's handler, or kill the
     * process, as they would on the caller's thread. */
    sigset_t block, old;
    sigfillset(&block);
    sigdelset(&block, SIGSEGV);
    sigdelset(&block, SIGBUS);
    sigdelset(&block, SIGFPE);
    sigdelset(&block, SIGILL);
    sigdelset(&block, SIGTRAP);
    sigdelset(&block, SIGSYS);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    pthread_attr_t attr;
    int have_attr = pthread_attr_init(&attr) == 0;
    if (have_attr && pthread_attr_setstacksize(&attr, WORKER_STACK) != 0) {
        pthread_attr_destroy(&attr);
        have_attr = 0;
    }
    while (g_nworkers < want) {
        int e = cwi_parallel_spawn(&g_workers[g_nworkers], have_attr ? &attr : NULL, worker,
                                   (void *)(uintptr_t)g_gen);
        if (e != 0) {
            g_spawn_error = e;
            break;
        }
        g_nworkers++;
    }
    if (have_attr)
        pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (g_spawn_error == 0) {
        publish_info(g_note_ok);
        return;
    }
    const char *why = strerrordesc_np(g_spawn_error);
    snprintf(g_note, sizeof g_note,
             "thread creation failed (%s) after %u of %u worker threads: copies use the "
             "caller's thread and %u workers at most; not retried",
             why != NULL ? why : "unknown error", g_nworkers, want, g_nworkers);
    publish_info(g_note);
}

/* The CPUs the calling thread may run on (its affinity mask), else online. */
static unsigned cpus_allowed(void);
/* A variable for the same reason as cwi_parallel_spawn: the tests run
 * pools of 16 threads on machines (or under taskset) with fewer CPUs. */
CWI_HIDDEN extern unsigned (*cwi_parallel_cpus)(void);
unsigned (*cwi_parallel_cpus)(void) = cpus_allowed;

static unsigned cpus_allowed(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int c = CPU_COUNT(&set);
        if (c > 0)
            return (unsigned)c;
    }
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c > 0 ? (unsigned)c : 1u;
}

/* Threads for a copy of n bytes, the caller's included: 1 below
 * parallel_min; else the request (the policy's for 0), at most POOL_MAX and
 * the caller's CPUs, and at most one per parallel_min / 2 bytes. */
static unsigned threads_for(size_t n, unsigned want)
{
    if (n < CWI_POL(parallel_min) || n == 0)
        return 1;
    if (want == 0)
        want = CWI_POL(parallel_threads) != 0 ? (unsigned)CWI_POL(parallel_threads) : POOL_MAX;
    if (want > POOL_MAX)
        want = POOL_MAX;
    size_t share = CWI_POL(parallel_min) / 2;
    if (share != 0 && n / share < want)
        want = (unsigned)(n / share);
    if (want <= 1)
        return 1;
    unsigned cpus = cwi_parallel_cpus();
    return want < cpus ? want : cpus;
}

/* ---- fork and unload ----------------------------------------------------- */

/* The lock is held across fork(), so the child's copy of the pool's state
 * is consistent; the child has none of the workers, so it starts with no
 * pool, and the lock and the condition variables are set up afresh (their
 * waiters are threads that do not exist there). */
static void atfork_prepare(void)
{
    pthread_mutex_lock(&g_lock);
}

static void atfork_parent(void)
{
    pthread_mutex_unlock(&g_lock);
}

static void atfork_child(void)
{
    pthread_mutex_unlock(&g_lock); /* this thread took it in atfork_prepare */
    pthread_cond_init(&g_wake, NULL);
    pthread_cond_init(&g_done_cv, NULL);
    g_nworkers = 0;
    g_spawn_error = 0;
    g_joined = g_helpers = 0;
    atomic_store_explicit(&g_done, 0, memory_order_relaxed);
    atomic_flag_clear_explicit(&g_owned, memory_order_release);
    __atomic_store_n(&cwi_info.parallel_threads_started, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&cwi_info.parallel_note, (const char *)NULL, __ATOMIC_RELEASE);
}

static void register_atfork(void)
{
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

/* dlclose() of the shared library would unmap the code the workers sleep
 * in: they are stopped and joined first. Not while a copy owns the pool
 * (at exit with another thread mid-copy, the process ends them anyway),
 * and the pool stays owned, so a copy made after this runs alone. */
__attribute__((destructor)) static void pool_stop(void)
{
    if (atomic_flag_test_and_set_explicit(&g_owned, memory_order_acquire))
        return;
    pthread_mutex_lock(&g_lock);
    g_quit = 1;
    pthread_cond_broadcast(&g_wake);
    unsigned n = g_nworkers;
    pthread_mutex_unlock(&g_lock);
    for (unsigned i = 0; i < n; i++)
        pthread_join(g_workers[i], NULL);
    pthread_mutex_lock(&g_lock);
    g_nworkers = 0;
    pthread_mutex_unlock(&g_lock);
}

/* ---- the call ---------------------------------------------------------------- */

/* The copy with the pool owned: t threads wanted, the caller's included. */
static void pool_copy(void *dst, const void *src, size_t n, unsigned hints, unsigned t)
{
    pthread_once(&g_atfork_once, register_atfork);
    pthread_mutex_lock(&g_lock);
    if (g_nworkers < t - 1 && g_spawn_error == 0 && !g_quit)
        grow(t - 1);
    unsigned helpers = g_nworkers < t - 1 ? g_nworkers : t - 1;
    if (helpers == 0) {
        pthread_mutex_unlock(&g_lock);
        cwi_copy_hinted(dst, src, n, hints);
        return;
    }
    unsigned k = (helpers + 1) * SLICES_PER_THREAD;
    hints = whole_copy_hints(hints, n);
    g_dst = dst;
    g_src = src;
    g_n = n;
    g_hints = hints;
    g_k = k;
    g_helpers = helpers;
    g_joined = 0;
    unsigned gen = ++g_gen;
    atomic_store_explicit(&g_done, 0, memory_order_relaxed);
    atomic_store_explicit(&g_ticket, (uint64_t)gen << 32, memory_order_relaxed);
    pthread_cond_broadcast(&g_wake);
    pthread_mutex_unlock(&g_lock);

    take_slices(dst, src, n, hints, k, gen);
    if (atomic_load_explicit(&g_done, memory_order_acquire) < k) {
        pthread_mutex_lock(&g_lock);
        while (atomic_load_explicit(&g_done, memory_order_acquire) < k)
            pthread_cond_wait(&g_done_cv, &g_lock);
        pthread_mutex_unlock(&g_lock);
    }
}

void *cw_copy_parallel(void *restrict dst, const void *restrict src, size_t n, unsigned hints,
                       unsigned nthreads)
{
    if (!cwi_hints_valid(hints) || n > CWI_MAX_COPY) {
        errno = EINVAL;
        return NULL;
    }
    cwi_init();
    unsigned t = threads_for(n, nthreads);
    if (t > 1 && !atomic_flag_test_and_set_explicit(&g_owned, memory_order_acquire)) {
        pool_copy(dst, src, n, hints, t);
        atomic_flag_clear_explicit(&g_owned, memory_order_release);
        return dst;
    }
    /* small, or the pool is another copy's: this thread alone, as cw_copy */
    cwi_copy_hinted(dst, src, n, hints);
    return dst;
}
