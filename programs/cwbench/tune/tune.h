/* SPDX-License-Identifier: MIT */
/* cwbench tune: options and entry point (programs/cwbench/tune/tune.c). */
#ifndef CWB_TUNE_H
#define CWB_TUNE_H

#include <stddef.h>
#include <stdint.h>

struct cwb_opts;
struct cwb_routine;
struct cwb_engine;
struct cw_info;

struct tune_opts {
    int quick;
    size_t big;          /* the DRAM-sized copy of the prefetch decision */
    const char *output;  /* --output FILE, or NULL */
    const char *install; /* --install(-dir): the directory of per-CPU files, or NULL */
};

/* Measures every decision of the policy, prints it beside the built-in
 * profile of this CPU, writes t->output. 0, 1 (a measurement or the write
 * failed) or 2 (usage). */
int cwb_cmd_tune(const struct tune_opts *t, const struct cwb_opts *o);
/* "1536K", "2M", "100" */
const char *tune_size_text(size_t v, char buf[32]);

/* The tuning file (tune_file.c): its settings in order, and the writer:
 * v[k] the value of tune_keys[k] as the file spells it, why[] the evidence
 * lines (0..5 the decisions of decide_copy_kernels.c and decide_hints.c,
 * 6 the thread count, 7 and 8 cw_memcpy's copies past its own and its own
 * copies, 9 the shape of those past its own: tune_entry.c; "" for none),
 * base the profile it builds on. 0, or -1 after the message. */
#define TUNE_N_KEYS 15
extern const char *const tune_keys[TUNE_N_KEYS];
/* their indexes */
enum {
    TK_NT_THRESHOLD,
    TK_REP_MOVSB,
    TK_REP_MIN,
    TK_REP_MAX,
    TK_STREAM_PREFETCH,
    TK_STREAM_HINT,
    TK_STREAM_METHOD,
    TK_STREAM_REP_MIN,
    TK_SRC_NOREUSE,
    TK_SRC_PREFETCH,
    TK_SRC_FLUSH_BEHIND,
    TK_PERSIST_SMALL,
    TK_PARALLEL_THREADS,
    TK_MEMCPY_MID,
    TK_MEMCPY_INLINE
};
/* The path `tune --install` writes in dir for this CPU (dir created if
 * missing). 0, or -1 after the message. */
int tune_install_path(const char *dir, const struct cw_info *in, char *path, size_t cap);
int tune_write_file(const char *path, char v[TUNE_N_KEYS][32], char why[][480], const char *base,
                    const struct cw_info *in);

/* parallel_threads (tune_threads.c): cw_copy_parallel at 1..N threads on a
 * cold copy of t->big bytes, N the threads the pool would use for it here;
 * *threads gets the smallest count the best does not beat by a significant
 * 5% (0 when that is every CPU of this process), why[] the evidence, or
 * "not measured: ..." and *threads untouched on a single CPU. 0, or -1 when
 * a measurement failed. */
int tune_parallel_threads(struct cwb_engine *e, const struct tune_opts *t, size_t *threads,
                          char *why, size_t cap);

#endif
