/* SPDX-License-Identifier: MIT */
/* The subcommands' entry points, one file each in cmd/ (tune/ and
 * workload/ have their own). What they share: common.h; the options they
 * take: options.h. */
#ifndef CWB_CMD_H
#define CWB_CMD_H

#include <stddef.h>

struct cwb_opts;
struct cwb_results;
struct cwb_routine;

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

/* Pollution measurement shared by the default report and `pollution`
 * (pollution.c, through engine/pollution.h's cwb_pollution_measure):
 * victims_mask bit 0 = L1, 1 = L2, 2 = L3. Prints its table to stdout and
 * adds cells to r. Returns 0, 1 on a runtime failure. */
int cwb_pollution_run(const struct cwb_opts *o, unsigned victims_mask, size_t copy_bytes,
                      const struct cwb_routine *const *rt, size_t nrt, int reps,
                      struct cwb_results *r);

#endif /* CWB_CMD_H */
