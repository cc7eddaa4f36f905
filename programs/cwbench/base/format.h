/* SPDX-License-Identifier: MIT */
/* Sizes as text and back (format.c). */
#ifndef CWB_FORMAT_H
#define CWB_FORMAT_H

#include <stddef.h>

/* "64 B", "4 KiB", "1.5 MiB" */
const char *cwb_fmt_size(size_t n, char *buf, size_t cap);
/* Parse "4096", "4K", "4KiB", "64M", "1G": 0 or -1. */
int cwb_parse_size(const char *s, size_t *out);

#endif /* CWB_FORMAT_H */
