/* SPDX-License-Identifier: MIT */
/* The built-in copy profiles and the CPUs they are chosen for (after
 * OpenBLAS's per-core tables and glibc's cpu-features: the CPU's facts
 * become one struct, once). Every row cites the measurement it comes from;
 * docs/TUNING.md explains each field and docs/RESULTS.md holds the figures,
 * with the CPU they were measured on. Compiled for the baseline ISA. */
#include <string.h>

#include "internal.h"

struct cwi_policy cwi_pol;

#define KiB ((size_t)1 << 10)

/* The rules measured on the Zen 3 guest (the amd-zen3 row's comment says
 * what each rests on), which the amd-zen4 row shares. */
#define ZEN3_RULES                                                                               \
    .nt_level = 3, .nt_num = 1, .nt_den = 4, .rep_mode = CWI_REP_ALIGNED, .rep_min = 32 * KiB,  \
    .rep_max = 256 * KiB, .stream_pf_dist = 0, .stream_pf_hint = CWI_PF_T0,                     \
    .src_mode = CWI_SRC_PREFETCHNTA | CWI_SRC_FLUSH, .src_pf_dist = 2 * KiB,                    \
    .src_flush_back = 512, .persist_small = CWI_PERSIST_MOVNTI

/* The profile table. A row's rules are facts about the CPU it was measured
 * on; the generic rows are the cautious choices for CPUs nobody here has
 * measured (no rule that cost on any measured CPU), for `cwbench tune` to
 * improve on. */
static const struct cwi_profile profiles[] = {
    {
        /* Intel Xeon family 6 model 207 (Emerald Rapids) guest: streaming
         * wins from 1-1.5 MiB hot, below 256 KiB cold (0.75 x the 2 MiB
         * L2); rep movsb with the destination aligned wins 1.4-2.0x at
         * 20-24 KiB hot and 1.02-1.17x around 1 MiB; prefetcht2 4 KiB
         * ahead in the streaming loop +19-21%; clflushopt behind the loads
         * alone protects from CW_SRC_NOREUSE pollution, prefetchnta only
         * costs; store + clwb beats movnti + sfence 2x for 4-32 B persists. */
        .name = "intel-server",
        .measured = "docs/RESULTS.md, Intel Xeon family 6 model 207",
        .nt_level = 2, .nt_num = 3, .nt_den = 4,
        .rep_mode = CWI_REP_ALIGN_DST, .rep_min = 20 * KiB, .rep_max = 0,
        .stream_pf_dist = 4 * KiB, .stream_pf_hint = CWI_PF_T2,
        .src_mode = CWI_SRC_FLUSH, .src_pf_dist = 2 * KiB, .src_flush_back = 512,
        .persist_small = CWI_PERSIST_CLWB,
    },
    {
        /* AMD EPYC Zen 3 guest (family 25 model 1): crossover 7-8 MiB = L3/4
         * of the 32 MiB CCX; rep movsb 1-2% ahead only with both buffers
         * 64-byte aligned at 32-256 KiB (a misaligned destination falls off
         * a cliff, a misaligned source costs 8-10%); any prefetch in the
         * streaming loop cost 6-20%; prefetchnta + clflushopt 512 B behind
         * kept a 1 MiB copy's source out of the L2. */
        .name = "amd-zen3",
        .measured = "docs/RESULTS.md and docs/TUNING.md, AMD EPYC family 25 model 1",
        ZEN3_RULES,
    },
    {
        /* AMD EPYC Zen 4 guest (family 25 model 17): the Zen 3 rules, which
         * its measured ceilings (read 32-34 GB/s, streaming write 27-28)
         * and its 32 MiB CCX L3 give no reason to change; its own crossover
         * is not yet measured (docs/RESULTS.md says so). */
        .name = "amd-zen4",
        .measured = "docs/RESULTS.md, AMD EPYC family 25 model 17 (Zen 3 rules)",
        ZEN3_RULES,
    },
    {
        /* Intel CPUs not in the table: glibc's L3/4, no rep movsb window
         * and no streaming prefetch (neither is known to pay off there);
         * clflushopt behind protects on every CPU measured; Intel's clwb
         * of a partial line beat movnti where measured. */
        .name = "generic-intel",
        .measured = "cautious rules; docs/TUNING.md",
        .nt_level = 3, .nt_num = 1, .nt_den = 4,
        .rep_mode = CWI_REP_OFF, .rep_min = 0, .rep_max = 0,
        .stream_pf_dist = 0, .stream_pf_hint = CWI_PF_T0,
        .src_mode = CWI_SRC_FLUSH, .src_pf_dist = 2 * KiB, .src_flush_back = 512,
        .persist_small = CWI_PERSIST_CLWB,
    },
    {
        /* AMD CPUs not in the table (Zen 5, Hygon): the Zen rules without
         * the rep movsb window (glibc 2.40 stopped using rep movsb on AMD). */
        .name = "generic-amd",
        .measured = "cautious rules; docs/TUNING.md",
        .nt_level = 3, .nt_num = 1, .nt_den = 4,
        .rep_mode = CWI_REP_OFF, .rep_min = 0, .rep_max = 0,
        .stream_pf_dist = 0, .stream_pf_hint = CWI_PF_T0,
        .src_mode = CWI_SRC_PREFETCHNTA | CWI_SRC_FLUSH, .src_pf_dist = 2 * KiB,
        .src_flush_back = 512,
        .persist_small = CWI_PERSIST_MOVNTI,
    },
    {
        /* 64-bit Arm CPUs: nothing measured on Arm hardware yet (the aarch64
         * row is verified under qemu only, docs/RESULTS.md). glibc's and the
         * kernel's rules where they agree: streaming from L3/4 (4 x L2 where
         * Linux describes no L3), no software prefetch in the streaming loop
         * (the cores' own prefetchers track linear streams), CW_SRC_NOREUSE
         * as PRFM PLDL1STRM 2 KiB ahead, the "used once" hint; no source
         * flush (DC CIVAC behind the loads is not known to pay anywhere). */
        .name = "generic-aarch64",
        .measured = "cautious rules, unmeasured; docs/TUNING.md",
        .nt_level = 3, .nt_num = 1, .nt_den = 4,
        .rep_mode = CWI_REP_OFF, .rep_min = 0, .rep_max = 0,
        .stream_pf_dist = 0, .stream_pf_hint = CWI_PF_T0,
        .src_mode = CWI_SRC_PREFETCHNTA, .src_pf_dist = 2 * KiB, .src_flush_back = 512,
        .persist_small = CWI_PERSIST_MOVNTI,
    },
    {
        /* Any other CPU (and the starting point of `cwbench tune`). */
        .name = "generic",
        .measured = "cautious rules; docs/TUNING.md",
        .nt_level = 3, .nt_num = 1, .nt_den = 4,
        .rep_mode = CWI_REP_OFF, .rep_min = 0, .rep_max = 0,
        .stream_pf_dist = 0, .stream_pf_hint = CWI_PF_T0,
        .src_mode = CWI_SRC_FLUSH, .src_pf_dist = 2 * KiB, .src_flush_back = 512,
        .persist_small = CWI_PERSIST_MOVNTI,
    },
};
#define N_PROFILES (sizeof profiles / sizeof profiles[0])

const char *const cwi_profile_names[] = {
    "intel-server", "amd-zen3", "amd-zen4", "generic-intel", "generic-amd", "generic-aarch64",
    "generic", NULL,
};

/* Which CPUs get which row: CPUID vendor, display family, model range. */
static const struct {
    const char *vendor;
    unsigned family, model_lo, model_hi;
    const char *profile;
} cpu_rows[] = {
    /* the mesh-LLC Xeons: measured on model 207; its relatives share the
     * mesh L3 that one core reads no faster than it streams, and a large L2 */
    {"GenuineIntel", 6, 0x55, 0x55, "intel-server"}, /* Skylake-SP, Cascade Lake-SP */
    {"GenuineIntel", 6, 0x6a, 0x6a, "intel-server"}, /* Ice Lake-SP */
    {"GenuineIntel", 6, 0x6c, 0x6c, "intel-server"}, /* Ice Lake-D */
    {"GenuineIntel", 6, 0x8f, 0x8f, "intel-server"}, /* Sapphire Rapids */
    {"GenuineIntel", 6, 0xcf, 0xcf, "intel-server"}, /* Emerald Rapids (measured) */
    {"GenuineIntel", 6, 0xad, 0xae, "intel-server"}, /* Granite Rapids */
    {"AuthenticAMD", 0x19, 0x00, 0x0f, "amd-zen3"},  /* Milan (model 1 measured) */
    {"AuthenticAMD", 0x19, 0x20, 0x5f, "amd-zen3"},  /* Vermeer, Cezanne, Rembrandt */
    {"AuthenticAMD", 0x19, 0x10, 0x1f, "amd-zen4"},  /* Genoa (model 17 measured) */
    {"AuthenticAMD", 0x19, 0x60, 0x7f, "amd-zen4"},  /* Raphael, Phoenix */
    {"AuthenticAMD", 0x19, 0xa0, 0xaf, "amd-zen4"},  /* Bergamo, Siena */
};

const struct cwi_profile *cwi_profile_find(const char *name)
{
    for (size_t i = 0; i < N_PROFILES; i++)
        if (strcmp(profiles[i].name, name) == 0)
            return &profiles[i];
    return NULL;
}

const struct cwi_profile *cwi_profile_for_cpu(const struct cwi_cpu *c)
{
    for (size_t i = 0; i < sizeof cpu_rows / sizeof cpu_rows[0]; i++)
        if (strcmp(c->vendor, cpu_rows[i].vendor) == 0 && c->family == cpu_rows[i].family &&
            c->model_number >= cpu_rows[i].model_lo && c->model_number <= cpu_rows[i].model_hi)
            return cwi_profile_find(cpu_rows[i].profile);
#if defined(__aarch64__)
    return cwi_profile_find("generic-aarch64");
#endif
    if (strcmp(c->vendor, "GenuineIntel") == 0)
        return cwi_profile_find("generic-intel");
    if (strcmp(c->vendor, "AuthenticAMD") == 0 || strcmp(c->vendor, "HygonGenuine") == 0)
        return cwi_profile_find("generic-amd");
    return cwi_profile_find("generic");
}

/* The row's threshold rule over this CPU's caches. A missing level falls
 * back to the next rule that has its cache: L3/4, else 4 x L2, else 4 MiB. */
static size_t threshold_for(const struct cwi_profile *r, const struct cwi_cpu *c)
{
    size_t t;
    if (r->nt_level == 2 && c->l2 != 0)
        t = c->l2 / r->nt_den * r->nt_num;
    else if (r->nt_level == 3 && c->l3 != 0)
        t = c->l3 / r->nt_den * r->nt_num;
    else if (c->l3 != 0)
        t = c->l3 / 4;
    else if (c->l2 != 0)
        t = c->l2 * 4;
    else
        t = (size_t)4 << 20;
    return t < 0x4040 ? 0x4040 : t;
}

void cwi_policy_from_profile(struct cwi_policy *p, const struct cwi_profile *r,
                             const struct cwi_cpu *c)
{
    p->nt_threshold = threshold_for(r, c);
    p->rep_mode = r->rep_mode;
    p->rep_min = r->rep_min;
    p->rep_max = r->rep_max != 0 ? r->rep_max : p->nt_threshold;
    p->stream_pf_dist = r->stream_pf_dist;
    p->stream_pf_hint = r->stream_pf_hint;
    p->src_mode = r->src_mode;
    p->src_pf_dist = r->src_pf_dist;
    p->src_flush_back = r->src_flush_back;
    p->persist_small = r->persist_small;
}
