/* SPDX-License-Identifier: MIT */
/* `cwbench exec`: a program measured with and without cachewise, the way
 * the kernel's copy patches were judged (hdparm -T: the same command run
 * again and again, mean and sigma before and after). The command runs
 * --runs times per variant: without the LD_PRELOAD shim, with it, and with
 * it under each --tuning given; every round runs the variants in a fresh
 * random order, after one discarded warm-up run of each (page cache, lazy
 * binding). Each run's wall time, user + system CPU time and maximum
 * resident set come from wait4(); each variant is compared with the one
 * without the shim by the Mann-Whitney test and the Hodges-Lehmann
 * estimate, as every cwbench verdict (docs/STATISTICS.md).
 *
 * What would change between runs cannot be timed: a command must exit with
 * the same status every run (a second `xz -k big.tar` fails because the
 * first left big.tar.xz behind), and a failing command is refused unless
 * --allow-fail (exit status 1 for both). Its output goes to /dev/null
 * unless --show-output. Bad options: one line and the usage, exit 2. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "results/stats.h"
#include "results/verdict.h"

#define MAX_VARIANTS 4
#define MAX_RUNS 1000

struct variant {
    char name[48];
    const char *tuning; /* CACHEWISE_TUNING, or NULL */
    int shim;
    double *wall, *cpu, *rss; /* seconds, seconds, MiB */
    size_t n;
};

struct exec_opts {
    unsigned runs;
    const char *shim;
    const char *tunings[MAX_VARIANTS - 2];
    int ntunings, show_output, allow_fail;
    uint64_t seed;
    char **argv; /* the command */
};

static const char usage_text[] =
    "usage: cwbench exec [--runs N] [--shim PATH] [--tuning T]... [--seed N] [--show-output]\n"
    "                    [--allow-fail] -- COMMAND [ARGS...]\n"
    "  runs COMMAND N times (default 20) per variant: without the cachewise shim, with it,\n"
    "  and with it under each --tuning T (a profile name, a file or a directory; at most 2);\n"
    "  variants interleaved in a random order per round after one warm-up run each;\n"
    "  output to /dev/null unless --show-output; the command must exit the same way every run\n";

/* One line naming the problem, then the usage; exit status 2. */
static int exec_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "cwbench: exec: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", usage_text);
    return 2;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The shim: --shim, else the one built beside this cwbench, else the one
 * installed beside it (../lib*). NULL if none is readable. */
static const char *find_shim(const char *given, char *buf, size_t cap)
{
    if (given != NULL)
        return access(given, R_OK) == 0 ? given : NULL;
#ifdef CWB_PRELOAD_BUILD_PATH
    if (access(CWB_PRELOAD_BUILD_PATH, R_OK) == 0)
        return CWB_PRELOAD_BUILD_PATH;
#endif
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return NULL;
    self[len] = '\0';
    char *slash = strrchr(self, '/');
    if (slash == NULL)
        return NULL;
    *slash = '\0';
    static const char *const rel[] = {"../lib/libcachewise-preload.so",
                                      "../lib64/libcachewise-preload.so",
                                      "../lib/x86_64-linux-gnu/libcachewise-preload.so",
                                      "../lib/aarch64-linux-gnu/libcachewise-preload.so"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        snprintf(buf, cap, "%s/%s", self, rel[i]);
        if (access(buf, R_OK) == 0)
            return buf;
    }
    return NULL;
}

/* One run of the command as variant v; its exit status in *status (as
 * wait4 reports it). 0, or -1 when it could not be started. */
static int run_once(const struct exec_opts *o, const struct variant *v, const char *shim,
                    double *wall, double *cpu, double *rss, int *status)
{
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        /* the environment of the variant: nothing of the caller's own
         * LD_PRELOAD or CACHEWISE_TUNING leaks into the other variants */
        unsetenv("LD_PRELOAD");
        unsetenv("CACHEWISE_TUNING");
        if (v->shim)
            setenv("LD_PRELOAD", shim, 1);
        if (v->tuning != NULL)
            setenv("CACHEWISE_TUNING", v->tuning, 1);
        if (!o->show_output) {
            int null = open("/dev/null", O_RDWR);
            if (null >= 0) {
                dup2(null, 1);
                dup2(null, 2);
                if (null > 2)
                    close(null);
            }
        }
        execvp(o->argv[0], o->argv);
        _exit(127);
    }
    struct rusage ru;
    int st;
    while (wait4(pid, &st, 0, &ru) < 0)
        if (errno != EINTR)
            return -1;
    *wall = now_s() - t0;
    *cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    *rss = (double)ru.ru_maxrss / 1024.0;
    *status = st;
    return 0;
}

static void describe_status(int st, char *buf, size_t cap)
{
    if (WIFEXITED(st))
        snprintf(buf, cap, "exit %d", WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        snprintf(buf, cap, "signal %d", WTERMSIG(st));
    else
        snprintf(buf, cap, "status %d", st);
}

static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void mean_sd(const double *x, size_t n, double *mean, double *sd)
{
    double s = 0, q = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    *mean = n ? s / (double)n : 0;
    for (size_t i = 0; i < n; i++)
        q += (x[i] - *mean) * (x[i] - *mean);
    *sd = n > 1 ? sqrt(q / (double)(n - 1)) : 0;
}

static void print_row(const char *what, const char *unit, const struct variant *v,
                      const double *x)
{
    struct cwb_summary s;
    double mean, sd;
    cwb_summarize(x, v->n, &s);
    mean_sd(x, v->n, &mean, &sd);
    printf("  %-26s %-10s median %9.4f %s  [%9.4f, %9.4f]  mean %9.4f  sigma %8.4f\n", v->name,
           what, s.median, unit, s.q1, s.q3, mean, sd);
}

static void print_verdict(const char *what, const struct variant *base, const double *a,
                          const struct variant *v, const double *b)
{
    struct cwb_cmp c;
    char buf[320];
    if (cwb_compare(a, base->n, b, v->n, 0.05, &c) != 0) {
        printf("    %-10s %s vs %s: no comparison (a sample of 0)\n", what, v->name, base->name);
        return;
    }
    printf("    %-10s %s vs %s: medians %.4f -> %.4f: %s\n", what, v->name, base->name,
           c.med_a, c.med_b, cwb_verdict(&c, 0, buf, sizeof buf));
}

static int parse(int argc, char **argv, struct exec_opts *o)
{
    memset(o, 0, sizeof *o);
    o->runs = 20;
    o->seed = 1;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage_text, stdout);
            return 1;
        }
        if (strcmp(a, "--show-output") == 0) {
            o->show_output = 1;
            continue;
        }
        if (strcmp(a, "--allow-fail") == 0) {
            o->allow_fail = 1;
            continue;
        }
        int known = strcmp(a, "--runs") == 0 || strcmp(a, "--shim") == 0 ||
                    strcmp(a, "--tuning") == 0 || strcmp(a, "--seed") == 0;
        if (!known)
            return exec_usage(a[0] == '-' ? "unknown option '%s'"
                                          : "'%s': put the command after --",
                              a);
        if (i + 1 >= argc)
            return exec_usage("%s needs a value", a);
        const char *val = argv[++i];
        char *end;
        errno = 0;
        if (strcmp(a, "--runs") == 0) {
            unsigned long v = strtoul(val, &end, 10);
            if (errno || *end || end == val || v < 3 || v > MAX_RUNS)
                return exec_usage("--runs %s: need a whole number 3..1000", val);
            o->runs = (unsigned)v;
        } else if (strcmp(a, "--seed") == 0) {
            unsigned long long v = strtoull(val, &end, 10);
            if (errno || *end || end == val)
                return exec_usage("--seed %s: need a whole number", val);
            o->seed = v;
        } else if (strcmp(a, "--shim") == 0) {
            o->shim = val;
        } else {
            if (o->ntunings == MAX_VARIANTS - 2)
                return exec_usage("--tuning %s: at most 2 tunings", val);
            o->tunings[o->ntunings++] = val;
        }
    }
    if (i >= argc)
        return exec_usage("%s", "no command: give it after --");
    o->argv = argv + i;
    return 0;
}

int cwb_cmd_exec(int argc, char **argv)
{
    struct exec_opts o;
    int rc = parse(argc, argv, &o);
    if (rc != 0)
        return rc == 1 ? 0 : rc;
    char shimbuf[PATH_MAX + 64];
    const char *shim = find_shim(o.shim, shimbuf, sizeof shimbuf);
    if (shim == NULL && o.shim != NULL)
        return exec_usage("--shim %s: not readable", o.shim);
    if (shim == NULL)
        return exec_usage("%s", "no libcachewise-preload.so beside this cwbench: give --shim PATH");

    struct variant v[MAX_VARIANTS];
    size_t nv = 0;
    memset(v, 0, sizeof v);
    snprintf(v[nv].name, sizeof v[nv].name, "without cachewise");
    nv++;
    snprintf(v[nv].name, sizeof v[nv].name, "with the shim");
    v[nv++].shim = 1;
    for (int t = 0; t < o.ntunings; t++) {
        snprintf(v[nv].name, sizeof v[nv].name, "shim, tuning %.28s", o.tunings[t]);
        v[nv].shim = 1;
        v[nv++].tuning = o.tunings[t];
    }
    for (size_t k = 0; k < nv; k++) {
        v[k].wall = calloc(o.runs, sizeof(double));
        v[k].cpu = calloc(o.runs, sizeof(double));
        v[k].rss = calloc(o.runs, sizeof(double));
        if (!v[k].wall || !v[k].cpu || !v[k].rss) {
            fprintf(stderr, "cwbench exec: out of memory\n");
            return 1;
        }
    }

    printf("cwbench exec: %s", o.argv[0]);
    for (char **a = o.argv + 1; *a != NULL; a++)
        printf(" %s", *a);
    printf("\n  %u runs per variant after one warm-up each, variants in a random order per round "
           "(seed %llu); shim %s; output %s\n", o.runs, (unsigned long long)o.seed, shim,
           o.show_output ? "shown" : "to /dev/null");
    fflush(stdout);

    int first_status = 0;
    size_t order[MAX_VARIANTS];
    for (unsigned r = 0; r <= o.runs && rc == 0; r++) {
        for (size_t k = 0; k < nv; k++)
            order[k] = k;
        for (size_t k = nv; k > 1; k--) {
            size_t j = (size_t)(next_rand(&o.seed) % k);
            size_t t = order[k - 1];
            order[k - 1] = order[j];
            order[j] = t;
        }
        for (size_t q = 0; q < nv && rc == 0; q++) {
            struct variant *x = &v[order[q]];
            double w, c, m;
            int st;
            if (run_once(&o, x, shim, &w, &c, &m, &st) != 0) {
                fprintf(stderr, "cwbench exec: cannot run %s: %s\n", o.argv[0], strerror(errno));
                rc = 1;
                break;
            }
            char d[32], d0[32];
            describe_status(st, d, sizeof d);
            if (r == 0 && q == 0) {
                first_status = st;
                if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0) && !o.allow_fail) {
                    fprintf(stderr, "cwbench exec: %s failed (%s%s); refusing to time a failing "
                            "command (--allow-fail times it anyway)\n", o.argv[0], d,
                            WIFEXITED(st) && WEXITSTATUS(st) == 127 ? ": not found?" : "");
                    rc = 1;
                }
            } else if (st != first_status) {
                describe_status(first_status, d0, sizeof d0);
                fprintf(stderr, "cwbench exec: %s ended with %s in one run (%s), %s in the first: "
                        "something changes between runs (an output file left behind?); "
                        "refusing to compare\n", o.argv[0], d, x->name, d0);
                rc = 1;
            }
            if (r == 0)
                continue; /* the warm-up */
            x->wall[x->n] = w;
            x->cpu[x->n] = c;
            x->rss[x->n] = m;
            x->n++;
        }
    }
    if (rc == 0) {
        printf("\nper variant: median [q1, q3], mean and sigma over %u runs\n", o.runs);
        for (size_t k = 0; k < nv; k++) {
            print_row("wall", "s", &v[k], v[k].wall);
            print_row("user+sys", "s", &v[k], v[k].cpu);
            print_row("max RSS", "MiB", &v[k], v[k].rss);
        }
        printf("\nverdicts against \"%s\" (Mann-Whitney U, alpha 0.05; lower is better):\n",
               v[0].name);
        for (size_t k = 1; k < nv; k++) {
            print_verdict("wall", &v[0], v[0].wall, &v[k], v[k].wall);
            print_verdict("user+sys", &v[0], v[0].cpu, &v[k], v[k].cpu);
            print_verdict("max RSS", &v[0], v[0].rss, &v[k], v[k].rss);
        }
    }
    for (size_t k = 0; k < nv; k++) {
        free(v[k].wall);
        free(v[k].cpu);
        free(v[k].rss);
    }
    return rc;
}
