/* SPDX-License-Identifier: MIT */
/* Tuning files: reading one, its "key = value" lines, the CPU signature a
 * file written by `cwbench tune` carries, which file is in force, and the
 * choice of a file from a directory of per-CPU files (docs/TUNING.md,
 * "Tuning files").
 *
 * Runs inside the library's one-time initialisation, possibly before
 * libc's constructors: open/read/getdents64 into static storage, nothing
 * allocated, no memcpy (the LD_PRELOAD shim may be what is initialising). */
#define _GNU_SOURCE /* strerrordesc_np */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

char cwi_tuning_text[8192];

/* A file a privileged process may trust: root's, and nobody else may
 * write it. */
static int root_only(const struct stat *st)
{
    return st->st_uid == 0 && (st->st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

int cwi_tuning_file_read(const char *path, int secure)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (secure ? O_NOFOLLOW : 0));
    if (fd < 0)
        return -1;
    struct stat st;
    int e = 0;
    if (fstat(fd, &st) != 0)
        e = errno;
    else if (S_ISDIR(st.st_mode))
        e = EISDIR;
    else if (!S_ISREG(st.st_mode))
        e = EINVAL; /* a FIFO, a device (opened O_NONBLOCK: never waits) */
    else if (secure && !root_only(&st))
        e = EPERM;
    if (e != 0) {
        close(fd);
        errno = e;
        return -1;
    }
    size_t len = 0;
    for (;;) {
        ssize_t got = read(fd, cwi_tuning_text + len, sizeof cwi_tuning_text - 1 - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        len += (size_t)got;
        if (len == sizeof cwi_tuning_text - 1) {
            close(fd);
            errno = EFBIG;
            return -1;
        }
    }
    close(fd);
    cwi_tuning_text[len] = '\0';
    return 0;
}

static int blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r';
}

void cwi_text_lines(const char *text, cwi_line_fn fn, void *ctx)
{
    int line = 0;
    for (const char *p = text; *p != '\0';) {
        const char *end = p;
        while (*end != '\0' && *end != '\n')
            end++;
        const char *next = *end != '\0' ? end + 1 : end;
        line++;
        char buf[256]; /* longer lines are cut: no setting needs that much */
        cwi_copy_str(buf, sizeof buf, p, (size_t)(end - p));
        char *hash = strchr(buf, '#');
        if (hash != NULL)
            *hash = '\0';
        char *k = buf;
        while (blank(*k))
            k++;
        size_t klen = strlen(k);
        while (klen > 0 && blank(k[klen - 1]))
            k[--klen] = '\0';
        if (klen != 0) {
            char *eq = strchr(k, '=');
            if (eq == NULL) {
                fn(k, NULL, line, ctx);
            } else {
                char *v = eq + 1, *ke = eq;
                while (ke > k && blank(ke[-1]))
                    ke--;
                *ke = '\0';
                while (blank(*v))
                    v++;
                fn(k, v, line, ctx);
            }
        }
        p = next;
    }
}

/* A file's lines: the caller's function for each "key = value", a line
 * without '=' recorded (unless quiet) with the file's path. */
struct file_lines {
    const char *path;
    int quiet;
    cwi_file_line_fn fn;
    void *ctx;
};

static void file_line(const char *key, const char *value, int line, void *ctx)
{
    const struct file_lines *f = ctx;
    if (value != NULL)
        f->fn(key, value, line, f->path, f->ctx);
    else if (!f->quiet)
        cwi_config_error("%s%s:%d: expected \"key = value\"", CWI_PATH_TAIL(f->path), line);
}

void cwi_tuning_file_lines(const char *path, int quiet, cwi_file_line_fn fn, void *ctx)
{
    struct file_lines f = {path, quiet, fn, ctx};
    cwi_text_lines(cwi_tuning_text, file_line, &f);
}

/* ---- the CPU signature ---------------------------------------------------- */

static void put(char *buf, size_t cap, size_t *len, const char *s)
{
    for (; *s != '\0' && *len + 1 < cap; s++)
        buf[(*len)++] = *s;
    buf[*len] = '\0';
}

static void put_uint(char *buf, size_t cap, size_t *len, size_t v)
{
    char t[24];
    int i = (int)sizeof t - 1;
    t[i] = '\0';
    do {
        t[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0 && i > 0);
    put(buf, cap, len, t + i);
}

/* "48K", "1M", "508M": the size in the largest binary unit that divides it */
static void put_size(char *buf, size_t cap, size_t *len, size_t v)
{
    const char *unit = "";
    if (v != 0 && v % ((size_t)1 << 20) == 0) {
        v >>= 20;
        unit = "M";
    } else if (v != 0 && v % 1024 == 0) {
        v >>= 10;
        unit = "K";
    }
    put_uint(buf, cap, len, v);
    put(buf, cap, len, unit);
}

void cwi_cpu_signature(const struct cwi_cpu *c, char *buf, size_t cap)
{
    const char *best = "generic";
    for (size_t i = 0; cwi_impls[i] != NULL; i++)
        if ((cwi_impls[i]->required & c->features) == cwi_impls[i]->required) {
            best = cwi_impls[i]->name;
            break;
        }
    size_t len = 0;
    buf[0] = '\0';
    put(buf, cap, &len, c->vendor[0] != '\0' ? c->vendor : "unknown");
    put(buf, cap, &len, " family ");
    put_uint(buf, cap, &len, c->family);
    put(buf, cap, &len, " model ");
    put_uint(buf, cap, &len, c->model_number);
    put(buf, cap, &len, " stepping ");
    put_uint(buf, cap, &len, c->stepping);
    put(buf, cap, &len, ", L1d ");
    put_size(buf, cap, &len, c->l1d);
    put(buf, cap, &len, ", L2 ");
    put_size(buf, cap, &len, c->l2);
    put(buf, cap, &len, ", L3 ");
    put_size(buf, cap, &len, c->l3);
    put(buf, cap, &len, ", ");
    put(buf, cap, &len, best);
}

/* a and b equal but for the amount of white space between words */
static int same_words(const char *a, const char *b)
{
    for (;;) {
        while (blank(*a))
            a++;
        while (blank(*b))
            b++;
        if (*a == '\0' || *b == '\0')
            return *a == *b;
        while (*a != '\0' && !blank(*a) && *a == *b) {
            a++;
            b++;
        }
        if (!(blank(*a) || *a == '\0') || !(blank(*b) || *b == '\0'))
            return 0;
    }
}

struct cpu_scan {
    char value[160];
    int seen;
};

static void cpu_line(const char *key, const char *value, int line, const char *path, void *ctx)
{
    (void)line;
    (void)path;
    struct cpu_scan *s = ctx;
    if (strcmp(key, "cpu") == 0 && !s->seen) {
        cwi_copy_str(s->value, sizeof s->value, value, SIZE_MAX);
        s->seen = 1;
    }
}

int cwi_tuning_file_cpu(const char *path, const char *sig, char *found, size_t cap)
{
    struct cpu_scan s = {{0}, 0};
    cwi_tuning_file_lines(path, 1, cpu_line, &s);
    cwi_copy_str(found, cap, s.value, SIZE_MAX);
    if (!s.seen)
        return CWI_CPU_UNSTATED;
    if (strcmp(s.value, "any") == 0)
        return CWI_CPU_ANY;
    return same_words(s.value, sig) ? CWI_CPU_MATCH : CWI_CPU_OTHER;
}

/* ---- the file in force ---------------------------------------------------- */

/* The profile names for a message: "intel-server, amd-zen3, ..." */
static void profile_list(char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; cwi_profile_names[i] != NULL && len < cap; i++)
        len +=
            (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", cwi_profile_names[i]);
}

static const char *read_error(int e)
{
    return e == EPERM    ? "not owned by root or writable by others"
           : e == EINVAL ? "not a regular file"
                         : strerrordesc_np(e);
}

/* A file whose "cpu" line names another CPU is not applied. 1: use it. */
static int signature_fits(const char *path, const char *sig)
{
    char found[160];
    if (cwi_tuning_file_cpu(path, sig, found, sizeof found) != CWI_CPU_OTHER)
        return 1;
    cwi_config_error("%s%s: measured on another CPU, ignored (cpu = %.60s)", CWI_PATH_TAIL(path),
                     found);
    return 0;
}

/* CACHEWISE_TUNING's file, or the matching file of its directory; without
 * the variable, the matching file of CW_SYSTEM_TUNING_DIR, else
 * CW_SYSTEM_TUNING_FILE (internal.h). */
const char *cwi_tuning_file_choose(const char *env, const char *sig, int secure,
                                   const struct cwi_profile **named, const char **source)
{
    static char path[CW_INFO_ERROR_LEN]; /* a file chosen from a directory */
    *named = NULL;
    *source = "env";
    if (env != NULL && env[0] != '\0') {
        if (strchr(env, '/') == NULL) {
            if (cwi_profile_find(env) != NULL) {
                *named = cwi_profile_find(env);
            } else {
                char names[200];
                profile_list(names, sizeof names);
                cwi_config_error("CACHEWISE_TUNING=\"%.60s\": no such profile (%s) and not "
                                 "a path (a file is named with a '/': ./FILE)",
                                 env, names);
            }
            return NULL;
        }
        if (cwi_tuning_file_read(env, 0) == 0)
            return signature_fits(env, sig) ? env : NULL;
        if (errno != EISDIR) {
            cwi_config_error("CACHEWISE_TUNING=\"%.60s\": %s; ignored", env, read_error(errno));
            return NULL;
        }
        if (cwi_tuning_dir_choose(env, sig, 0, path, sizeof path) == 0)
            return path;
        cwi_config_error("CACHEWISE_TUNING=\"%.60s\": %s; ignored", env,
                         errno == ESRCH ? "no *.conf file there was measured on this CPU"
                                        : read_error(errno));
        return NULL;
    }
    *source = "system";
    if (cwi_tuning_dir_choose(CW_SYSTEM_TUNING_DIR, sig, secure, path, sizeof path) == 0)
        return path;
    if (errno != ENOENT && errno != ESRCH)
        cwi_config_error("%s: %s; ignored", CW_SYSTEM_TUNING_DIR, read_error(errno));
    if (cwi_tuning_file_read(CW_SYSTEM_TUNING_FILE, secure) == 0)
        return signature_fits(CW_SYSTEM_TUNING_FILE, sig) ? CW_SYSTEM_TUNING_FILE : NULL;
    if (errno != ENOENT)
        cwi_config_error("%s: %s; ignored", CW_SYSTEM_TUNING_FILE, read_error(errno));
    return NULL;
}

/* ---- a directory of per-CPU files ---------------------------------------- */

struct linux_dirent64 {
    unsigned long long d_ino;
    long long d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

static int conf_name(const char *name)
{
    size_t len = strlen(name);
    return name[0] != '.' && len > 5 && len < 128 && strcmp(name + len - 5, ".conf") == 0;
}

int cwi_tuning_dir_choose(const char *dir, const char *sig, int secure, char *path, size_t cap)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (secure ? O_NOFOLLOW : 0));
    if (fd < 0)
        return -1;
    struct stat st;
    int e = fstat(fd, &st) != 0 ? errno : secure && !root_only(&st) ? EPERM : 0;
    if (e != 0) {
        close(fd);
        errno = e;
        return -1;
    }
    /* the matching file first in name order, so that the choice does not
     * depend on the order the file system lists them in */
    static char best[128], dirbuf[4096];
    static char candidate[CW_INFO_ERROR_LEN];
    best[0] = '\0';
    size_t dlen = strlen(dir);
    for (;;) {
        long got = syscall(SYS_getdents64, fd, dirbuf, sizeof dirbuf);
        if (got <= 0)
            break;
        for (long off = 0; off < got;) {
            const struct linux_dirent64 *de = (const void *)(dirbuf + off);
            off += de->d_reclen;
            if (!conf_name(de->d_name) || (best[0] != '\0' && strcmp(de->d_name, best) >= 0))
                continue;
            if (dlen + 2 + strlen(de->d_name) > sizeof candidate)
                continue;
            size_t len = 0;
            candidate[0] = '\0';
            put(candidate, sizeof candidate, &len, dir);
            put(candidate, sizeof candidate, &len, "/");
            put(candidate, sizeof candidate, &len, de->d_name);
            char found[160];
            if (cwi_tuning_file_read(candidate, secure) == 0 &&
                cwi_tuning_file_cpu(candidate, sig, found, sizeof found) == CWI_CPU_MATCH)
                cwi_copy_str(best, sizeof best, de->d_name, SIZE_MAX);
        }
    }
    close(fd);
    if (best[0] == '\0' || dlen + 2 + strlen(best) > cap) {
        errno = ESRCH;
        return -1;
    }
    size_t len = 0;
    path[0] = '\0';
    put(path, cap, &len, dir);
    put(path, cap, &len, "/");
    put(path, cap, &len, best);
    return cwi_tuning_file_read(path, secure);
}
