/* SPDX-License-Identifier: MIT */
/* `cwbench workload cachedread`: the hdparm -T case.
 *
 * hdparm -T reads 2 MiB chunks of data already in the page cache, so it
 * times little but the kernel's copy_to_user; the kernel compared an inline
 * against an out-of-line copy_to_user that way (mean and sigma over 20
 * samples) and judged the difference noise. Here the same reads are made
 * with read() (the kernel's copy) against mmap of the file plus cw_memcpy or
 * cw_memcpy_nt into the same user buffer. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* MAP_POPULATE, mincore */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cachewise.h"

#include "base/clock.h"
#include "results/results.h"
#include "results/stats.h"
#include "workload/workload.h"

#define CHUNK ((size_t)2 << 20) /* hdparm's TIMING_BUF_BYTES */

enum { V_READ, V_CW, V_NT, N_VARIANTS };
static const char *const vname[N_VARIANTS] = {"read", "mmap_cw_memcpy", "mmap_cw_memcpy_nt"};
static const char *const vwhat[N_VARIANTS] = {"read() (kernel copy_to_user)",
                                              "mmap + cw_memcpy", "mmap + cw_memcpy_nt"};

static uint64_t word_at(size_t off)
{
    return cwb_wl_mix(off / 8 ^ 0xcafef00dull);
}

static void fill_chunk(unsigned char *buf, size_t off)
{
    for (size_t i = 0; i < CHUNK; i += 8) {
        uint64_t w = word_at(off + i);
        for (int b = 0; b < 8; b++)
            buf[i + b] = (unsigned char)(w >> (8 * b));
    }
}

/* buf must hold the file's chunk at offset off, byte for byte */
static int check_chunk(const unsigned char *buf, size_t off, const char *variant)
{
    for (size_t i = 0; i < CHUNK; i += 8) {
        uint64_t w = word_at(off + i);
        for (int b = 0; b < 8; b++) {
            unsigned char want = (unsigned char)(w >> (8 * b));
            if (buf[i + b] != want) {
                fprintf(stderr,
                        "cwbench: cachedread: %s: read buffer mismatch at file offset %zu: "
                        "expected 0x%02x, got 0x%02x\n",
                        variant, off + i + (size_t)b, want, buf[i + b]);
                return -1;
            }
        }
    }
    return 0;
}

static int read_chunk(int v, int fd, const unsigned char *map, unsigned char *buf, size_t off)
{
    switch (v) {
    case V_READ: {
        size_t got = 0;
        while (got < CHUNK) {
            ssize_t k = pread(fd, buf + got, CHUNK - got, (off_t)(off + got));
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0) {
                fprintf(stderr, "cwbench: cachedread: read at offset %zu: %s\n", off + got,
                        k < 0 ? strerror(errno) : "unexpected end of file");
                return -1;
            }
            got += (size_t)k;
        }
        break;
    }
    case V_CW:
        cw_memcpy(buf, map + off, CHUNK);
        break;
    default:
        cw_memcpy_nt(buf, map + off, CHUNK);
        break;
    }
    return 0;
}

int cwb_wl_cachedread(const struct cwb_wl_opts *o, struct cwb_results *r)
{
    const struct cw_info *info = cw_get_info();
    size_t file_bytes = o->quick ? 2 * CHUNK : 32 * CHUNK;
    size_t passes = o->quick ? 1 : 4;
    size_t samples = o->runs > 0 ? (size_t)o->runs : o->quick ? 5 : 20;
    char path[512];
    snprintf(path, sizeof path, "%s/cwbench-cachedread-%ld", cwb_wl_tmpdir(), (long)getpid());
    int rc = 1, fd = -1;
    unsigned char *map = NULL, *buf = aligned_alloc(4096, CHUNK);
    double *mbs = calloc(N_VARIANTS * samples, sizeof *mbs);
    if (buf == NULL || mbs == NULL) {
        fprintf(stderr, "cwbench: cachedread: out of memory\n");
        goto out;
    }
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        fprintf(stderr, "cwbench: cachedread: cannot create %s: %s\n", path, strerror(errno));
        goto out;
    }
    for (size_t off = 0; off < file_bytes; off += CHUNK) {
        fill_chunk(buf, off);
        if (pwrite(fd, buf, CHUNK, (off_t)off) != (ssize_t)CHUNK) {
            fprintf(stderr, "cwbench: cachedread: cannot write %s: %s\n", path,
                    strerror(errno));
            goto out_file;
        }
    }
    /* no dirty pages left for background writeback to do during the timing */
    if (fdatasync(fd) != 0) {
        fprintf(stderr, "cwbench: cachedread: fdatasync %s: %s\n", path, strerror(errno));
        goto out_file;
    }
    /* read it once, as hdparm -T relies on: the page cache now holds it */
    for (size_t off = 0; off < file_bytes; off += CHUNK)
        if (read_chunk(V_READ, fd, NULL, buf, off) != 0)
            goto out_file;
    map = mmap(NULL, file_bytes, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (map == MAP_FAILED) {
        map = NULL;
        fprintf(stderr, "cwbench: cachedread: mmap %s: %s\n", path, strerror(errno));
        goto out_file;
    }
    size_t pages = file_bytes / 4096, resident = 0;
    unsigned char *vec = malloc(pages);
    if (vec != NULL && mincore(map, file_bytes, vec) == 0)
        for (size_t i = 0; i < pages; i++)
            resident += vec[i] & 1;
    free(vec);

    printf("setup: file %s (%zu MiB, %zu%% in the page cache), read in %zu MiB chunks into "
           "one user buffer;\n       %zu passes (%zu MiB) per sample, %zu samples per variant "
           "after a warm-up round, interleaved in random order;\n       the file is mapped "
           "once (MAP_POPULATE) outside the timing; impl %s, nt_threshold %zu\n",
           path, file_bytes >> 20, pages ? 100 * resident / pages : 0, CHUNK >> 20, passes,
           (passes * file_bytes) >> 20, samples, info->impl, info->nt_threshold);
    cwb_wl_print_counters_unavailable();
    char meta[64];
    snprintf(meta, sizeof meta, "%zu", file_bytes);
    cwb_results_meta(r, "wl_file_bytes", meta);
    snprintf(meta, sizeof meta, "%zu", passes);
    cwb_results_meta(r, "wl_passes_per_sample", meta);

    uint64_t state = 11;
    /* round 0 is a discarded warm-up of every variant */
    for (size_t round = 0; round <= samples; round++) {
        int order[N_VARIANTS];
        cwb_wl_shuffle(order, N_VARIANTS, &state);
        for (int k = 0; k < N_VARIANTS; k++) {
            int v = order[k];
            double t0 = cwb_now();
            for (size_t p = 0; p < passes; p++)
                for (size_t off = 0; off < file_bytes; off += CHUNK)
                    if (read_chunk(v, fd, map, buf, off) != 0)
                        goto out_file;
            double t = cwb_now() - t0;
            if (check_chunk(buf, file_bytes - CHUNK, vname[v]) != 0)
                goto out_file;
            /* MB as hdparm counts them: 2^20 bytes */
            if (round > 0)
                mbs[(size_t)v * samples + round - 1] =
                    t > 0 ? (double)(passes * file_bytes) / t / 1048576.0 : 0;
        }
    }
    /* untimed: every chunk of every variant, byte for byte */
    for (int v = 0; v < N_VARIANTS; v++)
        for (size_t off = 0; off < file_bytes; off += CHUNK) {
            if (read_chunk(v, fd, map, buf, off) != 0)
                goto out_file;
            if (o->inject_fault && v == N_VARIANTS - 1 && off + CHUNK >= file_bytes)
                buf[CHUNK / 3] ^= 0x04;
            if (check_chunk(buf, off, vname[v]) != 0)
                goto out_file;
        }
    printf("check: read buffers verified byte for byte (last chunk of every sample, every "
           "chunk once per variant)\n");

    for (int v = 0; v < N_VARIANTS; v++) {
        struct cwb_summary sm;
        cwb_summarize(mbs + (size_t)v * samples, samples, &sm);
        printf("  %-30s Average=%.2f MB/s sigma=%.2f  (n=%zu, median %.2f, min %.2f, max "
               "%.2f; MB = 2^20 B)\n",
               vwhat[v], sm.mean, sm.sd, sm.n, sm.median, sm.min, sm.max);
        cwb_wl_add_cell(r, "cachedread", vname[v], "cached", CHUNK, "MiB/s", 1,
                        mbs + (size_t)v * samples, NULL, samples);
    }
    printf("seed (hdparm -T, kernel copy_to_user inline vs out-of-line): 320.42 MB/s sigma "
           "0.88 vs 318.77 sigma 1.00, judged noise\n");
    cwb_wl_print_verdict(vname[V_READ], mbs, samples, vname[V_CW], mbs + samples, samples, 1,
                         "MiB/s");
    cwb_wl_print_verdict(vname[V_READ], mbs, samples, vname[V_NT], mbs + 2 * samples, samples,
                         1, "MiB/s");
    cwb_wl_print_verdict(vname[V_CW], mbs + samples, samples, vname[V_NT], mbs + 2 * samples,
                         samples, 1, "MiB/s");
    rc = 0;
out_file:
    if (map != NULL)
        munmap(map, file_bytes);
    close(fd);
    unlink(path);
out:
    free(buf);
    free(mbs);
    return rc;
}
