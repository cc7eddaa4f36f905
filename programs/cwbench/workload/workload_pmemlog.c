/* SPDX-License-Identifier: MIT */
/* `cwbench workload pmemlog`: the dm-writecache case.
 *
 * dm-writecache persists small metadata entries with memcpy_flushcache; the
 * kernel inlined constant 4, 8 and 16-byte copies as movnti stores and
 * measured +2% on a write workload on emulated persistent memory. Here
 * records of 4 B .. 4 KiB are appended to a log in a MAP_SHARED file mapping
 * and persisted one by one with each method; the log is then unmapped,
 * reopened and checked byte for byte. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* posix_fallocate, MAP_SYNC */
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cachewise.h"

#include "base/clock.h"
#include "results/results.h"
#include "results/stats.h"
#include "workload/workload.h"

#ifdef CWB_HAVE_LIBPMEM
#include <libpmem.h>
#endif

#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif
#ifndef MAP_SYNC
#define MAP_SYNC 0x80000
#endif

/* M_PLAIN: memcpy, then the lines written back and a fence, by hand. x86:
 * clwb/clflushopt/clflush and sfence as the kernel writes them; elsewhere
 * there is no one instruction set to write by hand, so the library's public
 * cw_flush + cw_drain (aarch64: DC CVAP or DC CVAC, and DSB) do it. */
#if defined(__x86_64__)
#define PLAIN_WHAT "memcpy + flush lines + sfence"
#else
#define PLAIN_WHAT "memcpy + cw_flush + cw_drain"
#endif

/* M_INPLACE and M_PMEM_INPLACE: the record is stored in place with
 * ordinary stores (a header or struct updated on the mapping) and then
 * written back: cw_persist against libpmem's pmem_persist. */
enum { M_HDR, M_FN, M_PERSIST, M_PLAIN, M_INPLACE, M_PMEM, M_PMEM_INPLACE, N_METHODS };
static const char *const mname[N_METHODS] = {
    "cw_memcpy_flushcache", "cw_memcpy_flushcache_fn", "cw_memcpy_persist", "memcpy_flush",
    "memcpy_cw_persist", "pmem_memcpy_persist", "memcpy_pmem_persist"};
static const char *const mwhat[N_METHODS] = {
    "header fast path (constant n) + cw_drain", "cw_memcpy_flushcache_fn + cw_drain",
    "cw_memcpy_persist", PLAIN_WHAT, "update in place + cw_persist",
    "libpmem pmem_memcpy_persist", "update in place + libpmem pmem_persist"};

static const size_t sizes[] = {4, 8, 16, 64, 256, 1024, 4096};
#define N_SIZES (sizeof sizes / sizeof sizes[0])

/* Record sources: offsets into a random pool, different per record and per
 * sample, so a record left over from an earlier sample fails the check. */
#define POOL_SPAN (32u * 1024u)
#define POOL_BYTES (POOL_SPAN + 4096u)
static size_t src_off(size_t i, uint64_t seed)
{
    return (size_t)(((i + seed) * 72u) & (POOL_SPAN - 1));
}

#define HDR_APPEND(N)                                                                          \
    static void append_hdr_##N(unsigned char *dst, const unsigned char *pool, size_t nrec,    \
                                uint64_t seed)                                                 \
    {                                                                                          \
        for (size_t i = 0; i < nrec; i++) {                                                    \
            cw_memcpy_flushcache(dst + i * N, pool + src_off(i, seed), N);                     \
            cw_drain();                                                                        \
        }                                                                                      \
    }
HDR_APPEND(4)
HDR_APPEND(8)
HDR_APPEND(16)

#if defined(__x86_64__)
static void sfence(void)
{
    __asm__ volatile("sfence" ::: "memory");
}
static void flush_clwb(const void *p, size_t n)
{
    for (uintptr_t a = (uintptr_t)p & ~(uintptr_t)63; a < (uintptr_t)p + n; a += 64)
        __asm__ volatile("clwb %0" : "+m"(*(volatile char *)a));
}
static void flush_clflushopt(const void *p, size_t n)
{
    for (uintptr_t a = (uintptr_t)p & ~(uintptr_t)63; a < (uintptr_t)p + n; a += 64)
        __asm__ volatile("clflushopt %0" : "+m"(*(volatile char *)a));
}
static void flush_clflush(const void *p, size_t n)
{
    for (uintptr_t a = (uintptr_t)p & ~(uintptr_t)63; a < (uintptr_t)p + n; a += 64)
        __asm__ volatile("clflush %0" : "+m"(*(volatile char *)a));
}
#else
/* the fence after the write-backs: cw_drain (aarch64: DSB) */
static void sfence(void)
{
    cw_drain();
}
static void flush_cw(const void *p, size_t n)
{
    cw_flush(p, n);
}
#endif

static void (*plain_flush)(const void *, size_t);

static void append(int m, unsigned char *dst, const unsigned char *pool, size_t size,
                   size_t nrec, uint64_t seed)
{
    switch (m) {
    case M_HDR:
        if (size == 4)
            append_hdr_4(dst, pool, nrec, seed);
        else if (size == 8)
            append_hdr_8(dst, pool, nrec, seed);
        else
            append_hdr_16(dst, pool, nrec, seed);
        break;
    case M_FN:
        for (size_t i = 0; i < nrec; i++) {
            cw_memcpy_flushcache_fn(dst + i * size, pool + src_off(i, seed), size);
            cw_drain();
        }
        break;
    case M_PERSIST:
        for (size_t i = 0; i < nrec; i++)
            cw_memcpy_persist(dst + i * size, pool + src_off(i, seed), size);
        break;
    case M_PLAIN:
        for (size_t i = 0; i < nrec; i++) {
            memcpy(dst + i * size, pool + src_off(i, seed), size);
            plain_flush(dst + i * size, size);
            sfence();
        }
        break;
    case M_INPLACE:
        for (size_t i = 0; i < nrec; i++) {
            memcpy(dst + i * size, pool + src_off(i, seed), size);
            cw_persist(dst + i * size, size);
        }
        break;
    case M_PMEM_INPLACE:
#ifdef CWB_HAVE_LIBPMEM
        for (size_t i = 0; i < nrec; i++) {
            memcpy(dst + i * size, pool + src_off(i, seed), size);
            pmem_persist(dst + i * size, size);
        }
#endif
        break;
    default:
#ifdef CWB_HAVE_LIBPMEM
        for (size_t i = 0; i < nrec; i++)
            pmem_memcpy_persist(dst + i * size, pool + src_off(i, seed), size);
#endif
        break;
    }
}

static int method_available(int m, size_t size)
{
    if (m == M_HDR)
        return size == 4 || size == 8 || size == 16;
    if (m == M_PLAIN)
        return plain_flush != NULL;
#ifdef CWB_HAVE_LIBPMEM
    return 1;
#else
    return m != M_PMEM && m != M_PMEM_INPLACE;
#endif
}

struct logfile {
    char path[512];
    char kind[256];
    int fd;
    unsigned char *map;
    size_t bytes;
};

static int try_map(struct logfile *lf, const char *dir, int want_sync, char *why, size_t cap)
{
    snprintf(lf->path, sizeof lf->path, "%s/cwbench-pmemlog-%ld", dir, (long)getpid());
    lf->fd = open(lf->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (lf->fd < 0) {
        snprintf(why, cap, "%s: %s", lf->path, strerror(errno));
        return -1;
    }
    int e = posix_fallocate(lf->fd, 0, (off_t)lf->bytes);
    if (e != 0 && ftruncate(lf->fd, (off_t)lf->bytes) != 0) {
        snprintf(why, cap, "%s: cannot size to %zu bytes: %s", lf->path, lf->bytes,
                 strerror(errno));
        goto fail;
    }
    int flags = want_sync ? MAP_SHARED_VALIDATE | MAP_SYNC : MAP_SHARED;
    void *p = mmap(NULL, lf->bytes, PROT_READ | PROT_WRITE, flags, lf->fd, 0);
    if (p == MAP_FAILED) {
        snprintf(why, cap, "%s: mmap%s: %s", lf->path, want_sync ? "(MAP_SYNC)" : "",
                 strerror(errno));
        goto fail;
    }
    lf->map = p;
    return 0;
fail:
    close(lf->fd);
    unlink(lf->path);
    lf->fd = -1;
    return -1;
}

/* A DAX filesystem with MAP_SYNC gives real persistence semantics; without
 * one the log lives in an ordinary shared file mapping, and the figures are
 * the cost of the flushes on DRAM. */
static int open_log(struct logfile *lf)
{
    char why[600] = "no DAX filesystem mounted";
    const char *env = getenv("CWB_PMEM_DIR");
    FILE *mounts = env == NULL ? fopen("/proc/mounts", "r") : NULL;
    char line[1024];
    if (env != NULL && try_map(lf, env, 1, why, sizeof why) == 0) {
        snprintf(lf->kind, sizeof lf->kind, "DAX (CWB_PMEM_DIR), MAP_SHARED_VALIDATE|MAP_SYNC");
        return 0;
    }
    while (mounts != NULL && fgets(line, sizeof line, mounts) != NULL) {
        char dev[256], dir[512], type[64], opts[512];
        if (sscanf(line, "%255s %511s %63s %511s", dev, dir, type, opts) != 4 ||
            strstr(opts, "dax") == NULL)
            continue;
        if (try_map(lf, dir, 1, why, sizeof why) == 0) {
            snprintf(lf->kind, sizeof lf->kind, "DAX %s, MAP_SHARED_VALIDATE|MAP_SYNC", type);
            fclose(mounts);
            return 0;
        }
    }
    if (mounts != NULL)
        fclose(mounts);
    struct stat st;
    const char *dir = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
                              access("/dev/shm", W_OK) == 0
                          ? "/dev/shm"
                          : cwb_wl_tmpdir();
    char why2[600];
    if (try_map(lf, dir, 0, why2, sizeof why2) != 0) {
        fprintf(stderr, "cwbench: pmemlog: cannot create the log file: %s\n", why2);
        return -1;
    }
    snprintf(lf->kind, sizeof lf->kind,
             "ordinary file, MAP_SHARED (no MAP_SYNC: %.150s); persistence not real, "
             "flush costs on DRAM", why);
    return 0;
}

static void close_log(struct logfile *lf)
{
    if (lf->map != NULL)
        munmap(lf->map, lf->bytes);
    if (lf->fd >= 0)
        close(lf->fd);
    lf->map = NULL;
    lf->fd = -1;
}

/* After munmap + reopen, every region must hold the last sample's records
 * and zeros after them. */
static int verify_log(const struct logfile *lf, size_t region, const size_t *nrec,
                      const uint64_t *last_seed, const int *cell_size, size_t ncells,
                      const unsigned char *pool)
{
    int fd = open(lf->path, O_RDONLY | O_CLOEXEC);
    unsigned char *buf = malloc(region);
    int rc = -1;
    if (fd < 0 || buf == NULL) {
        fprintf(stderr, "cwbench: pmemlog: cannot reopen %s: %s\n", lf->path, strerror(errno));
        goto out;
    }
    for (size_t c = 0; c < ncells; c++) {
        if (pread(fd, buf, region, (off_t)(c * region)) != (ssize_t)region) {
            fprintf(stderr, "cwbench: pmemlog: short read of %s\n", lf->path);
            goto out;
        }
        size_t sz = (size_t)cell_size[c], used = nrec[c] * sz;
        for (size_t b = 0; b < region; b++) {
            unsigned char want = 0;
            if (b < used)
                want = pool[src_off(b / sz, last_seed[c]) + b % sz];
            if (buf[b] != want) {
                fprintf(stderr,
                        "cwbench: pmemlog: log file mismatch at offset %zu (record %zu of "
                        "%zu-byte cell %zu): expected 0x%02x, got 0x%02x\n",
                        c * region + b, b / sz, sz, c, want, buf[b]);
                goto out;
            }
        }
    }
    rc = 0;
out:
    if (fd >= 0)
        close(fd);
    free(buf);
    return rc;
}

int cwb_wl_pmemlog(const struct cwb_wl_opts *o, struct cwb_results *r)
{
    const struct cw_info *info = cw_get_info();
    size_t samples = o->runs > 0 ? (size_t)o->runs : o->quick ? 3 : 15;
    size_t region = o->quick ? 16 * 1024 : 1024 * 1024;
    size_t max_rec = o->quick ? 256 : 16384;
    int rc = 1;

#ifdef CWB_HAVE_LIBPMEM
    /* pmem_is_pmem() then calls the mapping persistent memory, as on the
     * seed's emulated pmem (read on its first call, so set it before);
     * pmem_memcpy_persist flushes with CPU instructions either way */
    setenv("PMEM_IS_PMEM_FORCE", "1", 0);
#endif
#if defined(__x86_64__)
    if (info->clwb)
        plain_flush = flush_clwb;
    else if (info->clflushopt)
        plain_flush = flush_clflushopt;
    else if (info->clflush)
        plain_flush = flush_clflush;
#else
    plain_flush = flush_cw;
#endif

    /* one region per (size, method) cell, so the whole log can be checked */
    int cell_method[N_SIZES * N_METHODS], cell_size[N_SIZES * N_METHODS];
    size_t ncells = 0;
    for (size_t s = 0; s < N_SIZES; s++)
        for (int m = 0; m < N_METHODS; m++)
            if (method_available(m, sizes[s])) {
                cell_method[ncells] = m;
                cell_size[ncells++] = (int)sizes[s];
            }
    size_t nrec[N_SIZES * N_METHODS];
    uint64_t last_seed[N_SIZES * N_METHODS];
    for (size_t c = 0; c < ncells; c++) {
        nrec[c] = region / (size_t)cell_size[c];
        if (nrec[c] > max_rec)
            nrec[c] = max_rec;
        last_seed[c] = 0;
    }

    struct logfile lf;
    memset(&lf, 0, sizeof lf);
    lf.fd = -1;
    lf.bytes = ncells * region;
    unsigned char *pool = malloc(POOL_BYTES);
    double *ns = calloc(ncells * samples, sizeof *ns);
    double *rps = calloc(ncells * samples, sizeof *rps);
    if (pool == NULL || ns == NULL || rps == NULL) {
        fprintf(stderr, "cwbench: pmemlog: out of memory\n");
        goto out;
    }
    for (size_t i = 0; i < POOL_BYTES; i++)
        pool[i] = (unsigned char)cwb_wl_mix(i * 0x2545f491u);
    if (open_log(&lf) != 0)
        goto out;
    /* the file's pages are allocated and mapped before timing: the kernel
     * case appended to preallocated persistent memory */
    for (size_t i = 0; i < lf.bytes; i += 4096)
        lf.map[i] = 0;

    printf("setup: log %s (%zu KiB): %s\n", lf.path, lf.bytes >> 10, lf.kind);
    printf("       one %zu KiB region per (size, method), up to %zu records per sample, each "
           "record persisted before the next;\n       %zu samples per cell after a warm-up round, "
           "cells in random order per round; impl %s, flush %s",
           region >> 10, max_rec, samples, info->impl, info->flush_insn);
#ifdef CWB_HAVE_LIBPMEM
    printf(", libpmem (PMEM_IS_PMEM_FORCE=%s, pmem_is_pmem=%d)\n", getenv("PMEM_IS_PMEM_FORCE"),
           pmem_is_pmem(lf.map, lf.bytes));
#else
    printf(", libpmem not built in\n");
#endif
    cwb_wl_print_counters_unavailable();
    cwb_results_meta(r, "wl_log_file", lf.path);
    cwb_results_meta(r, "wl_log_kind", lf.kind);

    int *order = malloc(ncells * sizeof *order);
    if (order == NULL)
        goto out_log;
    uint64_t state = 7;
    /* round 0 is a discarded warm-up of every cell */
    for (size_t round = 0; round <= samples; round++) {
        cwb_wl_shuffle(order, (int)ncells, &state);
        for (size_t k = 0; k < ncells; k++) {
            size_t c = (size_t)order[k];
            uint64_t seed = round * 7 + 1;
            double t0 = cwb_now();
            append(cell_method[c], lf.map + c * region, pool, (size_t)cell_size[c], nrec[c],
                   seed);
            double t = cwb_now() - t0;
            last_seed[c] = seed;
            if (round == 0)
                continue;
            ns[c * samples + round - 1] = 1e9 * t / (double)nrec[c];
            rps[c * samples + round - 1] = t > 0 ? (double)nrec[c] / t : 0;
        }
    }
    free(order);
    if (o->inject_fault)
        lf.map[lf.bytes / 2 + 5] ^= 0x10;
    close_log(&lf);
    if (verify_log(&lf, region, nrec, last_seed, cell_size, ncells, pool) != 0)
        goto out_log;
    printf("check: log file verified byte for byte after munmap + reopen (%zu KiB)\n",
           lf.bytes >> 10);

    for (size_t s = 0; s < N_SIZES; s++) {
        printf("record size %zu B:\n  %-42s %9s %8s %8s %13s %11s %4s\n", sizes[s], "method",
               "ns/record", "sigma", "median", "records/s", "sigma", "n");
        size_t at[N_METHODS];
        for (int m = 0; m < N_METHODS; m++)
            at[m] = (size_t)-1;
        for (size_t c = 0; c < ncells; c++) {
            if ((size_t)cell_size[c] != sizes[s])
                continue;
            int m = cell_method[c];
            struct cwb_summary a, b;
            at[m] = c;
            cwb_summarize(ns + c * samples, samples, &a);
            cwb_summarize(rps + c * samples, samples, &b);
            printf("  %-42s %9.1f %8.1f %8.1f %13.0f %11.0f %4zu\n", mwhat[m], a.mean, a.sd,
                   a.median, b.mean, b.sd, a.n);
            cwb_wl_add_cell(r, "pmemlog", mname[m], "rec_s", sizes[s], "records/s", 1,
                            rps + c * samples, NULL, samples);
            cwb_wl_add_cell(r, "pmemlog", mname[m], "ns_rec", sizes[s], "ns", 0,
                            ns + c * samples, NULL, samples);
        }
        static const int pairs[][2] = {
            {M_FN, M_HDR}, {M_PLAIN, M_PERSIST}, {M_PERSIST, M_PMEM},
            {M_PMEM_INPLACE, M_INPLACE}};
        for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
            size_t a = at[pairs[p][0]], b = at[pairs[p][1]];
            if (a != (size_t)-1 && b != (size_t)-1)
                cwb_wl_print_verdict(mname[pairs[p][0]], rps + a * samples, samples,
                                     mname[pairs[p][1]], rps + b * samples, samples, 1,
                                     "records/s");
        }
    }
    printf("seed (kernel memcpy_flushcache, dm-writecache on emulated pmem, 2018): +2%% "
           "throughput from the inlined constant-size movnti\n");
    rc = 0;
out_log:
    close_log(&lf);
    if (lf.path[0] != '\0')
        unlink(lf.path);
out:
    free(pool);
    free(ns);
    free(rps);
    return rc;
}
