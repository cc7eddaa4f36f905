/* SPDX-License-Identifier: MIT */
/* `cwbench workload`: option parsing, dispatch to the workloads and the
 * helpers they share (figures, verdicts, result cells, counters). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "platform/counters.h"
#include "platform/machine.h"
#include "results/results.h"
#include "results/stats.h"
#include "results/verdict.h"
#include "workload/workload.h"

int cwb_cmd_workload(int argc, char **argv);

static const struct {
    const char *name;
    int (*run)(const struct cwb_wl_opts *, struct cwb_results *);
    const char *what;
} workloads[] = {
    {"writeback", cwb_wl_writeback,
     "iozone case: 64 KiB copies into a 256 MiB ring beside lookups in an L2-sized hash table"},
    {"pmemlog", cwb_wl_pmemlog,
     "dm-writecache case: persisted log appends (4 B .. 4 KiB) to a MAP_SHARED file"},
    {"cachedread", cwb_wl_cachedread,
     "hdparm -T case: 2 MiB reads of a page-cached file, read() vs mmap + cw_memcpy[_nt]"},
};
#define N_WORKLOADS (sizeof workloads / sizeof workloads[0])

static const char usage_line[] =
    "usage: cwbench workload --list | cwbench workload writeback|pmemlog|cachedread "
    "[--quick] [--runs N] [--json FILE] [--csv FILE]\n";

static int bad_usage(const char *fmt, const char *arg)
{
    fputs("cwbench: ", stderr);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    fputs(usage_line, stderr);
    return 2;
}

/* Accepts "--opt VALUE" and "--opt=VALUE"; returns the value or NULL when
 * the option is missing its value. *i is advanced past a separate value. */
static const char *option_value(int argc, char **argv, int *i, const char *opt)
{
    const char *a = argv[*i];
    size_t len = strlen(opt);
    if (a[len] == '=')
        return a + len + 1;
    /* "--json --quick" means a forgotten file name, not a file "--quick" */
    if (*i + 1 >= argc || strncmp(argv[*i + 1], "--", 2) == 0)
        return NULL;
    return argv[++*i];
}

static int option_is(const char *arg, const char *opt)
{
    size_t len = strlen(opt);
    return strncmp(arg, opt, len) == 0 && (arg[len] == '\0' || arg[len] == '=');
}

static int parse_runs(const char *text, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < 1 || v > 1000)
        return -1;
    *out = (int)v;
    return 0;
}

int cwb_cmd_workload(int argc, char **argv)
{
    struct cwb_wl_opts o = {0, 0, 0};
    const char *name = NULL, *json = NULL, *csv = NULL;
    int list = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--list") == 0) {
            list = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_line, stdout);
            return 0;
        } else if (strcmp(a, "--quick") == 0) {
            o.quick = 1;
        } else if (strcmp(a, "--inject-fault") == 0) {
            o.inject_fault = 1;
        } else if (option_is(a, "--runs")) {
            const char *v = option_value(argc, argv, &i, "--runs");
            if (v == NULL)
                return bad_usage("workload: option '%s' needs a number", "--runs");
            if (parse_runs(v, &o.runs) != 0)
                return bad_usage("workload: --runs wants a whole number from 1 to 1000, not '%s'",
                                 v);
        } else if (option_is(a, "--json") || option_is(a, "--csv")) {
            const char *opt = a[2] == 'j' ? "--json" : "--csv";
            const char *v = option_value(argc, argv, &i, opt);
            if (v == NULL || *v == '\0')
                return bad_usage("workload: option '%s' needs a file name", opt);
            if (a[2] == 'j')
                json = v;
            else
                csv = v;
        } else if (a[0] == '-') {
            return bad_usage("workload: unknown option '%s'", a);
        } else if (name != NULL) {
            return bad_usage("workload: one workload at a time (extra argument '%s')", a);
        } else {
            name = a;
        }
    }

    if (list) {
        if (name != NULL)
            return bad_usage("workload: --list takes no workload name (got '%s')", name);
        for (size_t k = 0; k < N_WORKLOADS; k++)
            printf("%-11s %s\n", workloads[k].name, workloads[k].what);
        return 0;
    }
    if (name == NULL)
        return bad_usage("workload: %s", "missing workload name (try --list)");

    size_t w = 0;
    while (w < N_WORKLOADS && strcmp(workloads[w].name, name) != 0)
        w++;
    if (w == N_WORKLOADS)
        return bad_usage("workload: unknown workload '%s' (try --list)", name);

    struct cwb_results r;
    cwb_results_init(&r);
    cwb_machine_meta(cwb_results_meta_sink, &r);
    cwb_results_meta(&r, "workload", name);
    cwb_results_meta(&r, "mode", o.quick ? "quick" : "full");
    /* stdout only: the workloads' stderr carries their check failures */
    cwb_emulation_banner(stdout, 0);
    cwb_print_machine(stdout);
    printf("workload %s%s\n", name,
           o.quick ? " (--quick smoke mode: tiny sizes, figures meaningless)" : "");
    fflush(stdout);

    int rc = workloads[w].run(&o, &r);
    char err[512];
    if (rc == 0 && json != NULL && cwb_results_write_json(&r, json, err, sizeof err) != 0) {
        fprintf(stderr, "cwbench: %s\n", err);
        rc = 1;
    }
    if (rc == 0 && csv != NULL && cwb_results_write_csv(&r, csv, err, sizeof err) != 0) {
        fprintf(stderr, "cwbench: %s\n", err);
        rc = 1;
    }
    cwb_results_free(&r);
    fflush(stdout);
    return rc;
}

/* ---- shared helpers ---- */

uint64_t cwb_wl_mix(uint64_t x)
{
    /* splitmix64 finaliser: cheap, and every input bit reaches every output
     * byte, so a misplaced or stale block never regenerates by accident. */
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

void cwb_wl_shuffle(int *order, int n, uint64_t *state)
{
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        *state = cwb_wl_mix(*state);
        int j = (int)(*state % (uint64_t)(i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

void cwb_wl_print_figure(const char *label, const double *x, size_t n, const char *unit,
                         int precision)
{
    struct cwb_summary s;
    cwb_summarize(x, n, &s);
    printf("  %-34s mean %12.*f %-9s sigma %10.*f  cv %5.1f%%  n=%zu\n", label, precision, s.mean,
           unit, precision, s.sd, 100.0 * s.cv, s.n);
}

void cwb_wl_print_verdict(const char *name_a, const double *a, size_t na, const char *name_b,
                          const double *b, size_t nb, int higher_is_better, const char *unit)
{
    struct cwb_cmp c;
    char buf[320];
    if (cwb_compare(a, na, b, nb, 0.05, &c) != 0 &&
        cwb_compare_shift(a, na, b, nb, 0.05, &c) != 0) {
        printf("  verdict: %s vs %s: cannot compare (too few samples)\n", name_b, name_a);
        return;
    }
    /* cwb_verdict already says when there are too few samples to judge */
    printf("  verdict: %s vs %s: medians %.4g -> %.4g %s: %s\n", name_b, name_a, c.med_a, c.med_b,
           unit, cwb_verdict(&c, higher_is_better, buf, sizeof buf));
    char t[64];
    if (c.modes_a.two)
        printf("    %s two-mode: %s %s\n", name_a, cwb_modes_text(&c.modes_a, t, sizeof t), unit);
    if (c.modes_b.two)
        printf("    %s two-mode: %s %s\n", name_b, cwb_modes_text(&c.modes_b, t, sizeof t), unit);
}

void cwb_wl_add_cell(struct cwb_results *r, const char *workload, const char *routine,
                     const char *state, size_t size, const char *unit, int higher_is_better,
                     const double *samples, const double *cpu, size_t n)
{
    struct cwb_cell proto;
    memset(&proto, 0, sizeof proto);
    snprintf(proto.routine, sizeof proto.routine, "%s", routine);
    snprintf(proto.bench, sizeof proto.bench, "wl_%s", workload);
    snprintf(proto.state, sizeof proto.state, "%s", state);
    snprintf(proto.unit, sizeof proto.unit, "%s", unit);
    proto.size = size;
    proto.higher_is_better = higher_is_better;
    cwb_results_add(r, &proto, samples, cpu, n);
}

int cwb_wl_counters_open(struct cwb_wl_counters *c, char *why, size_t cap)
{
    c->fd_cycles = cwb_perf_open(PERF_COUNT_HW_CPU_CYCLES);
    if (c->fd_cycles < 0) {
        snprintf(why, cap, "perf_event_open(cycles): %s", strerror(errno));
        c->fd_misses = -1;
        return -1;
    }
    c->fd_misses = cwb_perf_open(PERF_COUNT_HW_CACHE_MISSES);
    if (c->fd_misses < 0) {
        snprintf(why, cap, "perf_event_open(cache-misses): %s", strerror(errno));
        close(c->fd_cycles);
        c->fd_cycles = -1;
        return -1;
    }
    return 0;
}

int cwb_wl_counters_read(const struct cwb_wl_counters *c, uint64_t *cycles, uint64_t *misses)
{
    if (read(c->fd_cycles, cycles, sizeof *cycles) != (ssize_t)sizeof *cycles)
        return -1;
    if (read(c->fd_misses, misses, sizeof *misses) != (ssize_t)sizeof *misses)
        return -1;
    return 0;
}

void cwb_wl_counters_close(struct cwb_wl_counters *c)
{
    if (c->fd_cycles >= 0)
        close(c->fd_cycles);
    if (c->fd_misses >= 0)
        close(c->fd_misses);
    c->fd_cycles = c->fd_misses = -1;
}

void cwb_wl_print_counters_unavailable(void)
{
    struct cwb_wl_counters c;
    char why[160];
    if (cwb_wl_counters_open(&c, why, sizeof why) == 0) {
        cwb_wl_counters_close(&c);
        printf("counters: available but not collected by this workload\n");
    } else {
        printf("counters: not available (%s)\n", why);
    }
}

const char *cwb_wl_tmpdir(void)
{
    const char *d = getenv("TMPDIR");
    return d != NULL && d[0] != '\0' ? d : "/tmp";
}
