/* SPDX-License-Identifier: MIT */
/* cwbench subcommands and what they share: parsed options, routine lists,
 * result output. For main.c, the subcommands and tune; nothing below them
 * (engine/, results/, platform/, base/) sees the options. */
#ifndef CWB_CMD_H
#define CWB_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "engine/measure.h"
#include "engine/routines.h"
#include "results/results.h"
#include "cachewise.h"

#define CWB_MAX_SIZES 64
#define CWB_SIZE_LIMIT ((size_t)1 << 30)

struct cwb_opts {
    int quick;
    int samples;            /* 0 = the subcommand's default */
    uint64_t seed;
    int pin;                /* -1: not pinned */
    int stack_at;           /* --stack-offset; -1: chosen per cell */
    const char *json, *csv, *plot;
    const char *routines;   /* comma-separated, NULL = default set */
    size_t sizes[CWB_MAX_SIZES];
    size_t n_sizes;
    size_t max_size;        /* 0 = default */
    size_t size;            /* pollution --size; 0 = default */
    const char *aligns;     /* sweep "S:D,S:D" (each side a number or LO-HI) */
    const char *src_offs, *dst_offs; /* sweep --src-off/--dst-off lists */
    const char *states;     /* sweep "hot,cold,random" */
    const char *state;      /* --ab: "hot", "cold" or "random" */
    const char *a_off, *b_off; /* --ab: "S:D" per side */
    const char *file;       /* dist FILE */
    const char *ab_a, *ab_b;
    const char *output;     /* tune --output FILE */
    const char *install_dir; /* tune --install (CW_SYSTEM_TUNING_DIR) or --install-dir DIR */
    int threads;            /* threads --threads N; 0 = the CPUs this process may run on */
    int victim;             /* threads --victim */
};

/* Source:destination offset pairs (sweep --align, --src-off x --dst-off). */
#define CWB_MAX_OFF 4095
#define CWB_MAX_ALIGNS 4096
struct cwb_aligns { int pair[CWB_MAX_ALIGNS][2]; size_t n; };
/* "S:D,S:D" where S and D are each N or LO-HI (cartesian product); pairs
 * must be unique. 0, or 2 after the usage message. */
int cwb_parse_aligns(const char *opt, const char *text, struct cwb_aligns *a);
/* "N,LO-HI,..." into v (room for CWB_MAX_OFF + 1); 0 or 2. */
int cwb_parse_offlist(const char *opt, const char *text, int *v, size_t *n);
/* Exactly one "S:D" pair; 0 or 2. */
int cwb_parse_pair(const char *opt, const char *text, int *src, int *dst);
/* --src-off x --dst-off (a NULL list means offset 0); 0 or 2. */
int cwb_offsets_to_aligns(const char *src_list, const char *dst_list, struct cwb_aligns *a);

/* Calls at random source and destination offsets (any alignment) within
 * region, `size` bytes each; NULL when out of memory. */
struct cwb_call *cwb_random_calls(size_t size, size_t region, size_t n, uint64_t *rng);
/* printf width that right-aligns s in w columns when s holds multibyte
 * UTF-8 characters such as "±" (printf pads by bytes). */
int cwb_colw(const char *s, int w);

int cwb_cmd_report(const struct cwb_opts *o);
int cwb_cmd_sweep(const struct cwb_opts *o);
int cwb_cmd_dist(const struct cwb_opts *o);
int cwb_cmd_pollution(const struct cwb_opts *o);
int cwb_cmd_ab(const struct cwb_opts *o);
/* `cwbench threads`: cw_copy_parallel at 1..N threads against the ceiling
 * of N threads split by hand (threads.c); with --victim the pollution of a
 * copy in k parts against one streaming call (threads_victim.c), whose
 * cells it adds to res. */
int cwb_cmd_threads(const struct cwb_opts *o);
int cwb_threads_victim(const struct cwb_opts *o, struct cwb_results *res);
/* Defined by other parts of cwbench. */
/* `cwbench info`: the policy in force (programs/cwbench/cmd/info.c). */
int cwb_cmd_info(int argc, char **argv);
int cwb_cmd_workload(int argc, char **argv);
/* `cwbench exec`: a command timed with and without the shim (exec.c) */
int cwb_cmd_exec(int argc, char **argv);

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
/* --json / --csv / --plot: 0, or 1 after printing the error. */
int cwb_write_outputs(const struct cwb_results *r, const struct cwb_opts *o);
/* Adds one cell of GB/s samples from a run. */
void cwb_add_run(struct cwb_results *r, const char *routine, const char *bench,
                 const struct cwb_spec *sp, const struct cwb_run *run);

/* The footnote on retaken and still-preempted samples (nothing if none). */
void cwb_print_preemption(const struct cwb_engine *e);

/* Median and half the interquartile range relative to it (as a fraction). */
void cwb_median_spread(const double *x, size_t n, double *median, double *spread);

/* Pollution measurement shared by the default report and `pollution`
 * (pollution.c, through engine/pollution.h's cwb_pollution_measure):
 * victims_mask bit 0 = L1, 1 = L2, 2 = L3. Prints its table to stdout and
 * adds cells to r. Returns 0, 1 on a runtime failure. */
int cwb_pollution_run(const struct cwb_opts *o, unsigned victims_mask, size_t copy_bytes,
                      const struct cwb_routine *const *rt, size_t nrt, int reps,
                      struct cwb_results *r);

#endif /* CWB_CMD_H */
