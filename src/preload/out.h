/* SPDX-License-Identifier: MIT */
/* Text output of the shim (its profile, its statistics, its messages):
 * async-signal-safe, no malloc, no stdio, static buffers only, so that it
 * works at exit, from a signal handler and when fd 2 is gone. Internal. */
#ifndef CW_PRELOAD_OUT_H
#define CW_PRELOAD_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "internal.h"

CWI_HIDDEN size_t cwp_str_len(const char *s);
/* Appends src to dst[*len] within cap (always terminated); 0 if it fit. */
CWI_HIDDEN int cwp_str_append(char *dst, size_t cap, size_t *len, const char *src);
/* v in decimal, written backwards into buf; returns its first digit. */
CWI_HIDDEN char *cwp_u64_str(char buf[24], uint64_t v);

/* Keeps a duplicate of the stderr the program started with (programs often
 * close fd 2 before exit, when the profile and the statistics are
 * written); idempotent. */
CWI_HIDDEN void cwp_keep_stderr(void);
/* The kept stderr while it is still that file, else fd 2 if that is; -1:
 * neither. */
CWI_HIDDEN int cwp_err_fd(void);
/* "cachewise-preload: " a b c (NULL parts skipped) on cwp_err_fd(). */
CWI_HIDDEN void cwp_say(const char *a, const char *b, const char *c);

/* A buffered writer on one descriptor; failed: the first errno. */
struct cwp_out {
    int fd, failed;
    size_t len;
    char buf[8192];
};
CWI_HIDDEN void cwp_out_flush(struct cwp_out *o);
CWI_HIDDEN void cwp_out_str(struct cwp_out *o, const char *s);
CWI_HIDDEN void cwp_out_u64(struct cwp_out *o, uint64_t v);
/* num * mul / den with up to `digits` decimals, trailing zeros dropped. */
CWI_HIDDEN void cwp_out_frac(struct cwp_out *o, uint64_t num, uint64_t mul, uint64_t den,
                             int digits);
/* part / total as a percentage with two decimals and a "%". */
CWI_HIDDEN void cwp_out_pct(struct cwp_out *o, uint64_t part, uint64_t total);
/* s right-aligned in width columns. */
CWI_HIDDEN void cwp_out_right(struct cwp_out *o, const char *s, size_t width);

/* An absolute path into dst: path itself, or the current directory and
 * path (resolved at start-up: the program may chdir before it exits);
 * 0, or -1 with a reason for a message in *why. */
CWI_HIDDEN int cwp_absolute(char *dst, size_t cap, const char *path, const char **why);
/* Expands %p (pid) and %% of template into dst; -1 if too long. */
CWI_HIDDEN int cwp_expand(char *dst, size_t cap, const char *template, pid_t pid);

/* One writer at a time (exit, signal flush): 1 if taken. */
CWI_HIDDEN int cwp_out_lock(void);
CWI_HIDDEN void cwp_out_unlock(void);
/* After fork: the child's lock is free. */
CWI_HIDDEN void cwp_out_reset(void);

/* Writes path whole or not at all: emit(o, arg) into a temporary file
 * beside it, created under an unpredictable name, never through an existing
 * file or symlink (O_EXCL|O_NOFOLLOW, mode 0600), then renamed over path.
 * A failure is reported as "cannot write WHAT PATH: reason". Call with the
 * lock held. */
CWI_HIDDEN void cwp_write_file(const char *path, const char *what,
                               void (*emit)(struct cwp_out *o, void *arg), void *arg);
/* emit(o, arg) to cwp_err_fd() (nothing when there is none). Lock held. */
CWI_HIDDEN void cwp_write_err(void (*emit)(struct cwp_out *o, void *arg), void *arg);

#endif /* CW_PRELOAD_OUT_H */
