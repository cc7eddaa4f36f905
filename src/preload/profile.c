/* SPDX-License-Identifier: MIT */
/* Copy-size profiling for the LD_PRELOAD shim (CACHEWISE_PROFILE=path).
 *
 * Each thread counts into its own slot (mmap'ed, never malloc'ed: the hot
 * path can run inside malloc or before the C runtime is up); slots sit on a
 * push-only lock-free list, are recycled when their thread exits (pthread
 * key destructor) and keep their counts, so merging is just summing every
 * slot. The profile is written at exit and, with CACHEWISE_PROFILE_SIGNAL,
 * on a signal; the writer uses only async-signal-safe calls and static
 * buffers guarded by a try-lock. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <unistd.h>

#include "out.h"
#include "preload.h"

enum { CWP_FREE = 0, CWP_USED = 1 };
/* Beyond this many live threads, the rest share one slot with atomic adds
 * (CACHEWISE_PROFILE_SLOTS overrides it, for tests of that path). */
#define CWP_MAX_SLOTS 1024u
/* glibc keeps the values of the first 32 keys inside the thread descriptor;
 * pthread_setspecific on a higher key may calloc, which the hot path must
 * not do. */
#define CWP_KEY_INLINE_MAX 32u

int cwp_profiling, cwp_counting;
CWP_TLS struct cwp_slot *cwp_tls_slot;

static _Atomic(struct cwp_slot *) g_slots;
static _Atomic unsigned g_nslots;
static struct cwp_slot g_overflow = {.shared = 1, .state = CWP_USED};
static pthread_key_t g_key;
static _Atomic int g_key_ok;
static int g_signal;
static size_t g_max_slots = CWP_MAX_SLOTS;

static char g_template[PATH_MAX];     /* absolute, still with %p */
static char g_path[PATH_MAX + 32];
static char g_exe[512];
struct cwp_totals cwp_total;

/* ---- setup ---- */

void cwp_setup(void)
{
    const char *path = cwi_getenv("CACHEWISE_PROFILE");
    if (path == NULL || path[0] == '\0')
        return;
    /* Resolved now: the program may chdir before it exits. */
    const char *why;
    if (cwp_absolute(g_template, sizeof g_template, path, &why) != 0) {
        cwp_say("CACHEWISE_PROFILE: ", why, "; profiling disabled\n");
        return;
    }
    const char *slots = cwi_getenv("CACHEWISE_PROFILE_SLOTS");
    if (slots != NULL && cwi_parse_size(slots, &g_max_slots) != 0)
        g_max_slots = CWP_MAX_SLOTS;
    const char *sig = cwi_getenv("CACHEWISE_PROFILE_SIGNAL");
    if (sig != NULL && sig[0] != '\0' && !(sig[0] == '0' && sig[1] == '\0')) {
        if ((sig[0] == '1' && sig[1] == '\0') || (sig[0] == 'U' && sig[1] == 'S' &&
                                                    sig[2] == 'R' && sig[3] == '2' &&
                                                    sig[4] == '\0'))
            g_signal = SIGUSR2;
        else if (sig[0] == 'U' && sig[1] == 'S' && sig[2] == 'R' && sig[3] == '1' &&
                 sig[4] == '\0')
            g_signal = SIGUSR1;
        else
            cwp_say("CACHEWISE_PROFILE_SIGNAL: expected 1, USR1 or USR2; no signal flush\n",
                    NULL, NULL);
    }
    cwp_keep_stderr();
    cwp_profiling = cwp_counting = 1;
}

const char *cwp_profile_path(void)
{
    return cwp_profiling ? g_template : NULL;
}

static void slot_release(void *p)
{
    struct cwp_slot *s = p;
    cwp_tls_slot = NULL;
    atomic_store_explicit(&s->state, CWP_FREE, memory_order_release);
}

/* Writes only the counters that are not zero already: the child of a fork
 * then copies (on write) only the pages its parent actually used. */
static void zero(_Atomic(uint64_t) *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (atomic_load_explicit(&c[i], memory_order_relaxed) != 0)
            atomic_store_explicit(&c[i], 0, memory_order_relaxed);
}

static void slot_zero(struct cwp_slot *s)
{
    zero(s->count, CWP_NBUCKETS);
    zero(s->big_bytes, CWP_NLOG);
    zero(s->calls, CWP_NFN);
    zero(&s->nt_calls, 1);
    zero(&s->nt_bytes, 1);
    zero(&s->sn_calls, 1);
    zero(&s->sn_bytes, 1);
    zero(s->path_calls, CWI_NPATH);
    zero(s->path_bytes, CWI_NPATH);
}

/* A forked child starts a profile of its own: the parent's counts stay in
 * the parent's file, and the other threads' slots are free (they are gone). */
static void after_fork_child(void)
{
    struct cwp_slot *mine = cwp_tls_slot;
    for (struct cwp_slot *s = atomic_load_explicit(&g_slots, memory_order_acquire); s != NULL;
         s = s->next) {
        slot_zero(s);
        if (s != mine)
            atomic_store_explicit(&s->state, CWP_FREE, memory_order_relaxed);
    }
    slot_zero(&g_overflow);
    cwp_out_reset();
}

static void on_signal(int sig)
{
    (void)sig;
    int saved = errno;
    cwp_write();
    errno = saved;
}

void cwp_setup_late(void)
{
    if (!cwp_counting)
        return;
    if (pthread_key_create(&g_key, slot_release) == 0) {
        if ((unsigned)g_key < CWP_KEY_INLINE_MAX)
            atomic_store_explicit(&g_key_ok, 1, memory_order_release);
        else
            (void)pthread_key_delete(g_key);
    }
    (void)pthread_atfork(NULL, NULL, after_fork_child);
    if (cwp_profiling && g_signal != 0) {
        /* Never take the signal away from a program that already handles
         * it (handlers are reset to SIG_DFL across exec). Static and filled
         * field by field: clang turns an initialised local struct into a
         * memcpy call, even with -fno-builtin. */
        static struct sigaction old, sa;
        sa.sa_handler = on_signal;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        if (sigaction(g_signal, NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
            !(old.sa_flags & SA_SIGINFO))
            (void)sigaction(g_signal, &sa, NULL);
        else
            cwp_say("CACHEWISE_PROFILE_SIGNAL: the signal is already handled; "
                    "no signal flush\n", NULL, NULL);
    }
}

/* ---- slots ---- */

static struct cwp_slot *slot_acquire(void)
{
    struct cwp_slot *s;
    for (s = atomic_load_explicit(&g_slots, memory_order_acquire); s != NULL; s = s->next) {
        int expect = CWP_FREE;
        if (atomic_load_explicit(&s->state, memory_order_relaxed) == CWP_FREE &&
            atomic_compare_exchange_strong_explicit(&s->state, &expect, CWP_USED,
                                                    memory_order_acq_rel,
                                                    memory_order_relaxed))
            goto got;
    }
    s = &g_overflow;
    if (atomic_fetch_add_explicit(&g_nslots, 1, memory_order_relaxed) < g_max_slots) {
        void *p = mmap(NULL, sizeof(struct cwp_slot), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            s = p; /* zero-filled: counters 0, state CWP_FREE */
            atomic_store_explicit(&s->state, CWP_USED, memory_order_relaxed);
            struct cwp_slot *head = atomic_load_explicit(&g_slots, memory_order_relaxed);
            do
                s->next = head;
            while (!atomic_compare_exchange_weak_explicit(&g_slots, &head, s,
                                                          memory_order_release,
                                                          memory_order_relaxed));
        }
    }
got:
    cwp_tls_slot = s;
    if (s != &g_overflow && atomic_load_explicit(&g_key_ok, memory_order_acquire))
        (void)pthread_setspecific(g_key, s);
    return s;
}

void cwp_record_slow(size_t n, enum cwp_fn fn)
{
    struct cwp_slot *s = cwp_tls_slot;
    if (s == NULL)
        s = slot_acquire();
    if (!s->shared) {
        (void)cwp_record(n, fn);
        return;
    }
    atomic_fetch_add_explicit(&s->calls[fn], 1, memory_order_relaxed);
    if (n <= CWP_EXACT_MAX) {
        atomic_fetch_add_explicit(&s->count[n], 1, memory_order_relaxed);
    } else {
        unsigned j = cwp_log_bucket(n);
        atomic_fetch_add_explicit(&s->count[CWP_EXACT_MAX + 1 + j], 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&s->big_bytes[j], n, memory_order_relaxed);
    }
    if (n >= cwp_nt_threshold) {
        atomic_fetch_add_explicit(&s->nt_calls, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&s->nt_bytes, n, memory_order_relaxed);
    }
    if (n >= cwp_srcnta_threshold) {
        atomic_fetch_add_explicit(&s->sn_calls, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&s->sn_bytes, n, memory_order_relaxed);
    }
}

/* ---- merging ---- */

void cwp_merge(void)
{
    /* field by field: a struct assignment may become a call to memset or
     * memcpy, and this runs in signal handlers and inside the shim */
    struct cwp_totals *t = &cwp_total;
    for (size_t i = 0; i < CWP_NBUCKETS; i++)
        t->count[i] = 0;
    for (size_t i = 0; i < CWP_NLOG; i++)
        t->big[i] = 0;
    for (size_t i = 0; i < CWP_NFN; i++)
        t->calls[i] = 0;
    t->nt_calls = t->nt_bytes = t->sn_calls = t->sn_bytes = 0;
    for (size_t i = 0; i < CWI_NPATH; i++)
        t->path_calls[i] = t->path_bytes[i] = 0;
    struct cwp_slot *s = atomic_load_explicit(&g_slots, memory_order_acquire);
    int overflow_done = 0;
    for (;;) {
        if (s == NULL) {
            if (overflow_done)
                break;
            s = &g_overflow;
            overflow_done = 1;
        }
#define LD(x) atomic_load_explicit(&(x), memory_order_relaxed)
        for (size_t i = 0; i < CWP_NBUCKETS; i++)
            t->count[i] += LD(s->count[i]);
        for (size_t i = 0; i < CWP_NLOG; i++)
            t->big[i] += LD(s->big_bytes[i]);
        for (size_t i = 0; i < CWP_NFN; i++)
            t->calls[i] += LD(s->calls[i]);
        t->nt_calls += LD(s->nt_calls);
        t->nt_bytes += LD(s->nt_bytes);
        t->sn_calls += LD(s->sn_calls);
        t->sn_bytes += LD(s->sn_bytes);
        for (size_t i = 0; i < CWI_NPATH; i++) {
            t->path_calls[i] += LD(s->path_calls[i]);
            t->path_bytes[i] += LD(s->path_bytes[i]);
        }
#undef LD
        s = s == &g_overflow ? NULL : s->next;
    }
}

uint64_t cwp_bytes_ge(uint64_t t)
{
    uint64_t b = 0;
    for (uint64_t i = t; i <= CWP_EXACT_MAX; i++)
        b += i * cwp_total.count[i];
    for (unsigned j = 0; j < CWP_NLOG; j++)
        if (t <= CWP_EXACT_MAX + 1 || ((uint64_t)1 << (CWP_LOG_FIRST + j)) >= t)
            b += cwp_total.big[j];
    return b;
}

uint64_t cwp_bytes_between(uint64_t lo, uint64_t hi)
{
    return cwp_bytes_ge(lo) - (hi == UINT64_MAX ? 0 : cwp_bytes_ge(hi + 1));
}

const char *cwp_program(void)
{
    ssize_t n = readlink("/proc/self/exe", g_exe, sizeof g_exe - 1);
    g_exe[n > 0 ? n : 0] = '\0';
    return g_exe;
}

/* ---- the profile ---- */

static void out_count_bytes(struct cwp_out *o, const char *label, uint64_t threshold,
                            uint64_t calls, uint64_t bytes, uint64_t total)
{
    cwp_out_str(o, label);
    if (threshold == SIZE_MAX) {
        cwp_out_str(o, "off\n");
        return;
    }
    cwp_out_u64(o, threshold);
    cwp_out_str(o, ": ");
    cwp_out_u64(o, calls);
    cwp_out_str(o, " calls, ");
    cwp_out_u64(o, bytes);
    cwp_out_str(o, " bytes (");
    cwp_out_pct(o, bytes, total);
    cwp_out_str(o, " of bytes)\n");
}

static void emit(struct cwp_out *o, void *arg)
{
    pid_t pid = *(const pid_t *)arg;
    uint64_t calls = 0, bytes = 0;
    for (size_t i = 0; i < CWP_NBUCKETS; i++)
        calls += cwp_total.count[i];
    bytes = cwp_bytes_ge(0);
    char b[24];

    cwp_out_str(o, "# cachewise-preload profile: sizes of memcpy/memmove/mempcpy calls\n");
    cwp_out_str(o, "# program: ");
    cwp_out_str(o, g_exe);
    cwp_out_str(o, " (pid ");
    cwp_out_str(o, cwp_u64_str(b, (uint64_t)pid));
    cwp_out_str(o, ")\n# calls: ");
    cwp_out_u64(o, calls);
    cwp_out_str(o, " (memcpy ");
    cwp_out_u64(o, cwp_total.calls[CWP_MEMCPY] + cwp_total.calls[CWP_MEMCPY_CHK]);
    cwp_out_str(o, ", memmove ");
    cwp_out_u64(o, cwp_total.calls[CWP_MEMMOVE] + cwp_total.calls[CWP_MEMMOVE_CHK]);
    cwp_out_str(o, ", mempcpy ");
    cwp_out_u64(o, cwp_total.calls[CWP_MEMPCPY] + cwp_total.calls[CWP_MEMPCPY_CHK]);
    cwp_out_str(o, "; through __*_chk ");
    cwp_out_u64(o, cwp_total.calls[CWP_MEMCPY_CHK] + cwp_total.calls[CWP_MEMMOVE_CHK] +
                       cwp_total.calls[CWP_MEMPCPY_CHK]);
    cwp_out_str(o, ")\n# bytes: ");
    cwp_out_u64(o, bytes);
    cwp_out_str(o, " (mean ");
    cwp_out_frac(o, bytes, 1, calls, 1);
    cwp_out_str(o, " per call)\n# impl: ");
    cwp_out_str(o, cwi_info.impl != NULL ? cwi_info.impl : "?");
    cwp_out_str(o, "\n");
    out_count_bytes(o, "# calls >= nt_threshold ", cwp_nt_threshold, cwp_total.nt_calls,
                    cwp_total.nt_bytes, bytes);
    out_count_bytes(o, "# calls >= src_noreuse_threshold ", cwp_srcnta_threshold, cwp_total.sn_calls,
                    cwp_total.sn_bytes, bytes);
    for (unsigned k = 6; k < 64; k++) {
        uint64_t t = (uint64_t)1 << k, ge = cwp_bytes_ge(t);
        cwp_out_str(o, "# share of bytes in calls >= ");
        cwp_out_u64(o, t);
        cwp_out_str(o, ": ");
        cwp_out_pct(o, ge, bytes);
        cwp_out_str(o, "\n");
        if (ge == 0)
            break;
    }
    cwp_out_str(o, "# sizes 0..4096 exact; larger sizes in buckets [2^k, 2^(k+1)), each "
               "given at the mean size of its calls\n");
    cwp_out_str(o, "# size probability\n");
    for (size_t i = 0; i < CWP_NBUCKETS; i++) {
        if (cwp_total.count[i] == 0)
            continue;
        uint64_t size = i;
        if (i > CWP_EXACT_MAX) {
            size_t j = i - CWP_EXACT_MAX - 1;
            size = (cwp_total.big[j] + cwp_total.count[i] / 2) / cwp_total.count[i];
        }
        cwp_out_u64(o, size);
        cwp_out_str(o, " ");
        cwp_out_frac(o, cwp_total.count[i], 1, calls, 15);
        cwp_out_str(o, "\n");
    }
}

int cwp_profile_name(char *buf, size_t cap)
{
    if (!cwp_profiling || cap == 0)
        return -1;
    return cwp_expand(buf, cap, g_template, getpid());
}

void cwp_write(void)
{
    if (!cwp_profiling || !cwp_out_lock())
        return; /* not profiling, or a write is in progress (this signal interrupted it) */
    pid_t pid = getpid();
    if (cwp_expand(g_path, sizeof g_path, g_template, pid) != 0) {
        cwp_say("profile path too long\n", NULL, NULL);
    } else {
        (void)cwp_program();
        cwp_merge();
        cwp_write_file(g_path, "profile", emit, &pid);
    }
    cwp_out_unlock();
}
