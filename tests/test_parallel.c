/* SPDX-License-Identifier: MIT */
/* cw_copy_part and cw_copy_parallel against their contract.
 *
 *   test_parallel part      every slice of k = 1..16 of sizes 0..300, around
 *                           page multiples and around the page-granule
 *                           switch, misaligned, against guard pages, each
 *                           slice copied from its own source buffer in
 *                           ascending and then descending order: a slice
 *                           that writes one byte outside the bounds the
 *                           header documents leaves its own source's byte
 *                           there in one of the two orders
 *   test_parallel pool      cw_copy_parallel over the same sizes with 1..16
 *                           threads (run with CACHEWISE_PARALLEL_MIN=0)
 *   test_parallel contract  EINVAL cases, the settings, and no pool below
 *                           parallel_min (run with the default settings)
 *
 * Built against the static library with CWT_PARALLEL_HOOKS, the pool sees
 * 16 CPUs whatever the machine (or taskset) gives it; against the shared
 * library the real cap applies. */
#include <pthread.h>
#include <stdint.h>

#include "protected_pages.h"
#include "test_util.h"

#ifdef CWT_PARALLEL_HOOKS
/* src/parallel.c: the CPU count the pool caps itself at */
extern unsigned (*cwi_parallel_cpus)(void);
static unsigned sixteen_cpus(void)
{
    return 16;
}
#endif

#define KMAX 16u
#define PAGE 4096u
#define MARGIN 64u      /* bytes checked on either side of the destination */
#define CANARY 0xa5     /* top bit set: no source byte has it (src_byte) */
#define CAP ((size_t)1200 << 10)

static struct pp_buf g_dst, g_src[KMAX];
static long g_cases;

/* Source i's byte at position p of its buffer: the top bit clear, and the
 * KMAX sources differ from each other at every position (37 is odd). */
static unsigned char src_byte(size_t p, unsigned i)
{
    return (unsigned char)((p * 7 + (p >> 9) + i * 37) & 0x7f);
}

/* The documented slice bound (include/cachewise.h), computed independently
 * of the library's arithmetic. */
static size_t ref_bound(const void *dst, size_t n, unsigned i, unsigned k)
{
    if (i == 0)
        return 0;
    if (i >= k)
        return n;
    size_t base = (size_t)((unsigned __int128)n * i / k);
    size_t g = n / k >= 16384 ? 4096 : 64;
    uintptr_t a = (uintptr_t)dst + base;
    a = (a + g - 1) / g * g;
    size_t b = (size_t)(a - (uintptr_t)dst);
    return b < n ? b : n;
}

/* Side 0: mis bytes after the left guard page; 1: flush against the right
 * guard page (the misalignment is what n makes it); 2: the last position
 * before the right guard page whose address is mis modulo a page. */
static unsigned char *place(const struct pp_buf *b, size_t n, size_t mis, int side)
{
    if (side == 0)
        return pp_left(b, mis);
    unsigned char *p = pp_right(b, n, 0);
    if (side == 1)
        return p;
    return p - (((uintptr_t)p - mis) & (PAGE - 1));
}

static void canary_fill(unsigned char *d, size_t n)
{
    unsigned char *lo = d - MARGIN < g_dst.data ? g_dst.data : d - MARGIN;
    unsigned char *hi = d + n + MARGIN > g_dst.data + g_dst.len ? g_dst.data + g_dst.len
                                                                : d + n + MARGIN;
    memset(lo, CANARY, (size_t)(hi - lo));
}

static int margins_intact(const unsigned char *d, size_t n)
{
    for (const unsigned char *p = d - MARGIN; p < d; p++)
        if (p >= g_dst.data && *p != CANARY)
            return 0;
    for (const unsigned char *p = d + n; p < d + n + MARGIN; p++)
        if (p < g_dst.data + g_dst.len && *p != CANARY)
            return 0;
    return 1;
}

static const unsigned g_hint_set[] = {
    0, CW_DST_NOREUSE, CW_DST_REUSE, CW_SRC_NOREUSE, CW_PERSIST,
    CW_SRC_NOREUSE | CW_DST_NOREUSE, CW_PERSIST | CW_SRC_NOREUSE | CW_DST_NOREUSE,
};
#define N_HINTS (sizeof g_hint_set / sizeof g_hint_set[0])

/* First differing offset of [a, a+n) and [b, b+n), or n. */
static size_t first_diff(const unsigned char *a, const unsigned char *b, size_t n)
{
    if (memcmp(a, b, n) == 0)
        return n;
    size_t j = 0;
    while (a[j] == b[j])
        j++;
    return j;
}

static void part_case(size_t n, unsigned k, size_t dmis, size_t smis, int side)
{
    unsigned hints = g_hint_set[g_cases % N_HINTS];
    g_cases++;
    unsigned char *d = place(&g_dst, n, dmis, side);
    const unsigned char *s[KMAX];
    for (unsigned i = 0; i < k; i++)
        s[i] = place(&g_src[i], n, smis, side);
    for (int order = 0; order < 2; order++) {
        canary_fill(d, n);
        for (unsigned j = 0; j < k; j++) {
            unsigned i = order == 0 ? j : k - 1 - j;
            cwt_ctx.what = "cw_copy_part";
            cwt_ctx.n = n;
            cwt_ctx.dst = d;
            cwt_ctx.src = s[i];
            errno = 0;
            void *r = cw_copy_part(d, s[i], n, hints, i, k);
            CWT_CHECK(r == d && errno == 0, "cw_copy_part(n=%zu, hints %#x, %u/%u) returned %p "
                      "(dst %p), errno %d", n, hints, i, k, r, (void *)d, errno);
        }
        for (unsigned i = 0; i < k; i++) {
            size_t lo = ref_bound(d, n, i, k), hi = ref_bound(d, n, i + 1, k);
            size_t at = first_diff(d + lo, s[i] + lo, hi - lo);
            CWT_CHECK(at == hi - lo, "n=%zu k=%u hints %#x dst mis %zu src mis %zu side %d "
                      "order %s: slice %u [%zu, %zu) wrong at %zu (0x%02x, want 0x%02x%s)", n,
                      k, hints, (size_t)((uintptr_t)d & (PAGE - 1)),
                      (size_t)((uintptr_t)s[0] & (PAGE - 1)), side, order ? "down" : "up", i,
                      lo, hi, lo + at, d[lo + at], s[i][lo + at],
                      d[lo + at] == CANARY ? ": not written" : ": another slice wrote it");
        }
        CWT_CHECK(margins_intact(d, n), "n=%zu k=%u hints %#x: a byte outside [dst, dst+n) "
                  "was written", n, k, hints);
    }
}

static void pool_case(size_t n, unsigned nthreads, size_t dmis, size_t smis, int side)
{
    unsigned hints = g_hint_set[g_cases % N_HINTS];
    g_cases++;
    unsigned char *d = place(&g_dst, n, dmis, side);
    const unsigned char *s = place(&g_src[g_cases % KMAX], n, smis, side);
    canary_fill(d, n);
    cwt_ctx.what = "cw_copy_parallel";
    cwt_ctx.n = n;
    cwt_ctx.dst = d;
    cwt_ctx.src = s;
    errno = 0;
    void *r = cw_copy_parallel(d, s, n, hints, nthreads);
    CWT_CHECK(r == d && errno == 0, "cw_copy_parallel(n=%zu, hints %#x, %u threads) returned "
              "%p (dst %p), errno %d", n, hints, nthreads, r, (void *)d, errno);
    size_t at = first_diff(d, s, n);
    CWT_CHECK(at == n, "cw_copy_parallel n=%zu %u threads hints %#x: wrong at %zu", n,
              nthreads, hints, at);
    CWT_CHECK(margins_intact(d, n), "cw_copy_parallel n=%zu %u threads: a byte outside "
              "[dst, dst+n) was written", n, nthreads);
}

static const size_t g_mis[][2] = {{0, 0}, {1, 63}, {63, 1}, {17, 45}, {2053, 3}, {4095, 4095}};
#define N_MIS (sizeof g_mis / sizeof g_mis[0])

typedef void (*case_fn)(size_t n, unsigned k, size_t dmis, size_t smis, int side);

/* Sizes around page multiples, large and small. */
static const size_t g_pages[] = {1, 2, 3, 4, 5, 8, 16, 17, 64, 65, 257};
static const long g_page_delta[] = {-65, -1, 0, 1, 64, 65};

static void sweep(case_fn fn, int full)
{
    unsigned long c = 0;
    /* every size 0..300, every k, every misalignment and side (the pool:
     * two k per size) */
    for (size_t n = 0; n <= 300; n++)
        for (unsigned k = 1; k <= KMAX; k++) {
            if (!full && k != 1 + n % KMAX && k != KMAX - n % KMAX)
                continue;
            if (!full) {
                c++;
                fn(n, k, g_mis[c % N_MIS][0], g_mis[c % N_MIS][1], (int)(c % 3));
                continue;
            }
            for (size_t m = 0; m < N_MIS; m++, c++)
                fn(n, k, g_mis[m][0], g_mis[m][1], (int)(c % 3));
        }
    /* around page multiples: one misalignment per (n, k), in turn */
    for (size_t pi = 0; pi < sizeof g_pages / sizeof g_pages[0]; pi++)
        for (size_t di = 0; di < sizeof g_page_delta / sizeof g_page_delta[0]; di++) {
            long v = (long)(g_pages[pi] * PAGE) + g_page_delta[di];
            if (v < 0)
                continue;
            for (unsigned k = 1; k <= KMAX; k++, c++)
                fn((size_t)v, k, g_mis[c % N_MIS][0], g_mis[c % N_MIS][1], (int)(c % 3));
        }
    /* where the granule switches from lines to pages (n/k = 16 KiB) */
    for (unsigned k = 1; k <= KMAX; k++) {
        const size_t edge = (size_t)k * 16384;
        const size_t ns[] = {edge - 1, edge, edge + 1, edge + 4095, edge + k * PAGE};
        for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++, c++)
            fn(ns[j], k, g_mis[c % N_MIS][0], g_mis[c % N_MIS][1], (int)(c % 3));
    }
    for (unsigned k = 1; k <= KMAX; k++, c++)
        fn(((size_t)1 << 20) + 777, k, g_mis[c % N_MIS][0], g_mis[c % N_MIS][1], (int)(c % 3));
}

static void pool_sweep_case(size_t n, unsigned k, size_t dmis, size_t smis, int side)
{
    /* 0 (the policy's count) as well as 1..16 */
    pool_case(n, k == KMAX && n % 2 ? 0 : k, dmis, smis, side);
}

static int setting_is(const char *name, const char *value, const char *source)
{
    const struct cw_info *in = cw_get_info();
    for (int i = 0; i < in->n_settings; i++)
        if (strcmp(in->settings[i].name, name) == 0)
            return strcmp(in->settings[i].value, value) == 0 &&
                   (source == NULL || strcmp(in->settings[i].source, source) == 0);
    return 0;
}

static void contract(void)
{
    unsigned char s[512], d[512];
    for (size_t i = 0; i < sizeof s; i++)
        s[i] = (unsigned char)(i * 13);
    const unsigned bad_hints[] = {CW_ZERO_TAIL, CW_DST_NOREUSE | CW_DST_REUSE,
                                  CW_PERSIST | CW_DST_REUSE, 0x100, 0x80000000u};
    for (size_t h = 0; h < sizeof bad_hints / sizeof bad_hints[0]; h++) {
        memset(d, CANARY, sizeof d);
        errno = 0;
        CWT_CHECK(cw_copy_part(d, s, sizeof s, bad_hints[h], 0, 1) == NULL && errno == EINVAL,
                  "cw_copy_part hints %#x: want NULL/EINVAL", bad_hints[h]);
        errno = 0;
        CWT_CHECK(cw_copy_parallel(d, s, sizeof s, bad_hints[h], 2) == NULL && errno == EINVAL,
                  "cw_copy_parallel hints %#x: want NULL/EINVAL", bad_hints[h]);
        CWT_CHECK(d[0] == CANARY && d[sizeof d - 1] == CANARY, "hints %#x: copied anyway",
                  bad_hints[h]);
    }
    const unsigned ik[][2] = {{0, 0}, {1, 1}, {2, 1}, {16, 16}, {0xffffffffu, 3}};
    for (size_t j = 0; j < sizeof ik / sizeof ik[0]; j++) {
        memset(d, CANARY, sizeof d);
        errno = 0;
        CWT_CHECK(cw_copy_part(d, s, sizeof s, 0, ik[j][0], ik[j][1]) == NULL &&
                  errno == EINVAL, "cw_copy_part i=%u k=%u: want NULL/EINVAL", ik[j][0],
                  ik[j][1]);
        CWT_CHECK(d[0] == CANARY, "cw_copy_part i=%u k=%u: copied anyway", ik[j][0], ik[j][1]);
    }
    const size_t huge[] = {(size_t)PTRDIFF_MAX + 1, SIZE_MAX};
    for (size_t j = 0; j < 2; j++) {
        errno = 0;
        CWT_CHECK(cw_copy_part(d, s, huge[j], 0, 0, 2) == NULL && errno == EINVAL,
                  "cw_copy_part n=%zu: want NULL/EINVAL", huge[j]);
        errno = 0;
        CWT_CHECK(cw_copy_parallel(d, s, huge[j], 0, 4) == NULL && errno == EINVAL,
                  "cw_copy_parallel n=%zu: want NULL/EINVAL", huge[j]);
    }
    /* n == 0: NULL buffers allowed, dst returned, errno left alone */
    errno = 0;
    CWT_CHECK(cw_copy_part(NULL, NULL, 0, CW_PERSIST, 3, 4) == NULL && errno == 0,
              "cw_copy_part(NULL, NULL, 0): errno %d", errno);
    CWT_CHECK(cw_copy_parallel(NULL, NULL, 0, 0, 8) == NULL && errno == 0,
              "cw_copy_parallel(NULL, NULL, 0): errno %d", errno);
    CWT_CHECK(cw_copy_part(d, s, 0, 0, 0, 1) == d && cw_copy_parallel(d, s, 0, 0, 0) == d,
              "n == 0 does not return dst");

    CWT_CHECK(setting_is("parallel_min", "4M", "table"), "parallel_min is not 4M (table)");
    CWT_CHECK(setting_is("parallel_threads", "0", "table"), "parallel_threads is not 0 (table)");
    /* below parallel_min nothing is started, whatever the thread count */
    size_t n = (size_t)1 << 20;
    unsigned char *big_s = malloc(n), *big_d = malloc(n);
    if (big_s == NULL || big_d == NULL) {
        cwt_fail("out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++)
        big_s[i] = (unsigned char)(i ^ (i >> 11));
    CWT_CHECK(cw_copy_parallel(big_d, big_s, n, 0, 16) == big_d && memcmp(big_d, big_s, n) == 0,
              "1 MiB cw_copy_parallel: wrong copy");
    CWT_CHECK(cw_get_info()->parallel_threads_started == 0 &&
              cw_get_info()->parallel_note == NULL,
              "a copy below parallel_min started %d threads (note: %s)",
              cw_get_info()->parallel_threads_started,
              cw_get_info()->parallel_note ? cw_get_info()->parallel_note : "NULL");
    free(big_s);
    free(big_d);
#ifdef CWT_PARALLEL_HOOKS
    /* at parallel_min, threads (two: each gets parallel_min/2 at least) */
    n = (size_t)4 << 20;
    big_s = malloc(n);
    big_d = malloc(n);
    if (big_s == NULL || big_d == NULL) {
        cwt_fail("out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++)
        big_s[i] = (unsigned char)(i ^ (i >> 13));
    CWT_CHECK(cw_copy_parallel(big_d, big_s, n, 0, 16) == big_d && memcmp(big_d, big_s, n) == 0,
              "4 MiB cw_copy_parallel: wrong copy");
    CWT_CHECK(cw_get_info()->parallel_threads_started == 1 &&
              cw_get_info()->parallel_note != NULL &&
              strstr(cw_get_info()->parallel_note, "failed") == NULL,
              "a copy of parallel_min bytes started %d worker threads, want 1 (note: %s)",
              cw_get_info()->parallel_threads_started,
              cw_get_info()->parallel_note ? cw_get_info()->parallel_note : "NULL");
    free(big_s);
    free(big_d);
#endif
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "part";
    cwt_report_crashes();
    int rc = cwt_check_forced_impl("test_parallel");
    if (rc != 0)
        return rc;
#ifdef CWT_PARALLEL_HOOKS
    cwi_parallel_cpus = sixteen_cpus;
#endif
    printf("test_parallel %s: implementation %s, profile %s, nt_threshold %zu\n", mode,
           cw_impl_name(), cw_get_info()->profile, cw_get_info()->nt_threshold);
    if (strcmp(mode, "contract") == 0) {
        contract();
        return cwt_finish("test_parallel contract");
    }
    if (pp_alloc(&g_dst, CAP + 2 * PAGE) != 0) {
        perror("mmap");
        return 1;
    }
    for (unsigned i = 0; i < KMAX; i++) {
        if (pp_alloc(&g_src[i], CAP + 2 * PAGE) != 0) {
            perror("mmap");
            return 1;
        }
        for (size_t p = 0; p < g_src[i].len; p++)
            g_src[i].data[p] = src_byte(p, i);
    }
    if (strcmp(mode, "part") == 0)
        sweep(part_case, 1);
    else if (strcmp(mode, "pool") == 0)
        sweep(pool_sweep_case, 0);
    else {
        fprintf(stderr, "usage: test_parallel part|pool|contract\n");
        return 2;
    }
    printf("test_parallel %s: %ld cases\n", mode, g_cases);
    return cwt_finish(strcmp(mode, "part") == 0 ? "test_parallel part" : "test_parallel pool");
}
