/* SPDX-License-Identifier: MIT */
/* cwbench tune: the tuner's policy as a tuning file's settings, read from
 * cw_get_info() and put in force with cw_settings_apply(), and the
 * candidates and cells its decisions measure (decide_copy_kernels.c,
 * decide_hints.c, tune_entry.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/format.h"
#include "engine/fresh.h"
#include "tune/candidates.h"

static const char *const rep_names[] = {"off", "aligned", "align-dst", "align-dst-far", NULL};
static const char *const hint_name[] = {"t0", "t1", "t2", "nta", NULL};
static const char *const stream_names[] = {"nt-stores", "rep-movsb", NULL};
static const char *const src_names[] = {"none", "prefetchnta", "flush", "both", NULL};
static const char *const persist_names[] = {"movnti", "clwb", NULL};
static const char *const mid_names[] = {"ladder", "direct", "direct-lines", NULL};
static const char *const inline_names[] = {"32", "64", NULL};
/* each key's names, NULL for a byte or thread count */
static const char *const *const key_names[TUNE_N_KEYS] = {
    [TK_REP_MOVSB] = rep_names,     [TK_STREAM_HINT] = hint_name,
    [TK_STREAM_METHOD] = stream_names, [TK_SRC_NOREUSE] = src_names,
    [TK_PERSIST_SMALL] = persist_names, [TK_MEMCPY_MID] = mid_names,
    [TK_MEMCPY_INLINE] = inline_names};

const char *tune_value_name(int key, size_t value)
{
    return key_names[key][value];
}

/* The policy as "key value" pairs in the tuning file's spelling, in the
 * order of tune_keys. */
void tune_policy_rows(const struct tune_policy *p, char v[TUNE_N_KEYS][32])
{
    char b[32];
    for (int k = 0; k < TUNE_N_KEYS; k++)
        snprintf(v[k], 32, "%s",
                 key_names[k] != NULL ? key_names[k][p->v[k]] : tune_size_text(p->v[k], b));
}

/* The policy settings[] (cw_get_info()'s, or its CPU's profile's) give. */
int tune_policy_read(struct tune_policy *p, const struct cw_setting *settings, int n)
{
    memset(p, 0, sizeof *p);
    for (int k = 0; k < TUNE_N_KEYS; k++) {
        int i = 0;
        while (i < n && strcmp(settings[i].name, tune_keys[k]) != 0)
            i++;
        int ok = i < n && key_names[k] == NULL && cwb_parse_size(settings[i].value, &p->v[k]) == 0;
        for (size_t j = 0; i < n && key_names[k] != NULL && key_names[k][j] != NULL; j++)
            if (strcmp(key_names[k][j], settings[i].value) == 0) {
                p->v[k] = j;
                ok = 1;
            }
        if (!ok) {
            fprintf(stderr, "cwbench tune: the library's setting %s is %s\n", tune_keys[k],
                    i == n ? "missing" : settings[i].value);
            return -1;
        }
    }
    return 0;
}

/* The policy in force for every entry point, as a tuning file's lines. */
void tune_policy_apply(const struct tune_policy *p)
{
    char v[TUNE_N_KEYS][32], text[TUNE_N_KEYS * 64], err[200];
    tune_policy_rows(p, v);
    size_t len = 0;
    for (int k = 0; k < TUNE_N_KEYS; k++)
        len += (size_t)snprintf(text + len, sizeof text - len, "%s = %s\n", tune_keys[k], v[k]);
    if (cw_settings_apply(text, err, sizeof err) != 0) {
        fprintf(stderr, "cwbench tune: the library refused a candidate policy: %s\n", err);
        exit(1);
    }
}


/* The candidate's policy in force before its batch. */
static void cand_prepare(const void *ctx)
{
    tune_policy_apply(&((const struct tune_cand *)ctx)->pol);
}

void tune_cand_set(struct tune_cand *c, const char *name, cwb_copy_fn op,
                   const struct tune_policy *pol)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    c->pol = *pol;
    c->rt.name = c->name;
    c->rt.what = c->name;
    c->rt.fn = op;
    c->rt.prepare = cand_prepare;
    c->rt.ctx = c;
}

void tune_cand_pair(struct tune_cand c[2], const struct tune_policy *base, int key,
                    cwb_copy_fn op)
{
    for (size_t v = 0; v < 2; v++) {
        struct tune_policy p = *base;
        p.v[key] = v;
        tune_cand_set(&c[v], tune_value_name(key, v), op, &p);
    }
}


/* out from the nc runs of one cell (rc: the measurement's return); frees
 * the runs. */
static int cell_from_runs(int rc, struct tune_cand *c, size_t nc, struct cwb_run *runs,
                          struct tune_cell *out)
{
    double *x[TUNE_MAX_CANDS];
    out->ok = rc == 0;
    for (size_t i = 0; i < nc; i++) {
        x[i] = malloc((runs[i].n + 1) * sizeof(double));
        if (x[i] == NULL || runs[i].n == 0) {
            out->ok = 0;
            continue;
        }
        cwb_run_gbps(&runs[i], x[i], NULL);
        out->med[i] = cwb_run_median_gbps(&runs[i]);
    }
    for (size_t i = 0; out->ok && i < nc; i++)
        if (cwb_compare(x[0], runs[0].n, x[i], runs[i].n, 0.05, &out->vs0[i]) != 0)
            out->ok = 0;
    memset(out->faster, 0, sizeof out->faster);
    for (size_t i = 0; out->ok && i < nc; i++)
        for (size_t j = 0; out->ok && j < nc; j++) {
            struct cwb_cmp ij; /* ratio i / j */
            if (i == j)
                continue;
            if (cwb_compare(x[j], runs[j].n, x[i], runs[i].n, 0.05, &ij) != 0)
                out->ok = 0;
            else
                out->faster[i][j] = cwb_cmp_direction(&ij, 1) > 0;
        }
    for (size_t i = 0; i < nc; i++) {
        if (runs[i].failed)
            fprintf(stderr, "cwbench tune: %s: %s\n", c[i].name, runs[i].err);
        free(x[i]);
        cwb_run_free(&runs[i]);
    }
    return out->ok ? 0 : -1;
}

int tune_measure_cell(struct cwb_engine *e, const struct cwb_spec *sp, struct tune_cand *c,
                      size_t nc, struct tune_cell *out)
{
    const struct cwb_routine *rt[TUNE_MAX_CANDS] = {NULL};
    struct cwb_run runs[TUNE_MAX_CANDS];
    for (size_t i = 0; i < nc; i++)
        rt[i] = &c[i].rt;
    return cell_from_runs(cwb_measure(e, sp, rt, nc, runs), c, nc, runs, out);
}

int tune_measure_dist_cell(struct cwb_engine *e, const struct cwb_dist *d, uint64_t seed,
                           struct tune_cand *c, size_t nc, struct tune_cell *out)
{
    const struct cwb_routine *rt[TUNE_MAX_CANDS] = {NULL};
    struct cwb_run runs[TUNE_MAX_CANDS];
    struct cwb_spec sp[TUNE_MAX_CANDS];
    size_t maxn = 0;
    for (size_t i = 0; i < d->n; i++)
        maxn = d->sizes[i] > maxn ? d->sizes[i] : maxn;
    size_t region = cwb_random_region(maxn, e->pool); /* as cwbench --ab --state random */
    memset(sp, 0, sizeof sp);
    for (size_t i = 0; i < nc; i++) {
        rt[i] = &c[i].rt;
        sp[i].state = CWB_RANDOM;
        sp[i].size = (size_t)(d->mean_size + 0.5);
        sp[i].region = region;
        sp[i].src_off = sp[i].dst_off = -1;
    }
    int wrapped = 0;
    int rc = cwb_measure_dist(e, sp, rt, nc, d, region - maxn + 1, seed, runs, &wrapped);
    return cell_from_runs(rc, c, nc, runs, out);
}

int tune_measure_random_cell(struct cwb_engine *e, size_t n, uint64_t seed, struct tune_cand *c,
                             size_t nc, struct tune_cell *out)
{
    struct cwb_dist d;
    if (cwb_dist_fixed(&d, n) != 0) {
        fprintf(stderr, "cwbench tune: out of memory for the calls\n");
        out->ok = 0;
        return -1;
    }
    int rc = tune_measure_dist_cell(e, &d, seed, c, nc, out);
    cwb_dist_free(&d);
    return rc;
}

struct cwb_spec tune_hot_spec(size_t n, int soff, int doff)
{
    struct cwb_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.state = CWB_HOT;
    sp.size = n;
    sp.src_off = soff;
    sp.dst_off = doff;
    return sp;
}

