/* SPDX-License-Identifier: MIT */
/* `cwbench tune`, decisions 4 and 5: what a copy the caller marks does to
 * the caches. CW_SRC_NOREUSE's mode (src_noreuse: none, prefetchnta, flush
 * or both), chosen on its speed and on what it leaves of an L2-resident
 * victim, and how cw_memcpy_persist makes a few aligned words persistent
 * (persist_small: movnti, or store + clwb). tune.c runs them; its opening
 * comment says where each is measured. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "engine/measure.h"
#include "engine/victim.h"
#include "platform/memory.h"
#include "tune/candidates.h"
#include "tune/decide.h"
#include "tune/rules.h"
#include "cachewise.h"

#ifdef TUNE_PREFETCH
/* ---- 4. CW_SRC_NOREUSE: speed, and what an L2-resident victim loses ------ */

static void *op_src_noreuse(void *d, const void *s, size_t n)
{
    return cw_copy(d, s, n, CW_SRC_NOREUSE | CW_DST_NOREUSE);
}

int tune_src_noreuse(struct cwb_engine *e, const struct tune_opts *t, struct tune_found *f,
                     const struct cw_info *cpu)
{
    int nmode = cpu->clflushopt ? 4 : 2;
    struct tune_cand c[4];
    for (int m = 0; m < nmode; m++) {
        struct tune_policy p = f->pol;
        p.v[TK_SRC_NOREUSE] = (size_t)m;
        tune_cand_set(&c[m], tune_value_name(TK_SRC_NOREUSE, (size_t)m), op_src_noreuse, &p);
    }
    struct cwb_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.state = CWB_COLD;
    sp.size = t->quick ? 1 * MiB : 16 * MiB;
    struct tune_cell cl;
    tune_say("CW_SRC_NOREUSE speed", 1, 2);
    if (tune_measure_cell(e, &sp, c, (size_t)nmode, &cl) != 0)
        return -1;

    size_t vbytes = cpu->l2_size != 0 ? cpu->l2_size / 4 : 256 * KiB;
    /* after 4 MiB every mode may keep the victim where after 16 MiB only
     * the flushing ones do (AMD EPYC family 25 model 17: after 4 MiB none
     * 0.10, prefetchnta 0.09, flush 0.08, both 0.08 against a background of
     * 0.05; after 16 MiB none 0.23-0.69, prefetchnta 0.28-0.54, flush and
     * both 0.01-0.07: docs/results/amd-25-17/README.md, "CW_SRC_NOREUSE's
     * method"), so both sizes are measured (the quick run: 1 MiB only) */
    size_t sizes[2] = {t->quick ? 1 * MiB : 4 * MiB, 16 * MiB};
    int nsizes = t->quick ? 1 : 2;
    size_t nmax = sizes[nsizes - 1];
    struct cwb_victim v;
    unsigned char *src = cwb_alloc_huge(nmax), *dst = cwb_alloc_huge(nmax);
    uint64_t rng = 7;
    if (src == NULL || dst == NULL || cwb_victim_make(&v, vbytes, &rng) != 0)
        return -1;
    int reps = t->quick ? 3 : 15;
    tune_say("CW_SRC_NOREUSE pollution", 2, 2);
    struct tune_src_noreuse_evidence ev;
    memset(&ev, 0, sizeof ev);
    ev.modes = nmode;
    ev.sizes = nsizes;
    /* none, prefetchnta, flush, both: the library's order of the modes */
    static const int per_line[4] = {0, 1, 1, 2};
    for (int m = 0; m < nmode; m++) {
        ev.speed[m] = cl.med[m];
        ev.per_line[m] = per_line[m];
        for (int j = 0; j < nmode; j++)
            ev.faster[m][j] = cl.faster[m][j];
    }
    for (int k = 0; k < nsizes; k++) {
        size_t n = sizes[k];
        double t0 = cwb_now();
        c[0].rt.fn(dst, src, n);
        double wait = cwb_now() - t0;
        ev.background[k] = cwb_victim_evicted(&v, NULL, dst, src, n, reps, wait);
        for (int m = 0; m < nmode; m++)
            ev.evicted[k][m] = cwb_victim_evicted(&v, &c[m].rt, dst, src, n, reps, wait);
    }
    cwb_free_huge(src, nmax);
    cwb_free_huge(dst, nmax);
    cwb_free_huge(v.base, vbytes);
    /* the rule and why: tune/rules.h */
    int best = tune_pick_src_noreuse(&ev);
    if (best < 0)
        return -1;
    f->pol.v[TK_SRC_NOREUSE] = (size_t)best;
    char b[32], b2[32], b3[32];
    size_t len = (size_t)snprintf(
        f->why[3], sizeof f->why[3], "cold %s GB/s, evicted fraction of a %s victim after %s",
        tune_fmt_size(sp.size, b), tune_fmt_size(vbytes, b2), tune_fmt_size(sizes[0], b3));
    if (nsizes > 1)
        len += (size_t)snprintf(f->why[3] + len, sizeof f->why[3] - len, "|%s",
                                tune_fmt_size(sizes[1], b3));
    len += (size_t)snprintf(f->why[3] + len, sizeof f->why[3] - len, " (background %.3f",
                            ev.background[0]);
    if (nsizes > 1)
        len +=
            (size_t)snprintf(f->why[3] + len, sizeof f->why[3] - len, "|%.3f", ev.background[1]);
    len += (size_t)snprintf(f->why[3] + len, sizeof f->why[3] - len, "):");
    for (int m = 0; m < nmode && len < sizeof f->why[3]; m++) {
        len += (size_t)snprintf(f->why[3] + len, sizeof f->why[3] - len, " %s %.2f/%.3f",
                                tune_value_name(TK_SRC_NOREUSE, (size_t)m), cl.med[m],
                                ev.evicted[0][m]);
        if (nsizes > 1 && len < sizeof f->why[3])
            len += (size_t)snprintf(f->why[3] + len, sizeof f->why[3] - len, "|%.3f",
                                    ev.evicted[1][m]);
        if (m == best && len < sizeof f->why[3])
            len += (size_t)snprintf(f->why[3] + len, sizeof f->why[3] - len, " (chosen)");
    }
    return 0;
}

#endif

#ifdef TUNE_X86
static void *op_persist(void *d, const void *s, size_t n)
{
    return cw_memcpy_persist(d, s, n);
}

/* 5. A persist of a few aligned words: movnti, or store + write-back. */
int tune_persist_small(struct cwb_engine *e, struct tune_found *f, const struct cw_info *cpu)
{
    if (!(cpu->clwb || cpu->clflushopt || cpu->clflush)) {
        snprintf(f->why[4], sizeof f->why[4], "this CPU cannot flush a line");
        return 0;
    }
    struct tune_cand c[2];
    tune_cand_pair(c, &f->pol, TK_PERSIST_SMALL, op_persist); /* movnti, clwb */
    static const size_t sizes[] = {8, 16, 32};
    int clwb_wins = 0, movnti_wins = 0;
    size_t len = (size_t)snprintf(f->why[4], sizeof f->why[4], "clwb/movnti hot:");
    for (size_t i = 0; i < 3; i++) {
        struct cwb_spec sp = tune_hot_spec(sizes[i], 0, 0);
        struct tune_cell cl;
        tune_say("small persists", i + 1, 3);
        if (tune_measure_cell(e, &sp, c, 2, &cl) != 0)
            return -1;
        clwb_wins += cl.vs0[1].significant && cl.vs0[1].ratio > 1;
        movnti_wins += cl.vs0[1].significant && cl.vs0[1].ratio < 1;
        len += (size_t)snprintf(f->why[4] + len, sizeof f->why[4] - len, " %zu B %.2f", sizes[i],
                                cl.vs0[1].ratio);
    }
    if (clwb_wins >= 2)
        f->pol.v[TK_PERSIST_SMALL] = PERSIST_CLWB;
    else if (movnti_wins >= 2)
        f->pol.v[TK_PERSIST_SMALL] = PERSIST_MOVNTI;
    return 0;
}
#endif
