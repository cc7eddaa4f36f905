/* SPDX-License-Identifier: MIT */
/* The progress line on stderr, and the ETA it shows.
 *
 * Work is planned in estimated units (milliseconds of the cost models
 * below), phase by phase, and each phase's units belong to a class named
 * after it. The ETA charges what is left of every class at that class's own
 * measured cost (per unit, and per cell where the phase counts its cells),
 * and what no measurement covers yet at the cost measured over everything
 * done so far. A pace for the whole command is
 * not enough: `cwbench sweep --max-size 256K --samples 5 --states hot,cold`
 * said "50% after 4 s, ETA 4 s" and took 41 s on an AMD EPYC Zen 5 guest,
 * because its hot cells cost a tenth of its cold ones and all came first.
 *
 * On a terminal one line, rewritten at most 5 times a second; otherwise
 * (a log, a pipe) a line every PROG_LOG_EVERY seconds, so a long run
 * shows it is alive without flooding the log. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/progress.h"

#define PROG_LOG_EVERY 10.0
#define PROG_CLASSES 16

/* A class of work: units planned and done, seconds spent on them, and
 * where the phase declared them the items (cells) planned and done. */
struct pclass { char name[40]; double planned, done, spent; size_t items, items_done; };

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static struct {
    int quiet, on, tty, shown, forced_tty;
    FILE *out;              /* NULL: stderr */
    double (*clock)(void);
    char phase[40];
    double plan;            /* the command's units; 0: none, a phase is its own plan */
    struct pclass c[PROG_CLASSES];
    size_t nc;
    int cur;                /* class of the running phase; -1: none */
    double phase_total, phase_done;
    double plan_start, last_print, mark; /* mark: when work was last charged */
} prog = {.cur = -1};

static double now(void)
{
    return prog.clock != NULL ? prog.clock() : mono_now();
}

static FILE *out(void)
{
    return prog.out != NULL ? prog.out : stderr;
}

void cwb_progress_set_quiet(int quiet)
{
    prog.quiet = quiet;
}

void cwb_progress_set_clock(double (*clock)(void))
{
    prog.clock = clock;
}

void cwb_progress_set_output(FILE *f, int tty)
{
    prog.out = f;
    prog.forced_tty = f != NULL ? (tty ? 1 : 2) : 0;
}

static void reset(double plan)
{
    prog.plan = plan > 0 ? plan : 0;
    prog.nc = 0;
    prog.cur = -1;
    prog.plan_start = prog.mark = now();
}

void cwb_progress_plan(double units)
{
    reset(units);
}

static int class_of(const char *phase)
{
    for (size_t i = 0; i < prog.nc; i++)
        if (strcmp(prog.c[i].name, phase) == 0)
            return (int)i;
    if (prog.nc == PROG_CLASSES)
        return (int)prog.nc - 1; /* more phases than classes: the last one shares */
    struct pclass *k = &prog.c[prog.nc];
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s", phase);
    return (int)prog.nc++;
}

void cwb_progress_begin(const char *phase, size_t total)
{
    cwb_progress_begin_items(phase, total, 0);
}

void cwb_progress_begin_items(const char *phase, size_t total, size_t items)
{
    if (prog.plan <= 0)
        reset(0); /* no plan: this phase is the whole of it */
    prog.on = !prog.quiet;
    prog.tty = prog.forced_tty ? prog.forced_tty == 1 : isatty(fileno(out()));
    snprintf(prog.phase, sizeof prog.phase, "%s", phase);
    prog.cur = class_of(phase);
    prog.c[prog.cur].planned += (double)total;
    prog.c[prog.cur].items += items;
    prog.phase_total = (double)total;
    prog.phase_done = 0;
    prog.mark = now();
    cwb_progress_step(0);
}

/* Charges the time since the last charge to the running phase's class,
 * with the units done since. */
static void charge(double t, double units)
{
    if (prog.cur < 0 || units <= 0)
        return;
    struct pclass *k = &prog.c[prog.cur];
    k->done += units;
    k->items_done++;
    k->spent += t - prog.mark;
    prog.mark = t;
}

/* Seconds the rest of class k costs. Two readings of what was measured:
 * per estimated unit (the cost model's shape across sizes holds) and per
 * item (every cell of the class costs alike). Each is 2-3x off where the
 * other is right, at the end of a sweep of sizes; their geometric mean is
 * within 2x either way (tests/cwbench/test_progress.c). */
static double class_left(const struct pclass *k, double pace)
{
    double left = k->planned - k->done;
    if (left <= 0)
        return 0;
    if (!(k->done > 0 && k->spent > 0))
        return left * pace;
    double by_unit = left * k->spent / k->done;
    if (k->items == 0 || k->items_done == 0 || k->items_done >= k->items)
        return by_unit;
    double by_item = (double)(k->items - k->items_done) * k->spent / (double)k->items_done;
    return sqrt(by_unit * by_item);
}

double cwb_progress_eta(void)
{
    double done = 0, spent = 0, planned = 0;
    for (size_t i = 0; i < prog.nc; i++) {
        done += prog.c[i].done;
        spent += prog.c[i].spent;
        planned += prog.c[i].planned;
    }
    if (!(done > 0) || !(spent > 0))
        return NAN;
    double pace = spent / done, rem = 0;
    for (size_t i = 0; i < prog.nc; i++)
        rem += class_left(&prog.c[i], pace);
    /* Phases not begun yet: at the pace of everything so far. */
    if (prog.plan > planned)
        rem += (prog.plan - planned) * pace;
    return rem;
}

static void prog_print(const char *text)
{
    FILE *f = out();
    fflush(stdout);
    if (prog.tty) {
        fprintf(f, "\r\033[K%s", text);
        prog.shown = 1;
    } else {
        fprintf(f, "cwbench: %s\n", text);
    }
    fflush(f);
}

void cwb_progress_step(size_t done)
{
    double t = now();
    if ((double)done > prog.phase_done) {
        charge(t, (double)done - prog.phase_done);
        prog.phase_done = (double)done;
    }
    if (!prog.on)
        return;
    double every = prog.tty ? 0.2 : PROG_LOG_EVERY;
    /* A terminal shows each phase as it starts; a log gets one line per
     * interval, whatever the phases. */
    if (prog.last_print > 0 && t - prog.last_print < every && !(prog.tty && done == 0))
        return;
    prog.last_print = t;
    double el = t - prog.plan_start, eta = cwb_progress_eta();
    double total = prog.plan > 0 ? prog.plan : prog.phase_total, d = 0;
    for (size_t i = 0; i < prog.nc; i++)
        d += prog.c[i].done;
    char line[160];
    if (d <= 0 || total <= 0) {
        snprintf(line, sizeof line, "[%s] starting", prog.phase);
    } else if (d >= total || (eta == eta && eta <= 0)) {
        snprintf(line, sizeof line, "[%s] %.0f s, finishing", prog.phase, el);
    } else {
        /* The share of the time, not of the units: units of different
         * classes cost different times. */
        int pct = eta == eta && el + eta > 0 ? (int)(100 * el / (el + eta))
                                             : (int)(100 * d / total);
        /* Too early a pace is mostly start-up cost. */
        if ((el < 1 && d < 0.02 * total) || eta != eta)
            snprintf(line, sizeof line, "[%s] %d%%", prog.phase, pct);
        else
            snprintf(line, sizeof line, "[%s] %d%% after %.0f s, ETA %.0f s", prog.phase, pct,
                     el, eta);
    }
    prog_print(line);
}

void cwb_progress_clear(void)
{
    if (prog.on && prog.tty && prog.shown) {
        fprintf(out(), "\r\033[K");
        fflush(out());
        prog.shown = 0;
    }
}

void cwb_progress_end(void)
{
    /* The phase is done: its units all count (a phase that did more than
     * its estimate planned for it counts what it did), and its last part
     * is charged. */
    if (prog.cur >= 0) {
        struct pclass *k = &prog.c[prog.cur];
        double t = now();
        double final = prog.phase_done > prog.phase_total ? prog.phase_done : prog.phase_total;
        k->planned += final - prog.phase_total;
        k->done += final - prog.phase_done;
        k->spent += t - prog.mark;
        prog.mark = t;
    }
    cwb_progress_clear();
    prog.cur = -1;
    prog.on = 0;
}
