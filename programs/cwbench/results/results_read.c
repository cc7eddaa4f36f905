/* SPDX-License-Identifier: MIT */
/* cwbench: the reader for result files (cwb_results_read_json), both
 * formats: Google Benchmark's ("context", "benchmarks", plus cwbench's
 * "cwbench_cells"), which cwbench writes, and the "cwbench-results"
 * version 1 files of earlier releases. Unknown keys are skipped so newer
 * files still load; a Google Benchmark file of another program reads as
 * one cell of times per benchmark name. */
#include "results/json_parse.h"
#include "results/results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cell_ctx {
    struct cwb_cell c;
    double *cpu;
    size_t ncpu;
    double n_decl;
    double index;           /* "index" of a "cwbench_cells" entry, -1 when absent */
    int have_n, have_samples, have_cpu, have_routine, have_size;
};

static int cell_member(struct cwbj *j, const char *key, void *vctx)
{
    struct cell_ctx *x = vctx;
    double v;
    if (strcmp(key, "routine") == 0) {
        x->have_routine = 1;
        return cwbj_field(j, key, x->c.routine, sizeof x->c.routine);
    }
    if (strcmp(key, "bench") == 0)
        return cwbj_field(j, key, x->c.bench, sizeof x->c.bench);
    if (strcmp(key, "state") == 0)
        return cwbj_field(j, key, x->c.state, sizeof x->c.state);
    if (strcmp(key, "unit") == 0)
        return cwbj_field(j, key, x->c.unit, sizeof x->c.unit);
    if (strcmp(key, "size") == 0) {
        if (cwbj_integer(j, key, 0, 9007199254740992.0, &v) < 0)
            return -1;
        x->c.size = (size_t)v;
        x->have_size = 1;
        return 0;
    }
    if (strcmp(key, "src_off") == 0 || strcmp(key, "dst_off") == 0) {
        if (cwbj_integer(j, key, -2147483648.0, 2147483647.0, &v) < 0)
            return -1;
        *(key[0] == 's' ? &x->c.src_off : &x->c.dst_off) = (int)v;
        return 0;
    }
    if (strcmp(key, "higher_is_better") == 0)
        return cwbj_bool(j, &x->c.higher_is_better);
    if (strcmp(key, "index") == 0)
        return cwbj_integer(j, key, 0, 9007199254740992.0, &x->index);
    if (strcmp(key, "n") == 0) {
        x->have_n = 1;
        return cwbj_integer(j, key, 0, 9007199254740992.0, &x->n_decl);
    }
    if (strcmp(key, "samples") == 0 || strcmp(key, "cpu_samples") == 0) {
        int cpu = key[0] == 'c';
        if ((cpu ? x->have_cpu : x->have_samples))
            return cwbj_fail(j, "duplicate \"%s\"", key);
        if (cpu && cwbj_peek(j) == 'n' && cwbj_literal(j, "null") == 0)
            return 0;
        if (cwbj_peek(j) != '[')
            return cwbj_fail(j, "\"%s\" must be an array of numbers", key);
        if (cpu) {
            x->have_cpu = 1;
            return cwbj_doubles(j, &x->cpu, &x->ncpu);
        }
        x->have_samples = 1;
        return cwbj_doubles(j, &x->c.samples, &x->c.n);
    }
    return cwbj_skip(j);  /* "summary" is recomputed, not trusted */
}

struct order { double *key; size_t n, cap; int failed; };

/* Where a cell read goes in the run's order: the writer splits cells
 * between "benchmarks" and "cwbench_cells", and numbers them. */
static void order_note(struct order *o, double key)
{
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 64;
        double *k = realloc(o->key, cap * sizeof *k);
        if (!k) {
            o->failed = 1;
            return;
        }
        o->key = k;
        o->cap = cap;
    }
    o->key[o->n++] = key;
}

struct cells_ctx { struct cwb_results *r; struct order *ord; };

/* One element of "cells" (cwbj_array). */
static int cell_element(struct cwbj *j, void *vctx)
{
    const struct cells_ctx *cx = vctx;
    struct cwb_results *r = cx->r;
    struct cell_ctx x;
    memset(&x, 0, sizeof x);
    x.index = -1;
    int line = j->line;
    if (cwbj_peek(j) != '{')
        return cwbj_fail(j, "expected a cell object");
    int rc = cwbj_object(j, cell_member, &x);
    const char *missing = !x.have_routine ? "routine" : !x.have_size ? "size"
                          : !x.have_samples ? "samples" : NULL;
    if (rc == 0) {
        /* Semantic errors point at the start of the cell. */
        int end_line = j->line;
        j->line = line;
        if (missing)
            rc = cwbj_fail(j, "cell without \"%s\"", missing);
        else if (x.have_n && x.n_decl != (double)x.c.n)
            rc = cwbj_fail(j, "cell has \"n\": %.0f but %zu samples", x.n_decl, x.c.n);
        else if (x.have_cpu && x.ncpu != x.c.n)
            rc = cwbj_fail(j, "cell has %zu cpu_samples for %zu samples", x.ncpu, x.c.n);
        else if (!cwb_results_add(r, &x.c, x.c.samples, x.have_cpu ? x.cpu : NULL, x.c.n))
            rc = cwbj_fail(j, "out of memory");
        else
            order_note(cx->ord, x.index >= 0 ? x.index : 1e18 + (double)r->n_cells);
        if (rc == 0)
            j->line = end_line;
    }
    free(x.c.samples);
    free(x.cpu);
    return rc < 0 ? -1 : 0;
}

static int meta_member(struct cwbj *j, const char *key, void *vctx)
{
    struct cwb_results *r = vctx;
    char *v;
    if (cwbj_peek(j) != '"')
        return cwbj_fail(j, "meta value \"%s\" must be a string", key);
    if (cwbj_string(j, &v) < 0)
        return -1;
    cwb_results_meta(r, key, v);
    free(v);
    return 0;
}

/* ---- Google Benchmark's "benchmarks" ---- */

/* One entry, and the cell its samples are gathered in. */
struct gb_entry {
    char name[256];
    struct cwb_cell c;
    int aggregate, error, have_value, have_cpu_value, have_real, have_cpu, have_fields;
    double value, cpu_value, real, cpu, scale, cell;
};

struct gb_cell { char name[256]; struct cwb_cell c; double *x, *cpu; size_t n, cap; int any_cpu;
                 double cell; };

struct gb_ctx { struct gb_cell *cells; size_t n, cap; };

static int gb_entry_member(struct cwbj *j, const char *key, void *vctx)
{
    struct gb_entry *e = vctx;
    char tmp[32];
    if (strcmp(key, "name") == 0 || strcmp(key, "run_name") == 0) {
        /* run_name when present: an aggregate's name has a suffix */
        if (key[0] == 'r' || e->name[0] == 0)
            return cwbj_field(j, key, e->name, sizeof e->name);
        return cwbj_skip(j);
    }
    if (strcmp(key, "run_type") == 0) {
        if (cwbj_field(j, key, tmp, sizeof tmp) < 0)
            return -1;
        e->aggregate = strcmp(tmp, "aggregate") == 0;
        return 0;
    }
    if (strcmp(key, "error_occurred") == 0)
        return cwbj_bool(j, &e->error);
    if (strcmp(key, "time_unit") == 0) {
        if (cwbj_field(j, key, tmp, sizeof tmp) < 0)
            return -1;
        e->scale = strcmp(tmp, "s") == 0 ? 1e9 : strcmp(tmp, "ms") == 0 ? 1e6
                 : strcmp(tmp, "us") == 0 ? 1e3 : strcmp(tmp, "ns") == 0 ? 1 : NAN;
        return isnan(e->scale) ? cwbj_fail(j, "unknown \"time_unit\" \"%s\"", tmp) : 0;
    }
    if (strcmp(key, "real_time") == 0 || strcmp(key, "cpu_time") == 0) {
        int *have = key[0] == 'r' ? &e->have_real : &e->have_cpu;
        *have = 1;
        return cwbj_number(j, key[0] == 'r' ? &e->real : &e->cpu, 1);
    }
    if (strcmp(key, "value") == 0 || strcmp(key, "cpu_value") == 0) {
        int *have = key[0] == 'v' ? &e->have_value : &e->have_cpu_value;
        *have = 1;
        return cwbj_number(j, key[0] == 'v' ? &e->value : &e->cpu_value, 1);
    }
    if (strcmp(key, "cwbench_cell") == 0)
        return cwbj_integer(j, key, 0, 9007199254740992.0, &e->cell);
    if (strcmp(key, "routine") == 0)
        e->have_fields = 1;
    /* bench, routine, state, unit, size, src_off, dst_off,
     * higher_is_better: as in a version 1 cell */
    static const char *const cell_keys[] = {"bench", "routine", "state", "unit", "size",
                                            "src_off", "dst_off", "higher_is_better"};
    for (size_t k = 0; k < sizeof cell_keys / sizeof cell_keys[0]; k++)
        if (strcmp(key, cell_keys[k]) == 0) {
            struct cell_ctx x;
            memset(&x, 0, sizeof x);
            x.c = e->c;
            if (cell_member(j, key, &x) < 0)
                return -1;
            e->c = x.c;
            return 0;
        }
    return cwbj_skip(j);
}

static struct gb_cell *gb_cell_for(struct gb_ctx *g, const struct gb_entry *e)
{
    for (size_t i = g->n; i > 0; i--)
        if (strcmp(g->cells[i - 1].name, e->name) == 0)
            return &g->cells[i - 1];
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 32;
        struct gb_cell *c = realloc(g->cells, cap * sizeof *c);
        if (!c)
            return NULL;
        g->cells = c;
        g->cap = cap;
    }
    struct gb_cell *c = &g->cells[g->n++];
    memset(c, 0, sizeof *c);
    memcpy(c->name, e->name, sizeof c->name);
    c->c = e->c;
    c->cell = e->cell;
    if (!e->have_fields) {
        /* another program's benchmark: its times, in ns, lower is better */
        snprintf(c->c.bench, sizeof c->c.bench, "gbench");
        snprintf(c->c.routine, sizeof c->c.routine, "%.*s", (int)sizeof c->c.routine - 1,
                 e->name); /* a longer name is cut: two such cells then match by order */
        snprintf(c->c.unit, sizeof c->c.unit, "ns");
        c->c.higher_is_better = 0;
    }
    return c;
}

static int gb_add(struct cwbj *j, struct gb_ctx *g, const struct gb_entry *e)
{
    if (e->aggregate || e->error)
        return 0; /* recomputed from the repetitions, or no measurement */
    if (e->name[0] == 0)
        return cwbj_fail(j, "benchmark without \"name\"");
    if (!e->have_value && (!e->have_real || isnan(e->scale)))
        return cwbj_fail(j, "benchmark \"%.60s\" without \"real_time\" and \"time_unit\"",
                         e->name);
    struct gb_cell *c = gb_cell_for(g, e);
    if (c != NULL && c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        double *x = realloc(c->x, cap * sizeof *x), *cpu = x ? realloc(c->cpu, cap * sizeof *cpu)
                                                              : NULL;
        if (x)
            c->x = x;
        if (cpu)
            c->cpu = cpu;
        c->cap = x && cpu ? cap : c->cap;
    }
    if (c == NULL || c->n == c->cap)
        return cwbj_fail(j, "out of memory");
    if (e->have_fields) {
        c->x[c->n] = e->have_value ? e->value : NAN;
        c->cpu[c->n] = e->have_cpu_value ? e->cpu_value : NAN;
        c->any_cpu |= e->have_cpu_value;
    } else {
        c->x[c->n] = e->real * e->scale;
        c->cpu[c->n] = e->have_cpu ? e->cpu * e->scale : NAN;
        c->any_cpu |= e->have_cpu;
    }
    c->n++;
    return 0;
}

/* One element of "benchmarks" (cwbj_array). */
static int benchmark_element(struct cwbj *j, void *vctx)
{
    struct gb_ctx *g = vctx;
    struct gb_entry e;
    memset(&e, 0, sizeof e);
    e.scale = NAN;
    e.cell = -1;
    e.c.src_off = e.c.dst_off = 0;
    int line = j->line;
    if (cwbj_peek(j) != '{')
        return cwbj_fail(j, "expected a benchmark object");
    if (cwbj_object(j, gb_entry_member, &e) < 0)
        return -1;
    int end_line = j->line;
    j->line = line; /* a missing field points at its entry */
    if (gb_add(j, g, &e) < 0)
        return -1;
    j->line = end_line;
    return 0;
}

static void gb_free(struct gb_ctx *g)
{
    for (size_t i = 0; i < g->n; i++) {
        free(g->cells[i].x);
        free(g->cells[i].cpu);
    }
    free(g->cells);
}

/* Context values that are text, numbers (as written) or booleans become
 * metadata; arrays and objects (caches, load_avg) are left out. */
static int context_member(struct cwbj *j, const char *key, void *vctx)
{
    struct cwb_results *r = vctx;
    int c = cwbj_peek(j), b;
    char num[64];
    if (c == '"')
        return meta_member(j, key, vctx);
    if (c == '-' || (c >= '0' && c <= '9')) {
        if (cwbj_number_text(j, num, sizeof num) < 0)
            return -1;
        if (strcmp(key, "cwbench_format_version") == 0 && strtod(num, NULL) > CWB_RESULTS_VERSION)
            return cwbj_fail(j, "unsupported cwbench format version %s (this cwbench reads up "
                             "to %d)", num, CWB_RESULTS_VERSION);
        cwb_results_meta(r, key, num);
        return 0;
    }
    if (c == 't' || c == 'f') {
        if (cwbj_bool(j, &b) < 0)
            return -1;
        cwb_results_meta(r, key, b ? "true" : "false");
        return 0;
    }
    return cwbj_skip(j);
}

/* ---- the top level ---- */

struct top_ctx { struct cwb_results *r; int have_format, have_cells, have_benchmarks, have_gb;
                 struct gb_ctx gb; struct order ord; };

static int top_member(struct cwbj *j, const char *key, void *vctx)
{
    struct top_ctx *t = vctx;
    if (strcmp(key, "format") == 0) {
        char *s;
        if (cwbj_peek(j) != '"')
            return cwbj_fail(j, "\"format\" must be a string");
        if (cwbj_string(j, &s) < 0)
            return -1;
        int ok = strcmp(s, "cwbench-results") == 0;
        free(s);
        if (!ok)
            return cwbj_fail(j, "not a cwbench results file (format is not \"cwbench-results\")");
        t->have_format = 1;
        return 0;
    }
    if (strcmp(key, "version") == 0) {
        double v;
        if (cwbj_number(j, &v, 0) < 0)
            return -1;
        if (v != 1)
            return cwbj_fail(j, "unsupported version %g (this cwbench reads version 1)", v);
        return 0;
    }
    if (strcmp(key, "meta") == 0) {
        if (cwbj_peek(j) != '{')
            return cwbj_fail(j, "\"meta\" must be an object");
        return cwbj_object(j, meta_member, t->r);
    }
    if (strcmp(key, "context") == 0) {
        if (cwbj_peek(j) != '{')
            return cwbj_fail(j, "\"context\" must be an object");
        t->have_gb = 1;
        return cwbj_object(j, context_member, t->r);
    }
    if (strcmp(key, "cells") == 0 || strcmp(key, "cwbench_cells") == 0) {
        int bit = strcmp(key, "cells") == 0 ? 1 : 2;
        if (t->have_cells & bit)
            return cwbj_fail(j, "duplicate \"%s\"", key);
        t->have_cells |= bit;
        struct cells_ctx cx = {t->r, &t->ord};
        return cwbj_array(j, cell_element, &cx);
    }
    if (strcmp(key, "benchmarks") == 0) {
        if (t->have_benchmarks)
            return cwbj_fail(j, "duplicate \"benchmarks\"");
        t->have_benchmarks = t->have_gb = 1;
        return cwbj_array(j, benchmark_element, &t->gb);
    }
    return cwbj_skip(j);
}

/* The gathered benchmark cells into r, then every cell in the run's order
 * (the "cwbench_cell" and "index" numbers; unnumbered ones last, in the
 * order read). */
static int finish(struct top_ctx *t)
{
    struct cwb_results *r = t->r;
    for (size_t i = 0; i < t->gb.n; i++) {
        struct gb_cell *c = &t->gb.cells[i];
        if (!cwb_results_add(r, &c->c, c->x, c->any_cpu ? c->cpu : NULL, c->n))
            return -1;
        order_note(&t->ord, c->cell >= 0 ? c->cell : 1e18 + (double)r->n_cells);
    }
    if (t->ord.failed || t->ord.n != r->n_cells)
        return -1;
    /* insertion sort: stable, and the cells are nearly in order */
    for (size_t i = 1; i < r->n_cells; i++) {
        struct cwb_cell c = r->cells[i];
        double k = t->ord.key[i];
        size_t m = i;
        for (; m > 0 && t->ord.key[m - 1] > k; m--) {
            r->cells[m] = r->cells[m - 1];
            t->ord.key[m] = t->ord.key[m - 1];
        }
        r->cells[m] = c;
        t->ord.key[m] = k;
    }
    return 0;
}

int cwb_results_read_json(struct cwb_results *r, const char *path, char *err, size_t errcap)
{
    cwb_results_free(r);
    size_t n;
    char *buf = cwbj_slurp(path, &n, err, errcap);
    if (!buf)
        return -1;
    struct cwbj j = {buf, buf + n, path, 1, 0, 0, err, errcap};
    struct top_ctx t;
    memset(&t, 0, sizeof t);
    t.r = r;
    int rc;
    if (cwbj_peek(&j) < 0) {
        rc = cwbj_fail(&j, "empty file");
    } else if (cwbj_peek(&j) != '{') {
        rc = cwbj_fail(&j, "not a cwbench results file (expected '{')");
    } else {
        rc = cwbj_object(&j, top_member, &t);
        if (rc == 0 && cwbj_peek(&j) >= 0)
            rc = cwbj_fail(&j, "unexpected text after the end of the results");
        if (rc == 0 && !t.have_format && !t.have_gb)
            rc = cwbj_fail(&j, "not a cwbench results file (no \"format\": \"cwbench-results\", "
                           "no \"benchmarks\")");
        if (rc == 0 && t.have_format && !(t.have_cells & 1))
            rc = cwbj_fail(&j, "no \"cells\" array");
        if (rc == 0 && !t.have_format && !t.have_benchmarks)
            rc = cwbj_fail(&j, "no \"benchmarks\" array");
        if (rc == 0 && finish(&t) != 0)
            rc = cwbj_fail(&j, "out of memory");
    }
    gb_free(&t.gb);
    free(t.ord.key);
    free(buf);
    if (rc < 0)
        cwb_results_free(r);
    return rc;
}
