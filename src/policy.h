/* SPDX-License-Identifier: MIT */
/* The per-CPU copy policy: every CPU-dependent decision of the kernels, as
 * data (docs/TUNING.md). Computed once, by the start-up pass of
 * src/startup.c: a built-in profile chosen by CPUID vendor, family and
 * model (src/profiles.c), or the one CACHEWISE_TUNING names; a tuning file
 * over it (CACHEWISE_TUNING, or the system-wide file: src/tuning_file.c);
 * single CACHEWISE_* variables over that (src/env.c); then what the CPU
 * cannot run switched off. The settings' names, values and parsing:
 * src/settings.c. The kernels read cwi_pol; no CPU constant lives in a
 * kernel. Internal, not installed. */
#ifndef CW_POLICY_H
#define CW_POLICY_H

#include <stddef.h>
#include <stdint.h>

/* How rep movsb is used inside its window [rep_min, rep_max]. */
enum cwi_rep_mode {
    CWI_REP_OFF = 0,     /* never: the vector loop at every size */
    CWI_REP_ALIGNED = 1, /* only when source and destination are both 64-byte aligned */
    CWI_REP_ALIGN_DST = 2, /* any alignment: one unaligned vector store, then rep movsb
                            * from the next 64-byte boundary of the destination */
    CWI_REP_ALIGN_DST_FAR = 3, /* as CWI_REP_ALIGN_DST, but not where the destination
                                * lies 1-63 bytes past the source modulo 4 KiB: there
                                * rep movsb falls to 3.5-40 GB/s on AMD EPYC family 25
                                * model 17 (the vector loop 46-57, docs/RESULTS.md) */
};

/* How the streaming copies (cw_memcpy_nt, CW_DST_NOREUSE, cw_memcpy at and
 * above the threshold; never flushcache) move their bytes. */
enum cwi_stream_method {
    CWI_STREAM_NT = 0,  /* non-temporal stores for whole lines */
    CWI_STREAM_REP = 1, /* from stream_rep_min bytes on, one rep movsb with the
                         * destination aligned: where the CPU's fast strings
                         * write large copies without allocating (Zen 5) */
};

/* The kernels cw_memcpy reaches between its inline copy and the threshold
 * (the entry has decided the size class: 33..CWI_MEMCPY_SMALL, or above). */
enum cwi_memcpy_mid {
    CWI_MID_LADDER = 0, /* the row's memcpy_small and temporal copy, with
                         * their size ladders */
    CWI_MID_DIRECT = 1, /* memcpy_small_flat (33..128 B in one block) and
                         * memcpy_large (from CWI_MEMCPY_SMALL + 1 B), each
                         * where the row has it */
    CWI_MID_DIRECT_LINES = 2, /* as CWI_MID_DIRECT, with memcpy_large_lines
                               * where the row has it */
};

/* The copies cw_memcpy and cw_memmove make themselves, with baseline
 * instructions, before any row (x86; src/dispatch.c). */
enum cwi_memcpy_inline {
    CWI_INLINE_32 = 0, /* 0-32 B: 0-15 and 16-32 */
    CWI_INLINE_64 = 1, /* 0-64 B in glibc's classes: 0-15, 16-31, 32-64 (four
                        * 16-byte moves) */
};

/* The shared library's cw_memcpy entry where the avx512-evex row is
 * chosen (src/dispatch.c), fixed when the library is loaded. */
enum cwi_evex_entry {
    CWI_EVEX_ENTRY_POLICY = 0,  /* its own copies by the policy's memcpy_inline, read at
                                 * every call (two loads) */
    CWI_EVEX_ENTRY_FIXED64 = 1, /* its own copies 0-64 B in glibc's classes, the bounds
                                 * immediates: memcpy_inline 64 whatever it says later */
};

/* Software prefetch hint of a streaming loop. */
enum cwi_pf_hint { CWI_PF_T0 = 0, CWI_PF_T1 = 1, CWI_PF_T2 = 2, CWI_PF_NTA = 3 };

/* How CW_SRC_NOREUSE keeps the source out of the caches: a bit set. */
enum { CWI_SRC_PREFETCHNTA = 1, CWI_SRC_FLUSH = 2 };

/* The write-back instruction: the best the CPU has (auto), or one named;
 * one the CPU lacks is refused at initialisation (recorded) and auto used. */
enum cwi_flush_pref {
    CWI_FLUSHPREF_AUTO = 0,
    CWI_FLUSHPREF_CLWB,
    CWI_FLUSHPREF_CLFLUSHOPT,
    CWI_FLUSHPREF_CLFLUSH,
    CWI_FLUSHPREF_DC_CVAP,
    CWI_FLUSHPREF_DC_CVAC,
};

/* their names in settings, files and CACHEWISE_FLUSH (src/settings.c) */
extern const char *const cwi_flush_pref_names[] __attribute__((visibility("hidden")));

/* How a partial cache line of whole aligned 4/8-byte words is persisted. */
enum cwi_persist_small { CWI_PERSIST_MOVNTI = 0, CWI_PERSIST_CLWB = 1 };

struct cwi_policy {
    /* cw_memcpy / cw_memmove / cw_copy(auto) stream at n >= this */
    size_t nt_threshold;
    /* rep movsb for temporal copies of rep_min..rep_max bytes (needs ERMS;
     * rep_mode CWI_REP_OFF or rep_min > rep_max: never) */
    int rep_mode;
    size_t rep_min, rep_max;
    /* the streaming and flushcache loops prefetch the source this far
     * ahead (0: no software prefetch), with this hint */
    size_t stream_pf_dist;
    int stream_pf_hint;
    /* enum cwi_stream_method, and the smallest streaming copy it applies to
     * (needs ERMS) */
    int stream_method;
    size_t stream_rep_min;
    /* CW_SRC_NOREUSE: CWI_SRC_* bits; prefetchnta this far ahead; source
     * lines flushed (clflushopt) this far behind the loads */
    int src_mode;
    /* enum cwi_memcpy_mid: the kernels cw_memcpy jumps to past its inline
     * copy, below the threshold: the row's ladders, or its kernels for
     * those size classes only (memcpy_small_flat, memcpy_large) */
    int memcpy_mid;
    /* enum cwi_memcpy_inline: the copies cw_memcpy and cw_memmove make
     * before any kernel (0-32 or 0-64 B) */
    int memcpy_inline;
    size_t src_pf_dist, src_flush_back;
    /* flushcache of a partial line made of aligned 4/8-byte words */
    int persist_small;
    /* the write-back instruction (enum cwi_flush_pref; never from a profile:
     * the CPU's features decide, unless a file or variable names one) */
    int flush_pref;
    /* cw_copy_parallel (src/parallel.c): copies below parallel_min bytes
     * stay on the caller's thread, and each extra thread gets at least
     * parallel_min / 2 bytes; parallel_threads is the thread count a call
     * with nthreads == 0 asks for, the caller's included (0: every CPU the
     * caller may run on, at most 64). Never from a profile: no row has
     * measured them yet. */
    size_t parallel_min;
    size_t parallel_threads;
    /* Derived, not a setting (cwi_settings_sanitize writes it): rep_min, or
     * SIZE_MAX when rep_mode is CWI_REP_OFF, so that the kernels' first test
     * of the window is one compare whether the window is on or off. */
    size_t rep_from;
};

/* The policy in force (src/settings.c). Written during initialisation
 * (before the implementation is published, so the copies that read it
 * afterwards see it whole), and by cw_settings_apply/cw_settings_restore,
 * a measuring tool's, while other threads may be copying: their contract
 * lets such a copy run with either value. So once the library is up each
 * field is read with CWI_POL and written with CWI_POL_SET (or all of them
 * with cwi_policy_store): relaxed atomic accesses, on every target the
 * plain load or store they replace, and no data race. */
extern struct cwi_policy cwi_pol __attribute__((visibility("hidden")));
#define CWI_POL(field) __atomic_load_n(&cwi_pol.field, __ATOMIC_RELAXED)
#define CWI_POL_SET(field, value) __atomic_store_n(&cwi_pol.field, (value), __ATOMIC_RELAXED)
/* Every field of p into cwi_pol with CWI_POL_SET. */
void cwi_policy_store(const struct cwi_policy *p) __attribute__((visibility("hidden")));

/* A built-in profile: the policy of one CPU family, or a generic rule. */
struct cwi_profile {
    const char *name;
    const char *measured; /* where its figures come from (docs/RESULTS.md, CPU) */
    /* streaming threshold: nt_num/nt_den of the L2 (nt_level 2) or the L3
     * (nt_level 3) this CPU reports, at least 0x4040 */
    int nt_level;
    unsigned nt_num, nt_den;
    int rep_mode;
    size_t rep_min, rep_max; /* rep_max 0: up to the streaming threshold */
    /* 2: the window ends at the L2 this CPU reports (rep_max where it
     * reports none); 0: at rep_max */
    int rep_max_level;
    size_t stream_pf_dist;
    int stream_pf_hint;
    int stream_method;
    size_t stream_rep_min;
    int src_mode;
    size_t src_pf_dist, src_flush_back;
    int persist_small;
    int memcpy_mid;
    int memcpy_inline;
    /* enum cwi_evex_entry: the shared library's cw_memcpy entry where the
     * avx512-evex row is chosen (fixed when the library is loaded) */
    int evex_entry;
    /* the implementation this CPU's copies ran fastest with, where the
     * build has it and the CPU runs it (NULL: the best runnable); a tuning
     * file's impl and CACHEWISE_IMPL come over it */
    const char *impl;
};

struct cwi_cpu;
/* The profile table's row called name, or NULL. */
const struct cwi_profile *cwi_profile_find(const char *name)
    __attribute__((visibility("hidden")));
/* The row chosen for this CPU by vendor, family and model. */
const struct cwi_profile *cwi_profile_for_cpu(const struct cwi_cpu *c)
    __attribute__((visibility("hidden")));
/* The same from CPUID's vendor string, display family and model and the
 * CWI_F_* features; without libc, for cw_memcpy's IFUNC resolver. */
const struct cwi_profile *cwi_profile_row(const char *vendor, unsigned family, unsigned model,
                                          uint32_t features)
    __attribute__((visibility("hidden")));
/* Whether two C strings are equal, without libc (for the resolver too). */
int cwi_same_name(const char *a, const char *b) __attribute__((visibility("hidden")));
/* The names of every built-in profile, NULL-terminated. */
extern const char *const cwi_profile_names[] __attribute__((visibility("hidden")));
/* Fills p from profile row r for this CPU's caches and features. */
void cwi_policy_from_profile(struct cwi_policy *p, const struct cwi_profile *r,
                             const struct cwi_cpu *c) __attribute__((visibility("hidden")));

#endif /* CW_POLICY_H */
