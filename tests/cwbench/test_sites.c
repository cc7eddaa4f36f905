/* SPDX-License-Identifier: MIT */
/* The engine's call sites and run order: in a cell of two routines each
 * routine's samples are timed from several copies of the timed loop, and no
 * copy ever calls both routines (engine/measure.c, sample_site). A routine
 * sees its call site as its return address. And in every block of nrt
 * sample rounds each routine takes each place in the order once
 * (cwb_round_order). */
#include <stdio.h>
#include <string.h>

#include "../test_check.h"
#include "engine/measure.h"
#include "engine/routines.h"

#define MAX_SITES 64

struct seen {
    void *addr[MAX_SITES];
    size_t n;
};
static struct seen g_seen[2];

static void note(struct seen *s, void *ret)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->addr[i] == ret)
            return;
    if (s->n < MAX_SITES)
        s->addr[s->n++] = ret;
}

static __attribute__((noinline)) void *copy_a(void *d, const void *s, size_t n)
{
    note(&g_seen[0], __builtin_return_address(0));
    return memcpy(d, s, n);
}

static __attribute__((noinline)) void *copy_b(void *d, const void *s, size_t n)
{
    note(&g_seen[1], __builtin_return_address(0));
    return memcpy(d, s, n);
}

/* cwb_round_order for nrt routines over 4 blocks of rounds */
static void test_round_order(size_t nrt)
{
    size_t base[8], round[8];
    int place[8][8] = {{0}};
    uint64_t rng = 7;
    for (size_t i = 0; i < nrt; i++)
        base[i] = i;
    for (int s = 0; s < (int)(4 * nrt); s++) {
        cwb_round_order(round, base, nrt, s, &rng);
        int seen[8] = {0};
        for (size_t j = 0; j < nrt; j++) {
            CWT_EXPECT(round[j] < nrt && !seen[round[j]]); /* a permutation */
            seen[round[j] % 8] = 1;
            place[round[j] % 8][j]++;
        }
    }
    for (size_t i = 0; i < nrt; i++)
        for (size_t j = 0; j < nrt; j++)
            CWT_CHECK(place[i][j] == 4, "nrt %zu: routine %zu in place %zu %d times of %zu", nrt,
                      i, j, place[i][j], 4 * nrt);
}

int main(void)
{
    for (size_t nrt = 1; nrt <= 8; nrt++)
        test_round_order(nrt);
    struct cwb_engine e;
    if (cwb_engine_init(&e, (size_t)4 << 20, 16, 20e-6, 1) != 0) {
        fprintf(stderr, "test_sites: out of memory\n");
        return 1;
    }
    struct cwb_routine ra = {"a", copy_a, "memcpy, site a", NULL, NULL, NULL};
    struct cwb_routine rb = {"b", copy_b, "memcpy, site b", NULL, NULL, NULL};
    const struct cwb_routine *rt[2] = {&ra, &rb};
    struct cwb_spec sp = {.state = CWB_HOT, .size = 64, .src_off = 0, .dst_off = 0};
    struct cwb_run run[2];
    CWT_EXPECT(cwb_measure(&e, &sp, rt, 2, run) == 0);
    CWT_EXPECT(!run[0].failed && !run[1].failed);
    /* the checked call before the timed batches comes from elsewhere, so
     * each routine sees its timed sites plus that one */
    CWT_EXPECT(g_seen[0].n >= 4);
    CWT_EXPECT(g_seen[1].n >= 4);
    size_t shared = 0;
    for (size_t i = 0; i < g_seen[0].n; i++)
        for (size_t j = 0; j < g_seen[1].n; j++)
            shared += g_seen[0].addr[i] == g_seen[1].addr[j];
    /* at most the one place outside the timed loops that calls every routine */
    CWT_EXPECT(shared <= 1);
    printf(
        "test_sites: 16 samples each; routine a called from %zu places, b from %zu, %zu shared\n",
        g_seen[0].n, g_seen[1].n, shared);
    cwb_run_free(&run[0]);
    cwb_run_free(&run[1]);
    cwb_engine_free(&e);
    if (cwt_failures) {
        fprintf(stderr, "test_sites: %ld check(s) failed\n", cwt_failures);
        return 1;
    }
    return 0;
}
