/* Prices the entry path of a dispatched copy at 33..64 bytes: the same
 * random-offset call sequence as cwbench's "random" state, through glibc's
 * memcpy, cw_memcpy and the four entries of entry_cost.S, interleaved
 * round by round. Build and run: see README.md in this directory. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cachewise.h"

typedef void *(*copy_fn)(void *, const void *, size_t);
void *direct_entry(void *, const void *, size_t);
void *checked_entry(void *, const void *, size_t);
void *pointer_entry(void *, const void *, size_t);
void *row_entry(void *, const void *, size_t);

struct call {
    uint32_t d, s, n;
};

/* one call site per routine, each on its own 64-byte boundary */
#define LOOP(N)                                                                              \
    __attribute__((noinline, aligned(64))) static void loop_##N(                             \
        copy_fn f, unsigned char *db, const unsigned char *sb, const struct call *c,         \
        size_t nc, size_t k)                                                                 \
    {                                                                                        \
        for (size_t i = 0, j = 0; i < k; i++) {                                              \
            f(db + c[j].d, sb + c[j].s, c[j].n);                                             \
            if (++j == nc)                                                                   \
                j = 0;                                                                       \
        }                                                                                    \
        __asm__ volatile("" ::: "memory");                                                   \
    }
LOOP(0) LOOP(1) LOOP(2) LOOP(3) LOOP(4) LOOP(5)
typedef void (*loop_fn)(copy_fn, unsigned char *, const unsigned char *, const struct call *,
                        size_t, size_t);

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 48;
    enum { ROUNDS = 41, ROUTINES = 6 };
    if (n < 33 || n > 64) {
        fprintf(stderr, "entry_cost: size %zu outside 33..64\nusage: entry_cost [33..64]\n", n);
        return 2;
    }
    const size_t region = 1 << 18, ncalls = 4096, k = 200000;
    unsigned char *db = aligned_alloc(4096, region), *sb = aligned_alloc(4096, region);
    struct call *calls = malloc(ncalls * sizeof *calls);
    if (db == NULL || sb == NULL || calls == NULL)
        return 1;
    memset(db, 1, region);
    memset(sb, 2, region);
    srand(1);
    for (size_t i = 0; i < ncalls; i++) {
        calls[i].d = (uint32_t)((size_t)rand() % (region - n));
        calls[i].s = (uint32_t)((size_t)rand() % (region - n));
        calls[i].n = (uint32_t)n;
    }
    const copy_fn fns[ROUTINES] = {memcpy,       cw_memcpy,     direct_entry,
                                   checked_entry, pointer_entry, row_entry};
    const char *const names[ROUTINES] = {"glibc memcpy",  "cw_memcpy",     "direct_entry",
                                         "checked_entry", "pointer_entry", "row_entry"};
    const loop_fn loops[ROUTINES] = {loop_0, loop_1, loop_2, loop_3, loop_4, loop_5};
    double t[ROUTINES][ROUNDS];
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < ROUTINES; i++) {
            double t0 = now_ns();
            loops[i](fns[i], db, sb, calls, ncalls, k);
            t[i][r] = (now_ns() - t0) / (double)k;
        }
    printf("%zu-byte copies at random offsets, %d interleaved rounds of %zu calls\n", n, ROUNDS,
           k);
    for (int i = 0; i < ROUTINES; i++) {
        qsort(t[i], ROUNDS, sizeof t[i][0], by_value);
        printf("%-14s median %.3f ns  best %.3f ns\n", names[i], t[i][ROUNDS / 2], t[i][0]);
    }
    return 0;
}
