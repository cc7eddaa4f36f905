/* SPDX-License-Identifier: MIT */
/* --plot DIR (plot.c). */
#ifndef CWB_PLOT_H
#define CWB_PLOT_H

struct cwb_results;

/* The most routines a chart tells apart: as many as a run measures
 * (CWB_MAX_ROUTINES; cmd/common.c checks that they agree). */
#define CWB_PLOT_MAX_ROUTINES 24

/* Charts through gnuplot into dir. Returns 0, or 1 on failure. */
int cwb_plot(const char *dir, const struct cwb_results *r);

#endif /* CWB_PLOT_H */
