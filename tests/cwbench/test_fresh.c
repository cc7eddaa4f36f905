/* SPDX-License-Identifier: MIT */
/* The engine on fresh call sequences (cwb_measure_fresh, distbench.c), as
 * `cwbench dist` and `--ab --state random` run it: a recording routine
 * logs every call of every batch, and the test checks that no batch
 * replays a call pattern (no period), that a routine never meets a
 * sequence twice, and that the routines of a sample round share one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test_check.h"
#include "engine/dist.h"
#include "engine/fresh.h"
#include "engine/measure.h"
#include "engine/placement.h"
#include "engine/routines.h"



#define MAX_LOG (1u << 23)
#define MAX_BATCHES 4096

/* Every call as (source offset, destination offset, size) relative to the
 * replay's bases, and where each batch of each routine starts. */
static struct cwb_call *calls;
static size_t ncalls;
static struct { unsigned who; size_t start, n; } batch[MAX_BATCHES];
static size_t nbatch;
static unsigned char *src_base, *dst_base;

static void *rec_copy(void *d, const void *s, size_t n)
{
    memcpy(d, s, n);
    if (ncalls < MAX_LOG && nbatch > 0) {
        calls[ncalls++] = (struct cwb_call){(size_t)((const unsigned char *)s - src_base),
                                            (size_t)((unsigned char *)d - dst_base), n};
        batch[nbatch - 1].n++;
    }
    return d;
}

/* Called before each batch (and before the calibration's first checked
 * call, which is a batch of one here). */
static void rec_prepare(const void *ctx)
{
    if (nbatch < MAX_BATCHES)
        batch[nbatch++] = (__typeof__(batch[0])){*(const unsigned *)ctx, ncalls, 0};
}

static int same(const struct cwb_call *a, const struct cwb_call *b)
{
    return a->n == b->n && a->soff == b->soff && a->doff == b->doff;
}

/* The smallest period p (1..n/2) of c[0..n), or 0. */
static size_t period(const struct cwb_call *c, size_t n)
{
    for (size_t p = 1; p <= n / 2; p++) {
        size_t i = 0;
        while (i + p < n && same(&c[i], &c[i + p]))
            i++;
        if (i + p == n)
            return p;
    }
    return 0;
}

int main(void)
{
    calls = malloc(MAX_LOG * sizeof *calls);
    size_t sizes[] = {16, 64, 256, 1000};
    double cum[] = {0.4, 0.7, 0.9, 1.0};
    struct cwb_dist d = {sizes, cum, 4, 0};
    struct cwb_seq seq;
    size_t span = 32 << 10, region = span + 1000;
    struct cwb_engine e;
    /* 20 us a sample: batches of dozens of calls and more. Under an emulator
     * (CW_EMULATOR: a cross build's tests, tests/CMakeLists.txt) each call
     * takes ten times as long or more, and a loaded host stretches that: the
     * same batches need ten times the time. */
    const char *emu = getenv("CW_EMULATOR");
    double min_sample = emu != NULL && *emu != '\0' ? 200e-6 : 20e-6;
    if (calls == NULL || cwb_seq_init(&seq, &d, 4096, span, 5) != 0 ||
        cwb_engine_init(&e, region + ((size_t)64 << 10), 5, min_sample, 5) != 0) {
        fprintf(stderr, "test_fresh: out of memory\n");
        return 1;
    }
    src_base = e.src + CWB_PAGE;
    dst_base = e.dst + CWB_PAGE;
    static const unsigned ids[2] = {0, 1};
    struct cwb_routine r[2] = {
        {"rec_a", rec_copy, "recording", NULL, rec_prepare, &ids[0]},
        {"rec_b", rec_copy, "recording", NULL, rec_prepare, &ids[1]},
    };
    const struct cwb_routine *rt[2] = {&r[0], &r[1]};
    struct cwb_spec sp[2];
    for (int j = 0; j < 2; j++)
        sp[j] = (struct cwb_spec){.state = CWB_RANDOM, .size = 100, .region = region,
                                  .src_off = -1, .dst_off = -1};
    struct cwb_run runs[2];
    int wrapped = 1;
    CWT_EXPECT(cwb_measure_fresh(&e, sp, rt, 2, &seq, runs, &wrapped) == 0);
    CWT_EXPECT(!wrapped);
    CWT_EXPECT(runs[0].n == 5 && runs[1].n == 5);
    /* the batches never need more calls than the sequence holds */
    CWT_EXPECT(runs[0].calls <= seq.n && runs[1].calls <= seq.n && seq.n >= 4096);
    size_t checked = 0, shared = 0;
    for (size_t b = 0; b < nbatch; b++) {
        if (batch[b].n < 16)
            continue; /* the calibration's first, tiny batches */
        checked++;
        const struct cwb_call *c = &calls[batch[b].start];
        CWT_EXPECT(period(c, batch[b].n) == 0);
        for (size_t k = 0; k < batch[b].n; k++)
            if (c[k].soff >= span || c[k].doff >= span || c[k].n > 1000) {
                CWT_EXPECT(!"a call outside the sequence's range");
                break;
            }
        for (size_t o = 0; o < b; o++) {
            if (batch[o].n < 16)
                continue;
            int equal = memcmp(c, &calls[batch[o].start], 16 * sizeof *c) == 0;
            /* a routine meets each sequence once; the other routine may
             * run the same one in its round */
            if (batch[o].who == batch[b].who)
                CWT_EXPECT(!equal);
            else
                shared += (size_t)equal;
        }
    }
    CWT_EXPECT(checked >= 10);       /* 2 x 5 samples at least */
    CWT_EXPECT(shared >= 3);         /* rounds share their sequence */
    CWT_EXPECT(seq.draws >= checked / 2);
    for (int j = 0; j < 2; j++)
        cwb_run_free(&runs[j]);
    cwb_engine_free(&e);
    cwb_seq_free(&seq);
    free(calls);
    if (cwt_failures) {
        fprintf(stderr, "test_fresh: %ld check(s) failed\n", cwt_failures);
        return 1;
    }
    printf("test_fresh: %zu batches checked, %zu shared by the two routines, %llu sequences "
           "drawn: all checks passed\n", checked, shared, seq.draws);
    return 0;
}
