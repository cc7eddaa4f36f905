/* SPDX-License-Identifier: MIT */
/* cwbench tune: the decisions about cw_memcpy's small copies (tune_entry.c,
 * x86 only). Each measures cw_memcpy under two values of its setting with
 * the rest of pol in force, sets pol's value where one side wins (else
 * leaves it), and writes the evidence line to why (cap bytes). 0, or -1
 * when a measurement failed. */
#ifndef CWB_TUNE_ENTRY_H
#define CWB_TUNE_ENTRY_H

#include <stddef.h>

struct cwb_engine;
struct tune_policy;

/* memcpy_mid: ladder or direct, hot, 48 B-1 KiB at two placements */
int tune_memcpy_mid(struct cwb_engine *e, struct tune_policy *pol, char *why, size_t cap);
/* memcpy_inline: 32 or 64, hot at 24-64 B at two placements and two cells
 * of mixed sizes at random offsets */
int tune_memcpy_inline(struct cwb_engine *e, struct tune_policy *pol, char *why, size_t cap);
/* memcpy_mid again, where decision 8 left direct or direct-lines: direct
 * against direct-lines, hot at 528-1000 B at four placements with both
 * buffers off a line and at 1280 and 2048 B with both on one */
int tune_memcpy_lines(struct cwb_engine *e, struct tune_policy *pol, char *why, size_t cap);

#endif
