/* SPDX-License-Identifier: MIT */
/* Where a cell's buffers and the timed loops' stack lie within a page
 * (docs/BENCHMARKS.md, "Placement"). */
#include <stdint.h>

#include "engine/measure.h"
#include "engine/placement.h"

/* Marks the 64-byte lines of a page that n bytes from page offset off cover. */
static uint64_t page_lines(size_t off, size_t n)
{
    if (n >= CWB_PAGE)
        return ~(uint64_t)0;
    uint64_t m = 0;
    for (size_t l = off / CWB_LINE; l <= (off + n - 1) / CWB_LINE; l++)
        m |= (uint64_t)1 << (l % (CWB_PAGE / CWB_LINE));
    return m;
}

/* The page offset for the timed loop's stack. Every timed call stores its
 * return address there, and a load of the copy whose address agrees with a
 * pending store in the low 12 bits waits for it (4K aliasing): where the
 * stack lies is a variable of the measurement like the buffers' offsets.
 * Left alone it would follow the size of the process's environment; it is
 * chosen instead: the middle of the widest stretch of the page that neither
 * buffer of the cell covers, or CWB_STACK_AT_DEFAULT when there is none (copies
 * of about 2 KiB and more, random-offset replays: every offset is in use). */
size_t cwb_stack_offset(const struct cwb_engine *e, const struct cwb_spec *sp)
{
    if (e->stack_at >= 0)
        return (size_t)e->stack_at;
    if (sp->state == CWB_RANDOM || sp->size == 0)
        return CWB_STACK_AT_DEFAULT;
    const unsigned lines = CWB_PAGE / CWB_LINE;
    uint64_t used = page_lines((CWB_SRC_BASE + (size_t)sp->src_off) % CWB_PAGE, sp->size) |
                    page_lines((CWB_DST_BASE + (size_t)sp->dst_off) % CWB_PAGE, sp->size);
    unsigned best_len = 0, best_end = 0;
    for (unsigned start = 0; start < lines; start++) {
        if (!(used >> start & 1) || (used >> ((start + 1) % lines) & 1))
            continue; /* runs start after a used line */
        unsigned len = 0;
        while (len < lines && !(used >> ((start + 1 + len) % lines) & 1))
            len++;
        if (len > best_len) {
            best_len = len;
            best_end = start + 1 + len;
        }
    }
    if (best_len * CWB_LINE < CWB_STACK_WINDOW + 2 * CWB_LINE)
        return CWB_STACK_AT_DEFAULT;
    /* the window [at - CWB_STACK_WINDOW, at) in the middle of the free run */
    size_t free_end = (size_t)best_end * CWB_LINE;
    size_t at = free_end - (best_len * CWB_LINE - CWB_STACK_WINDOW) / 2;
    return (at & ~(size_t)15) % CWB_PAGE;
}
