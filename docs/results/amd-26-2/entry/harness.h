/* SPDX-License-Identifier: MIT */
/* What the standalone harnesses of this directory (cmp.c, mix.c,
 * masked-mix.c, realcall.c, solib.c, solib-entries.c, chain.c, loads.c)
 * share: the clock, the order of doubles for qsort, a xorshift generator
 * for sizes and offsets, the draw of sizes from a distribution file, and
 * chain.c's and loads.c's arguments, buffers and timed loop. */
#ifndef ENTRY_HARNESS_H
#define ENTRY_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* nanoseconds, monotonic */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* size bytes of fresh anonymous memory, every page written (1s); NULL
 * where mmap fails */
static __attribute__((unused)) unsigned char *touched_buffer(size_t size)
{
    unsigned char *buf = mmap(0, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED)
        return NULL;
    for (size_t i = 0; i < size; i++)
        buf[i] = 1;
    return buf;
}

/* the median of rounds values (sorts them) */
static __attribute__((unused)) double median(double *t, int rounds)
{
    qsort(t, (size_t)rounds, sizeof(double), by_value);
    return t[rounds / 2];
}

/* xorshift64, one fixed seed: every run draws the same sequence */
static uint64_t rng = 88172645463325252ull;
static __attribute__((unused)) uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* count calls drawn from a "size probability" file (the shim's profiles,
 * the fleet distributions): n[k] from the file, so[k] and dof[k] uniform
 * in [0, span); -1 where the file cannot be read */
static __attribute__((unused)) int draw_sizes(const char *path, int count, size_t *n,
                                              size_t *so, size_t *dof, size_t span)
{
    static double size[4096], prob[4096];
    int sizes = 0;
    double total = 0;
    char line[256];
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    while (sizes < 4096 && fgets(line, sizeof line, f) != NULL)
        if (line[0] != '#' && sscanf(line, "%lf %lf", &size[sizes], &prob[sizes]) == 2)
            total += prob[sizes++];
    fclose(f);
    for (int k = 0; k < count; k++) {
        double u = (double)(next() % 1000000) / 1e6 * total, c = 0;
        int i = 0;
        while (i < sizes - 1 && (c += prob[i]) <= u)
            i++;
        n[k] = (size_t)size[i];
        so[k] = next() % span;
        dof[k] = next() % span;
    }
    return 0;
}

/* chain.c's and loads.c's first arguments (source offset, destination
 * offset, the destination's distance into its page) and their two
 * 64 KiB page-aligned buffers, source 1s and destination 2s; exits 2 with
 * the program's usage line where sizes are missing */
static __attribute__((unused)) void placed_buffers(int argc, char **argv, const char *name,
                                                   int *so, int *dof, int *page, char **s,
                                                   char **d)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s SRC_OFF DST_OFF DST_PAGE_OFF SIZE...\n", name);
        exit(2);
    }
    *so = atoi(argv[1]);
    *dof = atoi(argv[2]);
    *page = atoi(argv[3]);
    *s = aligned_alloc(4096, 65536);
    *d = aligned_alloc(4096, 65536);
    memset(*s, 1, 65536);
    memset(*d, 2, 65536);
}

/* ns a call of fn(d, s, n), over 20000 calls */
static __attribute__((unused)) double ns_per_call(void *(*fn)(void *, const void *, size_t),
                                                  char *d, const char *s, size_t n)
{
    double t0 = now();
    for (int i = 0; i < 20000; i++) {
        fn(d, s, n);
        __asm__ volatile("" : : "r"(d) : "memory");
    }
    return (now() - t0) / 20000;
}

#endif
