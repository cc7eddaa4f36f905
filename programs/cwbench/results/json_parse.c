/* SPDX-License-Identifier: MIT */
/* cwbench: the JSON primitives of the result-file reader (results_read.c):
 * strings, numbers, objects, arrays, with line numbers in every error. */
#include "results/json_parse.h"
#include "results/results.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cwbj_fail(struct cwbj *j, const char *fmt, ...)
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

void cwbj_ws(struct cwbj *j)
{
    for (; j->p < j->end; j->p++) {
        if (*j->p == '\n')
            j->line++;
        else if (*j->p != ' ' && *j->p != '\t' && *j->p != '\r')
            break;
    }
}

const char *cwbj_found(const struct cwbj *j, const char *q, char *buf, size_t cap)
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

int cwbj_expect(struct cwbj *j, char c)
{
    char what[16];
    cwbj_ws(j);
    if (j->p < j->end && *j->p == c) {
        j->p++;
        return 0;
    }
    return cwbj_fail(j, "expected '%c', found %s", c, cwbj_found(j, j->p, what, sizeof what));
}

int cwbj_peek(struct cwbj *j)
{
    cwbj_ws(j);
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
int cwbj_string(struct cwbj *j, char **out)
{
    if (cwbj_expect(j, '"') < 0)
        return -1;
    size_t cap = 32, n = 0;
    char *s = malloc(cap);
    if (!s)
        return cwbj_fail(j, "out of memory");
    for (;;) {
        if (j->p >= j->end) {
            free(s);
            return cwbj_fail(j, "unterminated string");
        }
        unsigned char c = (unsigned char)*j->p++;
        unsigned cp = c;
        if (c == '"')
            break;
        if (c < 0x20) {
            free(s);
            return cwbj_fail(j, "control character in string");
        }
        if (c == '\\') {
            if (j->p >= j->end) {
                free(s);
                return cwbj_fail(j, "unterminated string");
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
                    return cwbj_fail(j, "bad \\u escape");
                }
                j->p += 4;
                if (cp >= 0xd800 && cp < 0xdc00) {
                    unsigned lo;
                    if (j->end - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u' ||
                        hex4(j->p + 2, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff) {
                        free(s);
                        return cwbj_fail(j, "unpaired surrogate in \\u escape");
                    }
                    j->p += 6;
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                } else if (cp >= 0xdc00 && cp <= 0xdfff) {
                    free(s);
                    return cwbj_fail(j, "unpaired surrogate in \\u escape");
                }
                if (cp == 0) {
                    free(s);
                    return cwbj_fail(j, "\\u0000 in string");
                }
                break;
            default:
                free(s);
                return cwbj_fail(j, "bad escape '\\%c'", c);
            }
        }
        if (n + 5 > cap) {
            char *t = realloc(s, cap *= 2);
            if (!t) {
                free(s);
                return cwbj_fail(j, "out of memory");
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

int cwbj_literal(struct cwbj *j, const char *word)
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
int cwbj_number(struct cwbj *j, double *out, int allow_null)
{
    cwbj_ws(j);
    if (allow_null && cwbj_literal(j, "null") == 0) {
        *out = NAN;
        return 0;
    }
    const char *s = j->p, *q = s;
    if (q < j->end && *q == '-') q++;
    if (q < j->end && *q == '0') q++;
    else if (q < j->end && *q >= '1' && *q <= '9') while (q < j->end && *q >= '0' && *q <= '9') q++;
    else {
        char what[16];
        return cwbj_fail(j, "expected a number, found %s", cwbj_found(j, q, what, sizeof what));
    }
    if (q < j->end && *q == '.') {
        q++;
        if (q >= j->end || *q < '0' || *q > '9')
            return cwbj_fail(j, "malformed number");
        while (q < j->end && *q >= '0' && *q <= '9') q++;
    }
    if (q < j->end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < j->end && (*q == '+' || *q == '-')) q++;
        if (q >= j->end || *q < '0' || *q > '9')
            return cwbj_fail(j, "malformed number");
        while (q < j->end && *q >= '0' && *q <= '9') q++;
    }
    errno = 0;
    char *e;
    double v = strtod(s, &e);
    if (e != q || !isfinite(v))
        return cwbj_fail(j, "number out of range");
    j->p = q;
    *out = v;
    return 0;
}

int cwbj_number_text(struct cwbj *j, char *buf, size_t cap)
{
    double v;
    cwbj_ws(j);
    const char *s = j->p;
    if (cwbj_number(j, &v, 0) < 0)
        return -1;
    size_t len = (size_t)(j->p - s);
    if (len >= cap)
        return cwbj_fail(j, "number longer than %zu characters", cap - 1);
    memcpy(buf, s, len);
    buf[len] = 0;
    return 0;
}

int cwbj_bool(struct cwbj *j, int *out)
{
    cwbj_ws(j);
    if (cwbj_literal(j, "true") == 0) { *out = 1; return 0; }
    if (cwbj_literal(j, "false") == 0) { *out = 0; return 0; }
    return cwbj_fail(j, "expected true or false");
}

/* Iterates "key": value pairs; calls fn with the key and the parser
 * positioned at the value. */

int cwbj_object(struct cwbj *j, cwbj_member_fn fn, void *ctx)
{
    if (cwbj_expect(j, '{') < 0)
        return -1;
    if (++j->depth > CWB_JSON_MAX_DEPTH)
        return cwbj_fail(j, "nested too deeply");
    if (cwbj_peek(j) == '}') {
        j->p++;
        j->depth--;
        return 0;
    }
    for (;;) {
        char *key;
        if (cwbj_peek(j) != '"')
            return cwbj_fail(j, "expected a string key");
        if (cwbj_string(j, &key) < 0)
            return -1;
        if (cwbj_expect(j, ':') < 0) {
            free(key);
            return -1;
        }
        int rc = fn(j, key, ctx);
        free(key);
        if (rc < 0)
            return -1;
        int c = cwbj_peek(j);
        if (c == ',') { j->p++; continue; }
        if (c == '}') { j->p++; break; }
        return cwbj_expect(j, '}');
    }
    j->depth--;
    return 0;
}

int cwbj_array(struct cwbj *j, cwbj_element_fn fn, void *ctx)
{
    if (cwbj_expect(j, '[') < 0)
        return -1;
    if (cwbj_peek(j) == ']') {
        j->p++;
        return 0;
    }
    for (;;) {
        if (fn(j, ctx) < 0)
            return -1;
        int c = cwbj_peek(j);
        if (c == ',') { j->p++; continue; }
        if (c == ']') { j->p++; return 0; }
        return cwbj_expect(j, ']');
    }
}

static int skip_member(struct cwbj *j, const char *key, void *ctx)
{
    (void)key;
    (void)ctx;
    return cwbj_skip(j);
}

int cwbj_skip(struct cwbj *j)
{
    int c = cwbj_peek(j);
    double d;
    if (c == '{')
        return cwbj_object(j, skip_member, NULL);
    if (c == '"') {
        char *s;
        if (cwbj_string(j, &s) < 0)
            return -1;
        free(s);
        return 0;
    }
    if (c == '[') {
        j->p++;
        if (++j->depth > CWB_JSON_MAX_DEPTH)
            return cwbj_fail(j, "nested too deeply");
        if (cwbj_peek(j) == ']') { j->p++; j->depth--; return 0; }
        for (;;) {
            if (cwbj_skip(j) < 0)
                return -1;
            c = cwbj_peek(j);
            if (c == ',') { j->p++; continue; }
            if (c == ']') { j->p++; break; }
            return cwbj_expect(j, ']');
        }
        j->depth--;
        return 0;
    }
    if (cwbj_literal(j, "true") == 0 || cwbj_literal(j, "false") == 0 || cwbj_literal(j, "null") == 0)
        return 0;
    if (c == '-' || (c >= '0' && c <= '9'))
        return cwbj_number(j, &d, 0);
    char what[16];
    return cwbj_fail(j, "expected a value, found %s", cwbj_found(j, j->p, what, sizeof what));
}

/* An array of numbers; null allowed (NaN); *n counts them. */
int cwbj_doubles(struct cwbj *j, double **out, size_t *n)
{
    size_t cap = 16, k = 0;
    if (cwbj_expect(j, '[') < 0)
        return -1;
    double *v = malloc(cap * sizeof *v);
    if (!v)
        return cwbj_fail(j, "out of memory");
    if (cwbj_peek(j) == ']') {
        j->p++;
    } else {
        for (;;) {
            if (k == cap) {
                double *t = realloc(v, (cap *= 2) * sizeof *v);
                if (!t) { free(v); return cwbj_fail(j, "out of memory"); }
                v = t;
            }
            if (cwbj_number(j, &v[k], 1) < 0) { free(v); return -1; }
            k++;
            int c = cwbj_peek(j);
            if (c == ',') { j->p++; continue; }
            if (c == ']') { j->p++; break; }
            free(v);
            return cwbj_expect(j, ']');
        }
    }
    *out = v;
    *n = k;
    return 0;
}

int cwbj_field(struct cwbj *j, const char *key, char *dst, size_t cap)
{
    char *s;
    if (cwbj_peek(j) != '"')
        return cwbj_fail(j, "\"%s\" must be a string", key);
    if (cwbj_string(j, &s) < 0)
        return -1;
    size_t len = strlen(s);
    if (len >= cap) {
        free(s);
        return cwbj_fail(j, "\"%s\" longer than %zu characters", key, cap - 1);
    }
    memcpy(dst, s, len + 1);
    free(s);
    return 0;
}

int cwbj_integer(struct cwbj *j, const char *key, double lo, double hi, double *out)
{
    if (cwbj_number(j, out, 0) < 0)
        return -1;
    if (*out != floor(*out) || *out < lo || *out > hi)
        return cwbj_fail(j, "\"%s\" must be an integer in [%.0f, %.0f]", key, lo, hi);
    return 0;
}

char *cwbj_slurp(const char *path, size_t *n_out, char *err, size_t errcap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        cwb_set_err(err, errcap, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fclose(f);
            cwb_set_err(err, errcap, "%s: out of memory", path);
            return NULL;
        }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        if (cap >= CWB_JSON_MAX_BYTES) {
            free(buf);
            fclose(f);
            cwb_set_err(err, errcap, "%s: larger than %u MiB", path, CWB_JSON_MAX_BYTES >> 20);
            return NULL;
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
        return NULL;
    }
    *n_out = n;
    return buf;
}
