/* SPDX-License-Identifier: MIT */
/* cwbench: command line, option checking and dispatch to the subcommands.
 * Every argument is checked before any measurement starts, so bad input
 * costs nothing and never leaves partial output behind. */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/format.h"
#include "base/progress.h"
#include "cmd/align.h"
#include "cmd/cmd.h"
#include "cmd/common.h"
#include "cmd/compare.h"
#include "cmd/options.h"
#include "engine/fresh.h"
#include "engine/routines.h"
#include "results/results.h"
#include "tune/tune.h"
#include "cachewise.h"

/* The implementations --impl takes: the x86-64 rows, or elsewhere the
 * portable one and whatever the library lists (a wrong name is answered
 * with the list of those runnable here). */
#if defined(__x86_64__)
#define CWB_IMPL_HELP                                                                         \
    "(generic, sse2, avx2,\n                   avx512, avx512-evex; default: the library's choice)"
#else
#define CWB_IMPL_HELP                                                                         \
    "(generic, or another the\n                   Machine block lists as runnable; default: " \
    "the best this CPU runs)"
#endif

enum mode { M_REPORT = 1, M_SWEEP = 2, M_DIST = 4, M_POLL = 8, M_AB = 16, M_TUNE = 32,
            M_THREADS = 64 };
#define M_ALL (M_REPORT | M_SWEEP | M_DIST | M_POLL | M_AB)

static const char help[] =
    "cwbench: cache-aware memory copy benchmark (docs/BENCHMARKS.md)\n"
    "\n"
    "usage:\n"
    "  cwbench [--routines A,B] [common]      the default report (under 60 s): machine, \n"
    "                                         copy ceiling, throughput by size, pollution,\n"
    "                                         verdicts against glibc memcpy\n"
    "  cwbench sweep [--routines A,B] [--sizes N,N..] [--max-size N] [--align S:D,..]\n"
    "                [--src-off LIST] [--dst-off LIST] [--states hot,cold,random] [common]\n"
    "                S, D and LIST items are offsets 0..4095 or ranges LO-HI:\n"
    "                --align 0:1-63 = --src-off 0 --dst-off 1-63 (63 pairs)\n"
    "  cwbench dist FILE [--routines A,B] [--calls N] [common]\n"
    "                sizes from a distribution file; N calls a sequence (default 64K), drawn\n"
    "                afresh before every batch\n"
    "  cwbench pollution [--size N]... [--routines A,B] [common]\n"
    "                one table per victim and copy size (default 1M, 4M, 16M, 64M)\n"
    "  cwbench --ab ROUTINE_A ROUTINE_B [--size N]... [--state hot|cold|random]\n"
    "               [--a-off S:D] [--b-off S:D] [--calls N] [common]\n"
    "                A may equal B when offsets differ; --calls: random state only\n"
    "  cwbench threads [--threads N] [--size N]... [--state hot|cold] [--victim] [--quick]\n"
    "               [--samples N] [--seed N] [--impl NAME] [--json FILE] [--csv FILE] [--quiet]\n"
    "                cw_copy_parallel at 1..N threads (default: the CPUs this process may run\n"
    "                on) against N plain streaming loops on disjoint slices (the ceiling) and\n"
    "                glibc memcpy split by hand, interleaved (default 64M and 256M, cold);\n"
    "                --victim: what a 1G copy in k parts evicts of an L2 victim against one\n"
    "                streaming call\n"
    "  cwbench compare A.json B.json [--alpha X]\n"
    "                per-cell verdicts of two --json files; --alpha: significance level,\n"
    "                0 < X < 0.5 (default 0.05); takes none of the options below\n"
    "  cwbench tune [--output FILE] [--install | --install-dir DIR] [--quick] [--samples N]\n"
    "               [--seed N] [--pin CPU]\n"
    "               measure this CPU's copy policy and write a tuning file (docs/TUNING.md)\n"
    "  cwbench info                           the copy policy in force: every setting, its\n"
    "                                         value, the profile's value, its source (no\n"
    "                                         options)\n"
    "  cwbench workload writeback|pmemlog|cachedread [--quick] [--runs N] [--json FILE]\n"
    "                [--csv FILE]    the kernel's experiments in userspace; --runs: samples\n"
    "                per cell, 1..1000 (docs/WORKLOADS.md); these take none of the options below\n"
    "  cwbench workload --list                the workloads\n"
    "  cwbench exec [--runs N] [--shim PATH] [--tuning T]... [--seed N] [--show-output]\n"
    "               [--allow-fail] -- COMMAND [ARGS...]\n"
    "                a command timed with and without the cachewise shim, interleaved\n"
    "                (cwbench exec --help); takes none of the options below\n"
    "  cwbench --list-routines\n"
    "\n"
    "common options (the default report, sweep, dist, pollution, --ab; tune takes --quick,\n"
    "--samples, --seed, --pin and --quiet of them; threads the ones its line lists):\n"
    "  --quick          tiny sizes and few samples (smoke tests; numbers not meaningful)\n"
    "  --samples N      samples per cell after the warm-up (default 10, 3..100000)\n"
    "  --seed N         seed of the run order and random offsets (default 1)\n"
    "  --pin CPU        run on that CPU only\n"
    "  --stack-offset N page offset (0..4080, a multiple of 16) of the timed loops' stack\n"
    "                   (default: chosen per cell away from both buffers)\n"
    "  --impl NAME      measure with that cachewise implementation " CWB_IMPL_HELP "\n"
    "  --json FILE      raw samples and metadata as JSON (read by cwbench compare)\n"
    "  --csv FILE       raw samples as CSV\n"
    "  --plot DIR       charts through gnuplot (PNG, else SVG)\n"
    "  --quiet          no progress on stderr (otherwise: phase, percentage and ETA)\n"
    "  --help           this text; --version: the cachewise version\n"
    "man cwbench (docs/cwbench.1) has the details.\n"
    "sizes take K, M, G suffixes (binary: 1K = 1024), at most 1G.\n";

static const char *runnable_impls(void)
{
    static char buf[128];
    size_t len = 0;
    buf[0] = '\0';
    for (const char *const *p = cw_impl_list(); *p != NULL; p++) {
        int w = snprintf(buf + len, sizeof buf - len, "%s%s", len ? " " : "", *p);
        if (w < 0 || (size_t)w >= sizeof buf - len)
            break;
        len += (size_t)w;
    }
    return buf;
}

static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v > max)
        return -1;
    *out = v;
    return 0;
}

static int parse_size_opt(const char *opt, const char *val, size_t min, size_t *out)
{
    size_t v;
    if (cwb_parse_size(val, &v) != 0)
        return cwb_usage_error("%s %s: not a size (digits with optional K, M or G)", opt, val);
    if (v < min || v > CWB_SIZE_LIMIT)
        return cwb_usage_error("%s %s: out of range (%zu .. 1G)", opt, val, min);
    *out = v;
    return 0;
}

/* The file must be creatable: its directory exists and is writable. */
static int check_output(const char *opt, const char *path)
{
    struct stat st;
    if (path[0] == '\0')
        return cwb_usage_error("%s: empty file name", opt);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return cwb_usage_error("%s %s: is a directory", opt, path);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    if (access(dir, W_OK) != 0)
        return cwb_usage_error("%s %s: cannot write in %s (%s)", opt, path, dir,
                               strerror(errno));
    return 0;
}

static int check_plot_dir(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return cwb_usage_error("--plot %s: not a directory", path);
        if (access(path, W_OK) != 0)
            return cwb_usage_error("--plot %s: not writable (%s)", path, strerror(errno));
        return 0;
    }
    return check_output("--plot", path);
}

static int add_sizes(struct cwb_opts *o, const char *opt, const char *list)
{
    char buf[1024];
    /* A truncated copy would silently measure part of the list. */
    if (strlen(list) >= sizeof buf)
        return cwb_usage_error("%s: list too long (at most %d sizes)", opt, CWB_MAX_SIZES);
    snprintf(buf, sizeof buf, "%s", list);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
        if (o->n_sizes == CWB_MAX_SIZES)
            return cwb_usage_error("%s: at most %d sizes", opt, CWB_MAX_SIZES);
        if (parse_size_opt(opt, t, 0, &o->sizes[o->n_sizes]) != 0)
            return 2;
        o->n_sizes++;
    }
    if (o->n_sizes == 0)
        return cwb_usage_error("%s: empty list", opt);
    return 0;
}

static const struct { const char *name; int value; int modes; } options[] = {
    {"--quick", 0, M_ALL | M_TUNE | M_THREADS}, {"--samples", 1, M_ALL | M_TUNE | M_THREADS},
    {"--seed", 1, M_ALL | M_TUNE | M_THREADS},  {"--pin", 1, M_ALL | M_TUNE},
    {"--output", 1, M_TUNE},    {"--install", 0, M_TUNE},    {"--install-dir", 1, M_TUNE},
    {"--json", 1, M_ALL | M_THREADS}, {"--csv", 1, M_ALL | M_THREADS},
    {"--plot", 1, M_ALL},       {"--routines", 1, M_REPORT | M_SWEEP | M_DIST | M_POLL},
    {"--sizes", 1, M_SWEEP},    {"--max-size", 1, M_SWEEP},  {"--align", 1, M_SWEEP},
    {"--states", 1, M_SWEEP},   {"--size", 1, M_POLL | M_AB | M_THREADS},
    {"--impl", 1, M_ALL | M_THREADS},
    {"--src-off", 1, M_SWEEP},  {"--dst-off", 1, M_SWEEP},   {"--state", 1, M_AB | M_THREADS},
    {"--a-off", 1, M_AB},       {"--b-off", 1, M_AB},        {"--stack-offset", 1, M_ALL},
    {"--calls", 1, M_DIST | M_AB}, {"--quiet", 0, M_ALL | M_TUNE | M_THREADS},
    {"--threads", 1, M_THREADS}, {"--victim", 0, M_THREADS},
};

/* --calls was given: --ab rejects it outside the random state. */
static int calls_given;

static const char *mode_name(int m)
{
    return m == M_SWEEP ? "sweep" : m == M_DIST ? "dist" : m == M_POLL ? "pollution"
         : m == M_AB ? "--ab" : m == M_TUNE ? "tune" : m == M_THREADS ? "threads"
         : "the default report";
}

static int apply(struct cwb_opts *o, int mode, const char *name, const char *val)
{
    unsigned long long u;
    if (strcmp(name, "--quick") == 0) {
        o->quick = 1;
    } else if (strcmp(name, "--samples") == 0) {
        if (parse_uint(val, 100000, &u) != 0 || u < 3)
            return cwb_usage_error("--samples %s: need a whole number 3..100000", val);
        o->samples = (int)u;
    } else if (strcmp(name, "--seed") == 0) {
        if (parse_uint(val, ULLONG_MAX, &u) != 0)
            return cwb_usage_error("--seed %s: need a whole number", val);
        o->seed = u;
    } else if (strcmp(name, "--pin") == 0) {
        if (parse_uint(val, CPU_SETSIZE - 1, &u) != 0)
            return cwb_usage_error("--pin %s: need a CPU number 0..%d", val, CPU_SETSIZE - 1);
        o->pin = (int)u;
    } else if (strcmp(name, "--stack-offset") == 0) {
        if (parse_uint(val, 4080, &u) != 0 || u % 16 != 0)
            return cwb_usage_error("--stack-offset %s: need a multiple of 16 in 0..4080", val);
        o->stack_at = (int)u;
    } else if (strcmp(name, "--json") == 0) {
        o->json = val;
        return check_output(name, val);
    } else if (strcmp(name, "--output") == 0) {
        o->output = val;
        return check_output(name, val);
    } else if (strcmp(name, "--install") == 0) {
        if (o->install_dir == NULL)
            o->install_dir = CW_SYSTEM_TUNING_DIR;
    } else if (strcmp(name, "--install-dir") == 0) {
        o->install_dir = val;
    } else if (strcmp(name, "--csv") == 0) {
        o->csv = val;
        return check_output(name, val);
    } else if (strcmp(name, "--plot") == 0) {
        o->plot = val;
        return check_plot_dir(val);
    } else if (strcmp(name, "--routines") == 0) {
        o->routines = val;
    } else if (strcmp(name, "--sizes") == 0) {
        return add_sizes(o, name, val);
    } else if (strcmp(name, "--max-size") == 0) {
        return parse_size_opt(name, val, 1, &o->max_size);
    } else if (strcmp(name, "--align") == 0) {
        if (o->aligns != NULL)
            return cwb_usage_error("--align given twice (give one list: 0:0,0:1-63)");
        o->aligns = val;
    } else if (strcmp(name, "--states") == 0) {
        o->states = val;
    } else if (strcmp(name, "--src-off") == 0 || strcmp(name, "--dst-off") == 0) {
        const char **slot = name[2] == 's' ? &o->src_offs : &o->dst_offs;
        if (*slot != NULL)
            return cwb_usage_error("%s given twice (give one list: 1-63 or 0,1,3)", name);
        *slot = val;
    } else if (strcmp(name, "--state") == 0) {
        if (mode == M_THREADS && strcmp(val, "hot") != 0 && strcmp(val, "cold") != 0)
            return cwb_usage_error("--state %s: threads takes hot or cold", val);
        if (strcmp(val, "hot") != 0 && strcmp(val, "cold") != 0 && strcmp(val, "random") != 0)
            return cwb_usage_error("--state %s: need hot, cold or random", val);
        o->state = val;
    } else if (strcmp(name, "--threads") == 0) {
        if (parse_uint(val, 64, &u) != 0 || u < 1)
            return cwb_usage_error("--threads %s: need a whole number of threads 1..64", val);
        o->threads = (int)u;
    } else if (strcmp(name, "--victim") == 0) {
        o->victim = 1;
    } else if (strcmp(name, "--a-off") == 0 || strcmp(name, "--b-off") == 0) {
        int s, d;
        if (cwb_parse_pair(name, val, &s, &d) != 0)
            return 2;
        if (name[2] == 'a')
            o->a_off = val;
        else
            o->b_off = val;
    } else if (strcmp(name, "--impl") == 0) {
        if (cw_impl_select(val) != 0)
            return cwb_usage_error("--impl %s: %s (runnable here: %s)", val,
                                   errno == ENOTSUP ? "not supported by this CPU"
                                                    : "unknown implementation",
                                   runnable_impls());
    } else if (strcmp(name, "--quiet") == 0) {
        cwb_progress_set_quiet(1);
    } else if (strcmp(name, "--calls") == 0) {
        size_t n;
        if (cwb_parse_size(val, &n) != 0 || n < CWB_SEQ_MIN_CALLS || n > CWB_SEQ_MAX_CALLS)
            return cwb_usage_error("--calls %s: need a number of calls %zu..%zu (K and M "
                                   "suffixes: 64K = 65536)", val, CWB_SEQ_MIN_CALLS,
                                   CWB_SEQ_MAX_CALLS);
        cwb_seq_set_calls(n);
        calls_given = 1;
    } else if (strcmp(name, "--size") == 0) {
        if (mode == M_AB)
            return add_sizes(o, name, val);
        /* pollution and threads: one table per size given, each at least 1 byte */
        if (o->n_sizes == CWB_MAX_SIZES)
            return cwb_usage_error("%s: at most %d sizes", name, CWB_MAX_SIZES);
        if (parse_size_opt(name, val, 1, &o->sizes[o->n_sizes]) != 0)
            return 2;
        o->size = o->sizes[o->n_sizes++];
    }
    return 0;
}

/* The CPUs of a set as a list of ranges ("0-3,8"), for messages. */
static const char *cpu_list(const cpu_set_t *set)
{
    static char buf[256];
    size_t len = 0;
    buf[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, set))
            continue;
        int hi = c;
        while (hi + 1 < CPU_SETSIZE && CPU_ISSET(hi + 1, set))
            hi++;
        int w = hi == c ? snprintf(buf + len, sizeof buf - len, "%s%d", len ? "," : "", c)
                        : snprintf(buf + len, sizeof buf - len, "%s%d-%d", len ? "," : "", c, hi);
        if (w < 0 || (size_t)w >= sizeof buf - len) {
            snprintf(buf + (len < sizeof buf - 4 ? len : sizeof buf - 4), 4, "...");
            break;
        }
        len += (size_t)w;
        c = hi;
    }
    return buf;
}

/* Pin to one CPU of those the process may already run on. Asking the kernel
 * for any other would move the process out of the set it was started with
 * (taskset, a cgroup cpuset, a batch scheduler's slot), onto a CPU where
 * something else is likely to run: an error, not a silent widening. */
static int pin(int cpu)
{
    cpu_set_t allowed, set;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return cwb_usage_error("--pin %d: cannot read this process's CPU set (%s)", cpu,
                               strerror(errno));
    if (!CPU_ISSET(cpu, &allowed))
        return cwb_usage_error("--pin %d: CPU %d is not in this process's CPU set (%s)", cpu,
                               cpu, cpu_list(&allowed));
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return cwb_usage_error("--pin %d: CPU not available to this process (%s)", cpu,
                               strerror(errno));
    return 0;
}

int main(int argc, char **argv)
{
    /* DRAM counts as pmem for libpmem's checks (no machine here has
     * persistent memory; libpmem's fast paths need pmem_is_pmem true). libpmem reads it lazily, on its first pmem_is_pmem(), not in
     * its constructor, so main() is early enough. */
    setenv("PMEM_IS_PMEM_FORCE", "1", 1);
    cwb_results_set_command_line(argc, argv); /* for the JSON context */

    int mode = M_REPORT, i = 1;
    struct cwb_opts o;
    memset(&o, 0, sizeof o);
    o.seed = 1;
    o.pin = -1;
    o.stack_at = -1;
    if (argc > 1 && argv[1][0] != '-') {
        const char *c = argv[1];
        if (strcmp(c, "compare") == 0)
            return cwb_cmd_compare(argc - 1, argv + 1);
        if (strcmp(c, "workload") == 0)
            return cwb_cmd_workload(argc - 1, argv + 1);
        if (strcmp(c, "exec") == 0)
            return cwb_cmd_exec(argc - 1, argv + 1);
        if (strcmp(c, "info") == 0)
            return cwb_cmd_info(argc - 1, argv + 1);
        if (strcmp(c, "help") == 0) {
            fputs(help, stdout);
            return 0;
        }
        if (strcmp(c, "sweep") == 0)
            mode = M_SWEEP;
        else if (strcmp(c, "dist") == 0)
            mode = M_DIST;
        else if (strcmp(c, "pollution") == 0)
            mode = M_POLL;
        else if (strcmp(c, "tune") == 0)
            mode = M_TUNE;
        else if (strcmp(c, "threads") == 0)
            mode = M_THREADS;
        else
            return cwb_usage_error("unknown subcommand '%s'", c);
        i = 2;
    }
    /* --ab makes the whole command line an A/B run, whatever its position:
     * options before it are checked against --ab too. */
    for (int k = i; mode == M_REPORT && k < argc; k++)
        if (strcmp(argv[k], "--ab") == 0)
            mode = M_AB;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(help, stdout);
            return 0;
        }
        if (strcmp(a, "--version") == 0) {
            printf("cwbench %s\n", cw_version());
            return 0;
        }
        if (strcmp(a, "--list-routines") == 0) {
            size_t n;
            const struct cwb_routine *r = cwb_routines(&n);
            for (size_t k = 0; k < n; k++)
                printf("%-22s %s\n", r[k].name, r[k].what);
            return 0;
        }
        if (strcmp(a, "--ab") == 0) {
            if (mode != M_AB)
                return cwb_usage_error("--ab is not an option of %s", mode_name(mode));
            if (o.ab_a != NULL)
                return cwb_usage_error("--ab given twice");
            if (i + 2 >= argc || argv[i + 1][0] == '-' || argv[i + 2][0] == '-')
                return cwb_usage_error("--ab needs two routine names");
            o.ab_a = argv[++i];
            o.ab_b = argv[++i];
            continue;
        }
        if (a[0] != '-') {
            if (mode == M_DIST && o.file == NULL) {
                o.file = a;
                continue;
            }
            return cwb_usage_error("unexpected argument '%s'", a);
        }
        char name[32];
        const char *val = NULL, *eq = strchr(a, '=');
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
        size_t k = 0, nopt = sizeof options / sizeof options[0];
        while (k < nopt && strcmp(options[k].name, name) != 0)
            k++;
        if (k == nopt)
            return cwb_usage_error("unknown option '%s'", name);
        if (!(options[k].modes & mode))
            return cwb_usage_error("%s is not an option of %s", name, mode_name(mode));
        if (options[k].value) {
            if (eq != NULL)
                val = eq + 1;
            else if (i + 1 < argc)
                val = argv[++i];
            else
                return cwb_usage_error("%s needs a value", name);
        } else if (eq != NULL) {
            return cwb_usage_error("%s takes no value", name);
        }
        if (apply(&o, mode, name, val) != 0)
            return 2;
    }
    if (mode == M_AB && calls_given &&
        (o.state == NULL || strcmp(o.state, "random") != 0))
        return cwb_usage_error("--calls applies to --state random only (a hot or cold cell "
                               "repeats one call)");
    if (mode == M_DIST && o.file == NULL)
        return cwb_usage_error("dist needs a distribution FILE");
    if (mode == M_AB && (cwb_routine_find(o.ab_a) == NULL || cwb_routine_find(o.ab_b) == NULL))
        return cwb_usage_error("--ab %s %s: unknown routine '%s' (known: %s)", o.ab_a, o.ab_b,
                               cwb_routine_find(o.ab_a) == NULL ? o.ab_a : o.ab_b,
                               cwb_routine_names());
    if (mode == M_THREADS && o.threads > 0) {
        /* cw_copy_parallel caps its threads at the caller's CPUs: a row
         * past them would measure fewer threads than it names */
        cpu_set_t allowed;
        if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 &&
            o.threads > CPU_COUNT(&allowed))
            return cwb_usage_error("--threads %d: this process may run on %d CPU%s (%s), and "
                                   "cw_copy_parallel uses no more", o.threads,
                                   CPU_COUNT(&allowed), CPU_COUNT(&allowed) == 1 ? "" : "s",
                                   cpu_list(&allowed));
    }
    if (o.pin >= 0 && pin(o.pin) != 0)
        return 2;
    switch (mode) {
    case M_SWEEP: return cwb_cmd_sweep(&o);
    case M_DIST: return cwb_cmd_dist(&o);
    case M_POLL: return cwb_cmd_pollution(&o);
    case M_AB: return cwb_cmd_ab(&o);
    case M_THREADS: return cwb_cmd_threads(&o);
    case M_TUNE: {
        struct tune_opts t = {o.quick, o.quick ? (size_t)4 << 20 : (size_t)64 << 20, o.output,
                              o.install_dir};
        return cwb_cmd_tune(&t, &o);
    }
    default: return cwb_cmd_report(&o);
    }
}
