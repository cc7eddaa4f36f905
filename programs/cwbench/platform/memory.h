/* SPDX-License-Identifier: MIT */
/* Buffers on huge pages and their fills (memory.c). */
#ifndef CWB_MEMORY_H
#define CWB_MEMORY_H

#include <stddef.h>
#include <stdint.h>

/* Anonymous mmap rounded up to 2 MiB, 2 MiB-aligned, MADV_HUGEPAGE, every
 * page touched (no page faults inside timed regions). NULL on failure. */
void *cwb_alloc_huge(size_t bytes);
void cwb_free_huge(void *p, size_t bytes);
/* Fill with streaming stores (leaves the range out of the caches). */
void cwb_fill_nt(void *p, int byte, size_t n);
/* Deterministic pseudo-random bytes 1..255 (never 0, the poison byte). */
void cwb_fill_pattern(void *p, size_t n, uint64_t seed);

#endif /* CWB_MEMORY_H */
