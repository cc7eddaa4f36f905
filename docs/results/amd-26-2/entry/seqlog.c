/* SPDX-License-Identifier: MIT */
/* An LD_PRELOAD interposer that records, for every memcpy and memmove call a
 * program makes through the PLT, its size class and its caller, and at exit
 * says how predictable the classes were, for the tiny calls (0-15 B: the
 * classes 0, 1-3, 4-7, 8-15 that a size tree tells apart) and the mid ones
 * (129-256, 257-384, 385-512 B: the avx512-evex row's kernel tests), by four
 * simple predictors, each as the share of those calls whose class it
 * guessed right. The copies themselves are rep movsb.
 *   gcc -O2 -shared -fPIC -fno-builtin seqlog.c -o seqlog.so
 *   SEQLOG=out.txt LD_PRELOAD=./seqlog.so PROGRAM...
 * Predictors: "previous call" (the class of the call before, any site),
 * "site's previous" (the class of that caller's call before), "site +
 * history" (a table indexed by the caller and the classes of the last four
 * calls, holding the class seen last with that index), and "always the
 * site's commonest" (an upper bound for a predictor that learns one class per
 * site: the share of each site's calls in its commonest class, weighted). */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAX = 1 << 25 };
static uint32_t *cls_log;
static uintptr_t *site_log;
static size_t calls, dropped;

/* the classes the size trees tell apart: 0, 1-3, 4-7, 8-15 ("tiny"),
 * 16-32, 33-64, 65-128, 129-256, 257-384, 385-512 ("mid": the avx512-evex
 * row's kernel tests), 513 and up */
enum { NCLS = 11 };
static unsigned cls(size_t n)
{
    static const size_t upper[NCLS - 1] = {0, 3, 7, 15, 32, 64, 128, 256, 384, 512};
    unsigned c = 0;
    while (c < NCLS - 1 && n > upper[c])
        c++;
    return c;
}
static int tiny(unsigned c) { return c < 4; }
static int mid(unsigned c) { return c >= 7 && c <= 9; }

static void record(size_t n, uintptr_t site)
{
    if (cls_log == NULL) {
        cls_log = calloc(MAX, sizeof *cls_log);
        site_log = calloc(MAX, sizeof *site_log);
        if (cls_log == NULL || site_log == NULL)
            abort();
    }
    if (calls < MAX) {
        cls_log[calls] = cls(n);
        site_log[calls] = site;
        calls++;
    } else {
        dropped++;
    }
}

static void *copy(void *d, const void *s, size_t n)
{
    void *r = d;
    if ((uintptr_t)d > (uintptr_t)s && (uintptr_t)d - (uintptr_t)s < n) {
        /* overlapping, destination above: backward */
        char *de = (char *)d + n - 1;
        const char *se = (const char *)s + n - 1;
        __asm__ volatile("std; rep movsb; cld" : "+D"(de), "+S"(se), "+c"(n) : : "memory");
        return r;
    }
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
    return r;
}

void *memcpy(void *d, const void *s, size_t n)
{
    record(n, (uintptr_t)__builtin_return_address(0));
    return copy(d, s, n);
}

void *memmove(void *d, const void *s, size_t n)
{
    record(n, (uintptr_t)__builtin_return_address(0));
    return copy(d, s, n);
}

enum { TBL = 1 << 20 };
/* per group (tiny, mid): a branch of a size tree runs only for its group's
 * calls, so each predictor sees that group's calls alone */
static uint32_t site_prev[2][TBL], hist_tbl[2][TBL];
static uint64_t site_count[TBL][NCLS];

struct score {
    size_t calls, prev, site, hist, best;
};

static void print(FILE *f, const char *what, const struct score *s)
{
    if (s->calls == 0)
        return;
    fprintf(f, "%s calls %zu, class predicted: previous call %.3f, site's previous %.3f, "
               "site + history %.3f, site's commonest %.3f\n",
            what, s->calls, (double)s->prev / s->calls, (double)s->site / s->calls,
            (double)s->hist / s->calls, (double)s->best / s->calls);
}

__attribute__((destructor)) static void report(void)
{
    const char *path = getenv("SEQLOG");
    FILE *f = path != NULL ? fopen(path, "a") : stderr;
    if (f == NULL || calls == 0)
        return;
    struct score sc[2] = {{0}, {0}};
    size_t per_cls[NCLS] = {0};
    uint32_t prev[2] = {NCLS, NCLS}, h[2] = {0, 0};
    for (size_t i = 0; i < calls; i++) {
        uint32_t c = cls_log[i];
        per_cls[c]++;
        size_t site = (site_log[i] * 0x9e3779b97f4a7c15ull) >> 44;
        site_count[site][c]++;
        int g = tiny(c) ? 0 : mid(c) ? 1 : -1;
        if (g < 0)
            continue;
        size_t hi = ((site_log[i] ^ (h[g] * 0x51ed27u)) * 0x9e3779b97f4a7c15ull) >> 44;
        struct score *s = &sc[g];
        s->calls++;
        s->prev += prev[g] == c;
        s->site += site_prev[g][site] == c + 1;
        s->hist += hist_tbl[g][hi] == c + 1;
        site_prev[g][site] = c + 1; /* 0: not seen */
        hist_tbl[g][hi] = c + 1;
        prev[g] = c;
        h[g] = ((h[g] << 4) | c) & 0xffff;
    }
    struct score t = sc[0], m = sc[1];
    for (size_t s = 0; s < TBL; s++) {
        uint64_t bt = 0, bm = 0;
        for (unsigned c = 0; c < NCLS; c++) {
            if (tiny(c) && site_count[s][c] > bt)
                bt = site_count[s][c];
            if (mid(c) && site_count[s][c] > bm)
                bm = site_count[s][c];
        }
        t.best += bt;
        m.best += bm;
    }
    fprintf(f, "calls %zu (%zu not recorded); by class 0 / 1-3 / 4-7 / 8-15 / 16-32 / 33-64 / "
               "65-128 / 129-256 / 257-384 / 385-512 / 513+:",
            calls, dropped);
    for (unsigned c = 0; c < NCLS; c++)
        fprintf(f, " %zu", per_cls[c]);
    fprintf(f, "\n");
    print(f, "tiny (0-15 B)", &t);
    print(f, "mid (129-512 B)", &m);
    if (f != stderr)
        fclose(f);
}
