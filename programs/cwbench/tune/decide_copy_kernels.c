/* SPDX-License-Identifier: MIT */
/* `cwbench tune`, decisions 1, 2, 3 and 6: which of the library's kernels
 * a plain copy runs at each size, and how the streaming one moves its
 * bytes. The streaming loop's prefetch (stream_prefetch,
 * stream_prefetch_hint), the size from which copies stream (nt_threshold),
 * the window below it where rep movsb copies (rep_movsb, rep_movsb_min,
 * rep_movsb_max), and whether streaming copies use streaming stores or rep
 * movsb (stream_method, stream_rep_min). tune.c runs them; its opening
 * comment says where each is measured. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "engine/measure.h"
#include "engine/placement.h"
#include "engine/victim.h"
#include "platform/memory.h"
#include "tune/candidates.h"
#include "tune/decide.h"
#include "tune/rules.h"
#include "cachewise.h"

static void *op_temporal(void *d, const void *s, size_t n)
{
    return cw_copy(d, s, n, CW_DST_REUSE);
}
static void *op_stream(void *d, const void *s, size_t n)
{
    return cw_copy(d, s, n, CW_DST_NOREUSE);
}

#ifdef TUNE_PREFETCH
/* Candidate names: the instruction each hint is (the file spells the hints
 * t0, t1, t2, nta on every architecture: docs/TUNING.md). */
#ifdef TUNE_X86
static const char *const hint_insn[] = {"prefetcht0", "prefetcht1", "prefetcht2", "prefetchnta"};
#else
static const char *const hint_insn[] = {"prfm pldl1keep", "prfm pldl2keep", "prfm pldl3keep",
                                        "prfm pldl1strm"};
#endif

/* 1. Prefetch in the streaming loop: DRAM-sized copies, cold. The profile's
 * setting stays unless another is significantly faster by 2% or more
 * (tune/rules.h); it is a candidate of its own where it is none of these. */
int tune_stream_prefetch(struct cwb_engine *e, const struct tune_opts *t, struct tune_found *f)
{
    static const struct {
        size_t dist;
        int hint;
    } opt[] = {
        {0, PF_T0},       {1 * KiB, PF_T2}, {2 * KiB, PF_T2},  {4 * KiB, PF_T2},
        {8 * KiB, PF_T2}, {4 * KiB, PF_T0}, {4 * KiB, PF_NTA},
    };
    _Static_assert(sizeof opt / sizeof opt[0] < TUNE_MAX_CANDS, "room for the profile's own");
    size_t nopt = t->quick ? 2 : sizeof opt / sizeof opt[0];
    /* the options, then the profile's own setting where it is none of them */
    struct tune_policy p[TUNE_MAX_CANDS];
    int incumbent = -1;
    for (size_t i = 0; i < nopt; i++) {
        p[i] = f->pol;
        p[i].v[TK_STREAM_PREFETCH] = t->quick && i == 1 ? 4 * KiB : opt[i].dist;
        p[i].v[TK_STREAM_HINT] = t->quick && i == 1 ? PF_T2
                                 : opt[i].dist != 0 ? (size_t)opt[i].hint
                                                    : f->pol.v[TK_STREAM_HINT];
        int same_dist = p[i].v[TK_STREAM_PREFETCH] == f->pol.v[TK_STREAM_PREFETCH];
        int same_hint = p[i].v[TK_STREAM_HINT] == f->pol.v[TK_STREAM_HINT];
        if (same_dist && (p[i].v[TK_STREAM_PREFETCH] == 0 || same_hint))
            incumbent = (int)i;
    }
    if (incumbent < 0) {
        incumbent = (int)nopt;
        p[nopt++] = f->pol;
    }
    struct tune_cand c[TUNE_MAX_CANDS];
    for (size_t i = 0; i < nopt; i++) {
        char name[48];
        if (p[i].v[TK_STREAM_PREFETCH] == 0)
            snprintf(name, sizeof name, "no prefetch");
        else
            snprintf(name, sizeof name, "%s %zuK", hint_insn[p[i].v[TK_STREAM_HINT] & 3],
                     p[i].v[TK_STREAM_PREFETCH] >> 10);
        tune_cand_set(&c[i], name, op_stream, &p[i]);
    }
    struct cwb_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.state = CWB_COLD;
    sp.size = t->big;
    struct tune_cell cl;
    tune_say("streaming prefetch", 1, 1);
    if (tune_measure_cell(e, &sp, c, nopt, &cl) != 0)
        return -1;
    int beats[TUNE_MAX_CANDS];
    for (size_t i = 0; i < nopt; i++)
        beats[i] = cl.faster[i][incumbent];
    int pick = tune_pick_over_incumbent((int)nopt, cl.med, beats, incumbent, 1.02);
    if (pick < 0)
        return -1;
    size_t best = (size_t)pick;
    f->pol.v[TK_STREAM_PREFETCH] = c[best].pol.v[TK_STREAM_PREFETCH];
    f->pol.v[TK_STREAM_HINT] = c[best].pol.v[TK_STREAM_HINT];
    char b[32];
    size_t len =
        (size_t)snprintf(f->why[0], sizeof f->why[0], "cold %s, GB/s:", tune_fmt_size(t->big, b));
    for (size_t i = 0; i < nopt && len < sizeof f->why[0]; i++)
        len += (size_t)snprintf(f->why[0] + len, sizeof f->why[0] - len, " %s %.2f%s%s",
                                c[i].name, cl.med[i], (int)i == incumbent ? " (profile's)" : "",
                                i == best ? " (chosen)" : "");
    return 0;
}
#endif

/* 2. Streaming threshold: the smallest size from which streaming is at
 * least as fast as the temporal copy, hot, at every larger size measured. */
int tune_nt_threshold(struct cwb_engine *e, const struct tune_opts *t, struct tune_found *f)
{
    static const size_t full[] = {256 * KiB,  512 * KiB, 768 * KiB, 1 * MiB,  1280 * KiB,
                                  1536 * KiB, 2 * MiB,   3 * MiB,   4 * MiB,  6 * MiB,
                                  8 * MiB,    12 * MiB,  16 * MiB,  24 * MiB, 32 * MiB,
                                  48 * MiB,   64 * MiB};
    static const size_t quick[] = {256 * KiB, 1 * MiB};
    const size_t *sizes = t->quick ? quick : full;
    size_t ns = t->quick ? 2 : sizeof full / sizeof full[0];
    struct tune_policy p = f->pol;
    p.v[TK_REP_MOVSB] = REP_OFF; /* the vector loop: rep movsb is decided below the threshold */
    struct tune_cand c[2];
    tune_cand_set(&c[0], "temporal", op_temporal, &p);
    tune_cand_set(&c[1], "streaming", op_stream, &p);
    double ratio[32];
    int worse[32], better[32];
    for (size_t i = 0; i < ns; i++) {
        struct cwb_spec sp = tune_hot_spec(sizes[i], 0, 0);
        struct tune_cell cl;
        tune_say("streaming threshold", i + 1, ns);
        if (tune_measure_cell(e, &sp, c, 2, &cl) != 0)
            return -1;
        ratio[i] = cl.vs0[1].ratio;
        worse[i] = cl.vs0[1].significant && cl.vs0[1].ratio < 0.98;
        better[i] = cl.vs0[1].significant && cl.vs0[1].ratio > 1.0;
    }
    /* the smallest size where streaming is significantly faster, with no
     * larger size where it is significantly slower (by more than 2%) */
    size_t pick = ns;
    for (size_t i = ns; i-- > 0;) {
        if (worse[i])
            break;
        if (better[i])
            pick = i;
    }
    f->pol.v[TK_NT_THRESHOLD] = pick < ns ? sizes[pick] : 2 * sizes[ns - 1];
    char b[32];
    size_t len = (size_t)snprintf(f->why[1], sizeof f->why[1], "streaming/temporal hot:");
    for (size_t i = 0; i < ns && len < sizeof f->why[1]; i++)
        len += (size_t)snprintf(f->why[1] + len, sizeof f->why[1] - len, " %s %.2f%s",
                                tune_fmt_size(sizes[i], b), ratio[i], worse[i] ? "-" : "");
    return 0;
}

#ifdef TUNE_X86
/* The sizes up to which rep movsb is also measured at random offsets:
 * above them a hot copy's bytes are out of the L1 too. */
#define TUNE_REP_RANDOM_MAX (64 * KiB)

/* 3. rep movsb below the threshold: hot with both buffers aligned, hot
 * misaligned, and (up to TUNE_REP_RANDOM_MAX) at random offsets, where the
 * bytes are in the L2 as a program's copies of these sizes mostly find
 * them: on AMD EPYC family 26 model 2 rep movsb is 0.6x the vector loop
 * hot at 8-16 KiB and 1.2x at random offsets (docs/results/amd-26-2/README.md,
 * "The first measurements"). Where the placements disagree so, the measurement cannot say
 * which matters more, and the size keeps the choice of the policy the
 * tuner started from. */
int tune_rep_movsb(struct cwb_engine *e, const struct tune_opts *t, struct tune_found *f,
                   int have_erms)
{
    static const size_t full[] = {2 * KiB,   4 * KiB,  8 * KiB,   16 * KiB,  20 * KiB,
                                  24 * KiB,  32 * KiB, 64 * KiB,  128 * KiB, 256 * KiB,
                                  512 * KiB, 1 * MiB,  1536 * KiB};
    static const size_t quick[] = {4 * KiB, 32 * KiB};
    const size_t *all = t->quick ? quick : full;
    size_t nall = t->quick ? 2 : sizeof full / sizeof full[0];
    size_t sizes[16], ns = 0;
    for (size_t i = 0; i < nall; i++)
        if (all[i] < f->pol.v[TK_NT_THRESHOLD])
            sizes[ns++] = all[i];
    if (!have_erms || ns == 0) {
        f->pol.v[TK_REP_MOVSB] = REP_OFF;
        snprintf(f->why[2], sizeof f->why[2], "%s",
                 have_erms ? "no size below the threshold" : "this CPU has no ERMS");
        return 0;
    }
    /* the starting policy's window (rep_movsb_max 0: up to the threshold) */
    size_t start_mode = f->pol.v[TK_REP_MOVSB], start_min = f->pol.v[TK_REP_MIN];
    size_t start_max = f->pol.v[TK_REP_MAX] == 0 ? SIZE_MAX : f->pol.v[TK_REP_MAX];
    struct tune_policy vec = f->pol, rep = f->pol;
    vec.v[TK_REP_MOVSB] = REP_OFF;
    rep.v[TK_REP_MOVSB] = REP_ALIGN_DST;
    rep.v[TK_REP_MIN] = 0;
    rep.v[TK_REP_MAX] = SIZE_MAX;
    struct tune_cand c[2];
    tune_cand_set(&c[0], "vector loop", op_temporal, &vec);
    tune_cand_set(&c[1], "rep movsb", op_temporal, &rep);
    double ra[16], rm[16], rr[16];
    int wa[16], wm[16], wr[16], loses[16], split[16], win = 0, kept = 0;
    for (size_t i = 0; i < ns; i++) {
        struct tune_cell al, mis, rnd;
        struct cwb_spec sa = tune_hot_spec(sizes[i], 0, 0), sm = tune_hot_spec(sizes[i], 5, 37);
        tune_say("rep movsb window", i + 1, ns);
        if (tune_measure_cell(e, &sa, c, 2, &al) != 0 ||
            tune_measure_cell(e, &sm, c, 2, &mis) != 0)
            return -1;
        ra[i] = al.vs0[1].ratio;
        rm[i] = mis.vs0[1].ratio;
        wa[i] = al.vs0[1].significant && ra[i] >= 1.02;
        wm[i] = mis.vs0[1].significant && rm[i] >= 1.02;
        rr[i] = 0; /* not measured */
        wr[i] = 0;
        if (sizes[i] <= TUNE_REP_RANDOM_MAX) {
            if (tune_measure_random_cell(e, sizes[i], e->rng + i, c, 2, &rnd) != 0)
                return -1;
            rr[i] = rnd.vs0[1].ratio;
            wr[i] = rnd.vs0[1].significant && rr[i] >= 1.02;
        }
        /* more than 5% slower at some placement */
        loses[i] = ra[i] < 0.95 || rm[i] < 0.95 || (rr[i] != 0 && rr[i] < 0.95);
        split[i] = loses[i] && (wa[i] || wm[i] || wr[i]);
    }
    /* align-dst: from the smallest size where rep movsb wins (any
     * placement, significantly) up to the threshold, if no size from there
     * on loses more than 5% at any placement, or loses at one and wins at
     * another while the starting policy had rep movsb there */
    size_t safe = ns, lo = ns;
    for (size_t i = ns; i-- > 0;) {
        int started_rep = (start_mode == REP_ALIGN_DST || start_mode == REP_ALIGN_DST_FAR) &&
                          sizes[i] >= start_min && sizes[i] <= start_max;
        if (loses[i] && !(split[i] && started_rep))
            break;
        kept += loses[i];
        safe = i;
    }
    for (size_t i = safe; i < ns && lo == ns; i++)
        if (wa[i] || wm[i] || wr[i])
            lo = i;
    win = lo < ns;
    double rnear = 0;
    if (win) {
        f->pol.v[TK_REP_MOVSB] = REP_ALIGN_DST;
        f->pol.v[TK_REP_MIN] = sizes[lo];
        f->pol.v[TK_REP_MAX] = f->pol.v[TK_NT_THRESHOLD];
        /* the destination 8 bytes past the source modulo 4 KiB, at the
         * window's first size: on AMD EPYC family 25 model 17 rep movsb
         * runs there at 3.5 GB/s, the vector loop at 46-57 (docs/TUNING.md,
         * align-dst-far) */
        struct tune_cell near;
        struct cwb_spec sn = tune_hot_spec(sizes[lo], (int)(CWB_DST_BASE - CWB_SRC_BASE), 8);
        if (tune_measure_cell(e, &sn, c, 2, &near) != 0)
            return -1;
        rnear = near.vs0[1].ratio;
        if (rnear < 0.95)
            f->pol.v[TK_REP_MOVSB] = REP_ALIGN_DST_FAR;
    } else {
        /* aligned only: the widest run of sizes where aligned buffers win */
        size_t best_lo = ns, best_len = 0;
        for (size_t i = 0; i < ns;) {
            size_t j = i;
            while (j < ns && wa[j])
                j++;
            if (j - i > best_len) {
                best_len = j - i;
                best_lo = i;
            }
            i = j + 1;
        }
        if (best_len > 0) {
            f->pol.v[TK_REP_MOVSB] = REP_ALIGNED;
            f->pol.v[TK_REP_MIN] = sizes[best_lo];
            f->pol.v[TK_REP_MAX] = sizes[best_lo + best_len - 1];
        } else {
            f->pol.v[TK_REP_MOVSB] = REP_OFF;
        }
    }
    char b[32];
    size_t len = (size_t)snprintf(f->why[2], sizeof f->why[2],
                                  "rep/vector hot aligned|mis|random offsets:");
    for (size_t i = 0; i < ns && len < sizeof f->why[2]; i++) {
        len += (size_t)snprintf(f->why[2] + len, sizeof f->why[2] - len, " %s %.2f|%.2f",
                                tune_fmt_size(sizes[i], b), ra[i], rm[i]);
        if (rr[i] != 0 && len < sizeof f->why[2])
            len += (size_t)snprintf(f->why[2] + len, sizeof f->why[2] - len, "|%.2f", rr[i]);
    }
    if (win && len < sizeof f->why[2])
        len += (size_t)snprintf(f->why[2] + len, sizeof f->why[2] - len,
                                "; dst 8 B past src mod 4K at %s %.2f",
                                tune_fmt_size(sizes[lo], b), rnear);
    if (win && kept > 0 && len < sizeof f->why[2])
        snprintf(f->why[2] + len, sizeof f->why[2] - len,
                 "; %d size(s) split between placements kept in the window as the profile had",
                 kept);
    return 0;
}
#endif

#ifdef TUNE_X86
/* 6. How streaming copies move their bytes: streaming stores, or rep movsb
 * from the smallest size (cold) where rep movsb is significantly faster at
 * that size and every larger one measured, and evicts no more of a
 * quarter-L2 victim than the streaming stores do (+0.05). */
int tune_stream_method(struct cwb_engine *e, const struct tune_opts *t, struct tune_found *f,
                       const struct cw_info *cpu)
{
    static const size_t full[] = {4 * MiB, 16 * MiB, 64 * MiB};
    static const size_t quick[] = {1 * MiB, 4 * MiB};
    const size_t *sizes = t->quick ? quick : full;
    size_t ns = t->quick ? 2 : 3;
    f->pol.v[TK_STREAM_METHOD] = STREAM_NT;
    if (!cpu->erms) {
        snprintf(f->why[5], sizeof f->why[5], "this CPU has no ERMS");
        return 0;
    }
    struct tune_policy nt = f->pol, rep = f->pol;
    rep.v[TK_STREAM_METHOD] = STREAM_REP;
    rep.v[TK_STREAM_REP_MIN] = 0;
    struct tune_cand c[2];
    tune_cand_set(&c[0], "streaming stores", op_stream, &nt);
    tune_cand_set(&c[1], "rep movsb", op_stream, &rep);
    double ratio[4];
    int win[4], lose[4];
    for (size_t i = 0; i < ns; i++) {
        struct cwb_spec sp;
        memset(&sp, 0, sizeof sp);
        sp.state = CWB_COLD;
        sp.size = sizes[i];
        struct tune_cell cl;
        tune_say("streaming method", i + 1, ns + 1);
        if (tune_measure_cell(e, &sp, c, 2, &cl) != 0)
            return -1;
        ratio[i] = cl.vs0[1].ratio;
        win[i] = cl.vs0[1].significant && ratio[i] >= 1.02;
        lose[i] = cl.vs0[1].significant && ratio[i] < 0.98;
    }
    size_t pick = ns;
    for (size_t i = ns; i-- > 0;) {
        if (lose[i] || !win[i])
            break;
        pick = i;
    }
    char b[32], b2[32];
    size_t len =
        (size_t)snprintf(f->why[5], sizeof f->why[5], "rep movsb/streaming stores cold:");
    for (size_t i = 0; i < ns && len < sizeof f->why[5]; i++)
        len += (size_t)snprintf(f->why[5] + len, sizeof f->why[5] - len, " %s %.2f",
                                tune_fmt_size(sizes[i], b), ratio[i]);
    if (pick == ns)
        return 0;
    /* what each leaves of an L2 victim after a copy of the chosen size */
    size_t vbytes = cpu->l2_size != 0 ? cpu->l2_size / 4 : 256 * KiB, n = sizes[pick];
    struct cwb_victim v;
    unsigned char *src = cwb_alloc_huge(n), *dst = cwb_alloc_huge(n);
    uint64_t rng = 11;
    if (src == NULL || dst == NULL || cwb_victim_make(&v, vbytes, &rng) != 0)
        return -1;
    tune_say("streaming method", ns + 1, ns + 1);
    int reps = t->quick ? 3 : 9;
    double ev_nt = cwb_victim_evicted(&v, &c[0].rt, dst, src, n, reps, 0);
    double ev_rep = cwb_victim_evicted(&v, &c[1].rt, dst, src, n, reps, 0);
    cwb_free_huge(src, n);
    cwb_free_huge(dst, n);
    cwb_free_huge(v.base, vbytes);
    int keeps = ev_rep <= ev_nt + 0.05;
    if (keeps) {
        f->pol.v[TK_STREAM_METHOD] = STREAM_REP;
        f->pol.v[TK_STREAM_REP_MIN] = n;
    }
    if (len < sizeof f->why[5])
        snprintf(f->why[5] + len, sizeof f->why[5] - len,
                 "; evicted of a %s victim after %s: "
                 "rep movsb %.3f, streaming stores %.3f%s",
                 tune_fmt_size(vbytes, b), tune_fmt_size(n, b2), ev_rep, ev_nt,
                 keeps ? "" : " (rep movsb evicts more: kept streaming stores)");
    return 0;
}
#endif
