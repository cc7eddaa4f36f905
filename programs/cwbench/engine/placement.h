/* SPDX-License-Identifier: MIT */
/* Where a cell's buffers and the timed loops' stack lie in a page (placement.c). */
#ifndef CWB_PLACEMENT_H
#define CWB_PLACEMENT_H

#include <stddef.h>

struct cwb_engine;
struct cwb_spec;

/* Hot and cold cells: the source at page offset 0, the destination at page
 * offset 2048 (plus the spec's offsets), so loads and stores never alias
 * within 4 KiB unless the offsets ask for it (that would measure the CPU's
 * store-forwarding guesswork, not the copy). */
#define CWB_PAGE 4096u
#define CWB_LINE 64u
#define CWB_SRC_BASE CWB_PAGE
#define CWB_DST_BASE (CWB_PAGE + 2048u)
/* The timed loop's frame (saved registers, and the return address every
 * timed call stores) lies in the CWB_STACK_WINDOW bytes below the page
 * offset the engine gives its stack pointer. */
#define CWB_STACK_WINDOW 128u
#define CWB_STACK_AT_DEFAULT 4032u
/* That page offset (0..4080) for this cell: e->stack_at, or away from both
 * buffers. */
size_t cwb_stack_offset(const struct cwb_engine *e, const struct cwb_spec *sp);

#endif /* CWB_PLACEMENT_H */
