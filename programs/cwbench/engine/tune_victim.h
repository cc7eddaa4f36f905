/* SPDX-License-Identifier: MIT */
/* An L2-resident victim and what a copy evicts of it (tune_victim.c): for
 * `cwbench tune`'s CW_SRC_NOREUSE decision and `cwbench threads --victim`. */
#ifndef CWB_TUNE_VICTIM_H
#define CWB_TUNE_VICTIM_H

#include <stddef.h>
#include <stdint.h>

struct cwb_routine;

/* The CW_SRC_NOREUSE victim (tune_victim.c): a pointer chain through every
 * 64-byte line of bytes on huge pages, in a random order; free base with
 * cwb_free_huge(base, bytes). 0, or -1 when out of memory. */
struct tune_victim { unsigned char *base; size_t lines; };
int tune_victim_make(struct tune_victim *v, size_t bytes, uint64_t *rng);
/* Median evicted fraction of v over reps (at most 16) after rt (its
 * prepare hook run first) copies n bytes; rt NULL: the no-copy background,
 * waiting `wait` seconds instead. */
double tune_evicted(const struct tune_victim *v, const struct cwb_routine *rt,
                    unsigned char *dst, unsigned char *src, size_t n, int reps, double wait);

#endif /* CWB_TUNE_VICTIM_H */
