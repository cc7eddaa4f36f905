/* SPDX-License-Identifier: MIT */
/* `cwbench tune`: measures, on the machine it runs on, each decision of the
 * copy policy (docs/TUNING.md) and writes a tuning file the library loads
 * (CACHEWISE_TUNING=FILE). Candidates are the library's own kernels under
 * different policies, interleaved sample by sample like routines (each
 * candidate's policy is put in force before its batch: cwb_routine's
 * prepare hook), compared with the Mann-Whitney test of --ab. Candidates
 * are put in force with cw_settings_apply(), the library's interface for
 * tools (a tuning file's lines as text), and the start-up policy comes back
 * with cw_settings_restore(); everything else is read from cw_get_info().
 * The method and the file format: docs/TUNING.md.
 *
 * A decision is measured where the library's kernels have instructions for
 * it: the streaming threshold everywhere; the streaming prefetch and
 * CW_SRC_NOREUSE's modes on x86-64 (prefetcht0/t1/t2/nta, clflushopt) and
 * aarch64 (PRFM PLDL1KEEP/PLDL2KEEP/PLDL3KEEP/PLDL1STRM; no flush mode
 * without clflushopt); rep movsb and the small-persist rule (movnti or clwb)
 * on x86-64 only. Elsewhere a decision keeps the value of the policy in force
 * (the profile's; rep movsb off), and the file says so. Under an emulator
 * every figure is the translator's: the run says so, and still writes a
 * valid file (the tests load it). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/format.h"
#include "cmd/common.h"
#include "cmd/options.h"
#include "engine/measure.h"
#include "engine/placement.h"
#include "engine/routines.h"
#include "engine/victim.h"
#include "platform/arch.h"
#include "platform/machine.h"
#include "platform/memory.h"
#include "results/stats.h"
#include "tune/candidates.h"
#include "tune/rules.h"
#include "tune/tune.h"
#include "tune/tune_entry.h"
#include "cachewise.h"

/* What the library's kernels of this architecture have instructions for
 * (the comment at the top). */
#if defined(__x86_64__)
#define TUNE_X86 1
#endif
#if defined(__x86_64__) || defined(__aarch64__)
#define TUNE_PREFETCH 1
#endif

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

static void *op_temporal(void *d, const void *s, size_t n)
{
    return cw_copy(d, s, n, CW_DST_REUSE);
}
static void *op_stream(void *d, const void *s, size_t n)
{
    return cw_copy(d, s, n, CW_DST_NOREUSE);
}
#ifdef TUNE_PREFETCH
static void *op_src_noreuse(void *d, const void *s, size_t n)
{
    return cw_copy(d, s, n, CW_SRC_NOREUSE | CW_DST_NOREUSE);
}
#endif
#ifdef TUNE_X86
static void *op_persist(void *d, const void *s, size_t n)
{
    return cw_memcpy_persist(d, s, n);
}
#endif

static const char *sz(size_t n, char *buf)
{
    return cwb_fmt_size(n, buf, 32);
}

static void say(const char *phase, size_t i, size_t n)
{
    fprintf(stderr, "cwbench tune: %s (%zu/%zu)\n", phase, i, n);
}

/* ---- the decisions --------------------------------------------------------- */

struct found {
    struct tune_policy pol;   /* what the measurements chose */
    char why[10][480];       /* one line of evidence per decision */
};

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
static int tune_prefetch(struct cwb_engine *e, const struct tune_opts *t, struct found *f)
{
    static const struct { size_t dist; int hint; } opt[] = {
        {0, PF_T0}, {1 * KiB, PF_T2}, {2 * KiB, PF_T2}, {4 * KiB, PF_T2},
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
        p[i].v[TK_STREAM_HINT] = t->quick && i == 1     ? PF_T2
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
    say("streaming prefetch", 1, 1);
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
    size_t len = (size_t)snprintf(f->why[0], sizeof f->why[0], "cold %s, GB/s:", sz(t->big, b));
    for (size_t i = 0; i < nopt && len < sizeof f->why[0]; i++)
        len += (size_t)snprintf(f->why[0] + len, sizeof f->why[0] - len, " %s %.2f%s%s",
                                c[i].name, cl.med[i], (int)i == incumbent ? " (profile's)" : "",
                                i == best ? " (chosen)" : "");
    return 0;
}
#endif

/* 2. Streaming threshold: the smallest size from which streaming is at
 * least as fast as the temporal copy, hot, at every larger size measured. */
static int tune_threshold(struct cwb_engine *e, const struct tune_opts *t, struct found *f)
{
    static const size_t full[] = {256 * KiB, 512 * KiB, 768 * KiB, 1 * MiB, 1280 * KiB,
                                  1536 * KiB, 2 * MiB, 3 * MiB, 4 * MiB, 6 * MiB, 8 * MiB,
                                  12 * MiB, 16 * MiB, 24 * MiB, 32 * MiB, 48 * MiB, 64 * MiB};
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
        say("streaming threshold", i + 1, ns);
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
                                sz(sizes[i], b), ratio[i], worse[i] ? "-" : "");
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
static int tune_rep(struct cwb_engine *e, const struct tune_opts *t, struct found *f,
                    int have_erms)
{
    static const size_t full[] = {2 * KiB,   4 * KiB,   8 * KiB,   16 * KiB,  20 * KiB,
                                  24 * KiB,  32 * KiB,  64 * KiB,  128 * KiB, 256 * KiB,
                                  512 * KiB, 1 * MiB,   1536 * KiB};
    static const size_t quick[] = {4 * KiB, 32 * KiB};
    const size_t *all = t->quick ? quick : full;
    size_t nall = t->quick ? 2 : sizeof full / sizeof full[0];
    size_t sizes[16], ns = 0;
    for (size_t i = 0; i < nall; i++)
        if (all[i] < f->pol.v[TK_NT_THRESHOLD])
            sizes[ns++] = all[i];
    if (!have_erms || ns == 0) {
        f->pol.v[TK_REP_MOVSB] = REP_OFF;
        snprintf(f->why[2], sizeof f->why[2], "%s", have_erms ? "no size below the threshold"
                                                              : "this CPU has no ERMS");
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
        say("rep movsb window", i + 1, ns);
        if (tune_measure_cell(e, &sa, c, 2, &al) != 0 || tune_measure_cell(e, &sm, c, 2, &mis) != 0)
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
        int started_rep =
            (start_mode == REP_ALIGN_DST || start_mode == REP_ALIGN_DST_FAR) &&
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
                                sz(sizes[i], b), ra[i], rm[i]);
        if (rr[i] != 0 && len < sizeof f->why[2])
            len += (size_t)snprintf(f->why[2] + len, sizeof f->why[2] - len, "|%.2f", rr[i]);
    }
    if (win && len < sizeof f->why[2])
        len += (size_t)snprintf(f->why[2] + len, sizeof f->why[2] - len,
                                "; dst 8 B past src mod 4K at %s %.2f", sz(sizes[lo], b), rnear);
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
static int tune_stream_method(struct cwb_engine *e, const struct tune_opts *t, struct found *f,
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
        say("streaming method", i + 1, ns + 1);
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
    size_t len = (size_t)snprintf(f->why[5], sizeof f->why[5], "rep movsb/streaming stores cold:");
    for (size_t i = 0; i < ns && len < sizeof f->why[5]; i++)
        len += (size_t)snprintf(f->why[5] + len, sizeof f->why[5] - len, " %s %.2f",
                                sz(sizes[i], b), ratio[i]);
    if (pick == ns)
        return 0;
    /* what each leaves of an L2 victim after a copy of the chosen size */
    size_t vbytes = cpu->l2_size != 0 ? cpu->l2_size / 4 : 256 * KiB, n = sizes[pick];
    struct cwb_victim v;
    unsigned char *src = cwb_alloc_huge(n), *dst = cwb_alloc_huge(n);
    uint64_t rng = 11;
    if (src == NULL || dst == NULL || cwb_victim_make(&v, vbytes, &rng) != 0)
        return -1;
    say("streaming method", ns + 1, ns + 1);
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
        snprintf(f->why[5] + len, sizeof f->why[5] - len, "; evicted of a %s victim after %s: "
                 "rep movsb %.3f, streaming stores %.3f%s", sz(vbytes, b), sz(n, b2), ev_rep,
                 ev_nt, keeps ? "" : " (rep movsb evicts more: kept streaming stores)");
    return 0;
}
#endif

#ifdef TUNE_PREFETCH
/* ---- 4. CW_SRC_NOREUSE: speed, and what an L2-resident victim loses ------ */

static int tune_src_noreuse(struct cwb_engine *e, const struct tune_opts *t, struct found *f,
                            const struct cw_info *cpu)
{
    int nmode = cpu->clflushopt ? 4 : 2;
    struct tune_cand c[4];
    for (int m = 0; m < nmode; m++) {
        struct tune_policy p = f->pol;
        p.v[TK_SRC_NOREUSE] = (size_t)m;
        tune_cand_set(&c[m], tune_value_name(TK_SRC_NOREUSE, (size_t)m), op_src_noreuse,
                      &p);
    }
    struct cwb_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.state = CWB_COLD;
    sp.size = t->quick ? 1 * MiB : 16 * MiB;
    struct tune_cell cl;
    say("CW_SRC_NOREUSE speed", 1, 2);
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
    say("CW_SRC_NOREUSE pollution", 2, 2);
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
    size_t len = (size_t)snprintf(f->why[3], sizeof f->why[3],
                                  "cold %s GB/s, evicted fraction of a %s victim after %s",
                                  sz(sp.size, b), sz(vbytes, b2), sz(sizes[0], b3));
    if (nsizes > 1)
        len += (size_t)snprintf(f->why[3] + len, sizeof f->why[3] - len, "|%s",
                                sz(sizes[1], b3));
    len += (size_t)snprintf(f->why[3] + len, sizeof f->why[3] - len, " (background %.3f",
                            ev.background[0]);
    if (nsizes > 1)
        len += (size_t)snprintf(f->why[3] + len, sizeof f->why[3] - len, "|%.3f",
                                ev.background[1]);
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
/* 5. A persist of a few aligned words: movnti, or store + write-back. */
static int tune_persist(struct cwb_engine *e, struct found *f, const struct cw_info *cpu)
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
        say("small persists", i + 1, 3);
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

#else
/* The decisions this architecture's kernels have no instruction for (the
 * comment at the top), not measured: the values of the policy in force
 * stay, rep movsb is off (the library turns it off without ERMS anyway),
 * and each evidence line says why. */
static void keep_unmeasured(struct found *f)
{
    static const struct { int k, prefetch; const char *what; } kept[] = {
        {0, 1, "its kernels have no software prefetch; the profile's values kept"},
        {2, 0, "rep movsb is an x86 instruction; off, the window kept at the profile's value"},
        {3, 1, "its kernels have no source prefetch or flush; the profile's values kept"},
        {4, 0, "its choice is between x86 instructions (movnti, clwb); the profile's value "
               "kept"},
        {5, 0, "rep movsb is an x86 instruction; streaming stores"},
        {7, 0, "its row has one temporal copy kernel for every size; the profile's value "
               "kept"},
        {8, 0, "its entries copy nothing themselves; the profile's value kept"},
        {9, 0, "its row has one temporal copy kernel for every size; the profile's value "
               "kept"},
    };
    f->pol.v[TK_REP_MOVSB] = REP_OFF;
    f->pol.v[TK_STREAM_METHOD] = STREAM_NT;
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
#ifdef TUNE_PREFETCH
        if (kept[i].prefetch)
            continue; /* measured here */
#endif
        snprintf(f->why[kept[i].k], sizeof f->why[kept[i].k], "not measured on %s: %s",
                 CWB_ARCH_NAME, kept[i].what);
    }
}
#endif

/* ---- output ------------------------------------------------------------------ */

int cwb_cmd_tune(const struct tune_opts *t, const struct cwb_opts *o)
{
    double t_start = cwb_now();
    const struct cw_info *in = cw_get_info();
    /* the CPU's features and caches: cw_info's */
    const struct cw_info *cpu = in;
    struct tune_policy builtin;
    struct found f;
    memset(&f, 0, sizeof f);
    /* start from the policy in force (CACHEWISE_TUNING=generic: generic);
     * beside it, the CPU's own profile */
    if (tune_policy_read(&f.pol, in->settings, in->n_settings) != 0 ||
        tune_policy_read(&builtin, in->cpu_profile_settings, in->n_settings) != 0)
        return 1;
    size_t pool = t->quick ? 16 * MiB : 4 * cwb_llc_bytes();
    if (pool < 4 * t->big)
        pool = 4 * t->big;
    if (pool > 1024 * MiB)
        pool = 1024 * MiB;
    struct cwb_engine e;
    if (cwb_engine_open(&e, pool, o->samples ? o->samples : t->quick ? 3 : 21, o) != 0)
        return 1;
    cwb_emulation_banner(stdout, 1);
    printf("cwbench tune: %s (%s family %u model %u), implementation %s; starting from "
           "profile %s (%s)\n", in->cpu_model, in->cpu_vendor, in->cpu_family,
           in->cpu_model_number, in->impl, in->profile, in->tuning);
    fflush(stdout);
    int rc = 0;
#if defined(TUNE_X86)
    if (tune_prefetch(&e, t, &f) != 0 || tune_threshold(&e, t, &f) != 0 ||
        tune_rep(&e, t, &f, cpu->erms != 0) != 0 ||
        tune_stream_method(&e, t, &f, cpu) != 0 ||
        tune_src_noreuse(&e, t, &f, cpu) != 0 || tune_persist(&e, &f, cpu) != 0 ||
        tune_memcpy_mid(&e, &f.pol, f.why[7], sizeof f.why[7]) != 0 ||
        tune_memcpy_inline(&e, &f.pol, f.why[8], sizeof f.why[8]) != 0 ||
        tune_memcpy_lines(&e, &f.pol, f.why[9], sizeof f.why[9]) != 0) {
#elif defined(TUNE_PREFETCH)
    keep_unmeasured(&f);
    if (tune_prefetch(&e, t, &f) != 0 || tune_threshold(&e, t, &f) != 0 ||
        tune_src_noreuse(&e, t, &f, cpu) != 0) {
#else
    keep_unmeasured(&f);
    if (tune_threshold(&e, t, &f) != 0) {
#endif
        fprintf(stderr, "cwbench tune: a measurement failed\n");
        rc = 1;
    }
    /* the thread count under the policy measured so far */
    tune_policy_apply(&f.pol);
    if (rc == 0 && tune_parallel_threads(&e, t, &f.pol.v[TK_PARALLEL_THREADS], f.why[6],
                                         sizeof f.why[6]) != 0) {
        fprintf(stderr, "cwbench tune: a measurement failed\n");
        rc = 1;
    }
    cwb_engine_free(&e);
    cw_settings_restore();
    if (rc != 0)
        return rc;

    char vf[TUNE_N_KEYS][32], vb[TUNE_N_KEYS][32];
    tune_policy_rows(&f.pol, vf);
    tune_policy_rows(&builtin, vb);
    printf("\n%-26s %-14s %-14s %s\n", "setting", "measured", in->cpu_profile, "");
    for (int k = 0; k < TUNE_N_KEYS; k++)
        printf("%-26s %-14s %-14s %s\n", tune_keys[k], vf[k], vb[k],
               strcmp(vf[k], vb[k]) == 0 ? "" : "differs");
    printf("\nevidence (each line: the candidates interleaved in one run, medians):\n");
    static const char *const what[10] = {"streaming prefetch",
                                         "streaming threshold",
                                         "rep movsb",
                                         "CW_SRC_NOREUSE",
                                         "small persists",
                                         "streaming method",
                                         "parallel threads",
                                         "cw_memcpy past its own copy",
                                         "cw_memcpy's own copy",
                                         "cw_memcpy's stores across two lines"};
    for (int k = 0; k < 10; k++)
        if (f.why[k][0] != '\0')
            printf("  %s: %s\n", what[k], f.why[k]);
    if (cwb_emulated(NULL))
        printf("\nmeasured under an emulator: these values mean nothing (the file is valid, "
               "for tests; do not install it)\n");
    if (t->output != NULL) {
        if (tune_write_file(t->output, vf, f.why, in->profile, in) != 0)
            rc = 1;
    }
    if (t->install != NULL) {
        char path[4200];
        if (tune_install_path(t->install, in, path, sizeof path) != 0 ||
            tune_write_file(path, vf, f.why, in->profile, in) != 0)
            rc = 1;
    }
    printf("total time %.1f s\n", cwb_now() - t_start);
    return rc;
}

const char *tune_size_text(size_t v, char buf[32])
{
    if (v != 0 && v % ((size_t)1 << 20) == 0)
        snprintf(buf, 32, "%zuM", v >> 20);
    else if (v != 0 && v % 1024 == 0)
        snprintf(buf, 32, "%zuK", v >> 10);
    else
        snprintf(buf, 32, "%zu", v);
    return buf;
}
