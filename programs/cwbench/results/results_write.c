/* SPDX-License-Identifier: MIT */
/* cwbench: the JSON writer for result files (cwb_results_write_json):
 * Google Benchmark's schema with cwbench's fields as extra keys. */
#include "results/results.h"
#include "results/stats.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- JSON writer ---- */

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* %.17g round-trips every double; JSON has no NaN or infinity, so those
 * become null and read back as NaN. */
static void json_number(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, "%.17g", x);
    else
        fputs("null", f);
}

static void json_array(FILE *f, const double *x, size_t n)
{
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputs(", ", f);
        json_number(f, x[i]);
    }
    fputc(']', f);
}

/* What names a cell, in both views: bench, routine, state, size, offsets,
 * unit and direction. */
static void emit_cell_fields(FILE *f, const struct cwb_cell *c)
{
    fputs("\"bench\": ", f);
    json_string(f, c->bench);
    fputs(", \"routine\": ", f);
    json_string(f, c->routine);
    fputs(", \"state\": ", f);
    json_string(f, c->state);
    fprintf(f, ", \"size\": %zu, \"src_off\": %d, \"dst_off\": %d, \"unit\": ", c->size,
            c->src_off, c->dst_off);
    json_string(f, c->unit);
    fprintf(f, ", \"higher_is_better\": %s", c->higher_is_better ? "true" : "false");
}

/* One cell as today's "cells" entries have it (the cells the Google
 * Benchmark view cannot carry go in "cwbench_cells" this way). */
static void emit_cell(FILE *f, const struct cwb_cell *c, size_t index)
{
    struct cwb_summary s;
    cwb_summarize(c->samples, c->n, &s);
    fprintf(f, "{\"index\": %zu, ", index);
    emit_cell_fields(f, c);
    fprintf(f, ", \"n\": %zu,\n     \"summary\": {", c->n);
    const char *names[] = {"mean", "sd", "cv", "median", "min", "max", "q1", "q3"};
    const double vals[] = {s.mean, s.sd, s.cv, s.median, s.min, s.max, s.q1, s.q3};
    for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++) {
        fprintf(f, "%s\"%s\": ", k ? ", " : "", names[k]);
        json_number(f, vals[k]);
    }
    fputs("},\n     \"samples\": ", f);
    json_array(f, c->samples, c->n);
    if (c->cpu_samples) {
        fputs(",\n     \"cpu_samples\": ", f);
        json_array(f, c->cpu_samples, c->n);
    }
    fputc('}', f);
}

/* ---- the Google Benchmark view ----
 * Google Benchmark's JSON (what its tools/compare.py reads): "context",
 * then "benchmarks" with one "iteration" entry per sample and the
 * aggregates, real_time and cpu_time per operation. cwbench's own fields
 * ride along as extra keys ("bench", "routine", "value" = the sample in
 * the cell's unit, ...) and are what cwbench compare reads back. */

/* Nanoseconds per operation for sample x of c, or NAN when the cell's
 * unit has no time in it (an evicted fraction, cycles) or x gives none
 * (a zero-byte copy, a NaN). */
static double op_ns(const struct cwb_cell *c, double x)
{
    size_t len = strlen(c->unit);
    double t = NAN;
    if (!(x > 0) || !isfinite(x))
        return NAN;
    if (strcmp(c->unit, "ns") == 0)
        t = x;
    else if (strcmp(c->unit, "GB/s") == 0)
        t = c->size ? (double)c->size / x : NAN;             /* bytes / (x 1e9 B/s) */
    else if (strcmp(c->unit, "MiB/s") == 0)
        t = c->size ? (double)c->size / (x * 1048576.0) * 1e9 : NAN;
    else if (len > 2 && strcmp(c->unit + len - 2, "/s") == 0)
        t = 1e9 / x;                                          /* one call, record, ... */
    return t > 0 && isfinite(t) ? t : NAN;
}

static int timed_cell(const struct cwb_cell *c)
{
    if (c->n == 0)
        return 0;
    for (size_t k = 0; k < c->n; k++)
        if (isnan(op_ns(c, c->samples[k])))
            return 0;
    return 1;
}

static void gb_name(const struct cwb_results *r, size_t i, char *buf, size_t cap)
{
    const struct cwb_cell *c = &r->cells[i];
    int n = snprintf(buf, cap, "%s/%s%s%s/%zu", c->bench, c->routine, c->state[0] ? "/" : "",
                     c->state, c->size);
    if (n > 0 && (size_t)n < cap && (c->src_off > 0 || c->dst_off > 0))
        n += snprintf(buf + n, cap - (size_t)n, "/src:%d/dst:%d", c->src_off, c->dst_off);
    /* compare.py groups entries by name: a cell measured twice stays two */
    size_t same = 0;
    for (size_t k = 0; k < i; k++) {
        const struct cwb_cell *o = &r->cells[k];
        same += o->size == c->size && o->src_off == c->src_off && o->dst_off == c->dst_off &&
                strcmp(o->bench, c->bench) == 0 && strcmp(o->routine, c->routine) == 0 &&
                strcmp(o->state, c->state) == 0;
    }
    if (same && n > 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, "/#%zu", same + 1);
}

static void gb_entry(FILE *f, const struct cwb_results *r, size_t i, const char *name,
                     size_t k, int *first)
{
    const struct cwb_cell *c = &r->cells[i];
    double x = c->samples[k], t = op_ns(c, x);
    double cx = c->cpu_samples ? c->cpu_samples[k] : NAN, ct = op_ns(c, cx);
    fputs(*first ? "\n    {" : ",\n    {", f);
    *first = 0;
    fputs("\"name\": ", f);
    json_string(f, name);
    fprintf(f, ", \"family_index\": %zu, \"per_family_instance_index\": 0, \"run_name\": ", i);
    json_string(f, name);
    fprintf(f, ", \"run_type\": \"iteration\", \"repetitions\": %zu, \"repetition_index\": %zu, "
            "\"threads\": 1,\n     \"real_time\": ", c->n, k);
    json_number(f, t);
    fputs(", \"cpu_time\": ", f);
    json_number(f, isnan(ct) ? t : ct);
    fputs(", \"time_unit\": \"ns\"", f);
    if (c->size > 0) {
        fputs(", \"bytes_per_second\": ", f);
        json_number(f, (double)c->size * 1e9 / t);
    }
    if (strcmp(c->unit, "GB/s") != 0 && strcmp(c->unit, "MiB/s") != 0 &&
        strcmp(c->unit, "ns") != 0) {
        fputs(", \"items_per_second\": ", f);
        json_number(f, 1e9 / t);
    }
    fprintf(f, ",\n     \"cwbench_cell\": %zu, ", i);
    emit_cell_fields(f, c);
    fputs(", \"value\": ", f);
    json_number(f, x);
    if (c->cpu_samples) {
        fputs(", \"cpu_value\": ", f);
        json_number(f, cx);
    }
    fputc('}', f);
}

/* Google Benchmark's aggregates over the repetitions' times. */
static void gb_aggregates(FILE *f, const struct cwb_results *r, size_t i, const char *name)
{
    const struct cwb_cell *c = &r->cells[i];
    double *rt = malloc(c->n * sizeof *rt), *ct = malloc(c->n * sizeof *ct);
    if (rt != NULL && ct != NULL) {
        for (size_t k = 0; k < c->n; k++) {
            rt[k] = op_ns(c, c->samples[k]);
            ct[k] = c->cpu_samples ? op_ns(c, c->cpu_samples[k]) : NAN;
            if (isnan(ct[k]))
                ct[k] = rt[k];
        }
        struct cwb_summary a, b;
        cwb_summarize(rt, c->n, &a);
        cwb_summarize(ct, c->n, &b);
        const char *agg[] = {"mean", "median", "stddev", "cv"};
        const double va[] = {a.mean, a.median, a.sd, a.cv}, vb[] = {b.mean, b.median, b.sd, b.cv};
        for (int k = 0; k < 4; k++) {
            char aname[320];
            snprintf(aname, sizeof aname, "%s_%s", name, agg[k]);
            fputs(",\n    {\"name\": ", f);
            json_string(f, aname);
            fprintf(f, ", \"family_index\": %zu, \"per_family_instance_index\": 0, "
                    "\"run_name\": ", i);
            json_string(f, name);
            fprintf(f, ", \"run_type\": \"aggregate\", \"repetitions\": %zu, \"threads\": 1, "
                    "\"aggregate_name\": \"%s\", \"aggregate_unit\": \"%s\", \"iterations\": %zu,"
                    "\n     \"real_time\": ", c->n, agg[k], k == 3 ? "percentage" : "time", c->n);
            json_number(f, va[k]);
            fputs(", \"cpu_time\": ", f);
            json_number(f, vb[k]);
            fputs(", \"time_unit\": \"ns\"}", f);
        }
    }
    free(rt);
    free(ct);
}
/* ---- the context ---- */

static struct { char *cmdline, *exe; time_t start; } run;

void cwb_results_set_command_line(int argc, char **argv)
{
    size_t len = 1;
    for (int i = 0; i < argc; i++)
        len += 4 * strlen(argv[i]) + 3;
    free(run.cmdline);
    run.cmdline = malloc(len);
    run.exe = argc > 0 ? argv[0] : NULL;
    run.start = time(NULL);
    if (!run.cmdline)
        return;
    char *p = run.cmdline;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        /* shell quoting where a word needs it, so the line can be rerun */
        int plain = a[0] != '\0' && strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                              "0123456789_./:=,+-@%") == strlen(a);
        if (i)
            *p++ = ' ';
        if (plain) {
            p += sprintf(p, "%s", a);
            continue;
        }
        *p++ = '\'';
        for (; *a; a++) {
            if (*a == '\'')
                p += sprintf(p, "'\\''");
            else
                *p++ = *a;
        }
        *p++ = '\'';
    }
    *p = 0;
}

/* A meta value that is a JSON number as written ("1", "-1", "2.5e-08"):
 * such values go out as numbers, and read back as the same text. */
static int json_numeric(const char *s)
{
    const char *q = s;
    if (*q == '-')
        q++;
    if (*q == '0')
        q++;
    else if (*q >= '1' && *q <= '9')
        while (*q >= '0' && *q <= '9')
            q++;
    else
        return 0;
    if (*q == '.') {
        if (*++q < '0' || *q > '9')
            return 0;
        while (*q >= '0' && *q <= '9')
            q++;
    }
    if (*q == 'e' || *q == 'E') {
        q++;
        if (*q == '+' || *q == '-')
            q++;
        if (*q < '0' || *q > '9')
            return 0;
        while (*q >= '0' && *q <= '9')
            q++;
    }
    return *q == '\0' && isfinite(strtod(s, NULL));
}

static void ctx_key(FILE *f, const char *key, int *first)
{
    fputs(*first ? "\n    " : ",\n    ", f);
    *first = 0;
    json_string(f, key);
    fputs(": ", f);
}

static void ctx_string(FILE *f, const struct cwb_results *r, const char *key, const char *val,
                       int *first)
{
    if (val == NULL || cwb_results_meta_get(r, key) != NULL)
        return; /* the run's own value wins */
    ctx_key(f, key, first);
    json_string(f, val);
}

/* What Google Benchmark's context has, from this machine and the run's
 * metadata; then every metadata value under its own key. */
static void emit_context(FILE *f, const struct cwb_results *r)
{
    int first = 1;
    char buf[256];
    time_t t = run.start ? run.start : time(NULL);
    struct tm tm;
    if (localtime_r(&t, &tm) && strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S%z", &tm) > 5) {
        size_t n = strlen(buf); /* +0100 -> +01:00, as Google Benchmark writes it */
        memmove(buf + n - 1, buf + n - 2, 3);
        buf[n - 2] = ':';
        ctx_string(f, r, "date", buf, &first);
    }
    if (gethostname(buf, sizeof buf) == 0) {
        buf[sizeof buf - 1] = 0;
        ctx_string(f, r, "host_name", buf, &first);
    }
    ctx_string(f, r, "executable", run.exe, &first);
    ctx_string(f, r, "command_line", run.cmdline, &first);
    ctx_key(f, "num_cpus", &first);
    fprintf(f, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    FILE *ci = fopen("/proc/cpuinfo", "r");
    double mhz = 0;
    while (ci && mhz == 0 && fgets(buf, sizeof buf, ci))
        if (strncmp(buf, "cpu MHz", 7) == 0 && strchr(buf, ':'))
            mhz = strtod(strchr(buf, ':') + 1, NULL);
    if (ci)
        fclose(ci);
    if (mhz > 0) {
        ctx_key(f, "mhz_per_cpu", &first);
        fprintf(f, "%.0f", mhz);
    }
    FILE *gov = fopen("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "r");
    int scaling = gov && fgets(buf, sizeof buf, gov) && strncmp(buf, "performance", 11) != 0;
    if (gov)
        fclose(gov);
    ctx_key(f, "cpu_scaling_enabled", &first);
    fputs(scaling ? "true" : "false", f);
    const char *caches = cwb_results_meta_get(r, "caches_l1d_l2_l3");
    unsigned long long cs[3] = {0, 0, 0};
    if (caches && sscanf(caches, "%llu %llu %llu", &cs[0], &cs[1], &cs[2]) == 3) {
        ctx_key(f, "caches", &first);
        fputc('[', f);
        for (int k = 0, n = 0; k < 3; k++)
            if (cs[k])
                fprintf(f, "%s{\"type\": \"%s\", \"level\": %d, \"size\": %llu}", n++ ? ", " : "",
                        k ? "Unified" : "Data", k + 1, cs[k]);
        fputc(']', f);
    }
    double load[3];
    if (getloadavg(load, 3) == 3) {
        ctx_key(f, "load_avg", &first);
        fprintf(f, "[%.2f, %.2f, %.2f]", load[0], load[1], load[2]);
    }
#ifdef NDEBUG
    ctx_string(f, r, "library_build_type", "release", &first);
#else
    ctx_string(f, r, "library_build_type", "debug", &first);
#endif
    ctx_string(f, r, "library_version", cwb_results_meta_get(r, "cachewise_version"), &first);
    ctx_string(f, r, "cpu_model", cwb_results_meta_get(r, "cpu"), &first);
    ctx_key(f, "cwbench_format", &first);
    fprintf(f, "\"cwbench-results\", \"cwbench_format_version\": %d", CWB_RESULTS_VERSION);
    for (size_t i = 0; i < r->n_meta; i++) {
        ctx_key(f, r->meta_keys[i], &first);
        /* numbers and true/false go out bare: the reader turns both back
         * into the same text (results_read.c, context_member) */
        if (json_numeric(r->meta_vals[i]) || strcmp(r->meta_vals[i], "true") == 0 ||
            strcmp(r->meta_vals[i], "false") == 0)
            fputs(r->meta_vals[i], f);
        else
            json_string(f, r->meta_vals[i]);
    }
}

static void emit_json(FILE *f, const struct cwb_results *r)
{
    fputs("{\n  \"context\": {", f);
    emit_context(f, r);
    fputs("\n  },\n  \"benchmarks\": [", f);
    int first = 1;
    char name[256];
    for (size_t i = 0; i < r->n_cells; i++) {
        if (!timed_cell(&r->cells[i]))
            continue;
        gb_name(r, i, name, sizeof name);
        for (size_t k = 0; k < r->cells[i].n; k++)
            gb_entry(f, r, i, name, k, &first);
        if (r->cells[i].n > 1)
            gb_aggregates(f, r, i, name);
    }
    fputs(first ? "],\n  \"cwbench_cells\": [" : "\n  ],\n  \"cwbench_cells\": [", f);
    first = 1;
    for (size_t i = 0; i < r->n_cells; i++) {
        if (timed_cell(&r->cells[i]))
            continue;
        fputs(first ? "\n    " : ",\n    ", f);
        first = 0;
        emit_cell(f, &r->cells[i], i);
    }
    fputs(first ? "]\n}\n" : "\n  ]\n}\n", f);
}

int cwb_results_write_json(const struct cwb_results *r, const char *path, char *err, size_t errcap)
{
    return cwb_results_write_atomic(r, path, emit_json, err, errcap);
}

