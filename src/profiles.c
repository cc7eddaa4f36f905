/* SPDX-License-Identifier: MIT */
/* The built-in copy profiles and the CPUs they are chosen for (after
 * OpenBLAS's per-core tables and glibc's cpu-features: the CPU's facts
 * become one struct, once). Every row cites the measurement it comes from;
 * docs/TUNING.md explains each field and docs/RESULTS.md holds the figures,
 * with the CPU they were measured on. Compiled for the baseline ISA. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

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
        .nt_level = 3, .nt_num = 1, .nt_den = 4, .rep_mode = CWI_REP_ALIGNED,
        .rep_min = 32 * KiB, .rep_max = 256 * KiB, .stream_pf_dist = 0,
        .stream_pf_hint = CWI_PF_T0, .src_mode = CWI_SRC_PREFETCHNTA | CWI_SRC_FLUSH,
        .src_pf_dist = 2 * KiB, .src_flush_back = 512, .persist_small = CWI_PERSIST_MOVNTI,
    },
    {
        /* AMD EPYC Zen 4 guest (family 25 model 17, docs/RESULTS.md "AMD
         * EPYC Zen 4"): streaming from the hot crossover, L3/2 of the
         * 32 MiB CCD as on Zen 5 (streaming/temporal hot 8 MiB 0.67, 12 MiB
         * 0.92, 14 MiB 0.97, 16 MiB 1.04, 20 MiB 1.19; a copy of 8-16 MiB
         * that arrives cold gives up the 1.5x streaming wins there); the
         * small-copy shape of the Zen 5 row (avx512-evex, memcpy_mid
         * direct, inline up to 64 B): the size distributions 0.95-0.99x
         * glibc -> 1.00-1.07x (sqlite3 0.95 -> 1.00, MemcpyGoogleA 0.99 ->
         * 1.05), hot 776-832 B 0.70-0.97 -> 1.00-1.17. The rest are Zen 3's
         * rules, which it measures level with or ahead of the alternatives:
         * rep movsb with both buffers aligned at 32-256 KiB (32 KiB 1.00x
         * glibc, the vector loop 0.98; 64 KiB-1 MiB every routine at the
         * L2's ceiling) and never at a destination 1-63 bytes past the
         * source modulo 4 KiB, where this CPU's rep movsb falls to 3.5 GB/s;
         * CW_SRC_NOREUSE by prefetchnta and clflushopt (a quarter-L2 victim
         * kept after 16-64 MiB, as with clflushopt alone, which is 2-4%
         * faster cold and 17% slower hot at 16 KiB; prefetchnta alone lets
         * it go); streaming stores above the threshold (cold 64 MiB
         * 1.05-1.18x rep movsb, 1.59-1.73x glibc), their source read with
         * prefetchnta 4 KiB ahead (cold 16-256 MiB 0.93-1.01x the plain
         * AVX-512 streaming loop -> 1.02-1.14x, cw_memcpy cold 64 MiB
         * 1.56-1.63x glibc -> 1.63-1.73x, hot 4 KiB-16 MiB level; every
         * other streaming prefetch cost 0-30%). Past 128 B cw_memcpy's
         * direct-lines kernel: 9-16 vectors with both buffers off a line by
         * the loop that aligns the destination (528 B-1 KiB at 3:13
         * 0.83-1.27x glibc, median 0.99 -> 1.06-1.19, 1.12), and that
         * loop started at a destination on a line where that saves a
         * store (hot, both on a line, 1152-2560 B 1.00 -> 1.03-1.05x
         * glibc, 3-4 KiB +1-2%). The shared
         * library's entry with its 0-64 B bounds fixed (evex_entry): there,
         * against glibc through its own PLT, hot 32-64 B 0.81-0.92x ->
         * 1.00-1.13x, sqlite3's profile 0.95 -> 1.00, sort's 1.14-1.21 ->
         * 1.27-1.34. */
        .name = "amd-zen4",
        .measured = "docs/RESULTS.md, AMD EPYC family 25 model 17",
        .nt_level = 3, .nt_num = 1, .nt_den = 2, .rep_mode = CWI_REP_ALIGNED,
        .rep_min = 32 * KiB, .rep_max = 256 * KiB, .stream_pf_dist = 4 * KiB,
        .stream_pf_hint = CWI_PF_NTA, .src_mode = CWI_SRC_PREFETCHNTA | CWI_SRC_FLUSH,
        .src_pf_dist = 2 * KiB, .src_flush_back = 512, .persist_small = CWI_PERSIST_MOVNTI,
        .memcpy_mid = CWI_MID_DIRECT_LINES, .memcpy_inline = CWI_INLINE_64,
        .evex_entry = CWI_EVEX_ENTRY_FIXED64, .impl = "avx512-evex",
    },
    {
        /* AMD EPYC Zen 5 guest (family 26 model 2, docs/RESULTS.md and
         * notes in docs/TUNING.md): streaming beats the temporal copy hot
         * from 16 MiB (1.12x; 0.74-0.89 at 8-12 MiB) = L3/2 of the 32 MiB
         * CCD; rep movsb with the destination aligned from 8 KiB at either
         * alignment: from 32 KiB it wins wherever the bytes are (1.29-2.04x
         * at 32-128 KiB, 1.17-1.38 at 512 KiB-1.5 MiB); at 8-16 KiB it is
         * 1.00x glibc where they are in the L2 (random offsets, and xz's
         * 8 KiB copies) against 0.80-0.85 for the vector loop, which no
         * prefetch variant lifted, and costs the L1-hot copies their
         * 1.5-1.6x (then 1.00); at 4 KiB the loop keeps its 1.6x hot for
         * 0.90 in the L2; above 16 MiB rep movsb is both the
         * fastest copy (1.05-1.08x the streaming loops cold at 64-256 MiB)
         * and, at 64 MiB, the one that leaves most of an L2 victim in
         * place; every streaming prefetch cost 5-12%; CW_SRC_NOREUSE's
         * prefetchnta and flushes only cost (none: 23.3 GB/s evicting
         * 0.010 of an L2 victim); movnti persists 4-30x faster than store
         * + clwb; cw_memcpy past its inline copy through the kernels
         * with a taken branch fewer than the ladders (memcpy_mid direct:
         * 65-128 B 1.12x in one process, level with glibc; medians of
         * seven processes x glibc past 128 B: 576 B aligned 0.78 -> 0.92,
         * 800 B 0.72-0.89 -> 0.86-1.01, 160-256 B up to 1.25). */
        .name = "amd-zen5",
        .measured = "docs/RESULTS.md, AMD EPYC family 26 model 2",
        .nt_level = 3, .nt_num = 1, .nt_den = 2,
        .rep_mode = CWI_REP_ALIGN_DST, .rep_min = 8 * KiB, .rep_max = 0,
        .stream_pf_dist = 0, .stream_pf_hint = CWI_PF_T0,
        .stream_method = CWI_STREAM_REP, .stream_rep_min = 16 * MiB,
        .src_mode = 0, .src_pf_dist = 2 * KiB, .src_flush_back = 512,
        .persist_small = CWI_PERSIST_MOVNTI, .memcpy_mid = CWI_MID_DIRECT,
        /* cw_memcpy's own copy up to 64 B in glibc's classes, against
         * 0-32 B: sort 1.50x, sqlite3 1.10x, MemcpyGoogleA/D and
         * MemmoveGoogleA 1.03x, the other distributions level; hot 40-64 B
         * 1.16-1.22x, the sizes around them level */
        .memcpy_inline = CWI_INLINE_64,
        /* the avx512 kernels in zmm16-31, without vzeroupper: hot 48-128 B
         * 1.16-1.21x the avx512 row at fixed offsets, 256 B-2 KiB and the
         * size distributions within 0.97-1.04x */
        .impl = "avx512-evex",
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
        /* AMD CPUs not in the table (Zen 2, mobile Zen 5, later cores,
         * Hygon): the rules no measured Zen punished badly. L3/4 of the L3
         * one core shares (Zen 3's crossover; Zen 4's and Zen 5's is L3/2);
         * rep movsb from 32 KiB up to the L2 size with the destination
         * aligned first: on Zen 3 1-2% ahead of the vector loop with both
         * buffers aligned at 32-256 KiB, 8-10% behind with the source
         * misaligned; on Zen 5 1.03-1.76x, and with the destination 1 byte
         * off at 64 KiB the vector loop is 0.68-0.74x the aligned-
         * destination rep movsb: the smaller loss is Zen 3's; past 256 KiB
         * on Zen 5 (AMD EPYC family 26 model 2) 1.03-1.29x the loop up to
         * the 1 MiB L2, level above it; the L2 is where glibc stops AMD's
         * rep movsb too. Not where the destination lies 1-63 bytes past the
         * source modulo 4 KiB: on Zen 4 (AMD EPYC family 25 model 17) rep
         * movsb runs there at 3.5 GB/s (1-15 bytes) or 27-40 (17-63)
         * against the vector loop's 46-57 at 64 KiB-1 MiB, whichever byte
         * the destination starts on (aligning it moves both by the same
         * amount); the Zen 3 record's misaligned-destination cliff (3.5
         * GB/s with dst+1..4, the source page-aligned) is that distance. No
         * streaming prefetch (it cost 5-20% on every Zen); CW_SRC_NOREUSE by
         * clflushopt behind the loads alone (with prefetchnta too it cost a
         * third of the speed on the Xeon, a quarter on Zen 5); movnti
         * persists (4-30x store + clwb on Zen 5). */
        .name = "generic-amd",
        .measured = "the rules of the measured Zen rows; docs/TUNING.md",
        .nt_level = 3, .nt_num = 1, .nt_den = 4,
        .rep_mode = CWI_REP_ALIGN_DST_FAR, .rep_min = 32 * KiB, .rep_max = 256 * KiB,
        .rep_max_level = 2,
        .stream_pf_dist = 0, .stream_pf_hint = CWI_PF_T0,
        .src_mode = CWI_SRC_FLUSH, .src_pf_dist = 2 * KiB, .src_flush_back = 512,
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
    "intel-server", "amd-zen3", "amd-zen4", "amd-zen5", "generic-intel", "generic-amd",
    "generic-aarch64", "generic", NULL,
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
    /* Zen 5 with the full 512-bit datapath: Turin (model 2 measured) and
     * Turin dense, Granite Ridge; the mobile parts (Strix, Krackan), whose
     * AVX-512 is double-pumped, keep generic-amd */
    {"AuthenticAMD", 0x1a, 0x00, 0x1f, "amd-zen5"},
    {"AuthenticAMD", 0x1a, 0x40, 0x4f, "amd-zen5"},
};

/* The largest L3 one core of a family shares, and what is assumed when
 * the CPU's report cannot be trusted. A guest may describe a socket's L3
 * (Zen 5: CPUID 0x80000006 says 508 MiB, with no sharing count in
 * 0x8000001D and no sysfs) as if one core shared it; a threshold scaled
 * from that leaves every copy temporal. */
static const struct {
    const char *vendor;
    unsigned family;
    size_t max_shared, assumed;
    const char *fact;
} l3_facts[] = {
    {"AuthenticAMD", 0x17, 16 * MiB, 16 * MiB, "a Zen/Zen 2 CCX shares at most 16 MiB"},
    {"HygonGenuine", 0x18, 16 * MiB, 8 * MiB, "a Dhyana CCX shares at most 8 MiB"},
    {"AuthenticAMD", 0x19, 96 * MiB, 32 * MiB,
     "a Zen 3/4 CCD shares 32 MiB, 96 MiB with 3D V-Cache"},
    {"AuthenticAMD", 0x1a, 96 * MiB, 32 * MiB,
     "a Zen 5 CCD shares 32 MiB, 96 MiB with 3D V-Cache"},
};

static char l3_note_buf[200];

void cwi_cache_trust(struct cwi_cpu *c)
{
    c->l3_used = c->l3;
    c->l3_note = c->threads_sharing_l3 != 0 ? "as reported, with its sharing count"
                                            : "as reported, with no sharing count";
    if (c->l3 == 0) {
        c->l3_note = "none reported";
        return;
    }
    for (size_t i = 0; i < sizeof l3_facts / sizeof l3_facts[0]; i++) {
        if (strcmp(c->vendor, l3_facts[i].vendor) != 0 || c->family != l3_facts[i].family)
            continue;
        const char *why = NULL;
        if (c->l3 > l3_facts[i].max_shared)
            why = "more than one core of this family shares";
        else if (c->threads_sharing_l3 == 0 && c->l3 > l3_facts[i].assumed)
            why = "with no sharing count, more than a core shares without 3D V-Cache";
        if (why == NULL)
            return;
        c->l3_used = l3_facts[i].assumed;
        /* no parentheses: cwbench info prints the note inside a pair */
        snprintf(l3_note_buf, sizeof l3_note_buf,
                 "%zu MiB assumed: the %zu MiB reported is %s; %s", c->l3_used >> 20,
                 c->l3 >> 20, why, l3_facts[i].fact);
        c->l3_note = l3_note_buf;
        return;
    }
}

/* The lookups below run in cw_memcpy's IFUNC resolver too (src/dispatch.c,
 * src/x86/early.c), before the process is set up: no libc. */
CWI_LOOKUP int cwi_same_name(const char *a, const char *b)
{
    while (*a != '\0' && *a == *b)
        a++, b++;
    return *a == *b;
}

CWI_LOOKUP const struct cwi_profile *cwi_profile_find(const char *name)
{
    for (size_t i = 0; i < N_PROFILES; i++)
        if (cwi_same_name(profiles[i].name, name))
            return &profiles[i];
    return NULL;
}

CWI_LOOKUP const struct cwi_profile *cwi_profile_row(const char *vendor, unsigned family,
                                                     unsigned model, uint32_t features)
{
    for (size_t i = 0; i < sizeof cpu_rows / sizeof cpu_rows[0]; i++)
        if (cwi_same_name(vendor, cpu_rows[i].vendor) && family == cpu_rows[i].family &&
            model >= cpu_rows[i].model_lo && model <= cpu_rows[i].model_hi)
            return cwi_profile_find(cpu_rows[i].profile);
    /* A family 6 Intel CPU with AMX tiles is a Xeon Scalable core from
     * Sapphire Rapids on, whatever model number a hypervisor shows: a guest
     * reporting model 167 (a desktop Rocket Lake's number) with AMX, a 2 MiB
     * L2 and a 105 MiB L3 measured as the model 207 Xeon does (streaming from
     * 1.25-1.5 MiB hot, rep movsb from 16-24 KiB, streaming prefetch +8-11%;
     * docs/RESULTS.md, Intel Xeon reporting family 6 model 167). */
    if (cwi_same_name(vendor, "GenuineIntel") && family == 6 && (features & CWI_F_AMX_TILE))
        return cwi_profile_find("intel-server");
#if defined(__aarch64__)
    return cwi_profile_find("generic-aarch64");
#endif
    if (cwi_same_name(vendor, "GenuineIntel"))
        return cwi_profile_find("generic-intel");
    if (cwi_same_name(vendor, "AuthenticAMD") || cwi_same_name(vendor, "HygonGenuine"))
        return cwi_profile_find("generic-amd");
    return cwi_profile_find("generic");
}

const struct cwi_profile *cwi_profile_for_cpu(const struct cwi_cpu *c)
{
    return cwi_profile_row(c->vendor, c->family, c->model_number, c->features);
}

/* The row's threshold rule over this CPU's caches (the L3 as trusted). A missing level falls
 * back to the next rule that has its cache: L3/4, else 4 x L2, else 4 MiB. */
static size_t threshold_for(const struct cwi_profile *r, const struct cwi_cpu *c)
{
    size_t t;
    if (r->nt_level == 2 && c->l2 != 0)
        t = c->l2 / r->nt_den * r->nt_num;
    else if (r->nt_level == 3 && c->l3_used != 0)
        t = c->l3_used / r->nt_den * r->nt_num;
    else if (c->l3_used != 0)
        t = c->l3_used / 4;
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
    if (r->rep_max_level == 2 && c->l2 != 0)
        p->rep_max = c->l2;
    p->stream_pf_dist = r->stream_pf_dist;
    p->stream_pf_hint = r->stream_pf_hint;
    p->stream_method = r->stream_method;
    p->stream_rep_min = r->stream_rep_min;
    p->src_mode = r->src_mode;
    p->src_pf_dist = r->src_pf_dist;
    p->src_flush_back = r->src_flush_back;
    p->persist_small = r->persist_small;
    p->memcpy_mid = r->memcpy_mid;
    p->memcpy_inline = r->memcpy_inline;
    /* Not a profile's: below 4 MiB (about 200 us at a core's 20 GB/s) a
     * worker's wake-up and the split cost a measurable share of the copy,
     * and no profile has measured the crossover (docs/PARALLEL.md). */
    p->parallel_min = 4 * MiB;
    p->parallel_threads = 0;
}
