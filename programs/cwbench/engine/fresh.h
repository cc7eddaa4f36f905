/* SPDX-License-Identifier: MIT */
/* Measuring on fresh call sequences (fresh.c): no batch replays a pattern
 * the branch predictor could learn. */
#ifndef CWB_FRESH_H
#define CWB_FRESH_H

#include <stddef.h>
#include <stdint.h>

#include "engine/dist.h"

struct cwb_engine;
struct cwb_spec;
struct cwb_routine;
struct cwb_run;

/* Calls per sequence when --calls does not say: at 65536 the ratio of two
 * routines no longer moved with the length even when the sequence
 * repeated (4096: 1.07-2.54, 16384: 1.03-1.13, 65536: 1.01-1.07). */
#define CWB_SEQ_DEFAULT_CALLS ((size_t)1 << 16)
#define CWB_SEQ_MIN_CALLS ((size_t)1 << 10)
#define CWB_SEQ_MAX_CALLS ((size_t)1 << 24)
/* --calls N for dist and --ab --state random (0: the default). */
void cwb_seq_set_calls(size_t n);
size_t cwb_seq_calls(void);

/* cwb_measure_each for random-state cells (specs[i].state and .region set
 * by the caller) where every batch of every routine replays a sequence
 * drawn for it from seq (cwb_seq_before_batch). Batches stop growing at
 * the first one that lasts the minimum sample time, and a pilot round
 * grows seq (to a power of two) until it holds more calls than any batch
 * makes, so a batch never replays a call. *wrapped is set when even the
 * grown sequence was shorter than a batch (the batches then wrapped
 * around it). Returns as cwb_measure_each. */
int cwb_measure_fresh(struct cwb_engine *e, struct cwb_spec *specs,
                      const struct cwb_routine *const *rt, size_t nrt, struct cwb_seq *seq,
                      struct cwb_run *out, int *wrapped);

/* A random-state cell of `size`-byte calls (--ab --state random; meant for
 * sweep's random state too): offsets uniform in [0, span) drawn afresh as
 * cwb_measure_fresh does, --calls calls a sequence, seeded by seed. */
int cwb_measure_random(struct cwb_engine *e, struct cwb_spec *specs,
                       const struct cwb_routine *const *rt, size_t nrt, size_t size, size_t span,
                       uint64_t seed, struct cwb_run *out, int *wrapped);
/* The same with each call's size drawn from d (a mixed-size cell: the
 * tuner's). */
int cwb_measure_dist(struct cwb_engine *e, struct cwb_spec *specs,
                     const struct cwb_routine *const *rt, size_t nrt, const struct cwb_dist *d,
                     size_t span, uint64_t seed, struct cwb_run *out, int *wrapped);
/* The region a random-state cell of `size`-byte calls draws its offsets
 * in: 4x the size, at least 64 KiB, within buffers of `pool` bytes (16 KiB
 * kept for the placement). */
size_t cwb_random_region(size_t size, size_t pool);

#endif /* CWB_FRESH_H */
