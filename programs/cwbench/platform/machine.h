/* SPDX-License-Identifier: MIT */
/* The machine a result was measured on (machine.c): its description for
 * reports and result files, the emulator check, the last-level cache. */
#ifndef CWB_MACHINE_H
#define CWB_MACHINE_H

#include <stddef.h>
#include <stdio.h>

void cwb_print_machine(FILE *f);
/* Receives one key and value of the machine's metadata; ctx is the
 * cwb_machine_meta caller's. */
typedef void (*cwb_meta_sink)(void *ctx, const char *key, const char *val);
/* Hands the machine's metadata to add, one key at a time, among it
 * "emulated" ("true"/"false"). Result sets take it through
 * cwb_results_meta_sink (results/results.h). */
void cwb_machine_meta(cwb_meta_sink add, void *ctx);
/* 1 when this process runs under a user-mode emulator (qemu-user, an x86
 * translator on Arm: machine.c says how it tells); *why (may be NULL) gets
 * the evidence either way. Checked once, cached. */
int cwb_emulated(const char **why);
#define CWB_EMULATED_MSG                                                                      \
    "cwbench: running under an emulator (qemu-user): timings mean nothing here; only "       \
    "correctness is checked"
/* The first line of a timing report: CWB_EMULATED_MSG when emulated (also
 * once on stderr if to_stderr), on builds other than x86-64 a note that no
 * emulator was detected; nothing on native x86-64. Never fails the run. */
void cwb_emulation_banner(FILE *out, int to_stderr);
/* Last-level cache size in bytes (32 MiB when the CPU does not say). */
size_t cwb_llc_bytes(void);

#endif /* CWB_MACHINE_H */
