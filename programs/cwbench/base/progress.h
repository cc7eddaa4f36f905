/* SPDX-License-Identifier: MIT */
/* Progress on stderr (progress.c): phases, a plan for the whole command
 * so that the ETA covers every phase still to come, and --quiet. */
#ifndef CWB_PROGRESS_H
#define CWB_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

void cwb_progress_begin(const char *phase, size_t total);
void cwb_progress_step(size_t done);
/* Erase the progress line before printing a result line to stdout. */
void cwb_progress_clear(void);
void cwb_progress_end(void);

/* --quiet: no progress at all. */
void cwb_progress_set_quiet(int quiet);
/* The whole command's work in the units its phases count (estimated
 * milliseconds, say): cwb_progress_begin(phase, total) then declares each
 * phase's share of it, and the ETA is for what is left of the command.
 * Phases of the same name are one class of work: what is left of a class
 * costs what its units have cost so far, what no class has measured yet
 * costs what all units have cost so far. Without a plan a phase is the
 * whole of it. cwb_progress_plan(0) ends a plan. */
void cwb_progress_plan(double units);
/* cwb_progress_begin of a phase of `items` alike items (cells), each
 * reported by one cwb_progress_step: the ETA then also reads the cost
 * measured per item, not only per estimated unit. */
void cwb_progress_begin_items(const char *phase, size_t total, size_t items);
/* Seconds left, NAN while nothing has been measured. */
double cwb_progress_eta(void);

/* For tests: a clock in seconds instead of CLOCK_MONOTONIC (NULL: that
 * again), and the stream the progress goes to with whether it is to be
 * treated as a terminal (NULL: stderr, asked with isatty). */
void cwb_progress_set_clock(double (*clock)(void));
void cwb_progress_set_output(FILE *f, int tty);

#endif /* CWB_PROGRESS_H */
