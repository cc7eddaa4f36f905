/* SPDX-License-Identifier: MIT */
/* cw_memmove with overlapping buffers, forward and backward, against a
 * byte-loop reference: every distance 0..256 at many sizes, then large
 * distances and sizes, including the boundary between overlap and the
 * streaming path cw_memmove may take for disjoint buffers at or above the
 * non-temporal threshold. Implementation from CACHEWISE_IMPL, as test_copy.
 *
 * The buffer holds pseudo-random bytes (no short period, so a move by the
 * wrong distance cannot look right) and sits between PROT_NONE pages; each
 * case puts the span touched by the move flush against a guard page or up
 * to 63 bytes from it.
 *
 * --quick (CW_TEST_QUICK=1) fewer sizes per distance; --max-size N
 * (CW_TEST_MAX_SIZE, default 32M) caps the sizes. */
#include <stdint.h>

#include "protected_pages.h"
#include "test_util.h"

#define WIN 64

static struct pp_buf g_buf;
static unsigned char *g_exp, *g_pristine;
static size_t g_max = (size_t)32 << 20;
static int g_quick;
static long g_cases;

/* The reference: byte by byte, in the direction that never reads a byte
 * it has already overwritten. */
static void ref_move(unsigned char *d, const unsigned char *s, size_t n)
{
    if (d < s) {
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    } else if (d > s) {
        for (size_t i = n; i-- > 0;)
            d[i] = s[i];
    }
}

/* Move n bytes by `dist` (dst = src + dist); the span [min, max + n) sits
 * `off` bytes from the left or right guard page. */
static void move_case(size_t n, long dist, int side, size_t off)
{
    size_t ad = dist < 0 ? (size_t)-dist : (size_t)dist;
    size_t span = n + ad;
    if (span + off > g_buf.len)
        return;
    unsigned char *base = pp_place(&g_buf, side, span, off);
    size_t bpos = (size_t)(base - g_buf.data);
    size_t spos = dist >= 0 ? bpos : bpos + ad;
    size_t dpos = dist >= 0 ? bpos + ad : bpos;

    ref_move(g_exp + dpos, g_exp + spos, n);
    cwt_ctx.what = "cw_memmove";
    cwt_ctx.n = n;
    cwt_ctx.dst = g_buf.data + dpos;
    cwt_ctx.src = g_buf.data + spos;
    void *r = cw_memmove(g_buf.data + dpos, g_buf.data + spos, n);
    g_cases++;
    if (r != g_buf.data + dpos)
        cwt_fail("cw_memmove n=%zu dist=%ld: returned %p, not dst %p", n, dist, r,
                 (void *)(g_buf.data + dpos));

    size_t lo = bpos >= WIN ? bpos - WIN : 0;
    size_t hi = bpos + span + WIN <= g_buf.len ? bpos + span + WIN : g_buf.len;
    if (memcmp(g_buf.data + lo, g_exp + lo, hi - lo) != 0) {
        size_t i = lo;
        while (g_buf.data[i] == g_exp[i])
            i++;
        long rel = (long)i - (long)dpos;
        cwt_fail("cw_memmove n=%zu dist=%ld (%s) %s+%zu src mis %u dst mis %u: dst[%ld] = "
                 "0x%02x, want 0x%02x (%s)",
                 n, dist, dist > 0 ? "dst above src" : dist < 0 ? "dst below src" : "same",
                 side ? "right" : "left", off, (unsigned)(spos & 63), (unsigned)(dpos & 63),
                 rel, g_buf.data[i], g_exp[i],
                 rel < 0 || (size_t)rel >= n ? "outside [dst,dst+n)" : "inside the move");
        memcpy(g_buf.data + lo, g_pristine + lo, hi - lo);
    }
    memcpy(g_buf.data + dpos, g_pristine + dpos, n);
    memcpy(g_exp + dpos, g_pristine + dpos, n);
}

static void check_buffer(const char *phase)
{
    if (memcmp(g_buf.data, g_pristine, g_buf.len) != 0) {
        size_t i = 0;
        while (g_buf.data[i] == g_pristine[i])
            i++;
        cwt_fail("%s: stray write at buffer offset %zu (far from any move)", phase, i);
        memcpy(g_buf.data, g_pristine, g_buf.len);
        memcpy(g_exp, g_pristine, g_buf.len);
    }
}

static void every_distance(void)
{
    static const size_t bigger[] = {511, 512, 513, 1000, 1024, 2047, 4095, 4096, 4097, 65557};
    size_t nmax = g_quick ? 80 : 300;
    for (long d = -256; d <= 256; d++) {
        for (size_t n = 0; n <= nmax; n++) {
            int side = (int)((n ^ (size_t)d) & 1);
            move_case(n, d, side, (n * 7 + (size_t)(d + 256)) % 64);
            move_case(n, d, !side, 0);
        }
        for (size_t i = 0; i < sizeof bigger / sizeof bigger[0]; i++) {
            if (g_quick && bigger[i] > 4097)
                continue;
            move_case(bigger[i], d, (int)cwt_below(2), cwt_below(64));
            move_case(bigger[i], d, (int)(i & 1), 0);
        }
    }
    check_buffer("distances 0..256");
}

static void large(void)
{
    static const long dists[] = {257, 1000, 4095, 4096, 4097, 65536, (1L << 20) + 3};
    for (size_t i = 0; i < sizeof dists / sizeof dists[0]; i++) {
        size_t ad = (size_t)dists[i];
        const size_t sizes[] = {1,          63,          ad - 1,         ad,
                                ad + 1,     2 * ad + 5,  (size_t)1 << 20, 5 << 20,
                                (16 << 20) + 3};
        for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
            size_t n = sizes[j];
            if (n > g_max)
                continue;
            for (int sign = -1; sign <= 1; sign += 2) {
                move_case(n, sign * dists[i], (int)(j & 1), 0);
                move_case(n, sign * dists[i], (int)cwt_below(2), cwt_below(64));
            }
        }
    }
    /* overlap by one byte, adjacency and a gap of one, around the threshold
     * and above it: the disjoint-buffer streaming path must not be taken
     * for overlapping ones */
    size_t t = cw_get_info()->nt_threshold;
    const size_t around[] = {t - 1, t, t + 1, 8192, (1 << 20) + 7, 3 << 20};
    for (size_t j = 0; j < sizeof around / sizeof around[0]; j++) {
        size_t n = around[j];
        if (n == 0 || n > g_max || t == 0)
            continue;
        const long ds[] = {(long)n - 1, (long)n, (long)n + 1, 1, 64, (long)n / 2};
        for (size_t k = 0; k < sizeof ds / sizeof ds[0]; k++) {
            move_case(n, ds[k], (int)(k & 1), cwt_below(64));
            move_case(n, -ds[k], (int)!(k & 1), cwt_below(64));
        }
    }
    check_buffer("large distances");
}

static void random_cases(void)
{
    unsigned bits = 0;
    while (bits < 40 && ((size_t)2 << bits) <= g_max)
        bits++;
    int count = g_quick ? 200 : 2000;
    for (int i = 0; i < count; i++) {
        /* mostly small and medium; big ones are costly and few */
        unsigned b = (unsigned)cwt_below(i % 100 == 0 ? bits + 1 : (bits < 16 ? bits : 16) + 1);
        size_t n = cwt_below(((size_t)1 << b) + 1);
        long d = (long)cwt_below(n + 129) * (cwt_below(2) ? 1 : -1);
        move_case(n, d, (int)cwt_below(2), cwt_below(64));
    }
    check_buffer("random");
}

int main(int argc, char **argv)
{
    const char *e = getenv("CW_TEST_QUICK");
    g_quick = e != NULL && *e != '\0' && *e != '0';
    e = getenv("CW_TEST_MAX_SIZE");
    if (e != NULL && cwt_parse_size(e, &g_max) != 0) {
        fprintf(stderr, "test_memmove: bad CW_TEST_MAX_SIZE \"%s\"\n", e);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            g_quick = 1;
        } else if (strcmp(argv[i], "--max-size") == 0 && i + 1 < argc &&
                   cwt_parse_size(argv[i + 1], &g_max) == 0) {
            i++;
        } else {
            fprintf(stderr, "usage: test_memmove [--quick] [--max-size N[K|M|G]]\n");
            return 2;
        }
    }
    if (g_max < 4096)
        g_max = 4096;

    cwt_report_crashes();
    int rc = cwt_check_forced_impl("test_memmove");
    if (rc != 0)
        return rc;
    printf("test_memmove: nt_threshold %zu, sizes up to %zu%s\n",
           cw_get_info()->nt_threshold, g_max, g_quick ? ", quick" : "");
    cwt_seed("test_memmove");

    size_t cap = 2 * g_max + 4096;
    if (pp_alloc(&g_buf, cap) != 0 || (g_exp = malloc(g_buf.len)) == NULL ||
        (g_pristine = malloc(g_buf.len)) == NULL) {
        perror("test_memmove: buffers");
        return 1;
    }
    uint64_t saved = cwt_rng_state;
    cwt_rng_state = 0x5eed;
    for (size_t x = 0; x < g_buf.len; x += 8) {
        uint64_t v = cwt_rand();
        for (size_t k = 0; k < 8 && x + k < g_buf.len; k++)
            g_buf.data[x + k] = (unsigned char)(v >> (8 * k));
    }
    cwt_rng_state = saved;
    memcpy(g_exp, g_buf.data, g_buf.len);
    memcpy(g_pristine, g_buf.data, g_buf.len);

    every_distance();
    large();
    random_cases();
    printf("test_memmove: %ld moves with %s\n", g_cases, cw_impl_name());
    pp_free(&g_buf);
    free(g_exp);
    free(g_pristine);
    return cwt_finish("test_memmove");
}
