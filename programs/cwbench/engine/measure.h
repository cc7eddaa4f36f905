/* SPDX-License-Identifier: MIT */
/* The measurement engine (measure.c): cells, samples and the interleaved,
 * verified timed loops every subcommand measures with. Methodology and the
 * meaning of every number: docs/BENCHMARKS.md. */
#ifndef CWB_MEASURE_H
#define CWB_MEASURE_H

#include <stddef.h>
#include <stdint.h>

struct cwb_routine;

enum cwb_state { CWB_HOT, CWB_COLD, CWB_RANDOM };
const char *cwb_state_name(enum cwb_state s);

/* One call of a random-offset or distribution batch. */
struct cwb_call { size_t soff, doff, n; };

struct cwb_spec {
    enum cwb_state state;
    size_t size;            /* HOT/COLD: bytes per call */
    int src_off, dst_off;   /* HOT/COLD: added to the 64-byte aligned bases */
    /* RANDOM: calls replayed in order, cyclically; offsets within region */
    const struct cwb_call *calls;
    size_t n_calls, region;
};

/* Samples of one routine in one cell. */
struct cwb_run {
    double *wall, *cpu;     /* seconds per sample (one batch) */
    size_t n;               /* samples kept (the warm-up is discarded) */
    size_t calls;           /* calls per sample */
    double bytes;           /* bytes per sample, counted once */
    int preempted;          /* samples where cpu and wall differ by > 10% */
    int failed;             /* wrong bytes, a write outside dst, or NULL */
    int unavailable;        /* cw_copy_safe not copying (not implemented) */
    char err[160];
};

struct cwb_engine {
    unsigned char *src, *dst, *ref;
    size_t pool;            /* bytes of each of src, dst (and ref) */
    size_t cold_cursor;     /* rotation through the pool in COLD state */
    double min_sample;      /* seconds: at least 20 timer ticks */
    double max_sample;      /* seconds: cap on batch growth */
    int samples;
    uint64_t rng;
    int stack_at;           /* page offset of the timed loops' stack; -1: per cell */
    int failures;           /* cells with a failed routine, over the run */
    int preempted;          /* samples still preempted after 2 retries */
    int retried;            /* samples taken again after a preemption */
    size_t total_samples;
};

/* pool: bytes of each buffer (src, dst; ref on first random-state cell);
 * rounded up to 2 MiB. Returns
 * 0, or -1 when out of memory. */
int cwb_engine_init(struct cwb_engine *e, size_t pool, int samples, double min_sample,
                    uint64_t seed);
void cwb_engine_free(struct cwb_engine *e);

/* Measure nrt routines in one cell, interleaved in a new random order for
 * every sample, each after its own calibration (the discarded warm-up).
 * out[i] gets routine rt[i]; free each with cwb_run_free. Every sample's
 * copies are verified outside the timed region. Returns 0, or -1 when a
 * routine failed (out[i].failed with the reason in out[i].err). */
int cwb_measure(struct cwb_engine *e, const struct cwb_spec *spec,
                const struct cwb_routine *const *rt, size_t nrt, struct cwb_run *out);
/* As cwb_measure, but routine rt[i] runs cell specs[i]: e.g. one routine at
 * two alignments, interleaved sample by sample like two routines. */
int cwb_measure_each(struct cwb_engine *e, const struct cwb_spec *specs,
                     const struct cwb_routine *const *rt, size_t nrt, struct cwb_run *out);
void cwb_run_free(struct cwb_run *r);
/* GB/s per sample (bytes counted once, 1 GB = 1e9 bytes); x and cpu must
 * hold r->n doubles; cpu may be NULL. */
void cwb_run_gbps(const struct cwb_run *r, double *x, double *cpu);
/* Median of r's throughput in GB/s. */
double cwb_run_median_gbps(const struct cwb_run *r);

/* The order of sample round s of nrt routines (round[0..nrt)), from base
 * (a permutation of 0..nrt-1, kept between rounds): each block of nrt
 * rounds takes a new shuffle of base and its nrt rotations, so that in
 * every block each routine runs first once, second once, and so on. A
 * shuffle per round left that to chance, and with the default seed the
 * same chance in every process: in `cwbench dist` routine 0 ran first in
 * 10 of 15 rounds, and on AMD EPYC family 26 model 2 the first batch of a
 * round was the slow one (docs/results/amd-26-2/README.md, "The first batch of a round"). */
void cwb_round_order(size_t *round, size_t *base, size_t nrt, int s, uint64_t *rng);

#endif /* CWB_MEASURE_H */
