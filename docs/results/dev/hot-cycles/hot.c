/* Hot copies of one size, the same aligned buffers every call (source at
 * page offset SRC_OFF, destination at DST_OFF of another page), through
 * glibc's memcpy, cw_memcpy, and the active row's temporal kernel entered
 * through the row (what cw_memcpy adds on the way is the difference),
 * each from its own call site, interleaved round by round. Times here are
 * whole cycles of a ~3.24 GHz clock (0.309 ns) in a quiet minute, so a
 * difference of one cycle shows. Build and run: see README.md. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cachewise.h"
#include "internal.h"

typedef void *(*copy_fn)(void *, const void *, size_t);

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

#define LOOP(N)                                                                              \
    __attribute__((noinline, aligned(64))) static void loop_##N(copy_fn f, void *d,          \
                                                                const void *s, size_t n,     \
                                                                long k)                      \
    {                                                                                        \
        for (long i = 0; i < k; i++) {                                                       \
            f(d, s, n);                                                                      \
            __asm__ volatile("" ::: "memory");                                               \
        }                                                                                    \
    }
LOOP(0) LOOP(1) LOOP(2)

static void *row_kernel(void *d, const void *s, size_t n)
{
    return atomic_load_explicit(&cwi_active_row, memory_order_relaxed)->copy(d, s, n);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: hot SIZE [SRC_OFF DST_OFF]\n");
        return 2;
    }
    size_t n = strtoul(argv[1], NULL, 0);
    size_t so = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;
    size_t doff = argc > 3 ? strtoul(argv[3], NULL, 0) : 2048;
    if (n == 0 || n > 16384 || so > 4095 || doff > 4095) {
        fprintf(stderr, "hot: SIZE 1..16384, offsets 0..4095\n");
        return 2;
    }
    unsigned char *buf = aligned_alloc(4096, 1 << 16);
    if (buf == NULL)
        return 1;
    memset(buf, 1, 1 << 16);
    unsigned char *s = buf + so, *d = buf + 8192 + 16384 + doff;
    cw_memcpy(d, s, n); /* selection done before timing */
    const copy_fn fns[3] = {memcpy, cw_memcpy, row_kernel};
    void (*const loops[3])(copy_fn, void *, const void *, size_t, long) = {loop_0, loop_1, loop_2};
    enum { ROUNDS = 31 };
    double t[3][ROUNDS];
    const long k = 100000;
    for (int r = 0; r < ROUNDS; r++)
        for (int j = 0; j < 3; j++) {
            double t0 = now_ns();
            loops[j](fns[j], d, s, n, k);
            t[j][r] = (now_ns() - t0) / (double)k;
        }
    for (int j = 0; j < 3; j++)
        qsort(t[j], ROUNDS, sizeof t[j][0], by_value);
    printf("%5zu B  glibc %.3f  cw_memcpy %.3f  row kernel %.3f ns  cw/glibc %.2f  kernel/glibc %.2f\n",
           n, t[0][ROUNDS / 2], t[1][ROUNDS / 2], t[2][ROUNDS / 2],
           t[1][ROUNDS / 2] / t[0][ROUNDS / 2], t[2][ROUNDS / 2] / t[0][ROUNDS / 2]);
    return 0;
}
