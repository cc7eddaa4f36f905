/* SPDX-License-Identifier: MIT */
/* Deterministic random numbers (rng.c). */
#ifndef CWB_RNG_H
#define CWB_RNG_H

#include <stddef.h>
#include <stdint.h>

uint64_t cwb_rand(uint64_t *state); /* splitmix64 */
void cwb_shuffle(size_t *idx, size_t n, uint64_t *state);

#endif /* CWB_RNG_H */
