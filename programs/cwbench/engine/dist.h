/* SPDX-License-Identifier: MIT */
/* cwbench size distributions: "size probability" files, as LLVM libc's
 * memcpy benchmarks use for fleet-derived call sizes, and a sampler. */
#ifndef CWB_DIST_H
#define CWB_DIST_H

#include <stddef.h>
#include <stdint.h>

#define CWB_DIST_MAX_SIZE ((size_t)1 << 30)

/* cum[i]: probability of drawing sizes[0..i], normalised so cum[n-1] = 1.
 * Entries with probability 0 are dropped at load; a size listed twice
 * keeps both entries (their probabilities add up). */
struct cwb_dist { size_t *sizes; double *cum; size_t n; double mean_size; };

/* One "size probability" pair a line, '#' starts a comment, blank lines
 * ignored. Probabilities need not sum to 1 (they are normalised) but must
 * be finite and >= 0; sizes are decimal integers <= 1 GiB. Returns 0, or
 * -1 with "FILE:LINE: problem" (or "FILE: problem") in err and d empty. */
int cwb_dist_load(struct cwb_dist *d, const char *path, char *err, size_t errcap);
/* A size drawn with the file's probabilities (binary search in cum). */
size_t cwb_dist_sample(const struct cwb_dist *d, uint64_t *rng_state);
void cwb_dist_free(struct cwb_dist *d);
/* splitmix64: deterministic for a given seed, full 64-bit period. */
uint64_t cwb_rng_next(uint64_t *state);
/* A distribution of one size (probability 1): what `--ab --state random`
 * draws its calls from. 0, or -1 when out of memory. */
int cwb_dist_fixed(struct cwb_dist *d, size_t size);
/* Every size of [lo, hi] (lo <= hi) equally likely; 0, or -1 when out of
 * memory (d empty). */
int cwb_dist_uniform(struct cwb_dist *d, size_t lo, size_t hi);

/* ---- Call sequences drawn afresh ------------------------------------------
 * A sequence the timed loop replays over and over is one a branch
 * predictor learns: on an Intel Xeon a 4096-call sequence from a fleet
 * distribution read cw_memcpy/glibc 1.07-2.54 where 65536 calls read
 * 1.01-1.07. So no batch ever replays a pattern: every call is drawn
 * (size and both offsets) from a splitmix64 stream, and a routine gets a
 * new sequence before each of its batches. */

/* The engine's call: offsets into the source and destination regions and
 * bytes (measure.h). */
struct cwb_call;

/* calls[0..n): sizes drawn from d, source and destination offsets uniform
 * in [0, span) each (any byte alignment). */
void cwb_dist_draw(const struct cwb_dist *d, struct cwb_call *calls, size_t n, size_t span,
                   uint64_t *rng);

/* The sequence routines 0..63 replay: a new one whenever the routine about
 * to run a batch has already run the current one (no routine meets a
 * sequence twice, and the routines of one sample round mostly share one),
 * and written afresh in place before every batch, the same calls again
 * where the sequence is not new. So every batch starts from the same
 * state of the caches, the sequence just written: the batch right after a
 * new draw otherwise ran its calls from freshly written (dirty) lines, the
 * others from lines the batches before had read, and on AMD EPYC family 26
 * model 2 the first routine of a round took 0.2-0.6 ns a call longer,
 * 33-64 B at random offsets (docs/results/amd-26-2/README.md, "The first batch of a
 * round"). */
#define CWB_SEQ_MAX_USERS 64
struct cwb_seq {
    const struct cwb_dist *d;
    struct cwb_call *calls;
    size_t n, span;
    uint64_t rng;
    uint64_t start;         /* rng state the current sequence was drawn from */
    uint64_t ran;           /* bit i: routine i has run the current sequence */
    unsigned long long draws; /* sequences drawn so far */
    unsigned long long writes; /* times calls[] was written: draws and rewrites */
    size_t batches;         /* cwb_seq_before_batch calls so far */
    int progress;           /* cwb_measure_fresh: each batch is a progress step */
};
/* n calls (n >= 1), offsets in [0, span); the first sequence is drawn.
 * 0, or -1 when out of memory. */
int cwb_seq_init(struct cwb_seq *s, const struct cwb_dist *d, size_t n, size_t span,
                 uint64_t seed);
/* Grows the sequence to n calls (and draws a fresh one); 0 or -1. */
int cwb_seq_resize(struct cwb_seq *s, size_t n);
/* Routine `who` (< CWB_SEQ_MAX_USERS) is about to run a batch. */
void cwb_seq_before_batch(struct cwb_seq *s, unsigned who);
void cwb_seq_free(struct cwb_seq *s);
/* The smallest power of two >= n (n <= SIZE_MAX / 2). */
size_t cwb_pow2_at_least(size_t n);

#endif
