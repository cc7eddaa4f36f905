/* SPDX-License-Identifier: MIT */
/*
 * parallel_pthreads: a copy larger than one core can move, split over
 * threads, two ways.
 *
 * One core copies a few tens of GB/s at most: the misses it can keep in
 * flight bound it, not the memory. A program that moves hundreds of MiB at
 * once (a checkpoint of its state, a large buffer handed to another
 * component, a database page cache being cloned) goes faster with several
 * cores on the copy, until the memory system itself is the limit
 * (docs/PARALLEL.md has the figures and the limits).
 *
 * 1. With threads of its own: each thread calls cw_copy_part() with the
 *    same arguments and its own slice index. The library decides the
 *    policy for the whole copy (a copy this large streams the destination
 *    past the caches, so every slice streams) and each slice fences its own
 *    streaming stores, so after pthread_join() the main thread sees every
 *    byte. The slices fall on page boundaries of the destination, one
 *    writer per cache line.
 * 2. With the library's pool: cw_copy_parallel() does the same with worker
 *    threads it starts on first use and reuses; below its parallel_min
 *    setting (4 MiB) it copies on the caller's thread alone.
 *
 * usage: parallel_pthreads [MIB] [THREADS]   (defaults 32 and 4)
 * Exit status: 0 when both copies check out, 1 otherwise.
 */
#define _POSIX_C_SOURCE 200809L
#include <cachewise.h>

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 64

struct slice_job {
    void *dst;
    const void *src;
    size_t n;
    unsigned i, k;
    int failed;
};

static void *copy_slice(void *arg)
{
    struct slice_job *j = arg;
    /* hints 0: the policy cw_copy would choose for the whole n */
    j->failed = cw_copy_part(j->dst, j->src, j->n, 0, j->i, j->k) == NULL;
    return NULL;
}

/* The buffer's content: a function of the offset, so the copy can be
 * checked without a second reference copy. */
static uint64_t word_at(size_t i) { return (uint64_t)i * UINT64_C(0x9e3779b97f4a7c15) ^ (i >> 5); }

static int check(const uint64_t *d, size_t words, const char *how)
{
    for (size_t i = 0; i < words; i++)
        if (d[i] != word_at(i)) {
            fprintf(stderr, "parallel_pthreads: FAIL: %s: word %zu is wrong\n", how, i);
            return 0;
        }
    printf("parallel_pthreads: %s: %zu MiB copied and checked\n", how,
           words * sizeof *d >> 20);
    return 1;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 32;
    unsigned k = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 4;
    if (mib == 0 || mib > 4096 || k == 0 || k > MAX_THREADS) {
        fprintf(stderr, "usage: parallel_pthreads [MIB] [THREADS]   (1..4096, 1..%d)\n",
                MAX_THREADS);
        return 2;
    }
    size_t n = mib << 20, words = n / sizeof(uint64_t);
    uint64_t *src = aligned_alloc(4096, n), *dst = aligned_alloc(4096, n);
    if (src == NULL || dst == NULL) {
        fprintf(stderr, "parallel_pthreads: FAIL: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < words; i++)
        src[i] = word_at(i);

    /* 1. threads of our own, one slice each */
    pthread_t t[MAX_THREADS];
    int started[MAX_THREADS];
    struct slice_job jobs[MAX_THREADS];
    int ok = 1;
    for (unsigned i = 0; i < k; i++) {
        jobs[i] = (struct slice_job){dst, src, n, i, k, 0};
        int e = pthread_create(&t[i], NULL, copy_slice, &jobs[i]);
        started[i] = e == 0;
        if (e != 0) {
            /* no thread: this one copies the slice itself */
            fprintf(stderr, "parallel_pthreads: pthread_create: %s; slice %u copied here\n",
                    strerror(e), i);
            copy_slice(&jobs[i]);
        }
    }
    for (unsigned i = 0; i < k; i++) {
        if (started[i])
            pthread_join(t[i], NULL);
        ok &= !jobs[i].failed;
    }
    ok = ok && check(dst, words, "cw_copy_part over pthreads");

    /* 2. the library's pool */
    memset(dst, 0, n);
    if (cw_copy_parallel(dst, src, n, 0, k) != dst) {
        fprintf(stderr, "parallel_pthreads: FAIL: cw_copy_parallel: %s\n", strerror(errno));
        ok = 0;
    }
    ok = ok && check(dst, words, "cw_copy_parallel");
    const struct cw_info *in = cw_get_info();
    printf("parallel_pthreads: the pool has %d worker threads (%s)\n",
           in->parallel_threads_started, in->parallel_note ? in->parallel_note : "not started");
    free(src);
    free(dst);
    return ok ? 0 : 1;
}
