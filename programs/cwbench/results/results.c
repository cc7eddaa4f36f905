/* SPDX-License-Identifier: MIT */
/* cwbench result sets, atomic writing and the CSV writer (JSON: results_write.c,
 * the reader: results_read.c). */
#include "results/results.h"
#include "results/stats.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/random.h>
#include <time.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cwb_results_init(struct cwb_results *r)
{
    memset(r, 0, sizeof *r);
}

void cwb_results_free(struct cwb_results *r)
{
    for (size_t i = 0; i < r->n_meta; i++) {
        free(r->meta_keys[i]);
        free(r->meta_vals[i]);
    }
    for (size_t i = 0; i < r->n_cells; i++) {
        free(r->cells[i].samples);
        free(r->cells[i].cpu_samples);
    }
    free(r->cells);
    cwb_results_init(r);
}

void cwb_results_meta(struct cwb_results *r, const char *key, const char *val)
{
    if (!key || !val)
        return;
    char *v = strdup(val);
    if (!v)
        return;
    for (size_t i = 0; i < r->n_meta; i++) {
        if (strcmp(r->meta_keys[i], key) == 0) {
            free(r->meta_vals[i]);
            r->meta_vals[i] = v;
            return;
        }
    }
    char *k = strdup(key);
    if (!k || r->n_meta >= CWB_MAX_META) {
        free(k);
        free(v);
        return;
    }
    r->meta_keys[r->n_meta] = k;
    r->meta_vals[r->n_meta] = v;
    r->n_meta++;
}

void cwb_results_meta_sink(void *r, const char *key, const char *val)
{
    cwb_results_meta(r, key, val);
}

const char *cwb_results_meta_get(const struct cwb_results *r, const char *key)
{
    for (size_t i = 0; i < r->n_meta; i++)
        if (strcmp(r->meta_keys[i], key) == 0)
            return r->meta_vals[i];
    return NULL;
}

static void copy_field(char *dst, size_t cap, const char *src)
{
    size_t i = 0;
    for (; src && src[i] && i + 1 < cap; i++)
        dst[i] = src[i];
    dst[i] = 0;
}

static double *dup_doubles(const double *x, size_t n)
{
    double *d = malloc((n ? n : 1) * sizeof *d);
    if (d && n)
        memcpy(d, x, n * sizeof *d);
    return d;
}

struct cwb_cell *cwb_results_add(struct cwb_results *r, const struct cwb_cell *proto,
                                 const double *samples, const double *cpu, size_t n)
{
    if (n > SIZE_MAX / sizeof(double) || (n && !samples))
        return NULL;
    if (r->n_cells == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        struct cwb_cell *c = realloc(r->cells, cap * sizeof *c);
        if (!c)
            return NULL;
        r->cells = c;
        r->cap = cap;
    }
    struct cwb_cell *c = &r->cells[r->n_cells];
    memset(c, 0, sizeof *c);
    copy_field(c->routine, sizeof c->routine, proto->routine);
    copy_field(c->bench, sizeof c->bench, proto->bench);
    copy_field(c->state, sizeof c->state, proto->state);
    copy_field(c->unit, sizeof c->unit, proto->unit);
    c->size = proto->size;
    c->src_off = proto->src_off;
    c->dst_off = proto->dst_off;
    c->higher_is_better = proto->higher_is_better ? 1 : 0;
    c->samples = dup_doubles(samples, n);
    c->cpu_samples = cpu ? dup_doubles(cpu, n) : NULL;
    if (!c->samples || (cpu && !c->cpu_samples)) {
        free(c->samples);
        free(c->cpu_samples);
        return NULL;
    }
    c->n = n;
    r->n_cells++;
    return c;
}

/* ---- atomic writing ---- */

void cwb_set_err(char *err, size_t cap, const char *fmt, ...)
{
    if (!err || cap == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

int cwb_results_write_atomic(const struct cwb_results *r, const char *path, cwb_emit_fn emit,
                             char *err, size_t errcap)
{
    if (!path || !*path) {
        cwb_set_err(err, errcap, "no output file name");
        return -1;
    }
    size_t len = strlen(path) + 32;
    char *tmp = malloc(len);
    if (!tmp) {
        cwb_set_err(err, errcap, "%s: out of memory", path);
        return -1;
    }
    /* an unpredictable name, created new (O_EXCL: never through a file or
     * symlink somebody planted there); rename then replaces a symlink at
     * path itself instead of writing through it */
    int fd = -1;
    for (int attempt = 0; attempt < 16 && fd < 0; attempt++) {
        uint64_t rnd = 0;
        if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd)
            rnd = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull ^ (uint64_t)clock() ^ (uint64_t)attempt;
        snprintf(tmp, len, "%s.%016llx.tmp", path, (unsigned long long)rnd);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        cwb_set_err(err, errcap, "cannot write %s: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        cwb_set_err(err, errcap, "cannot write %s: %s", path, strerror(errno));
        close(fd);
        unlink(tmp);
        free(tmp);
        return -1;
    }
    emit(f, r);
    int bad = ferror(f);
    int saved = errno;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    if (bad) {
        cwb_set_err(err, errcap, "cannot write %s: %s", path, strerror(saved ? saved : EIO));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        cwb_set_err(err, errcap, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

/* ---- CSV writer ---- */

static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_number(FILE *f, double x)
{
    if (!isnan(x))
        fprintf(f, "%.17g", x);
}

static void emit_csv(FILE *f, const struct cwb_results *r)
{
    fputs("kind,bench,routine,state,size,src_off,dst_off,unit,higher_is_better,"
          "index,value,cpu,n,mean,sd,cv,median,min,max,q1,q3\n", f);
    for (size_t i = 0; i < r->n_cells; i++) {
        const struct cwb_cell *c = &r->cells[i];
        for (size_t j = 0; j <= c->n; j++) {
            fputs(j < c->n ? "sample," : "summary,", f);
            csv_field(f, c->bench);
            fputc(',', f);
            csv_field(f, c->routine);
            fputc(',', f);
            csv_field(f, c->state);
            fprintf(f, ",%zu,%d,%d,", c->size, c->src_off, c->dst_off);
            csv_field(f, c->unit);
            fprintf(f, ",%d,", c->higher_is_better);
            if (j < c->n) {
                fprintf(f, "%zu,", j);
                csv_number(f, c->samples[j]);
                fputc(',', f);
                if (c->cpu_samples)
                    csv_number(f, c->cpu_samples[j]);
                fputs(",,,,,,,,,\n", f);
            } else {
                struct cwb_summary s;
                cwb_summarize(c->samples, c->n, &s);
                fprintf(f, ",,,%zu", c->n);
                const double vals[] = {s.mean, s.sd, s.cv, s.median, s.min, s.max, s.q1, s.q3};
                for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++) {
                    fputc(',', f);
                    csv_number(f, vals[k]);
                }
                fputc('\n', f);
            }
        }
    }
}

int cwb_results_write_csv(const struct cwb_results *r, const char *path, char *err, size_t errcap)
{
    return cwb_results_write_atomic(r, path, emit_csv, err, errcap);
}
