/* SPDX-License-Identifier: MIT */
/* Differential test of every public copy function against a byte-loop
 * reference, with the implementation chosen by CACHEWISE_IMPL (CTest runs
 * this once per implementation name).
 *
 * Each case places source and destination at the left or right end of
 * buffers that sit between PROT_NONE pages, at offset 0..63 from the guard
 * page, so every misalignment is met and any over-read or over-write of up
 * to 64 bytes past an end faults. The destination starts out as a canary
 * (values 1..15) and the source holds values 0x10..0xfe with period 239, so
 * a byte left unwritten, written from the wrong offset, or written outside
 * [dst, dst+n) always shows.
 *
 * Options (or environment): --quick (CW_TEST_QUICK=1) samples the
 * misalignments, for valgrind; --max-size N[K|M|G] (CW_TEST_MAX_SIZE) caps
 * the sizes (default 64M); --funcs auto keeps only the functions whose path
 * depends on the non-temporal threshold; --expect-nt N checks the threshold
 * that CACHEWISE_NT_THRESHOLD should have set. */
#include <stdint.h>

#include "protected_pages.h"
#include "test_util.h"

enum kind { K_MEMCPY, K_MEMMOVE, K_NT, K_FLUSH_FN, K_FLUSH_INL, K_FLUSH_CONST, K_PERSIST, K_COPY };

struct func {
    const char *name;
    enum kind kind;
    unsigned hints;
    int full_sweep; /* all 64x64 misalignments for n <= 256 (one per kernel) */
    int auto_size;  /* path depends on the non-temporal threshold */
};

/* Every public copy function and every valid cw_copy hint combination.
 * full_sweep marks one entry per distinct kernel (copy, move, copy_nt,
 * flushcache, copy_srcnta, copy_nt_srcnta); the rest reach the same kernels
 * through other routing and get sampled misalignments. */
static const struct func g_funcs[] = {
    {"cw_memcpy", K_MEMCPY, 0, 1, 1},
    {"cw_memmove", K_MEMMOVE, 0, 1, 1},
    {"cw_memcpy_nt", K_NT, 0, 1, 0},
    {"cw_memcpy_flushcache_fn", K_FLUSH_FN, 0, 1, 0},
    {"cw_memcpy_flushcache", K_FLUSH_INL, 0, 0, 0},
    {"cw_memcpy_persist", K_PERSIST, 0, 0, 0},
    {"cw_copy(0)", K_COPY, 0, 0, 1},
    {"cw_copy(DST_NOREUSE)", K_COPY, CW_DST_NOREUSE, 0, 0},
    {"cw_copy(DST_REUSE)", K_COPY, CW_DST_REUSE, 0, 0},
    {"cw_copy(SRC_NOREUSE)", K_COPY, CW_SRC_NOREUSE, 1, 1},
    {"cw_copy(SRC_NOREUSE|DST_NOREUSE)", K_COPY, CW_SRC_NOREUSE | CW_DST_NOREUSE, 1, 0},
    {"cw_copy(SRC_NOREUSE|DST_REUSE)", K_COPY, CW_SRC_NOREUSE | CW_DST_REUSE, 0, 0},
    {"cw_copy(PERSIST)", K_COPY, CW_PERSIST, 0, 0},
    {"cw_copy(PERSIST|DST_NOREUSE)", K_COPY, CW_PERSIST | CW_DST_NOREUSE, 0, 0},
    {"cw_copy(PERSIST|SRC_NOREUSE)", K_COPY, CW_PERSIST | CW_SRC_NOREUSE, 0, 0},
    {"cw_copy(PERSIST|SRC_NOREUSE|DST_NOREUSE)", K_COPY,
     CW_PERSIST | CW_SRC_NOREUSE | CW_DST_NOREUSE, 0, 0},
};
#define N_FUNCS (sizeof g_funcs / sizeof g_funcs[0])

#define WIN 64 /* canary bytes checked on each side of every copy */

static struct pp_buf g_src, g_dst, g_exp;
static unsigned char *g_canary; /* pristine copy of the destination */
static int g_quick;
static size_t g_max = (size_t)64 << 20;
static long g_cases;

static unsigned char src_byte(size_t x)
{
    return (unsigned char)(0x10 + (x * 7 + 3) % 239);
}

static unsigned char canary_byte(size_t x)
{
    return (unsigned char)(1 + x % 15);
}

/* The reference. Deliberately the obvious loop. */
static void ref_copy(unsigned char *d, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        d[i] = s[i];
}

static void *call(const struct func *f, void *d, const void *s, size_t n)
{
    void *r = NULL;
    switch (f->kind) {
    case K_MEMCPY:
        return cw_memcpy(d, s, n);
    case K_MEMMOVE:
        return cw_memmove(d, s, n);
    case K_NT:
        return cw_memcpy_nt(d, s, n);
    case K_FLUSH_FN:
        r = cw_memcpy_flushcache_fn(d, s, n);
        cw_drain();
        return r;
    case K_FLUSH_INL: /* n is not a constant here: the wrapper's call path */
        r = cw_memcpy_flushcache(d, s, n);
        cw_drain();
        return r;
    case K_FLUSH_CONST: /* literal sizes, so the inline path can be taken */
        if (n == 4)
            r = cw_memcpy_flushcache(d, s, 4);
        else if (n == 8)
            r = cw_memcpy_flushcache(d, s, 8);
        else if (n == 16)
            r = cw_memcpy_flushcache(d, s, 16);
        cw_drain();
        return r;
    case K_PERSIST:
        return cw_memcpy_persist(d, s, n);
    case K_COPY:
        return cw_copy(d, s, n, f->hints);
    }
    return NULL;
}

static const char *side_name(int side)
{
    return side ? "right" : "left";
}

/* Compare the destination with the expected image over [lo, hi) (offsets
 * in the buffer) and report the first difference relative to the copy. */
static int verify(const char *what, size_t n, size_t dpos, size_t lo, size_t hi,
                  const char *where)
{
    if (memcmp(g_dst.data + lo, g_exp.data + lo, hi - lo) == 0)
        return 0;
    size_t i = lo;
    while (g_dst.data[i] == g_exp.data[i])
        i++;
    long rel = (long)i - (long)dpos;
    cwt_fail("%s n=%zu %s: dst[%ld] = 0x%02x, want 0x%02x (%s)", what, n, where, rel,
             g_dst.data[i], g_exp.data[i],
             rel < 0 || (size_t)rel >= n ? "outside [dst,dst+n): must stay untouched"
                                         : "inside the copy");
    /* put the whole range back so one bug does not cascade */
    memcpy(g_dst.data + lo, g_canary + lo, hi - lo);
    return 1;
}

static void run_case(const struct func *f, size_t n, int sside, size_t soff, int dside,
                     size_t doff)
{
    unsigned char *s = pp_place(&g_src, sside, n, soff);
    unsigned char *d = pp_place(&g_dst, dside, n, doff);
    size_t dpos = (size_t)(d - g_dst.data);
    char where[96];

    ref_copy(g_exp.data + dpos, s, n);
    cwt_ctx.what = f->name;
    cwt_ctx.n = n;
    cwt_ctx.dst = d;
    cwt_ctx.src = s;
    void *r = call(f, d, s, n);
    g_cases++;

    snprintf(where, sizeof where, "src %s+%zu (mis %u) dst %s+%zu (mis %u)", side_name(sside),
             soff, (unsigned)((uintptr_t)s & 63), side_name(dside), doff,
             (unsigned)((uintptr_t)d & 63));
    if (r != d)
        cwt_fail("%s n=%zu %s: returned %p, not dst %p", f->name, n, where, r, (void *)d);
    size_t lo = dpos >= WIN ? dpos - WIN : 0;
    size_t hi = dpos + n + WIN <= g_dst.len ? dpos + n + WIN : g_dst.len;
    verify(f->name, n, dpos, lo, hi, where);
    memcpy(g_dst.data + dpos, g_canary + dpos, n);
    memcpy(g_exp.data + dpos, g_canary + dpos, n);
}

static void check_source(const char *what, size_t lo, size_t hi)
{
    for (size_t x = lo; x < hi; x++) {
        if (g_src.data[x] != src_byte(x)) {
            cwt_fail("%s: source modified at buffer offset %zu", what, x);
            g_src.data[x] = src_byte(x);
        }
    }
}

/* Stray writes farther than WIN from a copy, and writes into the source;
 * span != 0: only the first and last span bytes of each buffer were used. */
static void check_buffers(const char *what, size_t span)
{
    size_t len = g_dst.len;
    if (span != 0 && 2 * span < len) {
        verify(what, 0, 0, 0, span, "left end of the destination buffer");
        verify(what, 0, len - span, len - span, len, "right end of the destination buffer");
        check_source(what, 0, span);
        check_source(what, len - span, len);
    } else {
        verify(what, 0, 0, 0, len, "destination buffer");
        check_source(what, 0, len);
    }
}

/* The four placements flush against the guard pages. */
static void flush_cases(const struct func *f, size_t n)
{
    for (int sside = 0; sside < 2; sside++)
        for (int dside = 0; dside < 2; dside++)
            run_case(f, n, sside, 0, dside, 0);
}

static void small_sizes(const struct func *f)
{
    static const unsigned char pairs[][2] = {{0, 0},  {1, 1},   {0, 63}, {63, 0},
                                             {7, 9},  {33, 17}, {32, 0}, {16, 48}};
    for (size_t n = 0; n <= 1024; n++) {
        /* the side decides which end of the copy is near a guard page */
        int sside = (int)(n & 1), dside = (int)((n >> 1) & 1);
        if (n <= 256 && f->full_sweep && !g_quick) {
            for (size_t sa = 0; sa < 64; sa++)
                for (size_t da = 0; da < 64; da++)
                    run_case(f, n, sside, sa, dside, da);
        } else {
            size_t k = n <= 256 ? 8 : 4;
            for (size_t i = 0; i < k; i++)
                run_case(f, n, sside, pairs[i][0], dside, pairs[i][1]);
            for (size_t i = 0; i < 4; i++)
                run_case(f, n, (int)cwt_below(2), cwt_below(64), (int)cwt_below(2),
                         cwt_below(64));
        }
        flush_cases(f, n);
        if ((n & 63) == 0)
            check_buffers(f->name, 4096);
    }
    check_buffers(f->name, 4096);
}

/* 1025-1536 B, every size, with the destination on a line, next to
 * either guard page (the source at either end, 0 or 5 bytes in), and at a
 * random placement: the loops' start and end for every remainder of the
 * size modulo their four vectors, where direct-lines starts the forward
 * loop at a line-aligned destination. */
static void mid_sizes(const struct func *f)
{
    for (size_t n = 1025; n <= 1536 && n <= g_max; n++) {
        int sside = (int)(n & 1);
        run_case(f, n, sside, 0, 0, 0);
        /* the right side's span ends (-n) & 63 bytes before the guard:
         * its start is then on a line (the buffers are page multiples) */
        run_case(f, n, !sside, 5, 1, (size_t)(-n) & 63);
        run_case(f, n, (int)cwt_below(2), cwt_below(64), (int)cwt_below(2), cwt_below(64));
    }
    check_buffers(f->name, 4096);
}

static void large_sizes(const struct func *f)
{
    /* every power of two +-1 from 1023 to 16 MiB */
    size_t pow_max = g_max < ((size_t)16 << 20) + 1 ? g_max : ((size_t)16 << 20) + 1;
    for (unsigned k = 10; ((size_t)1 << k) + 1 <= pow_max; k++) {
        for (int delta = -1; delta <= 1; delta++) {
            size_t n = ((size_t)1 << k) + (size_t)(long)delta;
            int sside = (int)(k & 1);
            /* above 1 MiB the functions that share a kernel with a
             * full_sweep one get a single placement: time goes to bytes */
            if (f->full_sweep || n <= ((size_t)1 << 20) || (k & 1))
                run_case(f, n, sside, 0, !sside, 0);
            if (f->full_sweep || n <= ((size_t)1 << 20) || !(k & 1))
                run_case(f, n, (int)cwt_below(2), cwt_below(64), (int)cwt_below(2),
                         cwt_below(64));
        }
    }
    /* random sizes, log-uniform so every size class is met, plus one big
     * for each distinct kernel */
    unsigned bits = 0;
    while (bits < 63 && ((size_t)2 << bits) <= g_max)
        bits++;
    int nrand = g_quick ? 2 : 3;
    for (int i = 0; i < nrand + f->full_sweep; i++) {
        size_t n = i < nrand ? cwt_below(((size_t)1 << cwt_below(bits + 1)) + 1)
                             : g_max / 2 + cwt_below(g_max / 2 + 1);
        run_case(f, n, (int)cwt_below(2), cwt_below(64), (int)cwt_below(2), cwt_below(64));
    }
    check_buffers(f->name, 0);
}

/* The header wrapper with compile-time constant n (inline movnti on
 * x86-64 with optimisation; the library call otherwise). */
static void inline_constants(void)
{
    static const struct func fc = {"cw_memcpy_flushcache(constant n)", K_FLUSH_CONST, 0, 0, 0};
    static const size_t sizes[] = {4, 8, 16};
    for (int sside = 0; sside < 2; sside++)
        for (int dside = 0; dside < 2; dside++)
            for (size_t sa = 0; sa < 64; sa += g_quick ? 7 : 1)
                for (size_t da = 0; da < 64; da += g_quick ? 5 : 1)
                    for (size_t i = 0; i < 3; i++)
                        run_case(&fc, sizes[i], sside, sa, dside, da);
    check_buffers(fc.name, 4096);
}

int main(int argc, char **argv)
{
    int only_auto = 0;
    long long expect_nt = -1;
    const char *e = getenv("CW_TEST_QUICK");
    g_quick = e != NULL && *e != '\0' && *e != '0';
    e = getenv("CW_TEST_MAX_SIZE");
    if (e != NULL && cwt_parse_size(e, &g_max) != 0) {
        fprintf(stderr, "test_copy: bad CW_TEST_MAX_SIZE \"%s\"\n", e);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        size_t v;
        if (strcmp(argv[i], "--quick") == 0) {
            g_quick = 1;
        } else if (strcmp(argv[i], "--max-size") == 0 && i + 1 < argc &&
                   cwt_parse_size(argv[i + 1], &g_max) == 0) {
            i++;
        } else if (strcmp(argv[i], "--funcs") == 0 && i + 1 < argc &&
                   strcmp(argv[i + 1], "auto") == 0) {
            only_auto = 1;
            i++;
        } else if (strcmp(argv[i], "--expect-nt") == 0 && i + 1 < argc &&
                   cwt_parse_size(argv[i + 1], &v) == 0) {
            expect_nt = (long long)v;
            i++;
        } else {
            fprintf(stderr, "usage: test_copy [--quick] [--max-size N] [--funcs auto] "
                            "[--expect-nt N]\n");
            return 2;
        }
    }
    if (g_max < 4096)
        g_max = 4096;

    cwt_report_crashes();
    int rc = cwt_check_forced_impl("test_copy");
    if (rc != 0)
        return rc;
    const struct cw_info *in = cw_get_info();
    printf("test_copy: nt_threshold %zu (%s), sizes up to %zu%s\n", in->nt_threshold,
           in->nt_threshold_source, g_max, g_quick ? ", quick" : "");
    if (expect_nt >= 0 && (in->nt_threshold != (size_t)expect_nt ||
                           strcmp(in->nt_threshold_source, "env") != 0))
        cwt_fail("nt_threshold %zu (%s), want %lld from the environment", in->nt_threshold,
                 in->nt_threshold_source, expect_nt);
    cwt_seed("test_copy");

    size_t cap = g_max + 4096;
    if (pp_alloc(&g_src, cap) != 0 || pp_alloc(&g_dst, cap) != 0 || pp_alloc(&g_exp, cap) != 0 ||
        (g_canary = malloc(g_dst.len)) == NULL) {
        perror("test_copy: buffers");
        return 1;
    }
    for (size_t x = 0; x < g_src.len; x++)
        g_src.data[x] = src_byte(x);
    for (size_t x = 0; x < g_dst.len; x++)
        g_canary[x] = g_dst.data[x] = g_exp.data[x] = canary_byte(x);

    for (size_t i = 0; i < N_FUNCS; i++) {
        const struct func *f = &g_funcs[i];
        if (only_auto && !f->auto_size)
            continue;
        long before = g_cases, fails = cwt_failures;
        small_sizes(f);
        mid_sizes(f);
        large_sizes(f);
        printf("  %-42s %8ld cases %s\n", f->name, g_cases - before,
               cwt_failures == fails ? "ok" : "FAILED");
        fflush(stdout);
    }
    if (!only_auto)
        inline_constants();
    printf("test_copy: %ld cases with %s\n", g_cases, cw_impl_name());
    pp_free(&g_src);
    pp_free(&g_dst);
    pp_free(&g_exp);
    free(g_canary);
    return cwt_finish("test_copy");
}
