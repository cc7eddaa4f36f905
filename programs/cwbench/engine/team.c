/* SPDX-License-Identifier: MIT */
/* Split copies as engine routines (team.h): cw_copy_parallel at a fixed
 * thread count, and the ceiling it is compared with, a copy split by hand
 * over helper threads. A helper sleeps on its own semaphore between copies,
 * so an idle team costs no CPU time and a copy of t threads wakes only the
 * t - 1 helpers it needs; the t threads then meet at a barrier of t, so
 * that no slice starts before the last thread has woken (the wake-up is
 * timed, as the pool's own wake-up is in cw_copy_parallel's rows), and
 * meet again at the end, which orders every slice's stores before the
 * caller returns. */
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cachewise.h"
#include "base/format.h"
#include "engine/routines.h"
#include "engine/team.h"

unsigned cwb_affinity_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c > 0 ? (unsigned)c : 1u;
}

/* parallel_min as the library reports it (its documented default when the
 * setting cannot be read). */
static size_t parallel_min(void)
{
    const struct cw_info *in = cw_get_info();
    for (int i = 0; i < in->n_settings; i++) {
        size_t v;
        if (strcmp(in->settings[i].name, "parallel_min") == 0 &&
            cwb_parse_size(in->settings[i].value, &v) == 0)
            return v;
    }
    return (size_t)4 << 20;
}

unsigned cwb_pool_threads(size_t n, unsigned t)
{
    size_t min = parallel_min();
    if (n < min || n == 0)
        return 1;
    if (t > CWB_TEAM_MAX)
        t = CWB_TEAM_MAX;
    if (min / 2 != 0 && n / (min / 2) < t)
        t = (unsigned)(n / (min / 2));
    unsigned cpus = cwb_affinity_cpus();
    if (t > cpus)
        t = cpus;
    return t > 0 ? t : 1;
}

/* ---- slices: the bounds cw_copy_part documents (include/cachewise.h) ---- */

static size_t slice_bound(uintptr_t dst, size_t n, unsigned i, unsigned k)
{
    if (i == 0)
        return 0;
    if (i >= k)
        return n;
    size_t q = n / k, r = n % k;
    size_t off = q * i + (size_t)((uint64_t)r * i / k);
    size_t g = q >= 16384 ? 4096 : 64;
    size_t mis = (size_t)(dst & (g - 1));
    size_t b = ((mis + off + g - 1) & ~(size_t)(g - 1)) - mis;
    return b < n ? b : n;
}

/* ---- the team ------------------------------------------------------------- */

struct job {
    cwb_copy_fn fn;
    unsigned char *dst;
    const unsigned char *src;
    size_t n;
    unsigned k;
};

static struct {
    unsigned threads;          /* helpers + 1 */
    pthread_t helper[CWB_TEAM_MAX];
    sem_t wake[CWB_TEAM_MAX];
    /* begin[t], end[t]: the barriers of a copy of t threads */
    pthread_barrier_t begin[CWB_TEAM_MAX + 1], end[CWB_TEAM_MAX + 1];
    struct job job;            /* written before the wake-ups, read after */
    int quit;
} team;

static void run_slice(const struct job *j, unsigned i)
{
    size_t lo = slice_bound((uintptr_t)j->dst, j->n, i, j->k);
    size_t hi = slice_bound((uintptr_t)j->dst, j->n, i + 1, j->k);
    if (hi > lo)
        j->fn(j->dst + lo, j->src + lo, hi - lo);
}

static void *helper_main(void *arg)
{
    unsigned i = (unsigned)(uintptr_t)arg;
    for (;;) {
        while (sem_wait(&team.wake[i]) != 0)
            ; /* EINTR */
        if (team.quit)
            return NULL;
        struct job j = team.job;
        pthread_barrier_wait(&team.begin[j.k]);
        run_slice(&j, i);
        pthread_barrier_wait(&team.end[j.k]);
    }
}

int cwb_team_start(unsigned threads)
{
    if (threads > CWB_TEAM_MAX)
        threads = CWB_TEAM_MAX;
    if (threads <= team.threads)
        return 0;
    cwb_team_stop();
    memset(&team, 0, sizeof team);
    for (unsigned t = 2; t <= threads; t++) {
        pthread_barrier_init(&team.begin[t], NULL, t);
        pthread_barrier_init(&team.end[t], NULL, t);
    }
    team.threads = 1;
    for (unsigned i = 1; i < threads; i++) {
        sem_init(&team.wake[i], 0, 0);
        if (pthread_create(&team.helper[i], NULL, helper_main, (void *)(uintptr_t)i) != 0) {
            sem_destroy(&team.wake[i]);
            /* the barriers were made for the full team: stop what started */
            unsigned made = team.threads;
            team.threads = threads;
            team.quit = 1;
            for (unsigned h = 1; h < made; h++)
                sem_post(&team.wake[h]);
            for (unsigned h = 1; h < made; h++) {
                pthread_join(team.helper[h], NULL);
                sem_destroy(&team.wake[h]);
            }
            for (unsigned t = 2; t <= threads; t++) {
                pthread_barrier_destroy(&team.begin[t]);
                pthread_barrier_destroy(&team.end[t]);
            }
            memset(&team, 0, sizeof team);
            return -1;
        }
        team.threads = i + 1;
    }
    return 0;
}

void cwb_team_stop(void)
{
    if (team.threads == 0)
        return;
    team.quit = 1;
    for (unsigned i = 1; i < team.threads; i++)
        sem_post(&team.wake[i]);
    for (unsigned i = 1; i < team.threads; i++) {
        pthread_join(team.helper[i], NULL);
        sem_destroy(&team.wake[i]);
    }
    for (unsigned t = 2; t <= team.threads; t++) {
        pthread_barrier_destroy(&team.begin[t]);
        pthread_barrier_destroy(&team.end[t]);
    }
    memset(&team, 0, sizeof team);
}

/* k slices of fn's copy, slice 0 on this thread; k must not exceed the
 * team (routines of more threads than the team has run on fewer: the
 * subcommands start a team as large as their largest row). */
static void team_copy(cwb_copy_fn fn, void *dst, const void *src, size_t n, unsigned k)
{
    if (k > team.threads)
        k = team.threads;
    struct job j = {fn, dst, src, n, k};
    if (k <= 1) {
        j.k = 1;
        run_slice(&j, 0);
        return;
    }
    team.job = j;
    for (unsigned i = 1; i < k; i++)
        sem_post(&team.wake[i]);
    pthread_barrier_wait(&team.begin[k]);
    run_slice(&j, 0);
    pthread_barrier_wait(&team.end[k]);
}

/* ---- the routines ----------------------------------------------------------- */

/* The glibc function itself, called through a pointer the compiler cannot
 * see through (as the engine's glibc_memcpy routine does). */
static void *(*volatile glibc_memcpy_fn)(void *, const void *, size_t) = memcpy;

static void *glibc_slice(void *d, const void *s, size_t n)
{
    return glibc_memcpy_fn(d, s, n);
}

const char *cwb_split_stream_name(void)
{
#if defined(__x86_64__)
    return "stream_sse2";
#elif defined(__aarch64__)
    return "stream_stnp";
#else
    return "glibc_memcpy";
#endif
}

/* Looked up once, outside the timed calls (cwb_split_routine_set). */
static cwb_copy_fn stream_slice = glibc_slice;

/* The routine the next calls of split_copy run (set by the prepare hook
 * before every batch). */
static const struct cwb_split_routine *current;

static void split_prepare(const void *ctx)
{
    current = ctx;
}

static void *split_copy(void *d, const void *s, size_t n)
{
    const struct cwb_split_routine *r = current;
    switch (r->kind) {
    case CWB_SPLIT_POOL:
        return cw_copy_parallel(d, s, n, 0, r->threads);
    case CWB_SPLIT_STREAM:
        team_copy(stream_slice, d, s, n, r->threads);
        return d;
    default:
        team_copy(glibc_slice, d, s, n, r->threads);
        return d;
    }
}

void cwb_split_routine_set(struct cwb_split_routine *r, enum cwb_split kind, unsigned threads)
{
    const struct cwb_routine *stream = cwb_routine_find(cwb_split_stream_name());
    if (stream != NULL)
        stream_slice = stream->fn;
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->threads = threads;
    snprintf(r->name, sizeof r->name, "%s_%ut",
             kind == CWB_SPLIT_POOL     ? "cw_copy_parallel"
             : kind == CWB_SPLIT_STREAM ? cwb_split_stream_name()
                                        : "glibc_memcpy",
             threads);
    r->rt.name = r->name;
    r->rt.what = kind == CWB_SPLIT_POOL ? "cw_copy_parallel at a fixed thread count"
                 : kind == CWB_SPLIT_STREAM ? "plain streaming loop, slices on a team"
                                            : "glibc memcpy, slices on a team";
    r->rt.fn = split_copy;
    r->rt.prepare = split_prepare;
    r->rt.ctx = r;
}
