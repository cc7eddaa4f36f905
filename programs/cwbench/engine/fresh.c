/* SPDX-License-Identifier: MIT */
/* Measuring on fresh call sequences: every batch replays a sequence drawn
 * for it alone (cwb_measure_fresh). A sequence the loop replayed again and
 * again would be learnt by the branch predictor, and learnt better for one
 * routine's branches than another's. Used by `cwbench dist` (cmd/dist.c)
 * and `--ab --state random`. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/progress.h"
#include "engine/dist.h"
#include "engine/fresh.h"
#include "engine/measure.h"
#include "engine/routines.h"

static size_t calls_opt;

void cwb_seq_set_calls(size_t n)
{
    calls_opt = n;
}

size_t cwb_seq_calls(void)
{
    return calls_opt ? calls_opt : CWB_SEQ_DEFAULT_CALLS;
}

/* ---- batches on fresh sequences ------------------------------------------ */

/* The routine as the engine sees it: the same copy function, and before
 * each batch (outside the timed region) its own preparation, then a fresh
 * sequence when this routine has already run the current one. */
struct fresh { const struct cwb_routine *inner; struct cwb_seq *seq; unsigned who; };

static void fresh_prepare(const void *ctx)
{
    const struct fresh *f = ctx;
    cwb_routine_prepare(f->inner);
    cwb_seq_before_batch(f->seq, f->who);
    if (f->seq->progress)
        cwb_progress_step(f->seq->batches);
}

static size_t max_batch(const struct cwb_run *out, size_t nrt)
{
    size_t k = 0;
    for (size_t i = 0; i < nrt; i++)
        if (out[i].calls > k)
            k = out[i].calls;
    return k;
}

/* A sequence 1.5x the longest batch: the next calibration may land a
 * little longer. */
static int grow_for(struct cwb_seq *seq, size_t k)
{
    if (k <= seq->n)
        return 0;
    size_t want = cwb_pow2_at_least(k + k / 2);
    if (want > CWB_SEQ_MAX_CALLS)
        want = CWB_SEQ_MAX_CALLS;
    return want > seq->n ? cwb_seq_resize(seq, want) : 0;
}

int cwb_measure_fresh(struct cwb_engine *e, struct cwb_spec *specs,
                      const struct cwb_routine *const *rt, size_t nrt, struct cwb_seq *seq,
                      struct cwb_run *out, int *wrapped)
{
    struct fresh ctx[CWB_MAX_ROUTINES];
    struct cwb_routine wrapped_rt[CWB_MAX_ROUTINES];
    const struct cwb_routine *wp[CWB_MAX_ROUTINES] = {NULL};
    _Static_assert(CWB_MAX_ROUTINES <= CWB_SEQ_MAX_USERS, "one sequence bit per routine");
    *wrapped = 0;
    if (nrt > CWB_MAX_ROUTINES)
        nrt = CWB_MAX_ROUTINES; /* cwb_pick_routines never gives more */
    for (size_t i = 0; i < nrt; i++) {
        ctx[i] = (struct fresh){rt[i], seq, (unsigned)i};
        wrapped_rt[i] = *rt[i];
        /* The replay calls fn with each call's own size; the sequence
         * changes under it, so no per-size function applies. */
        wrapped_rt[i].for_size = NULL;
        wrapped_rt[i].prepare = fresh_prepare;
        wrapped_rt[i].ctx = &ctx[i];
        wp[i] = &wrapped_rt[i];
    }
    /* The settle-within-2% rule could grow a batch to 10x the minimum
     * sample time (and the sequence with it); with every batch on new
     * calls it would only chase the sequences' own variation. */
    double saved_max = e->max_sample;
    int saved_samples = e->samples;
    e->max_sample = e->min_sample;
    /* Pilot: calibration and one sample, to learn the batch lengths. Its
     * samples are no result: the preemption counts leave them out. */
    int retried = e->retried, preempted = e->preempted;
    size_t total = e->total_samples;
    e->samples = 1;
    for (size_t i = 0; i < nrt; i++) {
        specs[i].calls = seq->calls;
        specs[i].n_calls = seq->n;
    }
    int rc = cwb_measure_each(e, specs, wp, nrt, out);
    e->samples = saved_samples;
    e->retried = retried;
    e->preempted = preempted;
    e->total_samples = total;
    size_t k = max_batch(out, nrt);
    /* A failed pilot leaves only the reasons in out (its one sample each
     * is no result). */
    for (size_t i = 0; rc != 0 && i < nrt; i++)
        cwb_run_free(&out[i]);
    for (int attempt = 0; rc == 0; attempt++) {
        for (size_t i = 0; i < nrt; i++)
            cwb_run_free(&out[i]);
        /* Out of memory keeps the shorter sequence: the batches then wrap
         * around it, and *wrapped says so. */
        (void)grow_for(seq, k);
        for (size_t i = 0; i < nrt; i++) {
            specs[i].calls = seq->calls;
            specs[i].n_calls = seq->n;
        }
        rc = cwb_measure_each(e, specs, wp, nrt, out);
        k = max_batch(out, nrt);
        if (k <= seq->n || attempt == 2)
            break;
    }
    e->max_sample = saved_max;
    *wrapped = rc == 0 && k > seq->n;
    return rc;
}

int cwb_measure_random(struct cwb_engine *e, struct cwb_spec *specs,
                       const struct cwb_routine *const *rt, size_t nrt, size_t size, size_t span,
                       uint64_t seed, struct cwb_run *out, int *wrapped)
{
    struct cwb_dist d = {0};
    int rc = -1;
    if (cwb_dist_fixed(&d, size) == 0)
        rc = cwb_measure_dist(e, specs, rt, nrt, &d, span, seed, out, wrapped);
    else
        rc = cwb_measure_dist(e, specs, rt, nrt, NULL, span, seed, out, wrapped);
    cwb_dist_free(&d);
    return rc;
}

int cwb_measure_dist(struct cwb_engine *e, struct cwb_spec *specs,
                     const struct cwb_routine *const *rt, size_t nrt, const struct cwb_dist *d,
                     size_t span, uint64_t seed, struct cwb_run *out, int *wrapped)
{
    struct cwb_seq seq;
    int rc = -1;
    *wrapped = 0;
    if (d != NULL && cwb_seq_init(&seq, d, cwb_seq_calls(), span, seed) == 0) {
        rc = cwb_measure_fresh(e, specs, rt, nrt, &seq, out, wrapped);
        cwb_seq_free(&seq);
    } else {
        for (size_t j = 0; j < nrt; j++) {
            memset(&out[j], 0, sizeof out[j]);
            out[j].failed = 1;
            snprintf(out[j].err, sizeof out[j].err, "%s: out of memory for the calls",
                     rt[j]->name);
        }
    }
    return rc;
}

size_t cwb_random_region(size_t size, size_t pool)
{
    size_t region = size * 4 > ((size_t)64 << 10) ? size * 4 : (size_t)64 << 10;
    return region > pool - 16384 ? pool - 16384 : region;
}
