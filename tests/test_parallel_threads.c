/* SPDX-License-Identifier: MIT */
/* cw_copy_parallel's pool under pressure, meant for ThreadSanitizer too.
 *
 *   test_parallel_threads concurrent  four threads copy at once with random
 *                                     sizes, hints and thread counts (each
 *                                     call gets the pool or copies alone),
 *                                     a fifth splits copies over threads of
 *                                     its own with cw_copy_part
 *   test_parallel_threads fork        fork() while another thread keeps the
 *                                     pool busy: each child starts with no
 *                                     pool and copies with a new one
 *   test_parallel_threads spawn_fail  thread creation fails after one
 *                                     worker, then always: the copies are
 *                                     right, the failure is in
 *                                     cw_get_info()->parallel_note, and it
 *                                     is not retried
 *   test_parallel_threads nproc       the same for real: a child (as nobody,
 *                                     when run as root) under RLIMIT_NPROC 0
 *
 * Run with CACHEWISE_PARALLEL_MIN=0, so that the pool takes every size;
 * linked with the static library, whose hooks (src/parallel.c) give the
 * pool 8 CPUs whatever the machine has and let thread creation fail. */
#define _GNU_SOURCE
#include <grp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "test_util.h"

extern unsigned (*cwi_parallel_cpus)(void);
extern int (*cwi_parallel_spawn)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
                                 void *);

static unsigned eight_cpus(void)
{
    return 8;
}

#define MAXN ((size_t)512 << 10)

struct bufs {
    unsigned char *s, *d;
};

static int bufs_alloc(struct bufs *b, size_t n)
{
    b->s = malloc(n + 64);
    b->d = malloc(n + 64);
    return b->s != NULL && b->d != NULL ? 0 : -1;
}

static void bufs_free(struct bufs *b)
{
    free(b->s);
    free(b->d);
}

static const unsigned g_hints[] = {0, CW_DST_NOREUSE, CW_DST_REUSE, CW_SRC_NOREUSE, CW_PERSIST};

/* One checked copy of n bytes at offsets so/do through cw_copy_parallel. */
static int checked_copy(struct bufs *b, size_t n, size_t so, size_t dof, unsigned hints,
                        unsigned nthreads, unsigned char salt)
{
    for (size_t i = 0; i < n; i++)
        b->s[so + i] = (unsigned char)(i * 31 + salt);
    memset(b->d, 0, n + 64);
    if (cw_copy_parallel(b->d + dof, b->s + so, n, hints, nthreads) != b->d + dof)
        return 0;
    return memcmp(b->d + dof, b->s + so, n) == 0;
}

/* ---- concurrent ---------------------------------------------------------- */

static atomic_long g_bad;

static void *caller(void *arg)
{
    uint64_t x = 0x9e3779b97f4a7c15ull * ((uint64_t)(intptr_t)arg + 1);
    struct bufs b;
    if (bufs_alloc(&b, MAXN) != 0) {
        atomic_fetch_add(&g_bad, 1);
        return NULL;
    }
    for (int r = 0; r < 40; r++) {
        size_t n = (size_t)(cwt_xorshift64(&x) % MAXN);
        unsigned hints = g_hints[cwt_xorshift64(&x) % (sizeof g_hints / sizeof g_hints[0])];
        unsigned t = (unsigned)(cwt_xorshift64(&x) % 17);
        if (!checked_copy(&b, n, cwt_xorshift64(&x) % 64, cwt_xorshift64(&x) % 64, hints, t,
                          (unsigned char)r)) {
            atomic_fetch_add(&g_bad, 1);
            printf("FAIL: concurrent copy n=%zu hints %#x threads %u\n", n, hints, t);
        }
    }
    bufs_free(&b);
    return NULL;
}

struct part_arg {
    unsigned char *d;
    const unsigned char *s;
    size_t n;
    unsigned i, k;
};

static void *part_thread(void *arg)
{
    struct part_arg *a = arg;
    if (cw_copy_part(a->d, a->s, a->n, CW_DST_NOREUSE, a->i, a->k) != a->d)
        atomic_fetch_add(&g_bad, 1);
    return NULL;
}

/* Copies split over threads of its own, as a caller with a pool of its own. */
static void *splitter(void *arg)
{
    (void)arg;
    struct bufs b;
    if (bufs_alloc(&b, MAXN) != 0) {
        atomic_fetch_add(&g_bad, 1);
        return NULL;
    }
    uint64_t x = 12345;
    for (int r = 0; r < 20; r++) {
        size_t n = (size_t)(cwt_xorshift64(&x) % MAXN);
        for (size_t i = 0; i < n; i++)
            b.s[i] = (unsigned char)(i * 7 + (size_t)r);
        enum { K = 3 };
        pthread_t t[K];
        struct part_arg a[K];
        int started[K];
        for (unsigned i = 0; i < K; i++) {
            a[i] = (struct part_arg){b.d + 5, b.s, n, i, K};
            started[i] = pthread_create(&t[i], NULL, part_thread, &a[i]) == 0;
            if (!started[i])
                part_thread(&a[i]);
        }
        for (unsigned i = 0; i < K; i++)
            if (started[i])
                pthread_join(t[i], NULL);
        if (memcmp(b.d + 5, b.s, n) != 0) {
            atomic_fetch_add(&g_bad, 1);
            printf("FAIL: cw_copy_part over %d threads, n=%zu\n", K, n);
        }
    }
    bufs_free(&b);
    return NULL;
}

static void concurrent(void)
{
    enum { CALLERS = 4 };
    pthread_t t[CALLERS + 1];
    for (intptr_t i = 0; i < CALLERS; i++)
        if (pthread_create(&t[i], NULL, caller, (void *)i) != 0) {
            cwt_fail("pthread_create");
            return;
        }
    if (pthread_create(&t[CALLERS], NULL, splitter, NULL) != 0) {
        cwt_fail("pthread_create");
        return;
    }
    for (int i = 0; i <= CALLERS; i++)
        pthread_join(t[i], NULL);
    CWT_CHECK(atomic_load(&g_bad) == 0, "%ld concurrent copies wrong", atomic_load(&g_bad));
    int started = cw_get_info()->parallel_threads_started;
    CWT_CHECK(started >= 1 && started <= 7, "%d worker threads started, want 1..7 (8 CPUs)",
              started);
    printf("concurrent: %d worker threads started (%s)\n", started,
           cw_get_info()->parallel_note ? cw_get_info()->parallel_note : "NULL");
}

/* ---- fork ---------------------------------------------------------------- */

static atomic_int g_stop;

static void *busy(void *arg)
{
    (void)arg;
    struct bufs b;
    if (bufs_alloc(&b, MAXN) != 0) {
        atomic_fetch_add(&g_bad, 1);
        return NULL;
    }
    for (unsigned r = 0; !atomic_load(&g_stop); r++)
        if (!checked_copy(&b, MAXN - r % 4096, r % 64, r % 61, r % 2 ? CW_DST_NOREUSE : 0, 4,
                          (unsigned char)r)) {
            atomic_fetch_add(&g_bad, 1);
            printf("FAIL: copy in the parent, round %u\n", r);
        }
    bufs_free(&b);
    return NULL;
}

static int child_copies(void)
{
    const struct cw_info *in = cw_get_info();
    if (in->parallel_threads_started != 0 || in->parallel_note != NULL) {
        printf("FAIL: child: the parent's pool is still recorded (%d threads, %s)\n",
               in->parallel_threads_started, in->parallel_note);
        return 1;
    }
    struct bufs b;
    if (bufs_alloc(&b, MAXN) != 0)
        return 1;
    for (int r = 0; r < 3; r++)
        if (!checked_copy(&b, MAXN - (size_t)r * 100, (size_t)r, 3, 0, 4, (unsigned char)r)) {
            printf("FAIL: child copy %d\n", r);
            return 1;
        }
    if (in->parallel_threads_started != 3) {
        printf("FAIL: child: %d worker threads, want 3 (%s)\n", in->parallel_threads_started,
               in->parallel_note ? in->parallel_note : "NULL");
        return 1;
    }
    bufs_free(&b);
    return 0;
}

static void forks(void)
{
    pthread_t t;
    struct bufs warm;
    /* the parent's pool exists before the first fork */
    if (bufs_alloc(&warm, MAXN) != 0 || !checked_copy(&warm, MAXN, 0, 0, 0, 4, 1)) {
        cwt_fail("the parent's first copy");
        return;
    }
    bufs_free(&warm);
    if (pthread_create(&t, NULL, busy, NULL) != 0) {
        cwt_fail("pthread_create");
        return;
    }
    for (int f = 0; f < 8; f++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) {
            cwt_fail("fork: %s", strerror(errno));
            break;
        }
        if (pid == 0)
            _exit(child_copies());
        int st;
        CWT_CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
                  "fork %d: the child failed (status %#x)", f, st);
    }
    atomic_store(&g_stop, 1);
    pthread_join(t, NULL);
    CWT_CHECK(atomic_load(&g_bad) == 0, "%ld copies in the parent wrong", atomic_load(&g_bad));
}

/* ---- thread creation failures ------------------------------------------------ */

static atomic_int g_spawn_calls, g_spawn_ok;

static int spawn_limited(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
    atomic_fetch_add(&g_spawn_calls, 1);
    if (atomic_fetch_sub(&g_spawn_ok, 1) <= 0)
        return EAGAIN;
    return pthread_create(t, a, fn, arg);
}

/* A copy with a failing creation: right, and the failure on record. */
static int check_failed_pool(const char *what, unsigned nthreads, int want_started)
{
    struct bufs b;
    int ok = 1;
    if (bufs_alloc(&b, MAXN) != 0)
        return 0;
    for (int r = 0; r < 3; r++)
        if (!checked_copy(&b, MAXN - (size_t)r * 333, (size_t)r, 7, r == 1 ? CW_PERSIST : 0,
                          nthreads, (unsigned char)r)) {
            printf("FAIL: %s: copy %d wrong\n", what, r);
            ok = 0;
        }
    bufs_free(&b);
    const struct cw_info *in = cw_get_info();
    printf("%s: %d worker threads, note: %s\n", what, in->parallel_threads_started,
           in->parallel_note ? in->parallel_note : "NULL");
    if (in->parallel_threads_started != want_started) {
        printf("FAIL: %s: %d worker threads started, want %d\n", what,
               in->parallel_threads_started, want_started);
        ok = 0;
    }
    if (in->parallel_note == NULL || strstr(in->parallel_note, "failed") == NULL ||
        strstr(in->parallel_note, "Resource temporarily unavailable") == NULL) {
        printf("FAIL: %s: the failure is not in parallel_note\n", what);
        ok = 0;
    }
    return ok;
}

static void spawn_fail(void)
{
    cwi_parallel_spawn = spawn_limited;
    atomic_store(&g_spawn_ok, 1);
    CWT_CHECK(check_failed_pool("one worker, then failures", 6, 1), "spawn_fail");
    CWT_CHECK(atomic_load(&g_spawn_calls) == 2, "%d creations tried, want 2 (one failure, "
              "never retried)", atomic_load(&g_spawn_calls));
    /* every creation fails, in a child (which starts with no pool) */
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        atomic_store(&g_spawn_ok, 0);
        _exit(check_failed_pool("child, every creation failing", 8, 0) ? 0 : 1);
    }
    int st;
    CWT_CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "spawn_fail: the child failed");
}

static void *nothing(void *arg)
{
    return arg;
}

static int nproc_child(void)
{
    if (geteuid() == 0) {
        /* RLIMIT_NPROC binds no root process: become nobody */
        if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0) {
            printf("SKIP: cannot become nobody: %s\n", strerror(errno));
            return CWT_SKIP;
        }
    }
    struct rlimit rl = {0, 0};
    if (setrlimit(RLIMIT_NPROC, &rl) != 0) {
        printf("SKIP: setrlimit(RLIMIT_NPROC, 0): %s\n", strerror(errno));
        return CWT_SKIP;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, nothing, NULL) == 0) {
        pthread_join(t, NULL);
        printf("SKIP: RLIMIT_NPROC is not enforced here\n");
        return CWT_SKIP;
    }
    return check_failed_pool("RLIMIT_NPROC 0", 4, 0) ? 0 : 1;
}

static void nproc(int *skipped)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        _exit(nproc_child());
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) {
        cwt_fail("nproc: the child did not exit normally");
        return;
    }
    if (WEXITSTATUS(st) == CWT_SKIP)
        *skipped = 1;
    else
        CWT_CHECK(WEXITSTATUS(st) == 0, "nproc: the child failed");
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "concurrent";
    setvbuf(stdout, NULL, _IOLBF, 0);
    cwi_parallel_cpus = eight_cpus;
    const char *min = getenv("CACHEWISE_PARALLEL_MIN");
    if (min == NULL || strcmp(min, "0") != 0) {
        printf("test_parallel_threads: run with CACHEWISE_PARALLEL_MIN=0\n");
        return 2;
    }
    int skipped = 0;
    if (strcmp(mode, "concurrent") == 0)
        concurrent();
    else if (strcmp(mode, "fork") == 0)
        forks();
    else if (strcmp(mode, "spawn_fail") == 0)
        spawn_fail();
    else if (strcmp(mode, "nproc") == 0)
        nproc(&skipped);
    else {
        fprintf(stderr, "usage: test_parallel_threads concurrent|fork|spawn_fail|nproc\n");
        return 2;
    }
    if (skipped && cwt_failures == 0)
        return CWT_SKIP;
    return cwt_finish(mode);
}
