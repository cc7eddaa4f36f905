/* cwbench: the JSON reader for result files (cwb_results_read_json). */
#include "results.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CWB_JSON_MAX_BYTES (512u << 20)
#define CWB_JSON_MAX_DEPTH 64


/* Recursive descent over what emit_json writes, with
 * any JSON whitespace; unknown keys are skipped so newer files still
 * load. The first error wins and carries its line number. */

struct jp {
    const char *p, *end, *file;
    int line, depth, failed;
    char *err;
    size_t errcap;
};

__attribute__((format(printf, 2, 3)))
static int jfail(struct jp *j, const char *fmt, ...)
{
    if (!j->failed) {
        char msg[160];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        cwb_set_err(j->err, j->errcap, "%s:%d: %s", j->file, j->line, msg);
        j->failed = 1;
    }
    return -1;
}

static void jws(struct jp *j)
{
    for (; j->p < j->end; j->p++) {
        if (*j->p == '\n')
            j->line++;
        else if (*j->p != ' ' && *j->p != '\t' && *j->p != '\r')
            break;
    }
}

/* Describes what stands at q, for "expected X, found Y". */
static const char *jfound(const struct jp *j, const char *q, char *buf, size_t cap)
{
    if (q >= j->end)
        return "end of file";
    unsigned char f = (unsigned char)*q;
    if (f < 0x20 || f >= 0x7f)
        snprintf(buf, cap, "byte 0x%02x", f);
    else
        snprintf(buf, cap, "'%c'", f);
    return buf;
}

static int jexpect(struct jp *j, char c)
{
    char what[16];
    jws(j);
    if (j->p < j->end && *j->p == c) {
        j->p++;
        return 0;
    }
    return jfail(j, "expected '%c', found %s", c, jfound(j, j->p, what, sizeof what));
}

static int jpeek(struct jp *j)
{
    jws(j);
    return j->p < j->end ? (unsigned char)*j->p : -1;
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

/* Decodes a string into a malloc'd UTF-8 buffer. */
static int jstring(struct jp *j, char **out)
{
    if (jexpect(j, '"') < 0)
        return -1;
    size_t cap = 32, n = 0;
    char *s = malloc(cap);
    if (!s)
        return jfail(j, "out of memory");
    for (;;) {
        if (j->p >= j->end) {
            free(s);
            return jfail(j, "unterminated string");
        }
        unsigned char c = (unsigned char)*j->p++;
        unsigned cp = c;
        if (c == '"')
            break;
        if (c < 0x20) {
            free(s);
            return jfail(j, "control character in string");
        }
        if (c == '\\') {
            if (j->p >= j->end) {
                free(s);
                return jfail(j, "unterminated string");
            }
            c = (unsigned char)*j->p++;
            switch (c) {
            case '"': case '\\': case '/': cp = c; break;
            case 'b': cp = '\b'; break;
            case 'f': cp = '\f'; break;
            case 'n': cp = '\n'; break;
            case 'r': cp = '\r'; break;
            case 't': cp = '\t'; break;
            case 'u':
                if (j->end - j->p < 4 || hex4(j->p, &cp) < 0) {
                    free(s);
                    return jfail(j, "bad \\u escape");
                }
                j->p += 4;
                if (cp >= 0xd800 && cp < 0xdc00) {
                    unsigned lo;
                    if (j->end - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u' ||
                        hex4(j->p + 2, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff) {
                        free(s);
                        return jfail(j, "unpaired surrogate in \\u escape");
                    }
                    j->p += 6;
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                } else if (cp >= 0xdc00 && cp <= 0xdfff) {
                    free(s);
                    return jfail(j, "unpaired surrogate in \\u escape");
                }
                if (cp == 0) {
                    free(s);
                    return jfail(j, "\\u0000 in string");
                }
                break;
            default:
                free(s);
                return jfail(j, "bad escape '\\%c'", c);
            }
        }
        if (n + 5 > cap) {
            char *t = realloc(s, cap *= 2);
            if (!t) {
                free(s);
                return jfail(j, "out of memory");
            }
            s = t;
        }
        if (c != '\\' && cp == c && c >= 0x80) {
            s[n++] = (char)c;  /* raw UTF-8 byte, passed through */
        } else if (cp < 0x80) {
            s[n++] = (char)cp;
        } else if (cp < 0x800) {
            s[n++] = (char)(0xc0 | (cp >> 6));
            s[n++] = (char)(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            s[n++] = (char)(0xe0 | (cp >> 12));
            s[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
            s[n++] = (char)(0x80 | (cp & 0x3f));
        } else {
            s[n++] = (char)(0xf0 | (cp >> 18));
            s[n++] = (char)(0x80 | ((cp >> 12) & 0x3f));
            s[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
            s[n++] = (char)(0x80 | (cp & 0x3f));
        }
    }
    s[n] = 0;
    *out = s;
    return 0;
}

static int jliteral(struct jp *j, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(j->end - j->p) >= n && strncmp(j->p, word, n) == 0) {
        j->p += n;
        return 0;
    }
    return -1;
}

/* A number per the JSON grammar (strtod alone would take "0x1p3", "inf"
 * or " 12"); null reads as NaN when allow_null. */
static int jnumber(struct jp *j, double *out, int allow_null)
{
    jws(j);
    if (allow_null && jliteral(j, "null") == 0) {
        *out = NAN;
        return 0;
    }
    const char *s = j->p, *q = s;
    if (q < j->end && *q == '-') q++;
    if (q < j->end && *q == '0') q++;
    else if (q < j->end && *q >= '1' && *q <= '9') while (q < j->end && *q >= '0' && *q <= '9') q++;
    else {
        char what[16];
        return jfail(j, "expected a number, found %s", jfound(j, q, what, sizeof what));
    }
    if (q < j->end && *q == '.') {
        q++;
        if (q >= j->end || *q < '0' || *q > '9')
            return jfail(j, "malformed number");
        while (q < j->end && *q >= '0' && *q <= '9') q++;
    }
    if (q < j->end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < j->end && (*q == '+' || *q == '-')) q++;
        if (q >= j->end || *q < '0' || *q > '9')
            return jfail(j, "malformed number");
        while (q < j->end && *q >= '0' && *q <= '9') q++;
    }
    errno = 0;
    char *e;
    double v = strtod(s, &e);
    if (e != q || !isfinite(v))
        return jfail(j, "number out of range");
    j->p = q;
    *out = v;
    return 0;
}

static int jvalue_skip(struct jp *j);

static int jbool(struct jp *j, int *out)
{
    jws(j);
    if (jliteral(j, "true") == 0) { *out = 1; return 0; }
    if (jliteral(j, "false") == 0) { *out = 0; return 0; }
    return jfail(j, "expected true or false");
}

/* Iterates "key": value pairs; calls fn with the key and the parser
 * positioned at the value. */
typedef int (*member_fn)(struct jp *j, const char *key, void *ctx);

static int jobject(struct jp *j, member_fn fn, void *ctx)
{
    if (jexpect(j, '{') < 0)
        return -1;
    if (++j->depth > CWB_JSON_MAX_DEPTH)
        return jfail(j, "nested too deeply");
    if (jpeek(j) == '}') {
        j->p++;
        j->depth--;
        return 0;
    }
    for (;;) {
        char *key;
        if (jpeek(j) != '"')
            return jfail(j, "expected a string key");
        if (jstring(j, &key) < 0)
            return -1;
        if (jexpect(j, ':') < 0) {
            free(key);
            return -1;
        }
        int rc = fn(j, key, ctx);
        free(key);
        if (rc < 0)
            return -1;
        int c = jpeek(j);
        if (c == ',') { j->p++; continue; }
        if (c == '}') { j->p++; break; }
        return jexpect(j, '}');
    }
    j->depth--;
    return 0;
}

static int skip_member(struct jp *j, const char *key, void *ctx)
{
    (void)key;
    (void)ctx;
    return jvalue_skip(j);
}

static int jvalue_skip(struct jp *j)
{
    int c = jpeek(j);
    double d;
    if (c == '{')
        return jobject(j, skip_member, NULL);
    if (c == '"') {
        char *s;
        if (jstring(j, &s) < 0)
            return -1;
        free(s);
        return 0;
    }
    if (c == '[') {
        j->p++;
        if (++j->depth > CWB_JSON_MAX_DEPTH)
            return jfail(j, "nested too deeply");
        if (jpeek(j) == ']') { j->p++; j->depth--; return 0; }
        for (;;) {
            if (jvalue_skip(j) < 0)
                return -1;
            c = jpeek(j);
            if (c == ',') { j->p++; continue; }
            if (c == ']') { j->p++; break; }
            return jexpect(j, ']');
        }
        j->depth--;
        return 0;
    }
    if (jliteral(j, "true") == 0 || jliteral(j, "false") == 0 || jliteral(j, "null") == 0)
        return 0;
    if (c == '-' || (c >= '0' && c <= '9'))
        return jnumber(j, &d, 0);
    char what[16];
    return jfail(j, "expected a value, found %s", jfound(j, j->p, what, sizeof what));
}

/* An array of numbers; null allowed (NaN); *n counts them. */
static int jdoubles(struct jp *j, double **out, size_t *n)
{
    size_t cap = 16, k = 0;
    if (jexpect(j, '[') < 0)
        return -1;
    double *v = malloc(cap * sizeof *v);
    if (!v)
        return jfail(j, "out of memory");
    if (jpeek(j) == ']') {
        j->p++;
    } else {
        for (;;) {
            if (k == cap) {
                double *t = realloc(v, (cap *= 2) * sizeof *v);
                if (!t) { free(v); return jfail(j, "out of memory"); }
                v = t;
            }
            if (jnumber(j, &v[k], 1) < 0) { free(v); return -1; }
            k++;
            int c = jpeek(j);
            if (c == ',') { j->p++; continue; }
            if (c == ']') { j->p++; break; }
            free(v);
            return jexpect(j, ']');
        }
    }
    *out = v;
    *n = k;
    return 0;
}

static int jfield(struct jp *j, const char *key, char *dst, size_t cap)
{
    char *s;
    if (jpeek(j) != '"')
        return jfail(j, "\"%s\" must be a string", key);
    if (jstring(j, &s) < 0)
        return -1;
    size_t len = strlen(s);
    if (len >= cap) {
        free(s);
        return jfail(j, "\"%s\" longer than %zu characters", key, cap - 1);
    }
    memcpy(dst, s, len + 1);
    free(s);
    return 0;
}

static int jinteger(struct jp *j, const char *key, double lo, double hi, double *out)
{
    if (jnumber(j, out, 0) < 0)
        return -1;
    if (*out != floor(*out) || *out < lo || *out > hi)
        return jfail(j, "\"%s\" must be an integer in [%.0f, %.0f]", key, lo, hi);
    return 0;
}

struct cell_ctx {
    struct cwb_cell c;
    double *cpu;
    size_t ncpu;
    double n_decl;
    int have_n, have_samples, have_cpu, have_routine, have_size;
};

static int cell_member(struct jp *j, const char *key, void *vctx)
{
    struct cell_ctx *x = vctx;
    double v;
    if (strcmp(key, "routine") == 0) {
        x->have_routine = 1;
        return jfield(j, key, x->c.routine, sizeof x->c.routine);
    }
    if (strcmp(key, "bench") == 0)
        return jfield(j, key, x->c.bench, sizeof x->c.bench);
    if (strcmp(key, "state") == 0)
        return jfield(j, key, x->c.state, sizeof x->c.state);
    if (strcmp(key, "unit") == 0)
        return jfield(j, key, x->c.unit, sizeof x->c.unit);
    if (strcmp(key, "size") == 0) {
        if (jinteger(j, key, 0, 9007199254740992.0, &v) < 0)
            return -1;
        x->c.size = (size_t)v;
        x->have_size = 1;
        return 0;
    }
    if (strcmp(key, "src_off") == 0 || strcmp(key, "dst_off") == 0) {
        if (jinteger(j, key, -2147483648.0, 2147483647.0, &v) < 0)
            return -1;
        *(key[0] == 's' ? &x->c.src_off : &x->c.dst_off) = (int)v;
        return 0;
    }
    if (strcmp(key, "higher_is_better") == 0)
        return jbool(j, &x->c.higher_is_better);
    if (strcmp(key, "n") == 0) {
        x->have_n = 1;
        return jinteger(j, key, 0, 9007199254740992.0, &x->n_decl);
    }
    if (strcmp(key, "samples") == 0 || strcmp(key, "cpu_samples") == 0) {
        int cpu = key[0] == 'c';
        if ((cpu ? x->have_cpu : x->have_samples))
            return jfail(j, "duplicate \"%s\"", key);
        if (cpu && jpeek(j) == 'n' && jliteral(j, "null") == 0)
            return 0;
        if (jpeek(j) != '[')
            return jfail(j, "\"%s\" must be an array of numbers", key);
        if (cpu) {
            x->have_cpu = 1;
            return jdoubles(j, &x->cpu, &x->ncpu);
        }
        x->have_samples = 1;
        return jdoubles(j, &x->c.samples, &x->c.n);
    }
    return jvalue_skip(j);  /* "summary" is recomputed, not trusted */
}

static int cells_array(struct jp *j, struct cwb_results *r)
{
    if (jexpect(j, '[') < 0)
        return -1;
    if (jpeek(j) == ']') {
        j->p++;
        return 0;
    }
    for (;;) {
        struct cell_ctx x;
        memset(&x, 0, sizeof x);
        int line = j->line;
        if (jpeek(j) != '{')
            return jfail(j, "expected a cell object");
        int rc = jobject(j, cell_member, &x);
        const char *missing = !x.have_routine ? "routine" : !x.have_size ? "size"
                              : !x.have_samples ? "samples" : NULL;
        if (rc == 0) {
            /* Semantic errors point at the start of the cell. */
            int end_line = j->line;
            j->line = line;
            if (missing)
                rc = jfail(j, "cell without \"%s\"", missing);
            else if (x.have_n && x.n_decl != (double)x.c.n)
                rc = jfail(j, "cell has \"n\": %.0f but %zu samples", x.n_decl, x.c.n);
            else if (x.have_cpu && x.ncpu != x.c.n)
                rc = jfail(j, "cell has %zu cpu_samples for %zu samples", x.ncpu, x.c.n);
            else if (!cwb_results_add(r, &x.c, x.c.samples, x.have_cpu ? x.cpu : NULL, x.c.n))
                rc = jfail(j, "out of memory");
            if (rc == 0)
                j->line = end_line;
        }
        free(x.c.samples);
        free(x.cpu);
        if (rc < 0)
            return -1;
        int c = jpeek(j);
        if (c == ',') { j->p++; continue; }
        if (c == ']') { j->p++; return 0; }
        return jexpect(j, ']');
    }
}

static int meta_member(struct jp *j, const char *key, void *vctx)
{
    struct cwb_results *r = vctx;
    char *v;
    if (jpeek(j) != '"')
        return jfail(j, "meta value \"%s\" must be a string", key);
    if (jstring(j, &v) < 0)
        return -1;
    cwb_results_meta(r, key, v);
    free(v);
    return 0;
}

struct top_ctx { struct cwb_results *r; int have_format, have_cells; };

static int top_member(struct jp *j, const char *key, void *vctx)
{
    struct top_ctx *t = vctx;
    if (strcmp(key, "format") == 0) {
        char *s;
        if (jpeek(j) != '"')
            return jfail(j, "\"format\" must be a string");
        if (jstring(j, &s) < 0)
            return -1;
        int ok = strcmp(s, "cwbench-results") == 0;
        free(s);
        if (!ok)
            return jfail(j, "not a cwbench results file (format is not \"cwbench-results\")");
        t->have_format = 1;
        return 0;
    }
    if (strcmp(key, "version") == 0) {
        double v;
        if (jnumber(j, &v, 0) < 0)
            return -1;
        if (v != 1)
            return jfail(j, "unsupported version %g (this cwbench reads version 1)", v);
        return 0;
    }
    if (strcmp(key, "meta") == 0) {
        if (jpeek(j) != '{')
            return jfail(j, "\"meta\" must be an object");
        return jobject(j, meta_member, t->r);
    }
    if (strcmp(key, "cells") == 0) {
        if (t->have_cells)
            return jfail(j, "duplicate \"cells\"");
        t->have_cells = 1;
        return cells_array(j, t->r);
    }
    return jvalue_skip(j);
}

int cwb_results_read_json(struct cwb_results *r, const char *path, char *err, size_t errcap)
{
    cwb_results_free(r);
    FILE *f = fopen(path, "rb");
    if (!f) {
        cwb_set_err(err, errcap, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fclose(f);
            cwb_set_err(err, errcap, "%s: out of memory", path);
            return -1;
        }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        if (cap >= CWB_JSON_MAX_BYTES) {
            free(buf);
            fclose(f);
            cwb_set_err(err, errcap, "%s: larger than %u MiB", path, CWB_JSON_MAX_BYTES >> 20);
            return -1;
        }
        char *t = realloc(buf, cap * 2);
        if (!t)
            free(buf);
        buf = t;
        cap *= 2;
    }
    int rd_err = ferror(f);
    fclose(f);
    if (rd_err) {
        free(buf);
        cwb_set_err(err, errcap, "%s: read error", path);
        return -1;
    }
    struct jp j = {buf, buf + n, path, 1, 0, 0, err, errcap};
    struct top_ctx t = {r, 0, 0};
    int rc;
    if (jpeek(&j) < 0) {
        rc = jfail(&j, "empty file");
    } else if (jpeek(&j) != '{') {
        rc = jfail(&j, "not a cwbench results file (expected '{')");
    } else {
        rc = jobject(&j, top_member, &t);
        if (rc == 0 && jpeek(&j) >= 0)
            rc = jfail(&j, "unexpected text after the end of the results");
        if (rc == 0 && !t.have_format)
            rc = jfail(&j, "not a cwbench results file (no \"format\": \"cwbench-results\")");
        if (rc == 0 && !t.have_cells)
            rc = jfail(&j, "no \"cells\" array");
    }
    free(buf);
    if (rc < 0)
        cwb_results_free(r);
    return rc;
}
