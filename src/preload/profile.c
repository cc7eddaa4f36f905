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
#define _GNU_SOURCE /* strerrordesc_np */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h> /* rename: a system call, async-signal-safe */
#include <stdatomic.h>
#include <string.h> /* strerrordesc_np: a table lookup, async-signal-safe */
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "preload.h"

enum { CWP_FREE = 0, CWP_USED = 1 };
/* Beyond this many live threads, the rest share one slot with atomic adds
 * (CACHEWISE_PROFILE_SLOTS overrides it, for tests of that path). */
#define CWP_MAX_SLOTS 1024u
/* glibc keeps the values of the first 32 keys inside the thread descriptor;
 * pthread_setspecific on a higher key may calloc, which the hot path must
 * not do. */
#define CWP_KEY_INLINE_MAX 32u

int cwp_profiling;
CWP_TLS struct cwp_slot *cwp_tls_slot;

static _Atomic(struct cwp_slot *) g_slots;
static _Atomic unsigned g_nslots;
static struct cwp_slot g_overflow = {.shared = 1, .state = CWP_USED};
static pthread_key_t g_key;
static _Atomic int g_key_ok;
static int g_signal;
static size_t g_max_slots = CWP_MAX_SLOTS;

static char g_template[PATH_MAX];     /* absolute, still with %p */
static _Atomic int g_writing;          /* try-lock for everything below */
static char g_path[PATH_MAX + 32];
static char g_tmp[PATH_MAX + 64];
static char g_exe[512];
static uint64_t g_count[CWP_NBUCKETS];
static uint64_t g_big[CWP_NLOG];
static uint64_t g_calls[CWP_NFN], g_nt_calls, g_nt_bytes, g_sn_calls, g_sn_bytes;

/* The profile is written at exit, and many programs close fd 2 before that
 * (coreutils' close_stdout, xz, sort and echo among them): a write(2) of a
 * failure would then go nowhere, or into whatever file took fd 2 since.
 * So while profiling the shim keeps its own duplicate of the stderr the
 * program started with (close-on-exec, from CWP_ERR_FD_MIN up, out of the
 * way of the low numbers programs open and reuse), with that file's
 * identity: a descriptor the program closed or replaced (closefrom, dup2)
 * is not ours any more, and then only a fd 2 that is still that same file
 * is written to. -1: no duplicate (not profiling, or no stderr at start-up),
 * fd 2 as before. */
#define CWP_ERR_FD_MIN 100
static int g_err_fd = -1;
static dev_t g_err_dev;
static ino_t g_err_ino;

/* ---- small async-signal-safe helpers ---- */

static size_t str_len(const char *s)
{
    size_t n = 0;
    while (s[n] != '\0')
        n++;
    return n;
}

/* Appends src to dst[*len] within cap (always terminated); 0 if it fit. */
static int str_append(char *dst, size_t cap, size_t *len, const char *src)
{
    for (; *src != '\0'; src++) {
        if (*len + 1 >= cap)
            return -1;
        dst[(*len)++] = *src;
    }
    dst[*len] = '\0';
    return 0;
}

static char *u64_str(char buf[24], uint64_t v)
{
    char *p = buf + 23;
    *p = '\0';
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    return p;
}

static int is_err_file(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && st.st_dev == g_err_dev && st.st_ino == g_err_ino;
}

/* Where a message goes: the duplicate while it is still the start-up
 * stderr, else fd 2 if that is; -1: neither (nothing is written). */
static int err_fd(void)
{
    if (g_err_fd < 0)
        return 2;
    if (is_err_file(g_err_fd))
        return g_err_fd;
    return is_err_file(2) ? 2 : -1;
}

static void keep_stderr(void)
{
    int fd = fcntl(2, F_DUPFD_CLOEXEC, CWP_ERR_FD_MIN);
    if (fd < 0) /* a descriptor limit below CWP_ERR_FD_MIN: any number */
        fd = fcntl(2, F_DUPFD_CLOEXEC, 3);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0) {
        g_err_dev = st.st_dev;
        g_err_ino = st.st_ino;
        g_err_fd = fd;
    } else if (fd >= 0) {
        (void)close(fd);
    }
}

static void say(const char *a, const char *b, const char *c)
{
    const char *parts[4] = {"cachewise-preload: ", a, b, c};
    int fd = err_fd();
    for (int i = 0; i < 4 && fd >= 0; i++)
        if (parts[i] != NULL)
            (void)!write(fd, parts[i], str_len(parts[i]));
}

/* ---- setup ---- */

void cwp_setup(void)
{
    const char *path = cwi_getenv("CACHEWISE_PROFILE");
    if (path == NULL || path[0] == '\0')
        return;
    /* Resolved now: the program may chdir before it exits. */
    size_t len = 0;
    g_template[0] = '\0';
    if (path[0] != '/') {
        if (getcwd(g_template, sizeof g_template) == NULL) {
            say("CACHEWISE_PROFILE: cannot resolve a relative path "
                "(current directory unknown); profiling disabled\n", NULL, NULL);
            return;
        }
        len = str_len(g_template);
        if (str_append(g_template, sizeof g_template, &len, "/") != 0)
            len = sizeof g_template;
    }
    if (len >= sizeof g_template || str_append(g_template, sizeof g_template, &len, path) != 0) {
        say("CACHEWISE_PROFILE: path too long; profiling disabled\n", NULL, NULL);
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
            say("CACHEWISE_PROFILE_SIGNAL: expected 1, USR1 or USR2; no signal flush\n",
                NULL, NULL);
    }
    keep_stderr();
    cwp_profiling = 1;
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
    atomic_store_explicit(&g_writing, 0, memory_order_relaxed);
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
    if (!cwp_profiling)
        return;
    if (pthread_key_create(&g_key, slot_release) == 0) {
        if ((unsigned)g_key < CWP_KEY_INLINE_MAX)
            atomic_store_explicit(&g_key_ok, 1, memory_order_release);
        else
            (void)pthread_key_delete(g_key);
    }
    (void)pthread_atfork(NULL, NULL, after_fork_child);
    if (g_signal != 0) {
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
            say("CACHEWISE_PROFILE_SIGNAL: the signal is already handled; "
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

/* ---- writer ---- */

struct out {
    int fd, failed;
    size_t len;
    char buf[8192];
};
static struct out g_out;

static void out_flush(struct out *o)
{
    size_t off = 0;
    while (off < o->len && !o->failed) {
        ssize_t w = write(o->fd, o->buf + off, o->len - off);
        if (w > 0)
            off += (size_t)w;
        else if (w < 0 && errno == EINTR)
            continue;
        else
            o->failed = errno != 0 ? errno : EIO;
    }
    o->len = 0;
}

static void out_str(struct out *o, const char *s)
{
    for (; *s != '\0'; s++) {
        if (o->len == sizeof o->buf)
            out_flush(o);
        o->buf[o->len++] = *s;
    }
}

static void out_u64(struct out *o, uint64_t v)
{
    char b[24];
    out_str(o, u64_str(b, v));
}

/* num * mul / den as a decimal with up to `digits` decimals, trailing zeros
 * dropped (integer arithmetic only: no printf in a signal handler). */
static void out_frac(struct out *o, uint64_t num, uint64_t mul, uint64_t den, int digits)
{
    if (den == 0) {
        out_str(o, "0");
        return;
    }
    unsigned __int128 scale = 1;
    for (int i = 0; i < digits; i++)
        scale *= 10;
    unsigned __int128 q = ((unsigned __int128)num * mul * scale + den / 2) / den;
    out_u64(o, (uint64_t)(q / scale));
    uint64_t f = (uint64_t)(q % scale);
    if (f == 0)
        return;
    char d[40];
    for (int i = digits - 1; i >= 0; i--) {
        d[i] = (char)('0' + f % 10);
        f /= 10;
    }
    int end = digits;
    while (end > 0 && d[end - 1] == '0')
        end--;
    d[end] = '\0';
    out_str(o, ".");
    out_str(o, d);
}

static void merge(void)
{
    for (size_t i = 0; i < CWP_NBUCKETS; i++)
        g_count[i] = 0;
    for (size_t i = 0; i < CWP_NLOG; i++)
        g_big[i] = 0;
    for (size_t i = 0; i < CWP_NFN; i++)
        g_calls[i] = 0;
    g_nt_calls = g_nt_bytes = g_sn_calls = g_sn_bytes = 0;
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
            g_count[i] += LD(s->count[i]);
        for (size_t i = 0; i < CWP_NLOG; i++)
            g_big[i] += LD(s->big_bytes[i]);
        for (size_t i = 0; i < CWP_NFN; i++)
            g_calls[i] += LD(s->calls[i]);
        g_nt_calls += LD(s->nt_calls);
        g_nt_bytes += LD(s->nt_bytes);
        g_sn_calls += LD(s->sn_calls);
        g_sn_bytes += LD(s->sn_bytes);
#undef LD
        s = s == &g_overflow ? NULL : s->next;
    }
}

/* Bytes copied by calls of size >= t, for t a power of two or <= 4096:
 * exact, because the log2 buckets start at powers of two. */
static uint64_t bytes_ge(uint64_t t)
{
    uint64_t b = 0;
    for (uint64_t i = t; i <= CWP_EXACT_MAX; i++)
        b += i * g_count[i];
    for (unsigned j = 0; j < CWP_NLOG; j++)
        if (t <= CWP_EXACT_MAX || ((uint64_t)1 << (CWP_LOG_FIRST + j)) >= t)
            b += g_big[j];
    return b;
}

static void out_pct(struct out *o, uint64_t part, uint64_t total)
{
    out_frac(o, part, 100, total, 2);
    out_str(o, "%");
}

static void out_count_bytes(struct out *o, const char *label, uint64_t threshold,
                            uint64_t calls, uint64_t bytes, uint64_t total)
{
    out_str(o, label);
    if (threshold == SIZE_MAX) {
        out_str(o, "off\n");
        return;
    }
    out_u64(o, threshold);
    out_str(o, ": ");
    out_u64(o, calls);
    out_str(o, " calls, ");
    out_u64(o, bytes);
    out_str(o, " bytes (");
    out_pct(o, bytes, total);
    out_str(o, " of bytes)\n");
}

static void emit(struct out *o, pid_t pid)
{
    uint64_t calls = 0, bytes = 0;
    for (size_t i = 0; i < CWP_NBUCKETS; i++)
        calls += g_count[i];
    bytes = bytes_ge(0);
    char b[24];

    out_str(o, "# cachewise-preload profile: sizes of memcpy/memmove/mempcpy calls\n");
    out_str(o, "# program: ");
    out_str(o, g_exe);
    out_str(o, " (pid ");
    out_str(o, u64_str(b, (uint64_t)pid));
    out_str(o, ")\n# calls: ");
    out_u64(o, calls);
    out_str(o, " (memcpy ");
    out_u64(o, g_calls[CWP_MEMCPY] + g_calls[CWP_MEMCPY_CHK]);
    out_str(o, ", memmove ");
    out_u64(o, g_calls[CWP_MEMMOVE] + g_calls[CWP_MEMMOVE_CHK]);
    out_str(o, ", mempcpy ");
    out_u64(o, g_calls[CWP_MEMPCPY] + g_calls[CWP_MEMPCPY_CHK]);
    out_str(o, "; through __*_chk ");
    out_u64(o, g_calls[CWP_MEMCPY_CHK] + g_calls[CWP_MEMMOVE_CHK] + g_calls[CWP_MEMPCPY_CHK]);
    out_str(o, ")\n# bytes: ");
    out_u64(o, bytes);
    out_str(o, " (mean ");
    out_frac(o, bytes, 1, calls, 1);
    out_str(o, " per call)\n# impl: ");
    out_str(o, cwi_info.impl != NULL ? cwi_info.impl : "?");
    out_str(o, "\n");
    out_count_bytes(o, "# calls >= nt_threshold ", cwp_nt_threshold, g_nt_calls, g_nt_bytes,
                    bytes);
    out_count_bytes(o, "# calls >= src_noreuse_threshold ", cwp_srcnta_threshold, g_sn_calls,
                    g_sn_bytes, bytes);
    for (unsigned k = 6; k < 64; k++) {
        uint64_t t = (uint64_t)1 << k, ge = bytes_ge(t);
        out_str(o, "# share of bytes in calls >= ");
        out_u64(o, t);
        out_str(o, ": ");
        out_pct(o, ge, bytes);
        out_str(o, "\n");
        if (ge == 0)
            break;
    }
    out_str(o, "# sizes 0..4096 exact; larger sizes in buckets [2^k, 2^(k+1)), each "
               "given at the mean size of its calls\n");
    out_str(o, "# size probability\n");
    for (size_t i = 0; i < CWP_NBUCKETS; i++) {
        if (g_count[i] == 0)
            continue;
        uint64_t size = i;
        if (i > CWP_EXACT_MAX) {
            size_t j = i - CWP_EXACT_MAX - 1;
            size = (g_big[j] + g_count[i] / 2) / g_count[i];
        }
        out_u64(o, size);
        out_str(o, " ");
        out_frac(o, g_count[i], 1, calls, 15);
        out_str(o, "\n");
    }
}

/* Expands %p (pid) and %% of the template into dst; -1 if too long. */
static int expand_into(char *dst, size_t cap, pid_t pid)
{
    size_t len = 0;
    char b[24];
    dst[0] = '\0';
    for (const char *t = g_template; *t != '\0'; t++) {
        char one[2] = {*t, '\0'};
        const char *piece = one;
        if (t[0] == '%' && t[1] == 'p') {
            piece = u64_str(b, (uint64_t)pid);
            t++;
        } else if (t[0] == '%' && t[1] == '%') {
            t++;
        }
        if (str_append(dst, cap, &len, piece) != 0)
            return -1;
    }
    return 0;
}

static int expand_path(pid_t pid)
{
    return expand_into(g_path, sizeof g_path, pid);
}

int cwp_profile_name(char *buf, size_t cap)
{
    if (!cwp_profiling || cap == 0)
        return -1;
    return expand_into(buf, cap, getpid());
}

/* 64 unpredictable bits for a temporary name (getrandom; the clock and
 * the stack address if the kernel has none to give). */
static uint64_t random_u64(void)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof v, GRND_NONBLOCK) == (ssize_t)sizeof v)
        return v;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    v ^= (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec;
    v ^= (uint64_t)(uintptr_t)&ts * 0xbf58476d1ce4e5b9ull;
    return v;
}

/* Creates g_path's temporary file in g_path's own directory (so the
 * rename stays on one file system) under a name nobody can predict,
 * never through an existing file or symlink: O_EXCL|O_NOFOLLOW, mode 0600
 * until it is complete and renamed. mkstemp without malloc, and without
 * its fixed six-letter suffix. Returns the descriptor or -1 (errno). */
static int create_temp(void)
{
    static const char hex[] = "0123456789abcdef";
    for (int attempt = 0; attempt < 16; attempt++) {
        size_t len = 0;
        char name[24];
        uint64_t r = random_u64();
        for (int i = 0; i < 16; i++)
            name[i] = hex[(r >> (4 * i)) & 15];
        name[16] = '\0';
        g_tmp[0] = '\0';
        if (str_append(g_tmp, sizeof g_tmp, &len, g_path) != 0 ||
            str_append(g_tmp, sizeof g_tmp, &len, ".") != 0 ||
            str_append(g_tmp, sizeof g_tmp, &len, name) != 0 ||
            str_append(g_tmp, sizeof g_tmp, &len, ".tmp") != 0) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(g_tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

void cwp_write(void)
{
    if (!cwp_profiling)
        return;
    int busy = 0;
    if (!atomic_compare_exchange_strong_explicit(&g_writing, &busy, 1, memory_order_acquire,
                                                 memory_order_relaxed))
        return; /* a flush is in progress (this signal interrupted it) */
    pid_t pid = getpid();
    if (expand_path(pid) != 0) {
        say("profile path too long\n", NULL, NULL);
        goto out;
    }
    ssize_t n = readlink("/proc/self/exe", g_exe, sizeof g_exe - 1);
    g_exe[n > 0 ? n : 0] = '\0';
    merge();

    struct out *o = &g_out;
    o->len = 0;
    o->failed = 0;
    o->fd = create_temp();
    if (o->fd < 0) {
        o->failed = errno;
    } else {
        emit(o, pid);
        out_flush(o);
        if (close(o->fd) != 0 && !o->failed)
            o->failed = errno;
        if (!o->failed && rename(g_tmp, g_path) != 0)
            o->failed = errno;
        if (o->failed)
            (void)unlink(g_tmp); /* our own file: created with O_EXCL above */
    }
    if (o->failed) {
        char b[24], msg[160];
        size_t len = 0;
        msg[0] = '\0';
        (void)str_append(msg, sizeof msg, &len, ": ");
        (void)str_append(msg, sizeof msg, &len, strerrordesc_np(o->failed) != NULL
                                                    ? strerrordesc_np(o->failed)
                                                    : "unknown error");
        (void)str_append(msg, sizeof msg, &len, " (errno ");
        (void)str_append(msg, sizeof msg, &len, u64_str(b, (uint64_t)o->failed));
        (void)str_append(msg, sizeof msg, &len, ")\n");
        say("cannot write profile ", g_path, msg);
    }
out:
    atomic_store_explicit(&g_writing, 0, memory_order_release);
}
