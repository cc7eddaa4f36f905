/* SPDX-License-Identifier: MIT */
/* cwbench: private to the result files' code. JSON primitives for the
 * reader (results_read.c; the parser: json_parse.c): a recursive descent over any JSON whitespace;
 * the first error wins and carries its line number ("FILE:LINE: problem"
 * in err). Each returns 0 on success and -1 after recording the error. */
#ifndef CWB_RESULTS_JSON_H
#define CWB_RESULTS_JSON_H

#include <stddef.h>
#include <stdio.h>

#define CWB_JSON_MAX_BYTES (512u << 20)
#define CWB_JSON_MAX_DEPTH 64

struct cwbj {
    const char *p, *end, *file;
    int line, depth, failed;
    char *err;
    size_t errcap;
};

__attribute__((format(printf, 2, 3)))
int cwbj_fail(struct cwbj *j, const char *fmt, ...);
void cwbj_ws(struct cwbj *j);
/* What stands at q, for "expected X, found Y". */
const char *cwbj_found(const struct cwbj *j, const char *q, char *buf, size_t cap);
int cwbj_expect(struct cwbj *j, char c);
/* The next non-blank byte, or -1 at the end. */
int cwbj_peek(struct cwbj *j);
/* A string into a malloc'd UTF-8 buffer. */
int cwbj_string(struct cwbj *j, char **out);
/* The literal word here (no error when absent: -1 and j unchanged). */
int cwbj_literal(struct cwbj *j, const char *word);
/* A number per the JSON grammar; null reads as NaN when allow_null. */
int cwbj_number(struct cwbj *j, double *out, int allow_null);
/* A number, and its text as written (so "2.5e-08" stays "2.5e-08"). */
int cwbj_number_text(struct cwbj *j, char *buf, size_t cap);
int cwbj_bool(struct cwbj *j, int *out);
/* Iterates "key": value pairs, calling fn with the parser at the value. */
typedef int (*cwbj_member_fn)(struct cwbj *j, const char *key, void *ctx);
int cwbj_object(struct cwbj *j, cwbj_member_fn fn, void *ctx);
/* Iterates the elements of an array, calling fn with the parser at each. */
typedef int (*cwbj_element_fn)(struct cwbj *j, void *ctx);
int cwbj_array(struct cwbj *j, cwbj_element_fn fn, void *ctx);
/* Skips any value. */
int cwbj_skip(struct cwbj *j);
/* An array of numbers (null reads as NaN); *n counts them. */
int cwbj_doubles(struct cwbj *j, double **out, size_t *n);
/* A string into dst (cap bytes), an error when longer. */
int cwbj_field(struct cwbj *j, const char *key, char *dst, size_t cap);
/* An integral number in [lo, hi]. */
int cwbj_integer(struct cwbj *j, const char *key, double lo, double hi, double *out);
/* The whole file, at most CWB_JSON_MAX_BYTES, into a malloc'd buffer;
 * NULL with "FILE: problem" in err. */
char *cwbj_slurp(const char *path, size_t *n, char *err, size_t errcap);

#endif /* CWB_RESULTS_JSON_H */
