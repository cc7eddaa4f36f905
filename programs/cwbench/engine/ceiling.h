/* SPDX-License-Identifier: MIT */
/* The copy ceiling (ceiling.c). */
#ifndef CWB_CEILING_H
#define CWB_CEILING_H

#include <stddef.h>

struct cwb_engine;

/* Copy ceiling: a read-only and a streaming write-only kernel over the
 * first `bytes` of the pool; GB/s medians. ceiling = min(read, write).
 * both: the loads of the one and the stores of the other in one loop, no
 * data passed (bytes read, each also written, per second): a copy's
 * traffic, which a copy pays on top of passing its data. */
struct cwb_ceiling {
    double read_gbps, write_gbps, ceiling_gbps, both_gbps;
    size_t bytes;
    int n;
};
void cwb_measure_ceiling(struct cwb_engine *e, size_t bytes, struct cwb_ceiling *out);

#endif /* CWB_CEILING_H */
