/* SPDX-License-Identifier: MIT */
/* `cwbench tune`, decisions 8, 9 and 10: cw_memcpy's small copies on x86,
 * the copies it makes itself (memcpy_inline), the kernels it jumps to past
 * them (memcpy_mid: ladder or direct), and their shape (memcpy_mid: direct
 * or direct-lines). Each compares the library's cw_memcpy under two values
 * of its setting, interleaved like the other decisions' candidates. */
#include <math.h>
#include <stdio.h>

#include "tune/candidates.h"
#include "tune/decide.h"
#include "tune/tune_entry.h"
#include "cachewise.h"

#if defined(__x86_64__)

static void *op_memcpy(void *d, const void *s, size_t n)
{
    return cw_memcpy(d, s, n);
}

/* Both decisions' vote between value 0 and value 1 of their setting: the
 * cells where value 1 was significantly faster (hi) or slower (lo), and
 * the geomean of its ratios. */
struct vote {
    int hi, lo;
    double log_sum;
    size_t cells;
};

static void vote_add(struct vote *v, const struct tune_cell *cl)
{
    v->hi += cl->vs0[1].significant && cl->vs0[1].ratio > 1;
    v->lo += cl->vs0[1].significant && cl->vs0[1].ratio < 1;
    v->log_sum += log(cl->vs0[1].ratio);
    v->cells++;
}

/* The side significantly faster in more cells, by a geomean on its side of
 * 1, wins pol's key: value[1] or value[0] of the enumerated setting;
 * else the value in force stays. The tally goes to why + len. */
static void vote_decide_values(const struct vote *v, struct tune_policy *pol, int key,
                               const size_t value[2], char *why, size_t cap, size_t len)
{
    double geomean = exp(v->log_sum / (double)v->cells);
    if (len < cap)
        snprintf(why + len, cap - len, "; geomean %.3f, significantly faster: %s %d, %s %d",
                 geomean, tune_value_name(key, value[1]), v->hi, tune_value_name(key, value[0]),
                 v->lo);
    if (v->hi > v->lo && geomean > 1)
        pol->v[key] = value[1];
    else if (v->lo > v->hi && geomean < 1)
        pol->v[key] = value[0];
}

/* The hot cells sizes x offs (source and destination offsets) of c[0] and
 * c[1], each added to v and its ratio written to why from *len, which it
 * advances; phase names the progress lines. 0, or -1 when a measurement
 * failed. */
static int vote_hot_grid(struct cwb_engine *e, struct tune_cand c[2], const size_t *sizes,
                         size_t ns, const int (*offs)[2], size_t no, const char *phase,
                         struct vote *v, char *why, size_t cap, size_t *len)
{
    for (size_t o = 0; o < no; o++) {
        if (*len < cap)
            *len += (size_t)snprintf(why + *len, cap - *len, " %d:%d", offs[o][0], offs[o][1]);
        for (size_t i = 0; i < ns; i++) {
            struct cwb_spec sp = tune_hot_spec(sizes[i], offs[o][0], offs[o][1]);
            struct tune_cell cl;
            tune_say(phase, o * ns + i + 1, no * ns);
            if (tune_measure_cell(e, &sp, c, 2, &cl) != 0)
                return -1;
            vote_add(v, &cl);
            if (*len < cap)
                *len += (size_t)snprintf(why + *len, cap - *len, " %zu B %.2f", sizes[i],
                                         cl.vs0[1].ratio);
        }
    }
    return 0;
}

/* The same between values 0 and 1. */
static void vote_decide(const struct vote *v, struct tune_policy *pol, int key, char *why,
                        size_t cap, size_t len)
{
    static const size_t value[2] = {0, 1};
    vote_decide_values(v, pol, key, value, why, cap, len);
}

/* 8. cw_memcpy between its inline copy and the threshold: the row's
 * ladders, or its kernels with fewer branches (33-128 B in one block,
 * 129 B and up without re-testing what the entry decided). Hot, at an
 * aligned and a misaligned placement, 48 B-1 KiB: the side significantly
 * faster in more cells, by a geomean on its side of 1, wins; else the
 * policy in force stays. */
int tune_memcpy_mid(struct cwb_engine *e, struct tune_policy *pol, char *why, size_t cap)
{
    struct tune_cand c[2];
    tune_cand_pair(c, pol, TK_MEMCPY_MID, op_memcpy); /* ladder, direct */
    static const size_t sizes[] = {48, 80, 112, 160, 256, 512, 576, 768, 1024};
    static const int offs[][2] = {{0, 0}, {5, 37}};
    struct vote v = {0};
    size_t len = (size_t)snprintf(why, cap, "direct/ladder hot:");
    if (vote_hot_grid(e, c, sizes, sizeof sizes / sizeof sizes[0], offs,
                      sizeof offs / sizeof offs[0], "cw_memcpy past its inline copy", &v, why, cap,
                      &len) != 0)
        return -1;
    vote_decide(&v, pol, TK_MEMCPY_MID, why, cap, len);
    return 0;
}

/* 9. The copies cw_memcpy makes itself (memcpy_inline, x86): 32 against
 * 64, hot at 24, 32, 48 and 64 B with both buffers aligned and at
 * src+5/dst+37, and two cells of mixed sizes at random offsets (uniform in
 * 16-64 B and in 1-64 B), where the classes decide which way each call's
 * branches go. The side significantly faster in more of the 10 cells, by a
 * geomean on its side of 1, wins; else the policy in force stays. */
int tune_memcpy_inline(struct cwb_engine *e, struct tune_policy *pol, char *why, size_t cap)
{
    struct tune_cand c[2];
    tune_cand_pair(c, pol, TK_MEMCPY_INLINE, op_memcpy); /* 32, 64 */
    static const size_t sizes[] = {24, 32, 48, 64};
    static const int offs[][2] = {{0, 0}, {5, 37}};
    static const size_t mixes[][2] = {{16, 64}, {1, 64}};
    const size_t ns = sizeof sizes / sizeof sizes[0], no = sizeof offs / sizeof offs[0];
    const size_t nm = sizeof mixes / sizeof mixes[0], ncells = ns * no + nm;
    struct vote v = {0};
    size_t len = (size_t)snprintf(why, cap, "64/32 hot:");
    for (size_t k = 0; k < ncells; k++) {
        struct tune_cell cl;
        tune_say("cw_memcpy's own copies", k + 1, ncells);
        int rc;
        if (k < ns * no) {
            size_t o = k / ns, i = k % ns;
            struct cwb_spec sp = tune_hot_spec(sizes[i], offs[o][0], offs[o][1]);
            if (i == 0 && len < cap)
                len += (size_t)snprintf(why + len, cap - len, " %d:%d", offs[o][0], offs[o][1]);
            rc = tune_measure_cell(e, &sp, c, 2, &cl);
            if (rc == 0 && len < cap)
                len += (size_t)snprintf(why + len, cap - len, " %zu B %.2f", sizes[i],
                                        cl.vs0[1].ratio);
        } else {
            struct cwb_dist d;
            size_t m = k - ns * no;
            if (cwb_dist_uniform(&d, mixes[m][0], mixes[m][1]) != 0)
                return -1;
            rc = tune_measure_dist_cell(e, &d, e->rng + k, c, 2, &cl);
            cwb_dist_free(&d);
            if (rc == 0 && len < cap)
                len += (size_t)snprintf(why + len, cap - len, "%s %zu-%zu B %.2f",
                                        m == 0 ? "; mixed sizes, random offsets:" : "",
                                        mixes[m][0], mixes[m][1], cl.vs0[1].ratio);
        }
        if (rc != 0)
            return -1;
        vote_add(&v, &cl);
    }
    vote_decide(&v, pol, TK_MEMCPY_INLINE, why, cap, len);
    return 0;
}

/* 10. The shape of cw_memcpy's direct kernels (memcpy_mid, x86): direct
 * against direct-lines, whose copies of 9-16 vectors with both buffers off
 * a line run the loop that aligns the destination instead of the straight
 * blocks, and whose loop starts at a line-aligned destination where that
 * stores a vector fewer. Hot at 528, 640, 800 and 1000 B with the source
 * and destination 3 and 13, 1 and 1, 16 and 48, and 32 and 32 bytes past a
 * line (16 cells; the last where the blocks' stores straddle least), and at
 * 1280 and 2048 B with both on a line (2 cells). The side significantly
 * faster in more cells, by a geomean on its side of 1, wins; else the
 * policy in force stays. Not measured where decision 8 left ladder; on a
 * row without the direct-lines kernel (all but avx512-evex) both
 * candidates run one path and the vote ties. */
int tune_memcpy_lines(struct cwb_engine *e, struct tune_policy *pol, char *why, size_t cap)
{
    if (pol->v[TK_MEMCPY_MID] == MID_LADDER) {
        snprintf(why, cap, "not measured: ladder chosen above (direct-lines is a shape of direct)");
        return 0;
    }
    static const size_t value[2] = {MID_DIRECT, MID_DIRECT_LINES};
    struct tune_cand c[2];
    for (size_t i = 0; i < 2; i++) {
        struct tune_policy p = *pol;
        p.v[TK_MEMCPY_MID] = value[i];
        tune_cand_set(&c[i], tune_value_name(TK_MEMCPY_MID, value[i]), op_memcpy, &p);
    }
    static const size_t sizes[] = {528, 640, 800, 1000};
    static const int offs[][2] = {{3, 13}, {1, 1}, {16, 48}, {32, 32}};
    struct vote v = {0};
    size_t len = (size_t)snprintf(why, cap, "direct-lines/direct hot:");
    static const size_t line_sizes[] = {1280, 2048};
    static const int line_offs[][2] = {{0, 0}};
    if (vote_hot_grid(e, c, sizes, sizeof sizes / sizeof sizes[0], offs,
                      sizeof offs / sizeof offs[0], "cw_memcpy's stores across two lines", &v, why,
                      cap, &len) != 0 ||
        vote_hot_grid(e, c, line_sizes, sizeof line_sizes / sizeof line_sizes[0], line_offs,
                      sizeof line_offs / sizeof line_offs[0], "cw_memcpy's loop from a line", &v,
                      why, cap, &len) != 0)
        return -1;
    vote_decide_values(&v, pol, TK_MEMCPY_MID, value, why, cap, len);
    return 0;
}

#endif
