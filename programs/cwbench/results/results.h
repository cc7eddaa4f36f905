/* SPDX-License-Identifier: MIT */
/* cwbench result sets: cells of raw samples plus run metadata, written as
 * JSON (read back by `cwbench compare`) or CSV. Formats: docs/STATISTICS.md. */
#ifndef CWB_RESULTS_H
#define CWB_RESULTS_H

#include <stddef.h>
#include <stdio.h>

#define CWB_MAX_META 64

struct cwb_cell { char routine[48]; char bench[24]; /* "throughput","dist","pollution",... */
                  char state[16]; /* "hot","cold","random",... */ size_t size; int src_off, dst_off;
                  char unit[16]; /* "GB/s","calls/s","fraction","ns" */ int higher_is_better;
                  double *samples; size_t n; double *cpu_samples; /* optional, same n, or NULL */ };

struct cwb_results { char *meta_keys[CWB_MAX_META]; char *meta_vals[CWB_MAX_META]; size_t n_meta;
                     struct cwb_cell *cells; size_t n_cells, cap; };

void cwb_results_init(struct cwb_results *r);
void cwb_results_free(struct cwb_results *r);
/* Sets or replaces key; silently ignored once CWB_MAX_META keys exist or
 * when out of memory (metadata is informative only). */
void cwb_results_meta(struct cwb_results *r, const char *key, const char *val);
/* cwb_results_meta with the result set as a void *: the shape of a
 * callback that fills in metadata (cwb_machine_meta takes it). */
void cwb_results_meta_sink(void *r, const char *key, const char *val);
/* Appends a copy of proto (strings truncated to their fields) owning
 * copies of samples and cpu (cpu may be NULL). Returns the new cell, valid
 * until the next add, or NULL when out of memory. */
struct cwb_cell *cwb_results_add(struct cwb_results *r, const struct cwb_cell *proto,
                                 const double *samples, const double *cpu, size_t n);
/* Looks up a meta value; NULL when absent. */
const char *cwb_results_meta_get(const struct cwb_results *r, const char *key);

/* The version of the JSON format written: 2 is Google Benchmark's schema
 * ("context", "benchmarks") with cwbench's fields as extra keys and the
 * cells it cannot carry (no time in their unit) in "cwbench_cells"; 1 had
 * "format", "meta" and "cells". The reader takes both (docs/STATISTICS.md). */
#define CWB_RESULTS_VERSION 2

/* The command line and start time that JSON files record (main, once). */
void cwb_results_set_command_line(int argc, char **argv);

/* Write to a temporary file beside path, then rename(): never leaves a
 * partial file. 0 on success; -1 with a one-line message in err. */
int cwb_results_write_json(const struct cwb_results *r, const char *path, char *err, size_t errcap);
int cwb_results_write_csv(const struct cwb_results *r, const char *path, char *err, size_t errcap);
/* Replaces r's contents (r must be initialised). On error r is left empty
 * and err names the file, the line and the problem:
 * "A.json:12: expected ':'". */
int cwb_results_read_json(struct cwb_results *r, const char *path, char *err, size_t errcap);

/* For the writers (results_write.c, results.c): emit into a temporary
 * file beside path, then rename() it over path; 0, or -1 with the message
 * in err. */
typedef void (*cwb_emit_fn)(FILE *f, const struct cwb_results *r);
int cwb_results_write_atomic(const struct cwb_results *r, const char *path, cwb_emit_fn emit,
                             char *err, size_t errcap);

/* Format an error message into err (cap bytes; nothing when err is NULL):
 * shared by the results writers and the JSON reader. */
__attribute__((format(printf, 3, 4)))
void cwb_set_err(char *err, size_t cap, const char *fmt, ...);

#endif
