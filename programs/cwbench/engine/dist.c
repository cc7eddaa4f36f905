/* SPDX-License-Identifier: MIT */
/* cwbench size-distribution files and the sampler. */
#include "engine/dist.h"
#include "engine/measure.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CWB_DIST_MAX_ENTRIES ((size_t)1 << 24)

uint64_t cwb_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void cwb_dist_free(struct cwb_dist *d)
{
    free(d->sizes);
    free(d->cum);
    d->sizes = NULL;
    d->cum = NULL;
    d->n = 0;
    d->mean_size = 0;
}

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t cap, const char *fmt, ...)
{
    if (err && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, cap, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Splits off the next whitespace-separated token; NULL at the end. */
static char *token(char **p)
{
    char *s = *p;
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\v' || *s == '\f')
        s++;
    if (!*s)
        return NULL;
    char *e = s;
    while (*e && *e != ' ' && *e != '\t' && *e != '\r' && *e != '\v' && *e != '\f')
        e++;
    if (*e)
        *e++ = 0;
    *p = e;
    return s;
}

/* Parses one non-comment line; 1 for an entry, 0 for a blank line. */
static int parse_line(char *line, const char *path, long ln, size_t *size, double *prob,
                      char *err, size_t cap)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = 0;
    char *p = line;
    char *ts = token(&p);
    if (!ts)
        return 0;
    char *tp = token(&p);
    char *extra = token(&p);
    if (!tp || extra)
        return fail(err, cap, "%s:%ld: expected \"size probability\", found %s", path, ln,
                    tp ? "more than two fields" : "one field");
    for (const char *c = ts; *c; c++)
        if (*c < '0' || *c > '9')
            return fail(err, cap, "%s:%ld: size '%.40s' is not a non-negative decimal integer",
                        path, ln, ts);
    errno = 0;
    unsigned long long s = strtoull(ts, NULL, 10);
    if (errno == ERANGE || s > CWB_DIST_MAX_SIZE)
        return fail(err, cap, "%s:%ld: size %.40s is larger than 1 GiB (%zu)", path, ln, ts,
                    CWB_DIST_MAX_SIZE);
    char *end;
    errno = 0;
    double pr = strtod(tp, &end);
    if (*end || end == tp)
        return fail(err, cap, "%s:%ld: probability '%.40s' is not a number", path, ln, tp);
    if (!isfinite(pr))
        return fail(err, cap, "%s:%ld: probability '%.40s' is not a finite number", path, ln, tp);
    if (pr < 0)
        return fail(err, cap, "%s:%ld: probability %.40s is negative", path, ln, tp);
    *size = (size_t)s;
    *prob = pr;
    return 1;
}

int cwb_dist_load(struct cwb_dist *d, const char *path, char *err, size_t errcap)
{
    d->sizes = NULL;
    d->cum = NULL;
    d->n = 0;
    d->mean_size = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return fail(err, errcap, "%s: cannot open: %s", path, strerror(errno));
    char *line = NULL;
    size_t linecap = 0, cap = 0, n = 0, entries = 0;
    ssize_t len;
    long ln = 0;
    double total = 0, weighted = 0;
    int rc = 0;
    while ((len = getline(&line, &linecap, f)) >= 0) {
        ln++;
        size_t size = 0;
        double prob = 0;
        if (strlen(line) != (size_t)len) {
            rc = fail(err, errcap, "%s:%ld: NUL byte in line (not a text file?)", path, ln);
            break;
        }
        if (len > 0 && line[len - 1] == '\n')
            line[len - 1] = 0;
        int got = parse_line(line, path, ln, &size, &prob, err, errcap);
        if (got < 0) {
            rc = -1;
            break;
        }
        entries += (size_t)got;
        if (got == 0 || prob == 0)
            continue;  /* a zero-probability size can never be drawn */
        if (n == cap) {
            if (cap >= CWB_DIST_MAX_ENTRIES) {
                rc = fail(err, errcap, "%s:%ld: more than %zu entries", path, ln,
                          CWB_DIST_MAX_ENTRIES);
                break;
            }
            cap = cap ? cap * 2 : 256;
            size_t *ns = realloc(d->sizes, cap * sizeof *ns);
            if (ns)
                d->sizes = ns;
            double *nc = ns ? realloc(d->cum, cap * sizeof *nc) : NULL;
            if (!nc) {
                rc = fail(err, errcap, "%s: out of memory", path);
                break;
            }
            d->cum = nc;
        }
        d->sizes[n] = size;
        total += prob;
        weighted += prob * (double)size;
        d->cum[n++] = total;  /* running sum; normalised below */
    }
    if (rc == 0 && ferror(f))
        rc = fail(err, errcap, "%s: read error: %s", path, strerror(errno));
    free(line);
    fclose(f);
    if (rc == 0 && entries == 0)
        rc = fail(err, errcap, "%s: no entries (expected \"size probability\" lines)", path);
    else if (rc == 0 && n == 0)
        rc = fail(err, errcap, "%s: no size has a probability above zero", path);
    else if (rc == 0 && !isfinite(total))
        rc = fail(err, errcap, "%s: the probabilities add up to infinity", path);
    if (rc < 0) {
        cwb_dist_free(d);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        d->cum[i] /= total;
    d->cum[n - 1] = 1.0;
    d->n = n;
    d->mean_size = weighted / total;
    return 0;
}

size_t cwb_dist_sample(const struct cwb_dist *d, uint64_t *rng_state)
{
    if (!d || d->n == 0)
        return 0;
    /* 53 random bits: u uniform in [0, 1), so cum[n-1] = 1 always bounds it. */
    double u = (double)(cwb_rng_next(rng_state) >> 11) * 0x1.0p-53;
    size_t lo = 0, hi = d->n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->cum[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return d->sizes[lo];
}

int cwb_dist_fixed(struct cwb_dist *d, size_t size)
{
    d->sizes = malloc(sizeof *d->sizes);
    d->cum = malloc(sizeof *d->cum);
    if (!d->sizes || !d->cum) {
        cwb_dist_free(d);
        return -1;
    }
    d->sizes[0] = size;
    d->cum[0] = 1.0;
    d->n = 1;
    d->mean_size = (double)size;
    return 0;
}

int cwb_dist_uniform(struct cwb_dist *d, size_t lo, size_t hi)
{
    size_t n = hi - lo + 1;
    d->sizes = malloc(n * sizeof *d->sizes);
    d->cum = malloc(n * sizeof *d->cum);
    if (!d->sizes || !d->cum) {
        cwb_dist_free(d);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        d->sizes[i] = lo + i;
        d->cum[i] = (double)(i + 1) / (double)n;
    }
    d->cum[n - 1] = 1.0;
    d->n = n;
    d->mean_size = ((double)lo + (double)hi) / 2;
    return 0;
}

/* ---- call sequences -------------------------------------------------------- */

void cwb_dist_draw(const struct cwb_dist *d, struct cwb_call *calls, size_t n, size_t span,
                   uint64_t *rng)
{
    for (size_t i = 0; i < n; i++) {
        calls[i].n = cwb_dist_sample(d, rng);
        /* span is at most a few MiB: the modulo bias is below 2^-40. */
        calls[i].soff = span > 1 ? (size_t)(cwb_rng_next(rng) % span) : 0;
        calls[i].doff = span > 1 ? (size_t)(cwb_rng_next(rng) % span) : 0;
    }
}

/* A new sequence: the next calls of the sequence's own stream. */
static void seq_draw(struct cwb_seq *s)
{
    s->start = s->rng;
    cwb_dist_draw(s->d, s->calls, s->n, s->span, &s->rng);
    s->ran = 0;
    s->draws++;
    s->writes++;
}

/* The current sequence written again, the same calls. */
static void seq_rewrite(struct cwb_seq *s)
{
    uint64_t rng = s->start;
    cwb_dist_draw(s->d, s->calls, s->n, s->span, &rng);
    s->writes++;
}

int cwb_seq_init(struct cwb_seq *s, const struct cwb_dist *d, size_t n, size_t span,
                 uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->d = d;
    s->span = span;
    /* Its own stream, apart from the run order's: the sequence of a seed
     * does not depend on how many shuffles the engine made. */
    s->rng = seed ^ 0x5e9ca11d5u;
    return cwb_seq_resize(s, n);
}

int cwb_seq_resize(struct cwb_seq *s, size_t n)
{
    if (n == 0 || n > SIZE_MAX / sizeof *s->calls)
        return -1;
    struct cwb_call *c = realloc(s->calls, n * sizeof *c);
    if (!c)
        return -1;
    s->calls = c;
    s->n = n;
    seq_draw(s);
    return 0;
}

void cwb_seq_before_batch(struct cwb_seq *s, unsigned who)
{
    uint64_t bit = (uint64_t)1 << (who % CWB_SEQ_MAX_USERS);
    s->batches++;
    if (s->ran & bit)
        seq_draw(s);
    else
        seq_rewrite(s);
    s->ran |= bit;
}

void cwb_seq_free(struct cwb_seq *s)
{
    free(s->calls);
    s->calls = NULL;
    s->n = 0;
}

size_t cwb_pow2_at_least(size_t n)
{
    size_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}
