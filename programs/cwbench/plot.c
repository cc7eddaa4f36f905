/* SPDX-License-Identifier: MIT */
/* --plot DIR: data files and gnuplot scripts for throughput vs size (log
 * axes, one line per routine) and pollution bars; rendered when gnuplot is
 * on PATH (found at run time, never needed to build). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "stats.h"

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

static double median(const struct cwb_cell *c)
{
    struct cwb_summary s;
    cwb_summarize(c->samples, c->n, &s);
    return s.median;
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

/* Throughput: aligned hot cells of one bench, one gnuplot data block per
 * routine (separated by two blank lines so `index` picks them). */
static int throughput(const char *dir, const struct cwb_results *r, const char *term,
                      const char *ext, int *made)
{
    char path[4096], names[CWB_MAX_ROUTINES][48];
    size_t nn = 0;
    for (size_t i = 0; i < r->n_cells; i++) {
        const struct cwb_cell *c = &r->cells[i];
        if (strcmp(c->unit, "GB/s") != 0 || strcmp(c->state, "hot") != 0 || c->src_off ||
            c->dst_off || c->size == 0)
            continue;
        size_t k = 0;
        while (k < nn && strcmp(names[k], c->routine) != 0)
            k++;
        if (k == nn && nn < CWB_MAX_ROUTINES)
            snprintf(names[nn++], sizeof names[0], "%s", c->routine);
    }
    if (nn == 0)
        return 0;
    FILE *f = open_in(dir, "throughput.dat", path, sizeof path);
    if (f == NULL)
        return 1;
    for (size_t k = 0; k < nn; k++) {
        fprintf(f, "# %s: size_bytes median_GBps\n", names[k]);
        for (size_t i = 0; i < r->n_cells; i++) {
            const struct cwb_cell *c = &r->cells[i];
            if (strcmp(c->routine, names[k]) == 0 && strcmp(c->unit, "GB/s") == 0 &&
                strcmp(c->state, "hot") == 0 && !c->src_off && !c->dst_off && c->size)
                fprintf(f, "%zu %.6g\n", c->size, median(c));
        }
        fprintf(f, "\n\n");
    }
    fclose(f);
    f = open_in(dir, "throughput.gp", path, sizeof path);
    if (f == NULL)
        return 1;
    fprintf(f, "set terminal %s size 1100,700\nset output 'throughput.%s'\n", term, ext);
    fprintf(f, "set title 'cwbench: copy throughput by size (hot, aligned; bytes counted once)'\n"
               "set termoption noenhanced\nset logscale xy 2\nset xlabel 'bytes per copy'\n"
               "set ylabel 'GB/s (median)'\nset key outside right\nset grid\n"
               "set xtics (\"1\" 1, \"16\" 16, \"256\" 256, \"4K\" 4096, \"64K\" 65536, "
               "\"1M\" 1048576, \"16M\" 16777216, \"256M\" 268435456)\n");
    fprintf(f, "plot ");
    for (size_t k = 0; k < nn; k++)
        fprintf(f, "%s'throughput.dat' index %zu with linespoints title '%s'", k ? ", \\\n  " : "",
                k, names[k]);
    fprintf(f, "\n");
    fclose(f);
    *made |= 1;
    return 0;
}

static int pollution(const char *dir, const struct cwb_results *r, const char *term,
                     const char *ext, int *made)
{
    char path[4096];
    size_t n = 0;
    for (size_t i = 0; i < r->n_cells; i++)
        n += strcmp(r->cells[i].bench, "pollution") == 0;
    if (n == 0)
        return 0;
    FILE *f = open_in(dir, "pollution.dat", path, sizeof path);
    if (f == NULL)
        return 1;
    fprintf(f, "# label evicted_fraction_median q1 q3\n");
    for (size_t i = 0; i < r->n_cells; i++) {
        const struct cwb_cell *c = &r->cells[i];
        if (strcmp(c->bench, "pollution") != 0)
            continue;
        struct cwb_summary s;
        cwb_summarize(c->samples, c->n, &s);
        fprintf(f, "\"%s %s\" %.6g %.6g %.6g\n", c->state + (strncmp(c->state, "victim-", 7)
                                                             ? 0 : 7),
                c->routine, s.median, s.q1, s.q3);
    }
    fclose(f);
    f = open_in(dir, "pollution.gp", path, sizeof path);
    if (f == NULL)
        return 1;
    fprintf(f, "set terminal %s size 1100,700\nset output 'pollution.%s'\n", term, ext);
    fprintf(f, "set termoption noenhanced\n");
    fprintf(f, "set title 'cwbench: evicted fraction of the victim after one copy (median, "
               "IQR)'\nset style fill solid 0.5\nset boxwidth 0.7\nset xtics rotate by -45\n"
               "set ylabel 'evicted fraction'\nset yrange [0:1.05]\nset grid ytics\n"
               "plot 'pollution.dat' using 0:2:xtic(1) with boxes notitle, "
               "'' using 0:2:3:4 with yerrorbars notitle\n");
    fclose(f);
    *made |= 2;
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
    if (throughput(dir, r, term, ext, &made) != 0 || pollution(dir, r, term, ext, &made) != 0)
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
    const char *scripts[] = {"throughput.gp", "pollution.gp"};
    for (int i = 0; i < 2; i++) {
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
