/* SPDX-License-Identifier: MIT */
/* parallel_bench: the figures of docs/PARALLEL.md. Not a test of speed: it
 * prints what it measured and checks only that every copy is right.
 *
 *   parallel_bench [--size BYTES] [--samples N]   (defaults 256M, 15)
 *   parallel_bench --smoke                        (8M, 2 samples: for CTest)
 *
 * Large copies, cold (the caches swept by reading a buffer three times the
 * L3 before each sample), one sample of every routine per round, the order
 * rotated from round to round so that drift hits them alike:
 *   cw_copy_parallel  2 threads from the library's pool
 *   2x nt-loop        the 2-thread ceiling: two threads (this one and a
 *                     helper woken by a barrier) each streaming one half
 *                     with a plain SSE2 movntdq loop (x86-64)
 *   2x cw_memcpy_nt   the same with cw_memcpy_nt on each half
 *   2x glibc memcpy   glibc's memcpy split by hand over the same two threads
 *   cw_copy           one thread, cachewise's policy
 *   glibc memcpy      one thread
 * Then sizes where threads may not pay, hot (the same buffers copied
 * again and again; each sample the mean of enough calls for ~20 ms):
 * cw_copy_parallel(..., 2) against cw_copy, at the default parallel_min and
 * below it. Medians with the interquartile range and the extremes, in GB/s
 * (bytes copied per second, 1 GB = 1e9 B). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cachewise.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

typedef void (*copy_fn)(void *d, const void *s, size_t n);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- the routines on one half --------------------------------------------- */

static void glibc_copy(void *d, const void *s, size_t n)
{
    memcpy(d, s, n);
}

static void cw_nt(void *d, const void *s, size_t n)
{
    cw_memcpy_nt(d, s, n);
}

#if defined(__x86_64__)
/* The simplest streaming copy: 64 bytes a step, both buffers 64-byte aligned
 * and n a multiple of 64 (this program's halves are). */
static void nt_loop(void *d, const void *s, size_t n)
{
    __m128i *dp = d;
    const __m128i *sp = s;
    for (size_t i = 0; i < n / 16; i += 4) {
        __m128i a = _mm_load_si128(sp + i), b = _mm_load_si128(sp + i + 1);
        __m128i c = _mm_load_si128(sp + i + 2), e = _mm_load_si128(sp + i + 3);
        _mm_stream_si128(dp + i, a);
        _mm_stream_si128(dp + i + 1, b);
        _mm_stream_si128(dp + i + 2, c);
        _mm_stream_si128(dp + i + 3, e);
    }
    _mm_sfence();
}
#endif

/* ---- two threads by hand: this one and a helper ---------------------------- */

static pthread_barrier_t g_start, g_end;
static copy_fn g_half_fn;
static unsigned char *g_d;
static const unsigned char *g_s;
static size_t g_half, g_n;
static int g_quit;

static void *helper(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_barrier_wait(&g_start);
        if (g_quit)
            return NULL;
        g_half_fn(g_d + g_half, g_s + g_half, g_n - g_half);
        pthread_barrier_wait(&g_end);
    }
}

static void two_threads(copy_fn fn, void *d, const void *s, size_t n)
{
    g_half_fn = fn;
    g_d = d;
    g_s = s;
    g_n = n;
    g_half = n / 2 / 4096 * 4096;
    pthread_barrier_wait(&g_start);
    fn(d, s, g_half);
    pthread_barrier_wait(&g_end);
}

/* ---- the routines measured -------------------------------------------------- */

enum { R_PAR, R_NT_LOOP, R_NT, R_GLIBC2, R_CW, R_GLIBC, N_ROUTINES };
static const char *const g_names[N_ROUTINES] = {
    "cw_copy_parallel(2)", "2x nt-loop (ceiling)", "2x cw_memcpy_nt", "2x glibc memcpy",
    "cw_copy", "glibc memcpy",
};

static int run(int r, void *d, const void *s, size_t n)
{
    switch (r) {
    case R_PAR:
        return cw_copy_parallel(d, s, n, 0, 2) == d;
    case R_NT_LOOP:
#if defined(__x86_64__)
        two_threads(nt_loop, d, s, n);
        return 1;
#else
        return -1;
#endif
    case R_NT:
        two_threads(cw_nt, d, s, n);
        return 1;
    case R_GLIBC2:
        two_threads(glibc_copy, d, s, n);
        return 1;
    case R_CW:
        return cw_copy(d, s, n, 0) == d;
    default:
        memcpy(d, s, n);
        return 1;
    }
}

/* ---- statistics ---------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double quantile(const double *sorted, int n, double q)
{
    double pos = q * (n - 1);
    int i = (int)pos;
    double f = pos - i;
    return i + 1 < n ? sorted[i] * (1 - f) + sorted[i + 1] * f : sorted[i];
}

static void report(const char *name, double *gbs, int n)
{
    qsort(gbs, (size_t)n, sizeof *gbs, cmp_double);
    printf("  %-22s median %6.2f GB/s   IQR %6.2f-%-6.2f  range %6.2f-%-6.2f  (%d samples)\n",
           name, quantile(gbs, n, 0.5), quantile(gbs, n, 0.25), quantile(gbs, n, 0.75), gbs[0],
           gbs[n - 1], n);
}

/* Reading a buffer three times the L3 leaves none of the copy's lines in
 * the caches (writes might not: a large memset may stream past them). */
static volatile uint64_t g_sink;
static void sweep_caches(const uint64_t *buf, size_t words)
{
    uint64_t x = 0;
    for (size_t i = 0; i < words; i += 8)
        x += buf[i];
    g_sink = x;
}

static void *alloc_touched(size_t n, int c)
{
    void *p = aligned_alloc(4096, (n + 4095) / 4096 * 4096);
    if (p == NULL) {
        fprintf(stderr, "parallel_bench: out of memory (%zu bytes)\n", n);
        exit(1);
    }
    memset(p, c, n);
    return p;
}

static int verify(const char *name, const void *d, const void *s, size_t n)
{
    if (memcmp(d, s, n) == 0)
        return 1;
    printf("FAIL: %s: wrong copy of %zu bytes\n", name, n);
    return 0;
}

int main(int argc, char **argv)
{
    size_t n = (size_t)256 << 20;
    int samples = 15, smoke = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--smoke") == 0) {
            smoke = 1;
            n = (size_t)8 << 20;
            samples = 2;
        } else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            n = (size_t)strtoull(argv[++i], NULL, 0);
        } else if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc) {
            samples = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: parallel_bench [--size BYTES] [--samples N] | --smoke\n");
            return 2;
        }
    }
    n = n / 4096 * 4096;
    if (n < 8192 || samples < 1 || samples > 1000) {
        fprintf(stderr, "parallel_bench: --size >= 8192, --samples 1..1000\n");
        return 2;
    }
    const struct cw_info *in = cw_get_info();
    printf("parallel_bench: %s %s (family %u model %u), impl %s, profile %s, nt_threshold %zu, "
           "L3 %zu KiB (policy %zu KiB)\n",
           in->cpu_vendor, in->cpu_model, in->cpu_family, in->cpu_model_number, in->impl,
           in->profile, in->nt_threshold, in->l3_size >> 10, in->l3_policy_size >> 10);
    for (int i = 0; i < in->n_settings; i++)
        if (strncmp(in->settings[i].name, "parallel_", 9) == 0)
            printf("parallel_bench: %s = %s (%s)\n", in->settings[i].name,
                   in->settings[i].value, in->settings[i].source);

    pthread_t h;
    pthread_barrier_init(&g_start, NULL, 2);
    pthread_barrier_init(&g_end, NULL, 2);
    if (pthread_create(&h, NULL, helper, NULL) != 0) {
        fprintf(stderr, "parallel_bench: pthread_create failed\n");
        return 1;
    }

    unsigned char *s = alloc_touched(n, 0x5a), *d = alloc_touched(n, 0);
    for (size_t i = 0; i < n; i += 4096)
        s[i] = (unsigned char)(i >> 12);
    size_t l3 = in->l3_policy_size ? in->l3_policy_size : (size_t)32 << 20;
    size_t sweep_n = smoke ? (size_t)1 << 20 : 3 * l3;
    uint64_t *sweep = alloc_touched(sweep_n, 1);
    int ok = 1;

    double *gbs[N_ROUTINES];
    int have[N_ROUTINES] = {0};
    for (int r = 0; r < N_ROUTINES; r++)
        gbs[r] = calloc((size_t)samples, sizeof(double));
    printf("\n%zu MiB, cold, %d rounds (every routine once a round, order rotated):\n",
           n >> 20, samples);
    for (int round = 0; round < samples; round++)
        for (int j = 0; j < N_ROUTINES; j++) {
            int r = (round + j) % N_ROUTINES;
            memset(d, 0, 4096); /* a wrong copy of the first page shows */
            sweep_caches(sweep, sweep_n / 8);
            double t0 = now();
            int rc = run(r, d, s, n);
            double t = now() - t0;
            if (rc < 0)
                continue;
            if (rc == 0 || (round == 0 && !verify(g_names[r], d, s, n)))
                ok = 0;
            gbs[r][have[r]++] = (double)n / t / 1e9;
        }
    for (int r = 0; r < N_ROUTINES; r++)
        if (have[r] > 0)
            report(g_names[r], gbs[r], have[r]);

    /* hot, where threads may not pay */
    const size_t small[] = {(size_t)1 << 20, (size_t)2 << 20, (size_t)4 << 20,
                            (size_t)16 << 20};
    for (size_t si = 0; si < sizeof small / sizeof small[0]; si++) {
        size_t m = small[si] < n ? small[si] : n;
        int reps = smoke ? 2 : (int)(((size_t)200 << 20) / m) + 1; /* ~20 ms at 10 GB/s */
        double *a = calloc((size_t)samples, sizeof(double));
        double *b = calloc((size_t)samples, sizeof(double));
        for (int round = 0; round < samples; round++)
            for (int j = 0; j < 2; j++) {
                int par = (round + j) % 2 == 0;
                double t0 = now();
                for (int k = 0; k < reps; k++)
                    ok &= (par ? cw_copy_parallel(d, s, m, 0, 2) : cw_copy(d, s, m, 0)) == d;
                double t = (now() - t0) / reps;
                (par ? a : b)[round] = (double)m / t / 1e9;
            }
        ok &= verify("hot copies", d, s, m);
        printf("\n%zu KiB, hot, %d rounds of %d calls (%s parallel_min):\n", m >> 10, samples,
               reps, m < (size_t)4 << 20 ? "below" : "at or above");
        report("cw_copy_parallel(2)", a, samples);
        report("cw_copy", b, samples);
        free(a);
        free(b);
    }
    printf("\npool: %d worker threads started (%s)\n", in->parallel_threads_started,
           in->parallel_note ? in->parallel_note : "none");

    g_quit = 1;
    pthread_barrier_wait(&g_start);
    pthread_join(h, NULL);
    for (int r = 0; r < N_ROUTINES; r++)
        free(gbs[r]);
    free(s);
    free(d);
    free(sweep);
    printf("parallel_bench: %s\n", ok ? "all copies right" : "FAILED");
    return ok ? 0 : 1;
}
