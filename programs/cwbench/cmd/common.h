/* SPDX-License-Identifier: MIT */
/* What the subcommands share (common.c): usage errors, routine lists, run
 * metadata, the engine with the usual sample length, output files, and
 * the columns of their tables. */
#ifndef CWB_COMMON_H
#define CWB_COMMON_H

#include <stddef.h>
#include <stdint.h>

struct cwb_call;
struct cwb_engine;
struct cwb_opts;
struct cwb_results;
struct cwb_routine;
struct cwb_run;
struct cwb_spec;

/* Calls at random source and destination offsets (any alignment) within
 * region, `size` bytes each; NULL when out of memory. */
struct cwb_call *cwb_random_calls(size_t size, size_t region, size_t n, uint64_t *rng);
/* printf width that right-aligns s in w columns when s holds multibyte
 * UTF-8 characters such as "±" (printf pads by bytes). */
int cwb_colw(const char *s, int w);

/* One line "cwbench: <msg>" and the usage hint on stderr; returns 2. */
int cwb_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Resolve a comma-separated list (or the default names when list is NULL)
 * into routines this machine runs; names in the default set that are not
 * runnable here are skipped, unknown names in list are a usage error
 * (returns 2 after the message). */
int cwb_pick_routines(const char *list, const char *const *deflt,
                      const struct cwb_routine **out, size_t *n);

/* Run metadata common to every subcommand (machine, seed, samples). */
void cwb_common_meta(struct cwb_results *r, const struct cwb_opts *o, const char *command);
/* cwb_engine_init with the usual minimum sample length (shorter with
 * --quick); on failure prints the one-line error and returns 1, the
 * subcommand's exit status, else 0. */
int cwb_engine_open(struct cwb_engine *e, size_t pool, int samples, const struct cwb_opts *o);
/* The end of an engine's run: the preemption footnote
 * (cwb_print_preemption), then cwb_engine_free. */
void cwb_engine_close(struct cwb_engine *e);
/* --json / --csv / --plot: 0, or 1 after printing the error. */
int cwb_write_outputs(const struct cwb_results *r, const struct cwb_opts *o);
/* The end of a measuring subcommand: cwb_write_outputs, frees r, then the
 * line "total time" since t_start (after an empty line when blank). The
 * exit status: 1 when failed or an output could not be written, else 0. */
int cwb_finish(struct cwb_results *r, const struct cwb_opts *o, double t_start, int blank,
               int failed);
/* Adds one cell of GB/s samples from a run. */
void cwb_add_run(struct cwb_results *r, const char *routine, const char *bench,
                 const struct cwb_spec *sp, const struct cwb_run *run);

/* The footnote on retaken and still-preempted samples (nothing if none). */
void cwb_print_preemption(const struct cwb_engine *e);

/* Median and half the interquartile range relative to it (as a fraction). */
void cwb_median_spread(const double *x, size_t n, double *median, double *spread);

#endif /* CWB_COMMON_H */
