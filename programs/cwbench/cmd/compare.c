/* SPDX-License-Identifier: MIT */
/* `cwbench compare A.json B.json [--alpha X]`: per-cell A/B verdicts from
 * two saved runs. Methods: docs/STATISTICS.md. */
#include "cmd/compare.h"
#include "results/results.h"
#include "results/stats.h"
#include "results/verdict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "usage: cwbench compare A.json B.json [--alpha X]   (0 < X < 0.5, default 0.05)";

static int bad_usage(const char *fmt, const char *arg)
{
    fputs("cwbench: ", stderr);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s\n", usage);
    return 2;
}

static int same_cell(const struct cwb_cell *a, const struct cwb_cell *b)
{
    return a->size == b->size && a->src_off == b->src_off && a->dst_off == b->dst_off &&
           strcmp(a->bench, b->bench) == 0 && strcmp(a->routine, b->routine) == 0 &&
           strcmp(a->state, b->state) == 0;
}

static void cell_label(const struct cwb_cell *c, char *buf, size_t cap)
{
    char sz[32];
    size_t s = c->size;
    if (s >= (1u << 30) && s % (1u << 30) == 0)
        snprintf(sz, sizeof sz, "%zuG", s >> 30);
    else if (s >= (1u << 20) && s % (1u << 20) == 0)
        snprintf(sz, sizeof sz, "%zuM", s >> 20);
    else if (s >= 1024 && s % 1024 == 0)
        snprintf(sz, sizeof sz, "%zuK", s >> 10);
    else
        snprintf(sz, sizeof sz, "%zu", s);
    int n = snprintf(buf, cap, "%s %s%s%s %s", c->bench, c->routine, c->state[0] ? " " : "",
                     c->state, sz);
    if (n <= 0 || (size_t)n >= cap)
        return;
    /* Offsets of -1 mark cells whose every call had its own offsets. */
    if (c->src_off < 0 || c->dst_off < 0)
        snprintf(buf + n, cap - (size_t)n, " random offsets");
    else if (c->src_off || c->dst_off)
        snprintf(buf + n, cap - (size_t)n, " src+%d dst+%d", c->src_off, c->dst_off);
}

static double median_of(const double *x, size_t n)
{
    struct cwb_summary s;
    cwb_summarize(x, n, &s);
    return s.median;
}

/* Percent change of the cell's own quantity, rounded to the printed 0.1
 * (never -0.0): it moves the way the medians do. */
static double quantity_pct(double ratio)
{
    double v = round((ratio - 1.0) * 1000.0) / 10.0;
    return v == 0 ? 0.0 : v;
}

/* The lines under a row with a two-mode side. */
static void modes_lines(const struct cwb_cmp *c, const char *unit, int width)
{
    char t[64];
    if (c->modes_a.two)
        printf("%-*s    A two-mode: %s %s (median of each mode, share of the samples)\n", width,
               "", cwb_modes_text(&c->modes_a, t, sizeof t), unit);
    if (c->modes_b.two)
        printf("%-*s    B two-mode: %s %s\n", width, "", cwb_modes_text(&c->modes_b, t, sizeof t),
               unit);
}

/* Records "label: text" for the overall verdict; a failed allocation
 * only loses that line. */
static void add_line(char **list, size_t *n, const char *label, const char *text)
{
    size_t len = strlen(label) + strlen(text) + 3;
    char *s = malloc(len);
    if (!s)
        return;
    snprintf(s, len, "%s: %s", label, text);
    list[(*n)++] = s;
}

static int load(const char *path, struct cwb_results *r)
{
    char err[512];
    cwb_results_init(r);
    if (cwb_results_read_json(r, path, err, sizeof err) < 0) {
        fprintf(stderr, "cwbench: %s\n%s\n", err, usage);
        return -1;
    }
    return 0;
}

int cwb_cmd_compare(int argc, char **argv)
{
    const char *files[2] = {NULL, NULL};
    int nfiles = 0;
    double alpha = 0.05;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf("%s\n", usage);
            return 0;
        }
        if (strcmp(a, "--alpha") == 0) {
            if (i + 1 >= argc)
                return bad_usage("%s needs a value", a);
            val = argv[++i];
        } else if (strncmp(a, "--alpha=", 8) == 0) {
            val = a + 8;
        } else if (a[0] == '-' && a[1]) {
            return bad_usage("unknown option '%s' for compare", a);
        } else if (nfiles < 2) {
            files[nfiles++] = a;
            continue;
        } else {
            return bad_usage("unexpected argument '%s' (compare takes two files)", a);
        }
        char *end;
        alpha = strtod(val, &end);
        if (end == val || *end || !(alpha > 0 && alpha < 0.5))
            return bad_usage("--alpha '%s' is not a number between 0 and 0.5", val);
    }
    if (nfiles < 2)
        return bad_usage("%s", "compare needs two result files (written with --json)");

    struct cwb_results A, B;
    if (load(files[0], &A) < 0)
        return 2;
    if (load(files[1], &B) < 0) {
        cwb_results_free(&A);
        return 2;
    }
    char *usedb = calloc(B.n_cells + 1, 1);
    size_t *match = malloc((A.n_cells + 1) * sizeof *match);
    double *ratios = malloc((A.n_cells + 1) * sizeof *ratios);
    char **slower = calloc(A.n_cells + 1, sizeof *slower);
    int rc = 0;
    if (!usedb || !match || !ratios || !slower) {
        fprintf(stderr, "cwbench: out of memory\n");
        rc = 1;
        goto out;
    }
    /* First match everything, so a pair of files with nothing in common
     * fails before any table is printed. */
    size_t matched = 0;
    for (size_t i = 0; i < A.n_cells; i++) {
        match[i] = (size_t)-1;
        for (size_t k = 0; k < B.n_cells && match[i] == (size_t)-1; k++)
            if (!usedb[k] && same_cell(&A.cells[i], &B.cells[k])) {
                usedb[k] = 1;
                match[i] = k;
                matched++;
            }
    }
    if (matched == 0) {
        fprintf(stderr, "cwbench: %s and %s have no cell in common\n%s\n", files[0], files[1],
                usage);
        rc = 2;
        goto out;
    }
    size_t width = 4;
    char label[160];
    for (size_t i = 0; i < A.n_cells; i++) {
        cell_label(&A.cells[i], label, sizeof label);
        if (strlen(label) > width)
            width = strlen(label);
    }
    printf("A: %s\nB: %s\n", files[0], files[1]);
    printf("HL B/A-1: the Hodges-Lehmann estimate of B/A - 1 in the cell's own unit (of B - A "
           "where values can be <= 0),\nso it moves the way the medians do; CI %g%% (Moses); p: "
           "two-sided Mann-Whitney U, alpha %g;\nverdict: faster/SLOWER for rates, better/WORSE "
           "where lower is better, \"inconsistent\" where the\nestimate and the medians point "
           "opposite ways (two-mode or skewed samples: no verdict)\n\n",
           100 * (1 - alpha), alpha);
    printf("%-*s  %13s  %13s  %8s  %18s  %7s  %s\n", (int)width, "cell", "median A", "median B",
           "HL B/A-1", "CI", "p", "verdict");
    size_t nratios = 0, nslower = 0, nfaster = 0, nfew = 0, ninc = 0;
    for (size_t i = 0; i < A.n_cells; i++) {
        if (match[i] == (size_t)-1)
            continue;
        const struct cwb_cell *a = &A.cells[i], *b = &B.cells[match[i]];
        cell_label(a, label, sizeof label);
        char ma[32], mb[32], ch[16] = "n/a", ci[40] = "n/a", pv[16] = "n/a";
        const char *verdict;
        snprintf(ma, sizeof ma, "%.4g %s", median_of(a->samples, a->n), a->unit);
        snprintf(mb, sizeof mb, "%.4g %s", median_of(b->samples, b->n), b->unit);
        int hib = a->higher_is_better, have = 0;
        struct cwb_cmp c;
        int few = a->n < CWB_MIN_SAMPLES || b->n < CWB_MIN_SAMPLES;
        nfew += (size_t)few;
        if (strcmp(a->unit, b->unit) != 0 || a->higher_is_better != b->higher_is_better) {
            verdict = "not comparable: units differ";
        } else if (a->n == 0 || b->n == 0) {
            verdict = "no samples";
        } else if (cwb_compare(a->samples, a->n, b->samples, b->n, alpha, &c) == 0 ||
                   cwb_compare_shift(a->samples, a->n, b->samples, b->n, alpha, &c) == 0) {
            /* A ratio where every value is positive; values <= 0 (an
             * evicted fraction can be 0) get the difference B - A, decided
             * the same way. */
            have = 1;
            if (c.additive) {
                snprintf(ch, sizeof ch, "%+.3g", c.ratio);
                if (!isnan(c.lo))
                    snprintf(ci, sizeof ci, "[%+.3g, %+.3g]", c.lo, c.hi);
            } else {
                ratios[nratios++] = hib ? c.ratio : 1.0 / c.ratio;
                snprintf(ch, sizeof ch, "%+.1f%%", quantity_pct(c.ratio));
                if (!isnan(c.lo))
                    snprintf(ci, sizeof ci, "[%+.1f%%, %+.1f%%]", quantity_pct(c.lo),
                             quantity_pct(c.hi));
            }
            snprintf(pv, sizeof pv, c.p < 0.001 ? "<0.001" : "%.3f", c.p);
            verdict = cwb_verdict_word(&c, hib);
            int dir = cwb_cmp_direction(&c, hib);
            if (dir < 0) {
                char full[320];
                cwb_verdict(&c, hib, full, sizeof full);
                add_line(slower, &nslower, label, full);
            }
            nfaster += dir > 0;
            ninc += (size_t)c.inconsistent;
        } else {
            verdict = "n/a (NaN samples)";
        }
        printf("%-*s  %13s  %13s  %8s  %18s  %7s  %s%s%s\n", (int)width, label, ma, mb, ch, ci,
               pv, verdict, have && c.inconsistent ? ": two-mode or skewed samples" : "",
               few ? ", few samples" : "");
        if (have)
            modes_lines(&c, a->unit, (int)width);
    }
    /* Over cells of mixed direction only the speed view averages: each
     * ratio turned so that above 1 means B is better. */
    if (nratios)
        printf("%-*s  %13s  %13s  %+7.1f%%  (of the ratios as speeds: + = B better)\n",
               (int)width, "geometric mean", "", "", quantity_pct(cwb_geomean(ratios, nratios)));
    size_t onlya = A.n_cells - matched, onlyb = B.n_cells - matched;
    if (onlya || onlyb) {
        printf("\nunmatched cells (%zu only in A, %zu only in B):\n", onlya, onlyb);
        for (size_t i = 0; i < A.n_cells; i++) {
            if (match[i] == (size_t)-1) {
                cell_label(&A.cells[i], label, sizeof label);
                printf("  only in A: %s\n", label);
            }
        }
        for (size_t k = 0; k < B.n_cells; k++)
            if (!usedb[k]) {
                cell_label(&B.cells[k], label, sizeof label);
                printf("  only in B: %s\n", label);
            }
    }
    if (nfew)
        fprintf(stderr, "cwbench: warning: %zu cell(s) have fewer than %d samples on a side; "
                "the U test has little power there (3 vs 3 can never reach p < 0.05)\n",
                nfew, CWB_MIN_SAMPLES);
    if (nslower == 0) {
        printf("\noverall: no cell significantly slower (%zu better, %zu within noise or n/a, "
               "of %zu", nfaster, matched - nfaster, matched);
        if (ninc)
            printf("; %zu inconsistent: two-mode or skewed samples", ninc);
        printf(")\n");
    } else {
        printf("\noverall: %zu cell(s) significantly slower (or worse, where lower is better):\n",
               nslower);
        for (size_t i = 0; i < nslower; i++)
            printf("  %s\n", slower[i]);
    }
out:
    for (size_t i = 0; slower && i <= A.n_cells; i++)
        free(slower[i]);
    free(usedb);
    free(match);
    free(ratios);
    free(slower);
    cwb_results_free(&A);
    cwb_results_free(&B);
    return rc;
}
