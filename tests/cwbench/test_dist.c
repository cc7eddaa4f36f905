/* SPDX-License-Identifier: MIT */
/* Unit tests for programs/cwbench/engine/dist.c: good and malformed
 * size-distribution files, the sampler and the RNG. */
#include "../test_check.h"
#include "engine/dist.h"
#include "engine/measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/cwb_test_dist.XXXXXX";


static const char *write_file(const char *name, const char *text, size_t len)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fwrite(text, 1, len, f);
    fclose(f);
    return path;
}

/* Loads text, expects failure with exactly "PATH<suffix>" as the message. */
static void expect_error(const char *text, const char *suffix)
{
    char err[512], want[512];
    const char *path = write_file("bad.sizes", text, strlen(text));
    struct cwb_dist d;
    snprintf(want, sizeof want, "%s%s", path, suffix);
    int rc = cwb_dist_load(&d, path, err, sizeof err);
    CWT_EXPECT(rc == -1);
    CWT_EXPECT(d.n == 0 && d.sizes == NULL && d.cum == NULL);
    if (rc != -1 || strcmp(err, want) != 0) {
        cwt_failures++;
        fprintf(stderr, "for %s\n  got:  %s\n  want: %s\n", text, rc == -1 ? err : "(success)",
                want);
    }
    if (rc == 0)
        cwb_dist_free(&d);
    unlink(path);
}

static void test_good(const char *datadir)
{
    char path[512], err[512];
    struct cwb_dist d;
    snprintf(path, sizeof path, "%s/good.sizes", datadir);
    CWT_EXPECT(cwb_dist_load(&d, path, err, sizeof err) == 0);
    /* good.sizes: 0:1, 8:2 (+ a zero line), 64:1, 4096:6 listed twice as
     * 3 + 3, 1 GiB with 0 (dropped); total 10. */
    CWT_EXPECT(d.n == 5);
    if (d.n == 5) {
        const size_t sizes[] = {0, 8, 64, 4096, 4096};
        const double cum[] = {0.1, 0.3, 0.4, 0.7, 1.0};
        for (size_t i = 0; i < 5; i++) {
            CWT_EXPECT(d.sizes[i] == sizes[i]);
            CWT_EXPECT(fabs(d.cum[i] - cum[i]) < 1e-12);
        }
        CWT_EXPECT(d.cum[4] == 1.0);
        CWT_EXPECT(fabs(d.mean_size - (8 * 2 + 64 + 4096 * 6) / 10.0) < 1e-9);
        /* Deterministic draws: the frequencies follow the file. */
        uint64_t rng = 42;
        size_t counts[4] = {0};
        const int draws = 200000;
        for (int i = 0; i < draws; i++) {
            size_t s = cwb_dist_sample(&d, &rng);
            int k = s == 0 ? 0 : s == 8 ? 1 : s == 64 ? 2 : s == 4096 ? 3 : -1;
            CWT_EXPECT(k >= 0);
            if (k < 0)
                break;
            counts[k]++;
        }
        const double want[] = {0.1, 0.2, 0.1, 0.6};
        for (int k = 0; k < 4; k++)
            CWT_EXPECT(fabs((double)counts[k] / draws - want[k]) < 0.005);
        cwb_dist_free(&d);
    }
    CWT_EXPECT(d.n == 0 && d.sizes == NULL);
    CWT_EXPECT(cwb_dist_sample(&d, &(uint64_t){1}) == 0);  /* empty: no crash */

    /* The largest size allowed, CRLF line ends and a single entry. */
    const char *p = write_file("max.sizes", "1073741824\t3\r\n", 14);
    CWT_EXPECT(cwb_dist_load(&d, p, err, sizeof err) == 0);
    CWT_EXPECT(d.n == 1 && d.sizes[0] == (size_t)1 << 30 && d.cum[0] == 1.0);
    uint64_t rng = 7;
    CWT_EXPECT(cwb_dist_sample(&d, &rng) == (size_t)1 << 30);
    cwb_dist_free(&d);
    unlink(p);
}

static void test_malformed(void)
{
    expect_error("", ": no entries (expected \"size probability\" lines)");
    expect_error("# only a comment\n\n   \n", ": no entries (expected \"size probability\" lines)");
    expect_error("8 0\n16 0.0\n", ": no size has a probability above zero");
    expect_error("8 0.5\nabc 0.5\n", ":2: size 'abc' is not a non-negative decimal integer");
    expect_error("-8 0.5\n", ":1: size '-8' is not a non-negative decimal integer");
    expect_error("8.5 0.5\n", ":1: size '8.5' is not a non-negative decimal integer");
    expect_error("# c\n8 -0.1\n", ":2: probability -0.1 is negative");
    expect_error("8 nan\n", ":1: probability 'nan' is not a finite number");
    expect_error("8 inf\n", ":1: probability 'inf' is not a finite number");
    expect_error("8 0.5x\n", ":1: probability '0.5x' is not a number");
    expect_error("8\n", ":1: expected \"size probability\", found one field");
    expect_error("8 0.5 9\n", ":1: expected \"size probability\", found more than two fields");
    expect_error("1\t1\n\n1073741825 1\n", ":3: size 1073741825 is larger than 1 GiB (1073741824)");
    expect_error("99999999999999999999999 1\n",
                 ":1: size 99999999999999999999999 is larger than 1 GiB (1073741824)");
    expect_error("8 1e308\n16 1e308\n", ": the probabilities add up to infinity");
    char nul[] = "8 0.5\n16\0 0.5\n";
    const char *path = write_file("nul.sizes", nul, sizeof nul - 1);
    char err[512], want[512];
    struct cwb_dist d;
    CWT_EXPECT(cwb_dist_load(&d, path, err, sizeof err) == -1);
    snprintf(want, sizeof want, "%s:2: NUL byte in line (not a text file?)", path);
    CWT_EXPECT(strcmp(err, want) == 0);
    unlink(path);

    snprintf(want, sizeof want, "%s/missing.sizes", dir);
    CWT_EXPECT(cwb_dist_load(&d, want, err, sizeof err) == -1);
    CWT_EXPECT(strstr(err, "missing.sizes: cannot open: No such file or directory") != NULL);
    CWT_EXPECT(cwb_dist_load(&d, dir, err, sizeof err) == -1);  /* a directory */
    CWT_EXPECT(strstr(err, "read error") != NULL);
    /* A small error buffer truncates. */
    char small[10];
    CWT_EXPECT(cwb_dist_load(&d, want, small, sizeof small) == -1 && strlen(small) == 9);
}

static void test_rng(void)
{
    /* splitmix64 reference output for seed 0. */
    uint64_t s = 0;
    CWT_EXPECT(cwb_rng_next(&s) == 0xe220a8397b1dcdafull);
    CWT_EXPECT(cwb_rng_next(&s) == 0x6e789e6aa1b965f4ull);
    uint64_t a = 12345, b = 12345;
    for (int i = 0; i < 100; i++)
        CWT_EXPECT(cwb_rng_next(&a) == cwb_rng_next(&b));
}

static int same_call(const struct cwb_call *a, const struct cwb_call *b)
{
    return a->n == b->n && a->soff == b->soff && a->doff == b->doff;
}

/* The smallest p (1..n/2) with c[i] == c[i + p] for every i, or 0. */
static size_t period(const struct cwb_call *c, size_t n)
{
    for (size_t p = 1; p <= n / 2; p++) {
        size_t i = 0;
        while (i + p < n && same_call(&c[i], &c[i + p]))
            i++;
        if (i + p == n)
            return p;
    }
    return 0;
}

/* Every call drawn afresh: sizes with the file's probabilities, offsets at
 * every alignment, and no period a predictor could learn. */
static void test_draw(void)
{
    struct cwb_dist d;
    char err[256];
    const char *text = "8 0.5\n64 0.25\n304 0.25\n";
    const char *path = write_file("seq.sizes", text, strlen(text));
    CWT_EXPECT(cwb_dist_load(&d, path, err, sizeof err) == 0);
    unlink(path);
    size_t n = (size_t)1 << 16, span = 48 << 10, counts[3] = {0, 0, 0};
    struct cwb_call *c = malloc(n * sizeof *c);
    uint64_t rng = 7, aligns = 0;
    cwb_dist_draw(&d, c, n, span, &rng);
    int in_range = 1;
    for (size_t i = 0; i < n; i++) {
        counts[c[i].n == 8 ? 0 : c[i].n == 64 ? 1 : 2]++;
        in_range &= c[i].soff < span && c[i].doff < span;
        aligns |= (uint64_t)1 << (c[i].doff % 64);
    }
    CWT_EXPECT(in_range);
    CWT_EXPECT(aligns == ~(uint64_t)0);
    CWT_EXPECT(fabs((double)counts[0] / (double)n - 0.5) < 0.01);
    CWT_EXPECT(fabs((double)counts[2] / (double)n - 0.25) < 0.01);
    CWT_EXPECT(period(c, n) == 0);
    /* the checker itself finds a period: the old 4096-call replay */
    for (size_t i = 4096; i < n; i++)
        c[i] = c[i - 4096];
    CWT_EXPECT(period(c, n) == 4096);
    free(c);

    /* A one-size distribution (--ab --state random). */
    struct cwb_dist one;
    CWT_EXPECT(cwb_dist_fixed(&one, 4096) == 0 && one.n == 1 && one.mean_size == 4096);
    struct cwb_call k[64];
    cwb_dist_draw(&one, k, 64, 1, &rng);
    CWT_EXPECT(k[0].n == 4096 && k[63].n == 4096 && k[5].soff == 0 && k[5].doff == 0);
    cwb_dist_free(&one);
    cwb_dist_free(&d);
}

/* A routine never runs a sequence twice; the routines of a round share. */
static void test_seq(void)
{
    struct cwb_dist d;
    CWT_EXPECT(cwb_dist_fixed(&d, 100) == 0);
    struct cwb_seq s, t;
    size_t n = 4096;
    CWT_EXPECT(cwb_seq_init(&s, &d, n, 1 << 15, 3) == 0);
    CWT_EXPECT(cwb_seq_init(&t, &d, n, 1 << 15, 3) == 0);
    CWT_EXPECT(s.n == n && s.draws == 1 && memcmp(s.calls, t.calls, n * sizeof *s.calls) == 0);
    struct cwb_call *prev = malloc(n * sizeof *prev);
    memcpy(prev, s.calls, n * sizeof *prev);
    cwb_seq_before_batch(&s, 0); /* routine 0: the first sequence */
    memset(s.calls, 0, n * sizeof *s.calls);
    cwb_seq_before_batch(&s, 1); /* routine 1, same round: the same one, written again */
    CWT_EXPECT(s.draws == 1 && s.writes == 3 && memcmp(prev, s.calls, n * sizeof *prev) == 0);
    cwb_seq_before_batch(&s, 1); /* routine 1 again: a fresh sequence */
    CWT_EXPECT(s.draws == 2 && memcmp(prev, s.calls, n * sizeof *prev) != 0);
    /* not a shifted copy of the last one either */
    size_t shared = 0;
    for (size_t i = 0; i < n; i++)
        shared += same_call(&prev[i], &s.calls[i]);
    CWT_EXPECT(shared < n / 100);
    cwb_seq_before_batch(&s, 0); /* routine 0 has not run this one */
    CWT_EXPECT(s.draws == 2);
    cwb_seq_before_batch(&s, 0);
    CWT_EXPECT(s.draws == 3 && s.batches == 5 && s.writes == 6);
    /* A round of 3 routines, 10 rounds, in varying order: one draw per
     * round, and each routine meets a new sequence every batch. */
    unsigned long long d0 = s.draws;
    for (int r = 0; r < 10; r++)
        for (unsigned k = 0; k < 3; k++)
            cwb_seq_before_batch(&s, (k + (unsigned)r) % 3);
    CWT_EXPECT(s.draws - d0 == 10);
    CWT_EXPECT(cwb_seq_resize(&s, 2 * n) == 0 && s.n == 2 * n && period(s.calls, s.n) == 0);
    CWT_EXPECT(cwb_pow2_at_least(1) == 1 && cwb_pow2_at_least(65537) == 131072 &&
          cwb_pow2_at_least(65536) == 65536);
    free(prev);
    cwb_seq_free(&s);
    cwb_seq_free(&t);
    cwb_dist_free(&d);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_dist DATADIR\n");
        return 2;
    }
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_good(argv[1]);
    test_malformed();
    test_rng();
    test_draw();
    test_seq();
    rmdir(dir);
    if (cwt_failures) {
        fprintf(stderr, "test_dist: %ld check(s) failed\n", cwt_failures);
        return 1;
    }
    puts("test_dist: all checks passed");
    return 0;
}
