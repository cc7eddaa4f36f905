/* SPDX-License-Identifier: MIT */
/* cwbench tune: the policy the tuner decides, as the settings of a tuning
 * file, and the candidates its decisions measure (candidates.c): each a
 * policy put in force through cw_settings_apply() before its batch. */
#ifndef CWB_TUNE_CANDIDATES_H
#define CWB_TUNE_CANDIDATES_H

#include <stddef.h>
#include <stdint.h>

#include "engine/dist.h"
#include "engine/measure.h"
#include "engine/routines.h"
#include "results/stats.h"
#include "tune/tune.h"
#include "cachewise.h"

#define TUNE_MAX_CANDS 8

/* The settings the tuner decides: the value of each of tune_keys, an
 * enumerated one as the index of its name in the setting's names
 * (docs/TUNING.md), as the library numbers them. */
enum { REP_OFF, REP_ALIGNED, REP_ALIGN_DST, REP_ALIGN_DST_FAR };
enum { PF_T0, PF_T1, PF_T2, PF_NTA };
enum { STREAM_NT, STREAM_REP };
enum { PERSIST_MOVNTI, PERSIST_CLWB };
enum { MID_LADDER, MID_DIRECT, MID_DIRECT_LINES };

struct tune_policy {
    size_t v[TUNE_N_KEYS];
};

struct tune_cand {
    struct cwb_routine rt;
    struct tune_policy pol;
    char name[48];
};

/* One cell of nc candidates: medians (GB/s), each candidate against
 * candidate 0 (ratio = candidate / candidate 0), and faster[i][j] 1 where
 * candidate i is significantly faster than candidate j (the same test). */
struct tune_cell {
    double med[TUNE_MAX_CANDS];
    struct cwb_cmp vs0[TUNE_MAX_CANDS];
    signed char faster[TUNE_MAX_CANDS][TUNE_MAX_CANDS];
    int ok;
};

/* The name of value (an index) of the enumerated setting tune_keys[key]. */
const char *tune_value_name(int key, size_t value);
/* The policy as "key value" pairs in the tuning file's spelling, in the
 * order of tune_keys. */
void tune_policy_rows(const struct tune_policy *p, char v[TUNE_N_KEYS][32]);
/* The policy settings[] (cw_get_info()'s, or its CPU's profile's) give;
 * 0, or -1 after the message. */
int tune_policy_read(struct tune_policy *p, const struct cw_setting *settings, int n);
/* The policy in force for every entry point, as a tuning file's lines
 * (the process exits if the library refuses them). */
void tune_policy_apply(const struct tune_policy *p);
/* c: the routine op under policy pol, called name. */
void tune_cand_set(struct tune_cand *c, const char *name, cwb_copy_fn op,
                   const struct tune_policy *pol);
/* c[0], c[1]: op under base with the two-valued setting tune_keys[key] at
 * value 0 and at value 1, each called by its value's name. */
void tune_cand_pair(struct tune_cand c[2], const struct tune_policy *base, int key,
                    cwb_copy_fn op);
/* The nc candidates of c interleaved in one cell of sp; 0, or -1 when a
 * measurement failed (said on stderr). */
int tune_measure_cell(struct cwb_engine *e, const struct cwb_spec *sp, struct tune_cand *c,
                      size_t nc, struct tune_cell *out);
/* The same for a cell of n-byte calls at random offsets in a region of 4x
 * the size (at least 64 KiB per buffer), as `cwbench --ab --state random`:
 * bytes the L1 does not hold, every alignment; seed draws the offsets. */
int tune_measure_random_cell(struct cwb_engine *e, size_t n, uint64_t seed, struct tune_cand *c,
                             size_t nc, struct tune_cell *out);
/* The same for calls whose sizes are drawn from d, offsets at random in
 * the region of its largest size (as tune_measure_random_cell's). */
int tune_measure_dist_cell(struct cwb_engine *e, const struct cwb_dist *d, uint64_t seed,
                           struct tune_cand *c, size_t nc, struct tune_cell *out);
/* A hot cell of n bytes at these offsets. */
struct cwb_spec tune_hot_spec(size_t n, int soff, int doff);

#endif
