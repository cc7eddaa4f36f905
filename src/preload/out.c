/* SPDX-License-Identifier: MIT */
/* The shim's text output (see out.h): async-signal-safe helpers, the kept
 * stderr and the whole-or-nothing file writer. */
#define _GNU_SOURCE /* strerrordesc_np */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>  /* rename: a system call, async-signal-safe */
#include <string.h> /* strerrordesc_np: a table lookup, async-signal-safe */
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "out.h"

size_t cwp_str_len(const char *s)
{
    size_t n = 0;
    while (s[n] != '\0')
        n++;
    return n;
}

int cwp_str_append(char *dst, size_t cap, size_t *len, const char *src)
{
    for (; *src != '\0'; src++) {
        if (*len + 1 >= cap)
            return -1;
        dst[(*len)++] = *src;
    }
    dst[*len] = '\0';
    return 0;
}

char *cwp_u64_str(char buf[24], uint64_t v)
{
    char *p = buf + 23;
    *p = '\0';
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    return p;
}

/* ---- the kept stderr ----
 * Many programs close fd 2 before exit (coreutils' close_stdout, xz, sort
 * and echo among them): a write(2) of a failure would then go nowhere, or
 * into whatever file took fd 2 since. So the shim keeps its own duplicate
 * of the stderr the program started with (close-on-exec, from
 * CWP_ERR_FD_MIN up, out of the way of the low numbers programs open and
 * reuse), with that file's identity: a descriptor the program closed or
 * replaced (closefrom, dup2) is not ours any more, and then only a fd 2
 * that is still that same file is written to. -1: no duplicate (none
 * needed, or no stderr at start-up), fd 2 as before. */
#define CWP_ERR_FD_MIN 100
static int g_err_fd = -1;
static dev_t g_err_dev;
static ino_t g_err_ino;

static int is_err_file(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && st.st_dev == g_err_dev && st.st_ino == g_err_ino;
}

int cwp_err_fd(void)
{
    if (g_err_fd < 0)
        return 2;
    if (is_err_file(g_err_fd))
        return g_err_fd;
    return is_err_file(2) ? 2 : -1;
}

void cwp_keep_stderr(void)
{
    if (g_err_fd >= 0)
        return;
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

void cwp_say(const char *a, const char *b, const char *c)
{
    const char *parts[4] = {"cachewise-preload: ", a, b, c};
    int fd = cwp_err_fd();
    for (int i = 0; i < 4 && fd >= 0; i++)
        if (parts[i] != NULL)
            (void)!write(fd, parts[i], cwp_str_len(parts[i]));
}

/* ---- the buffered writer ---- */

void cwp_out_flush(struct cwp_out *o)
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

void cwp_out_str(struct cwp_out *o, const char *s)
{
    for (; *s != '\0'; s++) {
        if (o->len == sizeof o->buf)
            cwp_out_flush(o);
        o->buf[o->len++] = *s;
    }
}

void cwp_out_u64(struct cwp_out *o, uint64_t v)
{
    char b[24];
    cwp_out_str(o, cwp_u64_str(b, v));
}

/* Integer arithmetic only: no printf in a signal handler. */
void cwp_out_frac(struct cwp_out *o, uint64_t num, uint64_t mul, uint64_t den, int digits)
{
    if (den == 0) {
        cwp_out_str(o, "0");
        return;
    }
    unsigned __int128 scale = 1;
    for (int i = 0; i < digits; i++)
        scale *= 10;
    unsigned __int128 q = ((unsigned __int128)num * mul * scale + den / 2) / den;
    cwp_out_u64(o, (uint64_t)(q / scale));
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
    cwp_out_str(o, ".");
    cwp_out_str(o, d);
}

void cwp_out_pct(struct cwp_out *o, uint64_t part, uint64_t total)
{
    cwp_out_frac(o, part, 100, total, 2);
    cwp_out_str(o, "%");
}

void cwp_out_right(struct cwp_out *o, const char *s, size_t width)
{
    for (size_t n = cwp_str_len(s); n < width; n++)
        cwp_out_str(o, " ");
    cwp_out_str(o, s);
}

/* ---- paths ---- */

int cwp_absolute(char *dst, size_t cap, const char *path, const char **why)
{
    size_t len = 0;
    dst[0] = '\0';
    if (path[0] != '/') {
        if (getcwd(dst, cap) == NULL) {
            *why = "cannot resolve a relative path (current directory unknown)";
            return -1;
        }
        len = cwp_str_len(dst);
        if (cwp_str_append(dst, cap, &len, "/") != 0)
            len = cap;
    }
    if (len >= cap || cwp_str_append(dst, cap, &len, path) != 0) {
        *why = "path too long";
        return -1;
    }
    return 0;
}

int cwp_expand(char *dst, size_t cap, const char *template, pid_t pid)
{
    size_t len = 0;
    char b[24];
    dst[0] = '\0';
    for (const char *t = template; *t != '\0'; t++) {
        char one[2] = {*t, '\0'};
        const char *piece = one;
        if (t[0] == '%' && t[1] == 'p') {
            piece = cwp_u64_str(b, (uint64_t)pid);
            t++;
        } else if (t[0] == '%' && t[1] == '%') {
            t++;
        }
        if (cwp_str_append(dst, cap, &len, piece) != 0)
            return -1;
    }
    return 0;
}

/* ---- writing ---- */

static _Atomic int g_writing; /* the try-lock for everything below */
static struct cwp_out g_out;
static char g_tmp[PATH_MAX + 64];

int cwp_out_lock(void)
{
    int busy = 0;
    return atomic_compare_exchange_strong_explicit(&g_writing, &busy, 1, memory_order_acquire,
                                                   memory_order_relaxed);
}

void cwp_out_unlock(void)
{
    atomic_store_explicit(&g_writing, 0, memory_order_release);
}

void cwp_out_reset(void)
{
    atomic_store_explicit(&g_writing, 0, memory_order_relaxed);
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

/* Creates path's temporary file in path's own directory (so the rename
 * stays on one file system) under a name nobody can predict: mkstemp
 * without malloc, and without its fixed six-letter suffix. Returns the
 * descriptor or -1 (errno). */
static int create_temp(const char *path)
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
        if (cwp_str_append(g_tmp, sizeof g_tmp, &len, path) != 0 ||
            cwp_str_append(g_tmp, sizeof g_tmp, &len, ".") != 0 ||
            cwp_str_append(g_tmp, sizeof g_tmp, &len, name) != 0 ||
            cwp_str_append(g_tmp, sizeof g_tmp, &len, ".tmp") != 0) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(g_tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

void cwp_write_file(const char *path, const char *what,
                    void (*emit)(struct cwp_out *o, void *arg), void *arg)
{
    struct cwp_out *o = &g_out;
    o->len = 0;
    o->failed = 0;
    o->fd = create_temp(path);
    if (o->fd < 0) {
        o->failed = errno;
    } else {
        emit(o, arg);
        cwp_out_flush(o);
        if (close(o->fd) != 0 && !o->failed)
            o->failed = errno;
        if (!o->failed && rename(g_tmp, path) != 0)
            o->failed = errno;
        if (o->failed)
            (void)unlink(g_tmp); /* our own file: created with O_EXCL above */
    }
    if (!o->failed)
        return;
    char b[24], msg[160], head[64];
    size_t len = 0, hlen = 0;
    msg[0] = head[0] = '\0';
    (void)cwp_str_append(head, sizeof head, &hlen, "cannot write ");
    (void)cwp_str_append(head, sizeof head, &hlen, what);
    (void)cwp_str_append(head, sizeof head, &hlen, " ");
    (void)cwp_str_append(msg, sizeof msg, &len, ": ");
    (void)cwp_str_append(msg, sizeof msg, &len, strerrordesc_np(o->failed) != NULL
                                                    ? strerrordesc_np(o->failed)
                                                    : "unknown error");
    (void)cwp_str_append(msg, sizeof msg, &len, " (errno ");
    (void)cwp_str_append(msg, sizeof msg, &len, cwp_u64_str(b, (uint64_t)o->failed));
    (void)cwp_str_append(msg, sizeof msg, &len, ")\n");
    cwp_say(head, path, msg);
}

void cwp_write_err(void (*emit)(struct cwp_out *o, void *arg), void *arg)
{
    struct cwp_out *o = &g_out;
    o->len = 0;
    o->failed = 0;
    o->fd = cwp_err_fd();
    if (o->fd < 0)
        return;
    emit(o, arg);
    cwp_out_flush(o);
}
