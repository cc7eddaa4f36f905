/* SPDX-License-Identifier: MIT */
/* The parsed command line (main.c parses it): for the subcommands and
 * tune only; nothing in engine/, results/, platform/ or base/ sees it. */
#ifndef CWB_OPTIONS_H
#define CWB_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#define CWB_MAX_SIZES 64
#define CWB_SIZE_LIMIT ((size_t)1 << 30)

struct cwb_opts {
    int quick;
    int samples;            /* 0 = the subcommand's default */
    uint64_t seed;
    int pin;                /* -1: not pinned */
    int stack_at;           /* --stack-offset; -1: chosen per cell */
    const char *json, *csv, *plot;
    const char *routines;   /* comma-separated, NULL = default set */
    size_t sizes[CWB_MAX_SIZES];
    size_t n_sizes;
    size_t max_size;        /* 0 = default */
    size_t size;            /* pollution --size; 0 = default */
    const char *aligns;     /* sweep "S:D,S:D" (each side a number or LO-HI) */
    const char *src_offs, *dst_offs; /* sweep --src-off/--dst-off lists */
    const char *states;     /* sweep "hot,cold,random" */
    const char *state;      /* --ab: "hot", "cold" or "random" */
    const char *a_off, *b_off; /* --ab: "S:D" per side */
    const char *file;       /* dist FILE */
    const char *ab_a, *ab_b;
    const char *output;     /* tune --output FILE */
    const char *install_dir; /* tune --install (CW_SYSTEM_TUNING_DIR) or --install-dir DIR */
    int threads;            /* threads --threads N; 0 = the CPUs this process may run on */
    int victim;             /* threads --victim */
};

#endif /* CWB_OPTIONS_H */
