/* SPDX-License-Identifier: MIT */
/* memset_cases.h - the differential fill test, shared by test_memset.c (the
 * public cw_memset_* functions, once per implementation) and
 * test_memset_ladder64.c (the fill kernels of the 64-byte template instance,
 * on any AVX2 CPU).
 *
 * Every case fills a span at offset 0..63 from the left guard page or
 * ending 0..63 bytes before the right one (tests/protected_pages.h), so
 * every destination alignment is met at both ends and a store even one
 * byte past either end faults. The destination starts out as a canary
 * (values 1..15) and the fill bytes are never in that range, so a byte left
 * unwritten or written outside [dst, dst+n) always shows. The expected
 * image comes from the obvious byte loop. The fill value rotates through
 * 0, 0xff and values of c above 255 or negative (only the low byte counts).
 *
 * Header-only, for one translation unit; include test_util.h first. */
#ifndef CW_TESTS_MEMSET_CASES_H
#define CW_TESTS_MEMSET_CASES_H

#include <limits.h>
#include <stdint.h>

#include "protected_pages.h"

typedef void *(*mc_fill_fn)(void *dst, int c, size_t n);

struct mc_func {
    const char *name;
    mc_fill_fn fn;
    int drain; /* cw_drain() after the call (the unfenced flushcache fill) */
};

#define MC_WIN 64 /* canary bytes checked on each side of every fill */

static struct pp_buf mc_dst, mc_exp;
static unsigned char *mc_canary; /* pristine image of the destination */
static size_t mc_max;            /* largest fill */
static int mc_quick;
static long mc_cases;
static size_t mc_rot; /* rotation through mc_values */

/* The values of c passed: low bytes 0x00, 0xff, 0xa5, 0x5a, 0x80, 0x7f,
 * 0x3c, 0xff, 0x00, 0x78, 0x00, 0xff; none is a canary value. */
static const int mc_values[] = {0,    0xff, 0xa5, 0x5a,       0x80,    0x7f,
                                0x13c, -1,  -256, 0x12345678, INT_MIN, INT_MAX};
#define MC_N_VALUES (sizeof mc_values / sizeof mc_values[0])

static unsigned char mc_canary_byte(size_t x)
{
    return (unsigned char)(1 + x % 15);
}

/* The reference. Deliberately the obvious loop. */
static void mc_ref_set(unsigned char *d, int c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        d[i] = (unsigned char)c;
}

/* Buffers for fills of up to max bytes. Returns 0, or -1 (errno set). */
static int mc_setup(size_t max, int quick)
{
    mc_max = max;
    mc_quick = quick;
    size_t cap = max + 4096;
    if (pp_alloc(&mc_dst, cap) != 0 || pp_alloc(&mc_exp, cap) != 0 ||
        (mc_canary = malloc(mc_dst.len)) == NULL)
        return -1;
    for (size_t x = 0; x < mc_dst.len; x++)
        mc_canary[x] = mc_dst.data[x] = mc_exp.data[x] = mc_canary_byte(x);
    return 0;
}

static void mc_teardown(void)
{
    pp_free(&mc_dst);
    pp_free(&mc_exp);
    free(mc_canary);
    mc_canary = NULL;
}

/* Compare the destination with the expected image over [lo, hi) (buffer
 * offsets); report the first difference relative to dst (at dpos). */
static int mc_verify(const char *what, size_t n, int c, size_t dpos, size_t lo, size_t hi,
                     const char *where)
{
    if (memcmp(mc_dst.data + lo, mc_exp.data + lo, hi - lo) == 0)
        return 0;
    size_t i = lo;
    while (mc_dst.data[i] == mc_exp.data[i])
        i++;
    long rel = (long)i - (long)dpos;
    cwt_fail("%s n=%zu c=%#x %s: dst[%ld] = 0x%02x, want 0x%02x (%s)", what, n, (unsigned)c,
             where, rel, mc_dst.data[i], mc_exp.data[i],
             rel < 0 || (size_t)rel >= n ? "outside [dst,dst+n): must stay untouched"
                                         : "inside the fill");
    /* put the whole range back so one bug does not cascade */
    memcpy(mc_dst.data + lo, mc_canary + lo, hi - lo);
    memcpy(mc_exp.data + lo, mc_canary + lo, hi - lo);
    return 1;
}

/* One fill of n bytes with value c at `off` from the left (side 0) or
 * right (side 1) guard page. */
static void mc_case_c(const struct mc_func *f, size_t n, int side, size_t off, int c)
{
    unsigned char *d = pp_place(&mc_dst, side, n, off);
    size_t dpos = (size_t)(d - mc_dst.data);
    mc_ref_set(mc_exp.data + dpos, c, n);
    cwt_ctx.what = f->name;
    cwt_ctx.n = n;
    cwt_ctx.dst = d;
    cwt_ctx.src = NULL;
    void *r = f->fn(d, c, n);
    if (f->drain)
        cw_drain();
    mc_cases++;
    char where[64];
    snprintf(where, sizeof where, "dst %s+%zu (mis %u)", side ? "right" : "left", off,
             (unsigned)((uintptr_t)d & 63));
    if (r != d)
        cwt_fail("%s n=%zu %s: returned %p, not dst %p", f->name, n, where, r, (void *)d);
    size_t lo = dpos >= MC_WIN ? dpos - MC_WIN : 0;
    size_t hi = dpos + n + MC_WIN <= mc_dst.len ? dpos + n + MC_WIN : mc_dst.len;
    if (mc_verify(f->name, n, c, dpos, lo, hi, where) == 0) {
        memcpy(mc_dst.data + dpos, mc_canary + dpos, n);
        memcpy(mc_exp.data + dpos, mc_canary + dpos, n);
    }
}

static void mc_case(const struct mc_func *f, size_t n, int side, size_t off)
{
    mc_case_c(f, n, side, off, mc_values[mc_rot++ % MC_N_VALUES]);
}

/* Stray writes farther than MC_WIN from a fill; span != 0: only the first
 * and last span bytes of the buffer were used. */
static void mc_check_buffer(const char *what, size_t span)
{
    size_t len = mc_dst.len;
    if (span != 0 && 2 * span < len) {
        mc_verify(what, 0, 0, 0, 0, span, "left end of the destination buffer");
        mc_verify(what, 0, 0, len - span, len - span, len, "right end of the destination buffer");
    } else {
        mc_verify(what, 0, 0, 0, 0, len, "destination buffer");
    }
}

/* Every size 0..4160 at every destination alignment, against both guard
 * pages (quick: a sample of the alignments). 4160 = 65 lines: every split
 * of head, whole lines, four-line loop iterations and tail. */
static void mc_small_sizes(const struct mc_func *f)
{
    for (size_t n = 0; n <= 4160; n++) {
        for (size_t off = 0; off < 64; off += mc_quick ? 1 + (n % 7) : 1) {
            mc_case(f, n, 0, off);
            mc_case(f, n, 1, off);
        }
        if ((n & 255) == 0)
            mc_check_buffer(f->name, 8192);
    }
    mc_check_buffer(f->name, 8192);
}

/* Powers of two +-1 from 4 KiB to 4 MiB, sizes around the streaming
 * threshold `nt` (the fills stream from 256 B whatever it is: this shows
 * it), and random sizes, log-uniform, at random alignments. */
static void mc_large_sizes(const struct mc_func *f, size_t nt)
{
    for (unsigned k = 12; ((size_t)1 << k) + 1 <= mc_max && k <= 22; k++) {
        for (int delta = -1; delta <= 1; delta++) {
            size_t n = ((size_t)1 << k) + (size_t)(long)delta;
            mc_case(f, n, (int)(k & 1), 0);
            mc_case(f, n, (int)cwt_below(2), cwt_below(64));
        }
    }
    const size_t around[] = {nt - 1, nt, nt + 4097, 2 * nt + 63};
    for (size_t i = 0; i < sizeof around / sizeof around[0]; i++)
        if (around[i] <= mc_max)
            mc_case(f, around[i], (int)cwt_below(2), cwt_below(64));
    unsigned bits = 0;
    while (bits < 63 && ((size_t)2 << bits) <= mc_max)
        bits++;
    for (int i = 0; i < (mc_quick ? 4 : 12); i++) {
        size_t n = cwt_below(((size_t)1 << cwt_below(bits + 1)) + 1);
        mc_case(f, n, (int)cwt_below(2), cwt_below(64));
    }
    mc_case(f, mc_max, (int)cwt_below(2), 0);
    mc_check_buffer(f->name, 0);
}

/* Every value of c, including ones above 255 and negative ones, at sizes
 * that take each path (ladder, streamed lines, tails). */
static void mc_fill_values(const struct mc_func *f)
{
    static const int values[] = {0,        0xff,    0x100, 0x1ff,      0x7fffff00, 0x5a5a5aa5,
                                 -1,       -255,    -256,  INT_MIN,    INT_MAX,    0x12345678,
                                 INT_MIN + 0x80};
    static const size_t sizes[] = {1, 2, 7, 8, 63, 64, 65, 255, 256, 257, 1000, 4113, 70001};
    for (size_t v = 0; v < sizeof values / sizeof values[0]; v++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
            if (sizes[z] <= mc_max)
                for (size_t off = 0; off < 64; off += 13)
                    mc_case_c(f, sizes[z], (int)(off & 1), off, values[v]);
    mc_check_buffer(f->name, 0);
}

/* n == 0 with a NULL destination: nothing touched, NULL returned. */
static void mc_zero_null(const struct mc_func *f)
{
    cwt_ctx.what = f->name;
    cwt_ctx.n = 0;
    cwt_ctx.dst = NULL;
    void *r = f->fn(NULL, 0x5a, 0);
    if (f->drain)
        cw_drain();
    if (r != NULL)
        cwt_fail("%s(NULL, c, 0) returned %p, not NULL", f->name, r);
}

/* Everything above for one function; prints one line. */
static void mc_run(const struct mc_func *f, size_t nt)
{
    long before = mc_cases, fails = cwt_failures;
    mc_zero_null(f);
    mc_small_sizes(f);
    mc_large_sizes(f, nt);
    mc_fill_values(f);
    printf("  %-28s %8ld cases %s\n", f->name, mc_cases - before,
           cwt_failures == fails ? "ok" : "FAILED");
    fflush(stdout);
}

#endif /* CW_TESTS_MEMSET_CASES_H */
