/* SPDX-License-Identifier: MIT */
/* `cwbench workload writeback`: the iozone case.
 *
 * In the kernel, a cache-bypassing copy_from_user for file writes cut iozone
 * CPU time by 11%: the written page-cache data is not read again soon, so
 * streaming it past the caches leaves them to the rest of the system. Here a
 * writer copies 64 KiB user buffers into a 256 MiB ring (the page cache) and,
 * between copies, serves lookups in a hash table sized to the L2 cache (the
 * rest of the system). Temporal copies evict the table; streaming ones
 * should not. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* aligned_alloc under strict modes */
#endif
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cachewise.h"

#include "base/clock.h"
#include "platform/memory.h"
#include "results/results.h"
#include "results/stats.h"
#include "results/verdict.h"
#include "workload/workload.h"

enum { V_TEMPORAL, V_NT, V_NTA, N_VARIANTS };
static const char *const vname[N_VARIANTS] = {"cw_memcpy", "cw_memcpy_nt", "cw_copy_nta"};
static const char *const vwhat[N_VARIANTS] = {
    "cw_memcpy (temporal stores below nt_threshold)",
    "cw_memcpy_nt (streaming stores)",
    "cw_copy(CW_DST_NOREUSE|CW_SRC_NOREUSE)",
};

#define POOL 4 /* user buffers the writer cycles through */

struct entry {
    uint64_t key, val;
};

struct wb {
    size_t buf, ring_bytes, slots, copies, lookups_per_copy;
    unsigned char *ring, *pool, *ref; /* ref: pristine pool, never a copy source */
    struct entry *table;
    size_t table_bytes, table_mask, nkeys; /* nkeys: a power of two */
    unsigned table_shift;                  /* 64 - log2(slots) */
    uint64_t seq; /* copies made so far, over all runs: the stamp of the next copy */
    uint64_t lookup_misses;
    uint64_t sink;
};

/* Keys and slots come from one multiply each, so a lookup costs its memory
 * accesses, not its arithmetic. An odd multiplier is a bijection: distinct
 * indexes give distinct, nonzero keys (0 marks an empty slot). */
static uint64_t key_of(uint64_t i)
{
    return (i + 1) * 0x9e3779b97f4a7c15ull;
}

static size_t slot_of(const struct wb *w, uint64_t key)
{
    return (size_t)((key * 0xff51afd7ed558ccdull) >> w->table_shift);
}

static void table_build(struct wb *w)
{
    for (size_t i = 0; i <= w->table_mask; i++)
        w->table[i].key = w->table[i].val = 0;
    for (size_t i = 0; i < w->nkeys; i++) {
        uint64_t k = key_of(i);
        size_t h = slot_of(w, k);
        while (w->table[h].key != 0)
            h = (h + 1) & w->table_mask;
        w->table[h].key = k;
        w->table[h].val = i;
    }
}

/* Dependent lookups: the next key comes from the value just loaded, so the
 * time per lookup is the latency of the table's cache lines, as for a
 * request handler walking its own structures. */
static void lookups(struct wb *w, size_t count)
{
    const uint64_t kmask = w->nkeys - 1;
    uint64_t idx = w->sink & kmask;
    for (size_t j = 0; j < count; j++) {
        uint64_t k = key_of(idx);
        size_t h = slot_of(w, k);
        while (w->table[h].key != k && w->table[h].key != 0)
            h = (h + 1) & w->table_mask;
        if (w->table[h].key != k) {
            w->lookup_misses++;
            idx = (idx + 1) & kmask;
            continue;
        }
        idx = ((w->table[h].val ^ j) * 0xc2b2ae3d27d4eb4full >> 20) & kmask;
    }
    w->sink = idx;
}

static void copy_one(int v, void *dst, const void *src, size_t n)
{
    switch (v) {
    case V_TEMPORAL:
        cw_memcpy(dst, src, n);
        break;
    case V_NT:
        cw_memcpy_nt(dst, src, n);
        break;
    default:
        cw_copy(dst, src, n, CW_DST_NOREUSE | CW_SRC_NOREUSE);
        break;
    }
}

struct run_figures {
    double cpu, wall, copies_s, lookups_s, lookup_ns;
    uint64_t cycles, misses;
};

static void one_run(struct wb *w, int v, const struct cwb_wl_counters *ctr,
                    struct run_figures *f)
{
    double t_copy = 0, t_look = 0;
    uint64_t c0 = 0, m0 = 0, c1 = 0, m1 = 0;
    /* every run starts with the table in cache, as the system would have it */
    for (size_t i = 0; i <= w->table_mask; i += 4)
        w->sink += w->table[i].key;
    if (ctr != NULL)
        (void)cwb_wl_counters_read(ctr, &c0, &m0);
    double cpu0 = cwb_cpu_now(), wall0 = cwb_now();
    for (size_t c = 0; c < w->copies; c++) {
        uint64_t s = w->seq++;
        unsigned char *src = w->pool + (size_t)(s % POOL) * w->buf;
        /* the application produced new data: a stamp makes every copy unique,
         * so the check finds a stale or skipped slot */
        for (int b = 0; b < 8; b++)
            src[b] = (unsigned char)(s >> (8 * b));
        double t0 = cwb_now();
        copy_one(v, w->ring + (size_t)(s % w->slots) * w->buf, src, w->buf);
        double t1 = cwb_now();
        lookups(w, w->lookups_per_copy);
        double t2 = cwb_now();
        t_copy += t1 - t0;
        t_look += t2 - t1;
    }
    f->wall = cwb_now() - wall0;
    f->cpu = cwb_cpu_now() - cpu0;
    if (ctr != NULL && cwb_wl_counters_read(ctr, &c1, &m1) == 0) {
        f->cycles = c1 - c0;
        f->misses = m1 - m0;
    }
    size_t nl = w->copies * w->lookups_per_copy;
    f->copies_s = t_copy > 0 ? (double)w->copies / t_copy : 0;
    f->lookups_s = t_look > 0 ? (double)nl / t_look : 0;
    f->lookup_ns = nl > 0 ? 1e9 * t_look / (double)nl : 0;
}

/* Byte-for-byte check of the ring: slot i holds the last copy whose
 * sequence number is i modulo the slot count. */
static int verify_ring(const struct wb *w)
{
    for (size_t i = 0; i < w->slots; i++) {
        if (w->seq <= i)
            continue; /* never written */
        uint64_t last = w->seq - 1 - ((w->seq - 1 - i) % w->slots);
        const unsigned char *slot = w->ring + i * w->buf;
        const unsigned char *ref = w->ref + (size_t)(last % POOL) * w->buf;
        unsigned char stamp[8];
        for (int b = 0; b < 8; b++)
            stamp[b] = (unsigned char)(last >> (8 * b));
        if (memcmp(slot, stamp, 8) == 0 && memcmp(slot + 8, ref + 8, w->buf - 8) == 0)
            continue;
        for (size_t b = 0; b < w->buf; b++) {
            unsigned char want = b < 8 ? stamp[b] : ref[b];
            if (slot[b] != want) {
                fprintf(stderr,
                        "cwbench: writeback: ring mismatch at byte %zu (slot %zu, copy %" PRIu64
                        "): expected 0x%02x, got 0x%02x\n",
                        i * w->buf + b, i, last, want, slot[b]);
                break;
            }
        }
        return -1;
    }
    return 0;
}

int cwb_wl_writeback(const struct cwb_wl_opts *o, struct cwb_results *r)
{
    const struct cw_info *info = cw_get_info();
    struct wb w;
    memset(&w, 0, sizeof w);
    w.buf = 64 * 1024;
    w.ring_bytes = o->quick ? (size_t)4 << 20 : (size_t)256 << 20;
    w.slots = w.ring_bytes / w.buf;
    w.copies = o->quick ? 256 : 4 * w.slots;
    w.lookups_per_copy = o->quick ? 64 : 256;
    size_t runs = o->runs > 0 ? (size_t)o->runs : o->quick ? 3 : 9;
    size_t l2 = info->l2_size >= 64 * 1024 ? info->l2_size : 512 * 1024;
    /* half the L2: the table stays there when nothing else disturbs it, with
     * room left for the user buffers */
    w.table_bytes = sizeof(struct entry);
    while (w.table_bytes * 2 <= l2 / 2)
        w.table_bytes *= 2;
    w.table_mask = w.table_bytes / sizeof(struct entry) - 1;
    w.nkeys = (w.table_mask + 1) / 2;
    w.table_shift = 64;
    for (size_t slots = w.table_mask + 1; slots > 1; slots >>= 1)
        w.table_shift--;

    w.ring = cwb_alloc_huge(w.ring_bytes);
    w.pool = malloc(POOL * w.buf);
    w.ref = malloc(POOL * w.buf);
    w.table = aligned_alloc(64, w.table_bytes);
    double *fig = calloc(N_VARIANTS * 5 * runs, sizeof *fig);
    double *cyc = calloc(N_VARIANTS * 2 * runs, sizeof *cyc); /* cycles, then misses */
    int rc = 1;
    if (w.ring == NULL || w.pool == NULL || w.ref == NULL || w.table == NULL || fig == NULL ||
        cyc == NULL) {
        fprintf(stderr, "cwbench: writeback: out of memory (ring of %zu MiB)\n",
                w.ring_bytes >> 20);
        goto out;
    }
    for (size_t i = 0; i < POOL * w.buf; i += 8) {
        uint64_t x = cwb_wl_mix(i);
        for (int b = 0; b < 8; b++)
            w.pool[i + b] = w.ref[i + b] = (unsigned char)(x >> (8 * b));
    }
    /* page faults are not what this workload measures: the page cache's
     * pages exist before iozone writes into them */
    for (size_t i = 0; i < w.ring_bytes; i += 4096)
        w.ring[i] = 0;
    table_build(&w);

    printf("setup: %zu KiB user buffers (%d, cycled) copied into a %zu MiB ring, %zu copies "
           "per run;\n       between copies %zu dependent lookups in a %zu KiB hash table "
           "(L2 %zu KiB, %zu keys);\n       %zu runs per variant after a warm-up round, "
           "interleaved in random order; impl %s, nt_threshold %zu\n",
           w.buf >> 10, POOL, w.ring_bytes >> 20, w.copies, w.lookups_per_copy,
           w.table_bytes >> 10, l2 >> 10, w.nkeys, runs, info->impl, info->nt_threshold);
    if (info->nt_threshold <= w.buf)
        printf("note: nt_threshold <= %zu: cw_memcpy streams here too, so it is no temporal "
               "baseline\n", w.buf);

    char meta[64];
    snprintf(meta, sizeof meta, "%zu", w.ring_bytes);
    cwb_results_meta(r, "wl_ring_bytes", meta);
    snprintf(meta, sizeof meta, "%zu", w.table_bytes);
    cwb_results_meta(r, "wl_table_bytes", meta);
    snprintf(meta, sizeof meta, "%zu", w.lookups_per_copy);
    cwb_results_meta(r, "wl_lookups_per_copy", meta);

    struct cwb_wl_counters ctr;
    char why[160];
    int have_ctr = cwb_wl_counters_open(&ctr, why, sizeof why) == 0;
    if (have_ctr)
        printf("counters: cycles and cache misses (user space) per run\n");
    else
        printf("counters: not available (%s)\n", why);

    uint64_t order_state = 42;
    /* round 0 is a discarded warm-up of every variant */
    for (size_t round = 0; round <= runs; round++) {
        size_t run = round > 0 ? round - 1 : 0;
        int order[N_VARIANTS];
        cwb_wl_shuffle(order, N_VARIANTS, &order_state);
        for (int k = 0; k < N_VARIANTS; k++) {
            int v = order[k];
            struct run_figures f;
            memset(&f, 0, sizeof f);
            one_run(&w, v, have_ctr ? &ctr : NULL, &f);
            if (verify_ring(&w) != 0)
                goto out_ctr;
            if (round == 0)
                continue;
            double *row = fig + (size_t)v * 5 * runs;
            row[0 * runs + run] = f.cpu;
            row[1 * runs + run] = f.copies_s;
            row[2 * runs + run] = f.lookups_s;
            row[3 * runs + run] = f.lookup_ns;
            row[4 * runs + run] = f.wall;
            cyc[(size_t)v * 2 * runs + run] = (double)f.cycles;
            cyc[(size_t)v * 2 * runs + runs + run] = (double)f.misses;
            if (o->inject_fault && run == runs - 1 && k == N_VARIANTS - 1) {
                w.ring[w.ring_bytes / 2 + 123] ^= 0x20;
                if (verify_ring(&w) != 0)
                    goto out_ctr;
            }
        }
    }
    if (w.lookup_misses != 0) {
        fprintf(stderr, "cwbench: writeback: %" PRIu64 " lookups did not find their key: the "
                "hash table was corrupted\n", w.lookup_misses);
        goto out_ctr;
    }
    printf("check: ring verified byte for byte after every run (%zu MiB), all lookups hit\n",
           w.ring_bytes >> 20);

    for (int v = 0; v < N_VARIANTS; v++) {
        const double *row = fig + (size_t)v * 5 * runs;
        printf("%s\n", vwhat[v]);
        cwb_wl_print_figure("total CPU time per run", row, runs, "s", 4);
        cwb_wl_print_figure("wall time per run", row + 4 * runs, runs, "s", 4);
        cwb_wl_print_figure("copies/s (copy phases)", row + runs, runs, "copies/s", 0);
        cwb_wl_print_figure("lookups/s (lookup phases)", row + 2 * runs, runs, "lookups/s", 0);
        cwb_wl_print_figure("lookup latency", row + 3 * runs, runs, "ns", 2);
        double cpu = 0, wall = 0;
        for (size_t i = 0; i < runs; i++) {
            cpu += row[i];
            wall += row[4 * runs + i];
        }
        if (cpu < 0.9 * wall)
            printf("  note: CPU time is %.0f%% of wall time: the process was preempted (shared "
                   "machine); trust CPU time\n", 100.0 * cpu / wall);
        if (have_ctr) {
            const double *cv = cyc + (size_t)v * 2 * runs;
            cwb_wl_print_figure("cycles per run", cv, runs, "cycles", 0);
            cwb_wl_print_figure("cache misses per run", cv + runs, runs, "misses", 0);
            cwb_wl_add_cell(r, "writeback", vname[v], "cycles", w.buf, "cycles", 0, cv, NULL,
                            runs);
            cwb_wl_add_cell(r, "writeback", vname[v], "misses", w.buf, "misses", 0, cv + runs,
                            NULL, runs);
        }
        static const char *const st[4] = {"cpu", "copies", "lookups", "lookup_lat"};
        static const char *const un[4] = {"s", "copies/s", "lookups/s", "ns"};
        static const int hib[4] = {0, 1, 1, 0};
        for (int m = 0; m < 4; m++)
            cwb_wl_add_cell(r, "writeback", vname[v], st[m], w.buf, un[m], hib[m],
                            row + (size_t)m * runs, m == 1 ? row : NULL, runs);
    }
    printf("seed (kernel copy_from_user, iozone, 2005 hardware): CPU time -11%%, cycles -17%%, "
           "L3 misses -64%% with the cache-bypassing copy\n");
    for (int v = V_NT; v < N_VARIANTS; v++) {
        const double *base = fig, *row = fig + (size_t)v * 5 * runs;
        /* the seed's form: relative CPU-time change, the same estimate
         * (Hodges-Lehmann ratio of CPU time) and the same decision as the
         * verdicts below, in the same terms: a change of CPU time */
        struct cwb_cmp cc, lc;
        char ce[160], le[160];
        if (cwb_compare(base, runs, row, runs, 0.05, &cc) == 0 &&
            cwb_compare(base + 3 * runs, runs, row + 3 * runs, runs, 0.05, &lc) == 0)
            printf("  %s vs %s: CPU time %s (seed: -11%%), lookup latency %s\n", vname[v],
                   vname[V_TEMPORAL], cwb_estimate_text(&cc, ce, sizeof ce),
                   cwb_estimate_text(&lc, le, sizeof le));
        struct cwb_cmp yc, mc;
        const double *cb = cyc, *cv = cyc + (size_t)v * 2 * runs;
        if (have_ctr && cwb_compare(cb, runs, cv, runs, 0.05, &yc) == 0 &&
            cwb_compare(cb + runs, runs, cv + runs, runs, 0.05, &mc) == 0)
            printf("  %s vs %s: cycles %s (seed: -17%%), cache misses %s (seed, L3: -64%%)\n",
                   vname[v], vname[V_TEMPORAL], cwb_estimate_text(&yc, ce, sizeof ce),
                   cwb_estimate_text(&mc, le, sizeof le));
        char a[64];
        snprintf(a, sizeof a, "%s CPU time", vname[V_TEMPORAL]);
        cwb_wl_print_verdict(a, base, runs, vname[v], row, runs, 0, "s");
        snprintf(a, sizeof a, "%s lookup latency", vname[V_TEMPORAL]);
        cwb_wl_print_verdict(a, base + 3 * runs, runs, vname[v], row + 3 * runs, runs, 0, "ns");
    }
    rc = 0;
out_ctr:
    if (have_ctr)
        cwb_wl_counters_close(&ctr);
out:
    if (w.ring != NULL)
        cwb_free_huge(w.ring, w.ring_bytes);
    free(w.pool);
    free(w.ref);
    free(w.table);
    free(fig);
    free(cyc);
    return rc;
}
