/* SPDX-License-Identifier: MIT */
/* Offset lists of sweep and --ab (align.c). */
#ifndef CWB_ALIGN_H
#define CWB_ALIGN_H

#include <stddef.h>

/* Source:destination offset pairs (sweep --align, --src-off x --dst-off). */
#define CWB_MAX_OFF 4095
#define CWB_MAX_ALIGNS 4096
struct cwb_aligns { int pair[CWB_MAX_ALIGNS][2]; size_t n; };
/* "S:D,S:D" where S and D are each N or LO-HI (cartesian product); pairs
 * must be unique. 0, or 2 after the usage message. */
int cwb_parse_aligns(const char *opt, const char *text, struct cwb_aligns *a);
/* "N,LO-HI,..." into v (room for CWB_MAX_OFF + 1); 0 or 2. */
int cwb_parse_offlist(const char *opt, const char *text, int *v, size_t *n);
/* Exactly one "S:D" pair; 0 or 2. */
int cwb_parse_pair(const char *opt, const char *text, int *src, int *dst);
/* --src-off x --dst-off (a NULL list means offset 0); 0 or 2. */
int cwb_offsets_to_aligns(const char *src_list, const char *dst_list, struct cwb_aligns *a);

#endif /* CWB_ALIGN_H */
