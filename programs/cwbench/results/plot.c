/* SPDX-License-Identifier: MIT */
/* --plot DIR: data files and gnuplot scripts for throughput vs size (log
 * axes, one line per routine, quartile bars), pollution bars and dist's
 * calls/s per routine, in twelve distinct colours, titled with the sizes
 * and the CPU; rendered when gnuplot is on PATH (found at run time, never
 * needed to build). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/format.h"
#include "results/plot.h"
#include "results/results.h"
#include "results/stats.h"

#define PLOT_COLOURS 12

static int on_path(const char *prog)
{
    const char *path = getenv("PATH");
    if (path == NULL)
        return 0;
    char dir[4096];
    while (*path) {
        size_t len = strcspn(path, ":");
        snprintf(dir, sizeof dir, "%.*s/%s", (int)len, path, prog);
        if (access(dir, X_OK) == 0)
            return 1;
        path += len;
        if (*path == ':')
            path++;
    }
    return 0;
}

/* Runs argv quietly (stdout/stderr to /dev/null when quiet); exit status. */
static int run(char *const argv[], int quiet)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open("/dev/null", O_RDWR);
        if (fd >= 0) {
            dup2(fd, 0);
            if (quiet) {
                dup2(fd, 1);
                dup2(fd, 2);
            }
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static FILE *open_in(const char *dir, const char *name, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", dir, name);
    /* O_NOFOLLOW: a symlink planted in DIR is not written through */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL) {
        fprintf(stderr, "cwbench: --plot: cannot write %s: %s\n", path,
                errno == ELOOP ? "it is a symbolic link (not followed)" : strerror(errno));
        if (fd >= 0)
            close(fd);
    }
    return f;
}

/* Twelve colours told apart at a glance (gnuplot's default cycle has 8,
 * so a report's ninth routine took the first one's colour), and a point
 * shape each as well, for print and for colour-blind readers. */
static const char *const palette[PLOT_COLOURS] = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
    "#e377c2", "#17becf", "#7f7f7f", "#bcbd22", "#000000", "#b8860b",
};

/* The terminal, the palette, no enhanced text (routine names have '_'). */
static void preamble(FILE *f, const char *term, const char *ext, const char *name)
{
    fprintf(f, "set terminal %s size 1100,700\nset output '%s.%s'\nset termoption noenhanced\n",
            term, name, ext);
    for (int k = 0; k < PLOT_COLOURS; k++)
        fprintf(f, "set linetype %d lc rgb '%s' lw 2 pt %d ps 1.2\n", k + 1, palette[k], k + 1);
    fprintf(f, "set linetype cycle %d\n", PLOT_COLOURS);
}

/* s escaped for a gnuplot double-quoted string (titles: "\n" breaks a
 * line there). */
static void quoted(const char *s, char *buf, size_t cap)
{
    size_t k = 0;
    for (; s != NULL && *s && k + 3 < cap; s++) {
        if (*s == '"' || *s == '\\')
            buf[k++] = '\\';
        buf[k++] = *s;
    }
    buf[k] = '\0';
}

/* "\non AMD EPYC 9B45", a second title line, from the run's metadata
 * (nothing when absent). */
static void cpu_part(const struct cwb_results *r, char *buf, size_t cap)
{
    const char *cpu = cwb_results_meta_get(r, "cpu");
    char q[160];
    quoted(cpu, q, sizeof q);
    snprintf(buf, cap, "%s%s", q[0] ? "\\non " : "", q);
}

/* "16 MiB", or "1 MiB-64 MiB" over the cells that pass keep(). */
static void size_range(const struct cwb_results *r, int (*keep)(const struct cwb_cell *),
                       char *buf, size_t cap)
{
    size_t lo = SIZE_MAX, hi = 0;
    for (size_t i = 0; i < r->n_cells; i++)
        if (keep(&r->cells[i])) {
            lo = r->cells[i].size < lo ? r->cells[i].size : lo;
            hi = r->cells[i].size > hi ? r->cells[i].size : hi;
        }
    char a[32], b[32];
    if (lo == SIZE_MAX)
        snprintf(buf, cap, "-");
    else if (lo == hi)
        snprintf(buf, cap, "%s", cwb_fmt_size(lo, a, sizeof a));
    else
        snprintf(buf, cap, "%s-%s", cwb_fmt_size(lo, a, sizeof a), cwb_fmt_size(hi, b, sizeof b));
}

/* The routines of the cells keep() passes, in order of appearance. */
static size_t routines_of(const struct cwb_results *r, int (*keep)(const struct cwb_cell *),
                          char (*names)[48])
{
    size_t nn = 0;
    for (size_t i = 0; i < r->n_cells; i++) {
        const struct cwb_cell *c = &r->cells[i];
        if (!keep(c))
            continue;
        size_t k = 0;
        while (k < nn && strcmp(names[k], c->routine) != 0)
            k++;
        if (k == nn && nn < CWB_PLOT_MAX_ROUTINES)
            snprintf(names[nn++], sizeof names[0], "%s", c->routine);
    }
    return nn;
}

static size_t routine_index(char (*names)[48], size_t nn, const char *name)
{
    size_t k = 0;
    while (k < nn && strcmp(names[k], name) != 0)
        k++;
    return k;
}

static int is_throughput(const struct cwb_cell *c)
{
    return strcmp(c->unit, "GB/s") == 0 && strcmp(c->state, "hot") == 0 && !c->src_off &&
           !c->dst_off && c->size != 0;
}

/* Throughput: aligned hot cells, one gnuplot data block per routine
 * (separated by two blank lines so `index` picks them), the median with
 * the quartiles as its bar. */
static int throughput(const char *dir, const struct cwb_results *r, const char *term,
                      const char *ext, int *made)
{
    char path[4096], names[CWB_PLOT_MAX_ROUTINES][48], cpu[200], range[80];
    size_t nn = routines_of(r, is_throughput, names);
    if (nn == 0)
        return 0;
    FILE *f = open_in(dir, "throughput.dat", path, sizeof path);
    if (f == NULL)
        return 1;
    for (size_t k = 0; k < nn; k++) {
        fprintf(f, "# %s: size_bytes median_GBps q1 q3\n", names[k]);
        for (size_t i = 0; i < r->n_cells; i++) {
            const struct cwb_cell *c = &r->cells[i];
            struct cwb_summary s;
            if (strcmp(c->routine, names[k]) != 0 || !is_throughput(c))
                continue;
            cwb_summarize(c->samples, c->n, &s);
            fprintf(f, "%zu %.6g %.6g %.6g\n", c->size, s.median, s.q1, s.q3);
        }
        fprintf(f, "\n\n");
    }
    fclose(f);
    f = open_in(dir, "throughput.gp", path, sizeof path);
    if (f == NULL)
        return 1;
    cpu_part(r, cpu, sizeof cpu);
    size_range(r, is_throughput, range, sizeof range);
    preamble(f, term, ext, "throughput");
    fprintf(f, "set title \"cwbench: copy throughput, %s copies (hot, aligned; bytes counted "
               "once; bars: quartiles)%s\"\n", range, cpu);
    fprintf(f, "set logscale xy 2\nset xlabel 'bytes per copy'\nset ylabel 'GB/s (median)'\n"
               "set key outside right\nset grid\n"
               "set xtics (\"1\" 1, \"16\" 16, \"256\" 256, \"4K\" 4096, \"64K\" 65536, "
               "\"1M\" 1048576, \"16M\" 16777216, \"256M\" 268435456)\n");
    fprintf(f, "plot ");
    for (size_t k = 0; k < nn; k++)
        fprintf(f, "%s'throughput.dat' index %zu using 1:2:3:4 with yerrorlines lt %zu title \"%s\"",
                k ? ", \\\n  " : "", k, k + 1, names[k]);
    fprintf(f, "\n");
    fclose(f);
    *made |= 1;
    return 0;
}

static int is_pollution(const struct cwb_cell *c)
{
    return strcmp(c->bench, "pollution") == 0;
}

/* Evicted fraction per victim, copy size and routine: a bar each, in the
 * routine's colour, with the quartiles. */
static int pollution(const char *dir, const struct cwb_results *r, const char *term,
                     const char *ext, int *made)
{
    char path[4096], names[CWB_PLOT_MAX_ROUTINES][48], cpu[200], range[80];
    size_t nn = routines_of(r, is_pollution, names);
    if (nn == 0)
        return 0;
    size_range(r, is_pollution, range, sizeof range);
    int many = strchr(range, '-') != NULL; /* several copy sizes: label each bar with its own */
    FILE *f = open_in(dir, "pollution.dat", path, sizeof path);
    if (f == NULL)
        return 1;
    fprintf(f, "# label evicted_fraction_median q1 q3 colour\n");
    for (size_t i = 0; i < r->n_cells; i++) {
        const struct cwb_cell *c = &r->cells[i];
        if (!is_pollution(c))
            continue;
        struct cwb_summary s;
        char sz[32] = "";
        cwb_summarize(c->samples, c->n, &s);
        if (many)
            cwb_fmt_size(c->size, sz, sizeof sz);
        fprintf(f, "\"%s %s%s%s\" %.6g %.6g %.6g %zu\n",
                c->state + (strncmp(c->state, "victim-", 7) ? 0 : 7), sz, many ? " " : "",
                c->routine, s.median, s.q1, s.q3, routine_index(names, nn, c->routine) % PLOT_COLOURS + 1);
    }
    fclose(f);
    f = open_in(dir, "pollution.gp", path, sizeof path);
    if (f == NULL)
        return 1;
    cpu_part(r, cpu, sizeof cpu);
    preamble(f, term, ext, "pollution");
    fprintf(f, "set title \"cwbench: evicted fraction of the victim after one copy of %s "
               "(median, bars: quartiles)%s\"\n", range, cpu);
    fprintf(f, "set style fill solid 0.6\nset boxwidth 0.7\nset xtics rotate by -45\n"
               "set ylabel 'evicted fraction (0 = untouched, 1 = all from DRAM)'\n"
               "set yrange [0:1.05]\nset grid ytics\nset bmargin 10\n"
               "plot 'pollution.dat' using 0:2:5:xtic(1) with boxes lc variable notitle, "
               "'' using 0:2:3:4 with yerrorbars lc rgb '#000000' pt 0 notitle\n");
    fclose(f);
    *made |= 2;
    return 0;
}

static int is_dist(const struct cwb_cell *c)
{
    return strcmp(c->bench, "dist") == 0 && strcmp(c->unit, "calls/s") == 0;
}

/* dist: calls/s of each routine on the file's sizes, a bar each with the
 * quartiles. */
static int dist(const char *dir, const struct cwb_results *r, const char *term, const char *ext,
                int *made)
{
    char path[4096], names[CWB_PLOT_MAX_ROUTINES][48], cpu[200], file[512];
    size_t nn = routines_of(r, is_dist, names), mean = 0;
    if (nn == 0)
        return 0;
    FILE *f = open_in(dir, "dist.dat", path, sizeof path);
    if (f == NULL)
        return 1;
    fprintf(f, "# routine median_Mcalls_per_s q1 q3 colour\n");
    for (size_t i = 0; i < r->n_cells; i++) {
        const struct cwb_cell *c = &r->cells[i];
        if (!is_dist(c))
            continue;
        struct cwb_summary s;
        cwb_summarize(c->samples, c->n, &s);
        mean = c->size;
        fprintf(f, "\"%s\" %.6g %.6g %.6g %zu\n", c->routine, s.median / 1e6, s.q1 / 1e6,
                s.q3 / 1e6, routine_index(names, nn, c->routine) % PLOT_COLOURS + 1);
    }
    fclose(f);
    f = open_in(dir, "dist.gp", path, sizeof path);
    if (f == NULL)
        return 1;
    cpu_part(r, cpu, sizeof cpu);
    const char *src = cwb_results_meta_get(r, "dist_file"), *base = src;
    for (const char *q = src; q != NULL && *q; q++)
        if (*q == '/')
            base = q + 1;
    quoted(base != NULL ? base : "the size distribution", file, sizeof file);
    preamble(f, term, ext, "dist");
    fprintf(f, "set title \"cwbench dist: calls/s on the sizes of %s (mean %zu B, random "
               "offsets; bars: quartiles)%s\"\n", file, mean, cpu);
    fprintf(f, "set style fill solid 0.6\nset boxwidth 0.6\nset xtics rotate by -30\n"
               "set ylabel 'million calls per second (median)'\nset yrange [0:*]\n"
               "set grid ytics\nset bmargin 7\n"
               "plot 'dist.dat' using 0:2:5:xtic(1) with boxes lc variable notitle, "
               "'' using 0:2:3:4 with yerrorbars lc rgb '#000000' pt 0 notitle\n");
    fclose(f);
    *made |= 4;
    return 0;
}

int cwb_plot(const char *dir, const struct cwb_results *r)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "cwbench: --plot %s: %s\n", dir, strerror(errno));
        return 1;
    }
    int have = on_path("gnuplot");
    const char *term = "svg", *ext = "svg";
    if (have) {
        char *probe[] = {"gnuplot", "-e", "set terminal pngcairo", NULL};
        if (run(probe, 1) == 0)
            term = "pngcairo", ext = "png";
    }
    int made = 0;
    if (throughput(dir, r, term, ext, &made) != 0 || pollution(dir, r, term, ext, &made) != 0 ||
        dist(dir, r, term, ext, &made) != 0)
        return 1;
    if (made == 0) {
        printf("--plot: nothing to chart in this run\n");
        return 0;
    }
    if (!have) {
        printf("--plot: gnuplot not found on PATH; data and scripts are in %s. Install it "
               "(Debian: apt-get install gnuplot) and run: cd %s && gnuplot *.gp\n", dir, dir);
        return 0;
    }
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd) == NULL || chdir(dir) != 0) {
        fprintf(stderr, "cwbench: --plot %s: %s\n", dir, strerror(errno));
        return 1;
    }
    int rc = 0;
    const char *scripts[] = {"throughput.gp", "pollution.gp", "dist.gp"};
    for (int i = 0; i < 3; i++) {
        if (!(made & (1 << i)))
            continue;
        char *argv[] = {"gnuplot", (char *)scripts[i], NULL};
        if (run(argv, 0) != 0) {
            fprintf(stderr, "cwbench: --plot: gnuplot failed on %s/%s\n", dir, scripts[i]);
            rc = 1;
        } else {
            printf("chart written to %s/%.*s.%s\n", dir, (int)strlen(scripts[i]) - 3,
                   scripts[i], ext);
        }
    }
    if (chdir(cwd) != 0)
        rc = 1;
    return rc;
}
