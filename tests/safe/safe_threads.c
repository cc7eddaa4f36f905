/* SPDX-License-Identifier: MIT */
/* Two threads fault inside cw_copy_safe 10^4 times each, at the same time
 * (one in the source by SIGSEGV and SIGBUS, one in a read-only destination),
 * while a third copies without faults: every return value and every copied
 * prefix must be right, and the counts must add up. */
#include "safe_util.h"

#include <pthread.h>

#define ITERS 10000

static size_t P;
static pthread_barrier_t g_start;

struct job {
    int id;
    long ok; /* copies with the right result */
};

/* 3 pages; the third goes bad. Thread 0's source alternates between a
 * PROT_NONE page and a truncated shared file (SIGBUS). */
static void *faulter(void *arg)
{
    struct job *j = arg;
    unsigned char *good = map_pages(3), *bad = map_pages(3), *dst = map_pages(3);
    unsigned char *trunc = NULL;
    int fd = -1;
    for (size_t i = 0; i < 3 * P; i++)
        good[i] = bad[i] = pattern(i, (unsigned)j->id);
    if (j->id == 0) {
        mprotect(bad + 2 * P, P, PROT_NONE);
        fd = memfd_create("cw_safe_threads", MFD_CLOEXEC);
        if (fd < 0 || ftruncate(fd, (off_t)(3 * P)) != 0)
            die("memfd");
        trunc = mmap(NULL, 3 * P, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (trunc == MAP_FAILED)
            die("mmap");
        for (size_t i = 0; i < 3 * P; i++)
            trunc[i] = pattern(i, 9);
        if (ftruncate(fd, (off_t)(2 * P)) != 0)
            die("ftruncate");
    } else {
        mprotect(dst + 2 * P, P, PROT_READ);
    }

    pthread_barrier_wait(&g_start);
    for (int it = 0; it < ITERS; it++) {
        size_t off = (size_t)(it * 37) % P;              /* start within the first page */
        size_t n = 2 * P - off + 1 + (size_t)(it % 300); /* crosses into page 3 */
        size_t expect = n - (2 * P - off);
        const unsigned char *s;
        size_t r;
        if (j->id == 0) {
            s = (it & 1) ? trunc + off : bad + off;
            r = cw_copy_safe(dst, s, n, (it & 2) ? CW_ZERO_TAIL : 0);
        } else {
            s = good + off;
            r = cw_copy_safe(dst + off, s, n, (it & 2) ? CW_DST_NOREUSE : 0);
        }
        const unsigned char *d = j->id == 0 ? dst : dst + off;
        size_t k = n - expect;
        if (r == expect && d[0] == s[0] && d[k / 2] == s[k / 2] && d[k - 1] == s[k - 1])
            j->ok++;
    }
    munmap(good, 3 * P);
    munmap(bad, 3 * P);
    munmap(dst, 3 * P);
    if (trunc != NULL) {
        munmap(trunc, 3 * P);
        close(fd);
    }
    return NULL;
}

static void *bystander(void *arg)
{
    struct job *j = arg;
    size_t n = 3 * P + 17;
    unsigned char *s = malloc(n), *d = malloc(n);
    for (size_t i = 0; i < n; i++)
        s[i] = pattern(i, 3);
    pthread_barrier_wait(&g_start);
    for (int it = 0; it < ITERS; it++) {
        size_t len = n - (size_t)(it % 64);
        d[len - 1] = 0;
        if (cw_copy_safe(d, s, len, 0) == 0 && d[0] == s[0] && d[len - 1] == s[len - 1])
            j->ok++;
    }
    free(s);
    free(d);
    return NULL;
}

int main(void)
{
    P = page_size();
    if (cw_safe_init() != 0)
        die("cw_safe_init");
    pthread_barrier_init(&g_start, NULL, 3);
    struct job jobs[3] = {{0, 0}, {1, 0}, {2, 0}};
    pthread_t th[3];
    pthread_create(&th[0], NULL, faulter, &jobs[0]);
    pthread_create(&th[1], NULL, faulter, &jobs[1]);
    pthread_create(&th[2], NULL, bystander, &jobs[2]);
    for (int i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&g_start);
    for (int i = 0; i < 3; i++)
        CWT_CHECK(jobs[i].ok == ITERS, "thread %d: %ld of %d copies right", i, jobs[i].ok, ITERS);
    printf("impl %s: %ld + %ld faulting copies, %ld clean\n", cw_impl_name(), jobs[0].ok,
           jobs[1].ok, jobs[2].ok);
    return cwt_finish("safe_threads");
}
