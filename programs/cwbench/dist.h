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

#endif
