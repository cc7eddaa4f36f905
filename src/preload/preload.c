/* SPDX-License-Identifier: MIT */
/* libcachewise-preload.so: memcpy, memmove, mempcpy and their fortified
 * __*_chk variants for unmodified programs (LD_PRELOAD), routed through the
 * cachewise dispatcher with a policy read from the environment.
 *
 * These functions can be called before the C runtime has finished starting
 * (by other libraries' constructors), from signal handlers, from inside
 * malloc and from any thread, so nothing here may call malloc, memcpy or
 * getenv. The first call initialises lazily; a copy made while this thread
 * is itself initialising (which would otherwise deadlock in pthread_once)
 * falls back to a byte loop. */
#undef _FORTIFY_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <unistd.h>

#include "internal.h"
#include "preload.h"

extern char **environ;

/* string.h is not included: its fortify wrappers and nonnull attributes
 * must not apply to the definitions below. */
#define CWP_EXPORT __attribute__((visibility("default")))
CWP_EXPORT void *memcpy(void *restrict dst, const void *restrict src, size_t n);
CWP_EXPORT void *memmove(void *dst, const void *src, size_t n);
CWP_EXPORT void *mempcpy(void *restrict dst, const void *restrict src, size_t n);
CWP_EXPORT void *__memcpy_chk(void *restrict dst, const void *restrict src, size_t n,
                              size_t dstlen);
CWP_EXPORT void *__memmove_chk(void *dst, const void *src, size_t n, size_t dstlen);
CWP_EXPORT void *__mempcpy_chk(void *restrict dst, const void *restrict src, size_t n,
                               size_t dstlen);

/* glibc's fortify failure: prints "*** buffer overflow detected ***" and
 * aborts, exactly what the libc versions do. */
extern void __chk_fail(void) __attribute__((noreturn));

size_t cwp_nt_threshold = SIZE_MAX;
size_t cwp_srcnta_threshold = SIZE_MAX;
size_t cwp_large_threshold = SIZE_MAX;

static _Atomic int g_ready;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static CWP_TLS int t_initialising;

/* A copy from a .preinit_array function (or an IFUNC resolver) comes
 * before libc has set environ, so the settings would be silently ignored:
 * read the CACHEWISE_* entries from /proc/self/environ instead (system calls
 * only, static storage). */
static char g_env_text[4096];
static char *g_env_vec[32];

static int env_from_proc(void)
{
    int fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char chunk[1024], cur[512];
    size_t cur_len = 0, used = 0, count = 0;
    int skip = 0;
    ssize_t got;
    while ((got = read(fd, chunk, sizeof chunk)) != 0) {
        if (got < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (ssize_t i = 0; i < got; i++) {
            char c = chunk[i];
            if (c != '\0') {
                if (cur_len + 1 < sizeof cur)
                    cur[cur_len++] = c;
                else
                    skip = 1; /* too long for a setting of ours */
                continue;
            }
            static const char prefix[] = "CACHEWISE_";
            int ours = !skip && cur_len >= sizeof prefix - 1;
            for (size_t k = 0; ours && k < sizeof prefix - 1; k++)
                ours = cur[k] == prefix[k];
            if (ours && used + cur_len + 1 <= sizeof g_env_text &&
                count + 1 < sizeof g_env_vec / sizeof g_env_vec[0]) {
                g_env_vec[count++] = g_env_text + used;
                for (size_t k = 0; k < cur_len; k++)
                    g_env_text[used++] = cur[k];
                g_env_text[used++] = '\0';
            }
            cur_len = 0;
            skip = 0;
        }
    }
    close(fd);
    g_env_vec[count] = NULL;
    return 1;
}

/* CACHEWISE_VERBOSE=1: that the shim is loaded, and every setting it uses
 * (the library's own line, printed by cwi_init, comes first). */
static void say_loaded(void)
{
    const char *v = cwi_getenv("CACHEWISE_VERBOSE");
    if (v == NULL || v[0] == '\0' || v[0] == '0')
        return;
    char line[2 * PATH_MAX + 256], src[32];
    if (cwp_srcnta_threshold == SIZE_MAX)
        snprintf(src, sizeof src, "off");
    else
        snprintf(src, sizeof src, "%zu", cwp_srcnta_threshold);
    /* the name this process writes, %p expanded: the file to look for */
    char prof_name[PATH_MAX + 32];
    const char *prof = cwp_profile_path();
    if (prof != NULL && cwp_profile_name(prof_name, sizeof prof_name) == 0)
        prof = prof_name;
    char stats[PATH_MAX + 32];
    int len = snprintf(line, sizeof line,
                       "cachewise-preload: loaded (cachewise %s): memcpy, memmove, mempcpy and "
                       "their __*_chk interposed; nt_threshold=%zu (%s) "
                       "src_noreuse_threshold=%s profile=%s stats=%s\n",
                       cw_version(), cwp_nt_threshold, cwi_info.nt_threshold_source, src,
                       prof != NULL ? prof : "off", cwp_stats_target(stats, sizeof stats));
    if (len > 0)
        (void)!write(2, line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
}

static void init_once(void)
{
    t_initialising = 1;
    /* Lent to the library for the time of the initialisation only: libc
     * sets the real environ when it starts. */
    int borrowed = environ == NULL && !cwi_secure_mode() && env_from_proc();
    if (borrowed)
        environ = g_env_vec;
    cwi_init();
    cwp_nt_threshold = cwi_info.nt_threshold;
    const char *env = cwi_getenv("CACHEWISE_SRC_NOREUSE_THRESHOLD");
    if (env != NULL && env[0] != '\0') {
        size_t v;
        if (cwi_parse_size(env, &v) == 0)
            cwp_srcnta_threshold = v;
        else
            cwi_config_error("CACHEWISE_SRC_NOREUSE_THRESHOLD=\"%.60s\": not a byte count "
                             "(digits with optional K/M/G suffix)", env);
    }
    cwp_large_threshold = cwp_nt_threshold < cwp_srcnta_threshold ? cwp_nt_threshold
                                                                  : cwp_srcnta_threshold;
    cwp_setup();
    cwp_stats_setup();
    say_loaded();
    if (borrowed)
        environ = NULL;
    atomic_store_explicit(&g_ready, 1, memory_order_release);
    t_initialising = 0;
}

/* The rare paths are out of line so that the common one needs no stack
 * frame: every exit of copy() is a tail call. */
__attribute__((noinline)) static void *srcnta_copy(void *dst, const void *src, size_t n)
{
    cwi_copy_hinted(dst, src, n, CW_SRC_NOREUSE);
    return dst;
}

/* memcpy is overlap-safe too, as glibc's x86-64 memcpy is in practice:
 * programs that (wrongly) memcpy overlapping buffers must behave the same
 * under the shim. Returns dst. */
static inline void *do_copy(void *dst, const void *src, size_t n)
{
    if (__builtin_expect(!cwp_disjoint(dst, src, n), 0))
        return cw_memmove(dst, src, n);
    if (__builtin_expect(n >= cwp_srcnta_threshold, 0))
        return srcnta_copy(dst, src, n);
    return cw_memcpy(dst, src, n);
}

__attribute__((noinline)) static void *counted_path_copy(void *dst, const void *src, size_t n)
{
    cwp_count_path(dst, src, n);
    return do_copy(dst, src, n);
}

__attribute__((noinline)) static void *profiled_copy_slow(void *dst, const void *src,
                                                          size_t n, enum cwp_fn fn)
{
    cwp_record_slow(n, fn);
    if (cwp_stats)
        cwp_count_path(dst, src, n);
    return do_copy(dst, src, n);
}

/* Counted (CACHEWISE_PROFILE, CACHEWISE_STATS), then copied. */
__attribute__((noinline)) static void *profiled_copy(void *dst, const void *src, size_t n,
                                                     enum cwp_fn fn)
{
    if (__builtin_expect(!cwp_record(n, fn), 0))
        return profiled_copy_slow(dst, src, n, fn);
    if (cwp_stats)
        return counted_path_copy(dst, src, n);
    return do_copy(dst, src, n);
}

/* Before initialisation. A copy made while this very thread initialises
 * (init_once -> ... -> memcpy) would deadlock in pthread_once: it gets a
 * byte loop instead. */
__attribute__((noinline, cold)) static void *first_copy(void *dst, const void *src, size_t n,
                                                        enum cwp_fn fn)
{
    if (t_initialising) {
        unsigned char *d = dst;
        const unsigned char *s = src;
        if (d <= s || d >= s + n) {
            for (size_t i = 0; i < n; i++)
                d[i] = s[i];
        } else {
            for (size_t i = n; i-- > 0;)
                d[i] = s[i];
        }
        return dst;
    }
    pthread_once(&g_once, init_once);
    if (cwp_counting)
        return profiled_copy(dst, src, n, fn);
    return do_copy(dst, src, n);
}

/* One body for all six entry points; returns dst. */
static inline void *copy(void *dst, const void *src, size_t n, enum cwp_fn fn)
{
    if (__builtin_expect(!atomic_load_explicit(&g_ready, memory_order_acquire), 0))
        return first_copy(dst, src, n, fn);
    if (__builtin_expect(cwp_counting, 0))
        return profiled_copy(dst, src, n, fn);
    return do_copy(dst, src, n);
}

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    return copy(dst, src, n, CWP_MEMCPY);
}

void *memmove(void *dst, const void *src, size_t n)
{
    return copy(dst, src, n, CWP_MEMMOVE);
}

void *mempcpy(void *restrict dst, const void *restrict src, size_t n)
{
    return (unsigned char *)copy(dst, src, n, CWP_MEMPCPY) + n;
}

void *__memcpy_chk(void *restrict dst, const void *restrict src, size_t n, size_t dstlen)
{
    if (__builtin_expect(dstlen < n, 0))
        __chk_fail();
    return copy(dst, src, n, CWP_MEMCPY_CHK);
}

void *__memmove_chk(void *dst, const void *src, size_t n, size_t dstlen)
{
    if (__builtin_expect(dstlen < n, 0))
        __chk_fail();
    return copy(dst, src, n, CWP_MEMMOVE_CHK);
}

void *__mempcpy_chk(void *restrict dst, const void *restrict src, size_t n, size_t dstlen)
{
    if (__builtin_expect(dstlen < n, 0))
        __chk_fail();
    return (unsigned char *)copy(dst, src, n, CWP_MEMPCPY_CHK) + n;
}

/* Initialise at load too, so the first copy does not pay for it, and set up
 * what may allocate (never done from inside a copy). The profile is written
 * by a destructor rather than atexit: that also catches the copies made by
 * the program's atexit handlers and by most other libraries' destructors. */
__attribute__((constructor)) static void cwp_ctor(void)
{
    pthread_once(&g_once, init_once);
    cwp_setup_late();
}

__attribute__((destructor)) static void cwp_dtor(void)
{
    if (cwp_profiling)
        cwp_write();
    if (cwp_stats)
        cwp_stats_write();
}
