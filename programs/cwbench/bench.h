/* SPDX-License-Identifier: MIT */
/* cwbench engine: machine information, timers, buffers, the routine
 * registry and the measurement engine shared by every subcommand (and by
 * the workload and statistics code and their tests). Methodology and the
 * meaning of every number: docs/BENCHMARKS.md. */
#ifndef CWB_BENCH_H
#define CWB_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct cwb_results;

/* ---- Routine registry ---------------------------------------------------- */

/* Every routine copies n bytes from src to dst (no overlap) and returns dst,
 * or NULL when it could not copy (cw_copy_safe reporting bytes not copied). */
typedef void *(*cwb_copy_fn)(void *, const void *, size_t);
struct cwb_routine {
    const char *name;
    cwb_copy_fn fn;
    const char *what;
    /* Optional: the routine's function for size n alone, or NULL for fn.
     * Lets a routine that stands for "a caller with a compile-time constant
     * size" run without a size dispatch in the timed hot and cold loops. */
    cwb_copy_fn (*for_size)(size_t n);
    /* Optional: called with ctx before each of the routine's batches and
     * its calibration, outside the timed region (cwbench tune: puts the
     * candidate policy in force, so candidates interleave like routines). */
    void (*prepare)(const void *ctx);
    const void *ctx;
};

static inline void cwb_routine_prepare(const struct cwb_routine *rt)
{
    if (rt->prepare != NULL)
        rt->prepare(rt->ctx);
}

/* The function the timed loops call for copies of exactly n bytes. */
static inline cwb_copy_fn cwb_routine_fn(const struct cwb_routine *rt, size_t n)
{
    cwb_copy_fn f = rt->for_size != NULL ? rt->for_size(n) : NULL;
    return f != NULL ? f : rt->fn;
}

/* cw_memcpy, cw_memcpy_nt, cw_memcpy_flushcache, cw_copy_nta
 * (CW_SRC_NOREUSE|CW_DST_NOREUSE), cw_copy_safe, glibc_memcpy; on x86-64
 * rep_movsb and stream_sse2/stream_avx2/stream_avx512 (plain streaming-store
 * loops, only those this CPU runs), on aarch64 stream_stnp; pmem_memcpy_nt /
 * pmem_memcpy_t when built with libpmem. Static storage. */
const struct cwb_routine *cwb_routines(size_t *count);
/* NULL when the name is unknown (or not runnable here). */
const struct cwb_routine *cwb_routine_find(const char *name);
/* Index of the routine called name in rt[0..nrt), or nrt when absent. */
size_t cwb_routine_index(const struct cwb_routine *const *rt, size_t nrt, const char *name);
/* Comma-separated names of every routine, for usage messages. */
const char *cwb_routine_names(void);
/* The fill routines (cw_memset_*, glibc_memset, pmem_memset_*, the plain
 * streaming fill loops) ignore src and set every byte of dst to
 * CWB_FILL_BYTE: 1 for those (by rt->fn), 0 for the copies. The engine
 * checks a fill routine's dst against that byte instead of src. 0xa5: not
 * the poison byte (0), so a byte left unwritten shows, and not a zero fill,
 * which some cores can complete faster over lines already zero. */
#define CWB_FILL_BYTE 0xa5
int cwb_routine_fills(const struct cwb_routine *rt);

/* ---- Time ---------------------------------------------------------------- */

double cwb_now(void);     /* seconds, CLOCK_MONOTONIC */
double cwb_cpu_now(void); /* seconds, CLOCK_PROCESS_CPUTIME_ID */
/* Smallest observable step of cwb_now() in seconds (measured once, cached). */
double cwb_timer_tick(void);

/* ---- Machine ------------------------------------------------------------- */

void cwb_print_machine(FILE *f);
/* Adds the machine's metadata, among it "emulated" ("true"/"false"). */
void cwb_machine_meta(struct cwb_results *r);
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
/* 1 when perf_event_open can count cycles for this process; why[] says
 * why not otherwise. */
int cwb_counters_available(char *why, size_t cap);
/* Open one hardware counter (PERF_COUNT_HW_*) for this process, user space
 * only (allowed at perf_event_paranoid <= 2 without privileges), close-on-
 * exec. Returns the fd, or -1 with errno set. */
int cwb_perf_open(uint64_t hw_config);

/* ---- Memory -------------------------------------------------------------- */

/* Anonymous mmap rounded up to 2 MiB, 2 MiB-aligned, MADV_HUGEPAGE, every
 * page touched (no page faults inside timed regions). NULL on failure. */
void *cwb_alloc_huge(size_t bytes);
void cwb_free_huge(void *p, size_t bytes);
/* Fill with streaming stores (leaves the range out of the caches). */
void cwb_fill_nt(void *p, int byte, size_t n);
/* Deterministic pseudo-random bytes 1..255 (never 0, the poison byte). */
void cwb_fill_pattern(void *p, size_t n, uint64_t seed);

/* ---- Random -------------------------------------------------------------- */

uint64_t cwb_rand(uint64_t *state); /* splitmix64 */
void cwb_shuffle(size_t *idx, size_t n, uint64_t *state);

/* ---- Measurement engine (measure.c) -------------------------------------- */

enum cwb_state { CWB_HOT, CWB_COLD, CWB_RANDOM };
const char *cwb_state_name(enum cwb_state s);

/* One call of a random-offset or distribution batch. */
struct cwb_call { size_t soff, doff, n; };

struct cwb_spec {
    enum cwb_state state;
    size_t size;            /* HOT/COLD: bytes per call */
    int src_off, dst_off;   /* HOT/COLD: added to the 64-byte aligned bases */
    /* RANDOM: calls replayed in order, cyclically; offsets within region */
    const struct cwb_call *calls;
    size_t n_calls, region;
};

/* Samples of one routine in one cell. */
struct cwb_run {
    double *wall, *cpu;     /* seconds per sample (one batch) */
    size_t n;               /* samples kept (the warm-up is discarded) */
    size_t calls;           /* calls per sample */
    double bytes;           /* bytes per sample, counted once */
    int preempted;          /* samples where cpu and wall differ by > 10% */
    int failed;             /* wrong bytes, a write outside dst, or NULL */
    int unavailable;        /* cw_copy_safe not copying (not implemented) */
    char err[160];
};

struct cwb_engine {
    unsigned char *src, *dst, *ref;
    size_t pool;            /* bytes of each of src, dst (and ref) */
    size_t cold_cursor;     /* rotation through the pool in COLD state */
    double min_sample;      /* seconds: at least 20 timer ticks */
    double max_sample;      /* seconds: cap on batch growth */
    int samples;
    uint64_t rng;
    int stack_at;           /* page offset of the timed loops' stack; -1: per cell */
    int failures;           /* cells with a failed routine, over the run */
    int preempted;          /* samples still preempted after 2 retries */
    int retried;            /* samples taken again after a preemption */
    size_t total_samples;
};

/* pool: bytes of each buffer (src, dst; ref on first random-state cell);
 * rounded up to 2 MiB. Returns
 * 0, or -1 when out of memory. */
int cwb_engine_init(struct cwb_engine *e, size_t pool, int samples, double min_sample,
                    uint64_t seed);
void cwb_engine_free(struct cwb_engine *e);
/* ---- Placement (placement.c) ---------------------------------------------- */

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

/* Measure nrt routines in one cell, interleaved in a new random order for
 * every sample, each after its own calibration (the discarded warm-up).
 * out[i] gets routine rt[i]; free each with cwb_run_free. Every sample's
 * copies are verified outside the timed region. Returns 0, or -1 when a
 * routine failed (out[i].failed with the reason in out[i].err). */
int cwb_measure(struct cwb_engine *e, const struct cwb_spec *spec,
                const struct cwb_routine *const *rt, size_t nrt, struct cwb_run *out);
/* As cwb_measure, but routine rt[i] runs cell specs[i]: e.g. one routine at
 * two alignments, interleaved sample by sample like two routines. */
int cwb_measure_each(struct cwb_engine *e, const struct cwb_spec *specs,
                     const struct cwb_routine *const *rt, size_t nrt, struct cwb_run *out);
void cwb_run_free(struct cwb_run *r);
/* GB/s per sample (bytes counted once, 1 GB = 1e9 bytes); x and cpu must
 * hold r->n doubles; cpu may be NULL. */
void cwb_run_gbps(const struct cwb_run *r, double *x, double *cpu);
/* Median of r's throughput in GB/s. */
double cwb_run_median_gbps(const struct cwb_run *r);

/* Copy ceiling: a read-only and a streaming write-only kernel over the
 * first `bytes` of the pool; GB/s medians. ceiling = min(read, write). */
struct cwb_ceiling { double read_gbps, write_gbps, ceiling_gbps; size_t bytes; int n; };
void cwb_measure_ceiling(struct cwb_engine *e, size_t bytes, struct cwb_ceiling *out);

/* ---- Progress on stderr (progress.c; progress.h has the plan and ETA) ---- */

void cwb_progress_begin(const char *phase, size_t total);
void cwb_progress_step(size_t done);
/* Erase the progress line before printing a result line to stdout. */
void cwb_progress_clear(void);
void cwb_progress_end(void);

/* ---- Helpers shared by the subcommands ----------------------------------- */

/* "64 B", "4 KiB", "1.5 MiB" */
const char *cwb_fmt_size(size_t n, char *buf, size_t cap);
/* Parse "4096", "4K", "4KiB", "64M", "1G": 0 or -1. */
int cwb_parse_size(const char *s, size_t *out);

#endif /* CWB_BENCH_H */
