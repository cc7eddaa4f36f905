/* SPDX-License-Identifier: MIT */
/* Size formatting and parsing, and the progress line on stderr. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "bench.h"
#include "progress.h"

const char *cwb_fmt_size(size_t n, char *buf, size_t cap)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    size_t whole = n;
    while (whole >= 1024 && u < 4 && whole % 1024 == 0) {
        whole /= 1024;
        u++;
    }
    if (whole >= 1024 * 10) {
        double v = (double)n;
        u = 0;
        while (v >= 1024 && u < 4) {
            v /= 1024;
            u++;
        }
        snprintf(buf, cap, "%.1f %s", v, unit[u]);
    } else {
        snprintf(buf, cap, "%zu %s", whole, unit[u]);
    }
    return buf;
}

int cwb_parse_size(const char *s, size_t *out)
{
    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0)
        return -1;
    unsigned shift = 0;
    if (*end != '\0') {
        switch (*end) {
        case 'k': case 'K': shift = 10; break;
        case 'm': case 'M': shift = 20; break;
        case 'g': case 'G': shift = 30; break;
        case 'b': case 'B': shift = 0; break;
        default: return -1;
        }
        end++;
        if (shift != 0 && (strcasecmp(end, "iB") == 0 || strcasecmp(end, "B") == 0))
            end += strlen(end);
        if (*end != '\0')
            return -1;
    }
    if (shift != 0 && v > (~0ull >> shift))
        return -1;
    v <<= shift;
    if (v > (unsigned long long)SIZE_MAX)
        return -1;
    *out = (size_t)v;
    return 0;
}

/* ---- progress -------------------------------------------------------------- */

/* On a terminal one line, rewritten at most 5 times a second; otherwise
 * (a log, a pipe) a line every PROG_LOG_EVERY seconds, so a long run
 * shows it is alive without flooding the log. The ETA extrapolates the
 * pace so far over the work left of the whole plan: units are estimated
 * time, so a phase that is slower than estimated slows the estimate of
 * everything after it too. */
#define PROG_LOG_EVERY 10.0

static struct {
    int quiet, on, tty, shown;
    const char *phase;
    double total;          /* this phase's units */
    double plan, base;     /* the command's units; units of the phases ended */
    double plan_start, start, last;
} prog;

void cwb_progress_set_quiet(int quiet)
{
    prog.quiet = quiet;
}

void cwb_progress_plan(double units)
{
    prog.plan = units > 0 ? units : 0;
    prog.base = 0;
    prog.plan_start = cwb_now();
}

void cwb_progress_begin(const char *phase, size_t total)
{
    prog.on = !prog.quiet;
    prog.tty = isatty(2);
    prog.phase = phase;
    prog.total = (double)total;
    prog.start = cwb_now();
    if (prog.plan <= 0)
        prog.plan_start = prog.start;
    cwb_progress_step(0);
}

static void prog_print(const char *text)
{
    fflush(stdout);
    if (prog.tty) {
        fprintf(stderr, "\r\033[K%s", text);
        prog.shown = 1;
    } else {
        fprintf(stderr, "cwbench: %s\n", text);
    }
    fflush(stderr);
}

void cwb_progress_step(size_t done)
{
    if (!prog.on)
        return;
    double now = cwb_now();
    double every = prog.tty ? 0.2 : PROG_LOG_EVERY;
    /* A terminal shows each phase as it starts; a log gets one line per
     * interval, whatever the phases. */
    if (prog.last > 0 && now - prog.last < every && !(prog.tty && done == 0))
        return;
    prog.last = now;
    double total = prog.plan > 0 ? prog.plan : prog.total;
    double d = (prog.plan > 0 ? prog.base : 0) + (double)done;
    if (d > total)
        d = total;
    double el = now - prog.plan_start;
    char line[160];
    if (d <= 0 || total <= 0) {
        snprintf(line, sizeof line, "[%s] starting", prog.phase);
    } else if (d >= total) {
        snprintf(line, sizeof line, "[%s] %.0f s, finishing", prog.phase, el);
    } else {
        int pct = (int)(100 * d / total);
        /* Too early a pace is mostly start-up cost. */
        if (el < 1 && d < 0.02 * total)
            snprintf(line, sizeof line, "[%s] %d%%", prog.phase, pct);
        else
            snprintf(line, sizeof line, "[%s] %d%% after %.0f s, ETA %.0f s", prog.phase, pct,
                     el, el / d * (total - d));
    }
    prog_print(line);
}

void cwb_progress_clear(void)
{
    if (prog.on && prog.tty && prog.shown) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
        prog.shown = 0;
    }
}

void cwb_progress_end(void)
{
    cwb_progress_clear();
    if (prog.plan > 0)
        prog.base += prog.total;
    prog.on = 0;
}
