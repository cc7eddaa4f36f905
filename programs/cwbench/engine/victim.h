/* SPDX-License-Identifier: MIT */
/* A pollution victim and what a copy evicts of it (victim.c): the pointer
 * chain of `cwbench pollution`'s victims, and the L2-resident victim of
 * `cwbench tune` (CW_SRC_NOREUSE, the streaming method) and `cwbench
 * threads --victim`. */
#ifndef CWB_VICTIM_H
#define CWB_VICTIM_H

#include <stddef.h>
#include <stdint.h>

struct cwb_routine;

/* A pointer chain through every 64-byte line of bytes on huge pages, one
 * cycle in a random order (no stride for the prefetchers to learn); free
 * base with cwb_free_huge(base, bytes). 0, or -1 when out of memory. */
struct cwb_victim { unsigned char *base; size_t lines; };
int cwb_victim_make(struct cwb_victim *v, size_t bytes, uint64_t *rng);
/* Median evicted fraction of v over reps (at most 16) after rt (its
 * prepare hook run first) copies n bytes; rt NULL: the no-copy background,
 * waiting `wait` seconds instead. */
double cwb_victim_evicted(const struct cwb_victim *v, const struct cwb_routine *rt,
                          unsigned char *dst, unsigned char *src, size_t n, int reps, double wait);

#endif /* CWB_VICTIM_H */
