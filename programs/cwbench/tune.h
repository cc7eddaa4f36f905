/* SPDX-License-Identifier: MIT */
/* cwbench tune: options and entry point (programs/cwbench/tune.c). */
#ifndef CWB_TUNE_H
#define CWB_TUNE_H

#include <stddef.h>

struct cwb_opts;

struct tune_opts {
    int quick;
    size_t big;          /* the DRAM-sized copy of the prefetch decision */
    const char *output;  /* --output FILE, or NULL */
};

/* Measures every decision of the policy, prints it beside the built-in
 * profile of this CPU, writes t->output. 0, 1 (a measurement or the write
 * failed) or 2 (usage). */
int cwb_cmd_tune(const struct tune_opts *t, const struct cwb_opts *o);
/* "1536K", "2M", "100" */
const char *tune_size_text(size_t v, char buf[32]);

#endif
