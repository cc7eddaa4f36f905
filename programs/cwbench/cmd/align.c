/* SPDX-License-Identifier: MIT */
/* Offset lists for `sweep --align/--src-off/--dst-off` and `--ab --a-off/--b-off`.
 * Strict parsing (no sign, no blanks, no silent truncation) so that a typo
 * is an exit-2 message, not an hour of measuring the wrong cells. */
#include <stdlib.h>
#include <string.h>

#include "cmd/align.h"
#include "cmd/common.h"

/* "N": 0..CWB_MAX_OFF; *end points after the digits. -1 when not a number. */
static int parse_off(const char *s, const char **end)
{
    if (*s < '0' || *s > '9')
        return -1;
    long v = 0;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (*s - '0');
        if (v > CWB_MAX_OFF)
            return -1;
        s++;
    }
    *end = s;
    return (int)v;
}

/* "N" or "N-M" taking the whole of [s, stop). */
static int parse_range(const char *s, const char *stop, int *lo, int *hi)
{
    const char *e;
    if ((*lo = parse_off(s, &e)) < 0)
        return -1;
    *hi = *lo;
    if (e < stop && *e == '-' && (*hi = parse_off(e + 1, &e)) < 0)
        return -1;
    return e == stop && *lo <= *hi ? 0 : -1;
}

static int add_pair(const char *opt, struct cwb_aligns *a, int s, int d)
{
    for (size_t i = 0; i < a->n; i++)
        if (a->pair[i][0] == s && a->pair[i][1] == d)
            return cwb_usage_error("%s: offset pair %d:%d listed twice", opt, s, d);
    if (a->n == CWB_MAX_ALIGNS)
        return cwb_usage_error("%s: at most %d offset pairs (e.g. 0-63:0-63)", opt,
                               CWB_MAX_ALIGNS);
    a->pair[a->n][0] = s;
    a->pair[a->n][1] = d;
    a->n++;
    return 0;
}

/* Walks a comma-separated list from *cursor (NULL: the end): 1 with
 * [*item, *stop) the next item, 0 at the end, -1 on an empty item (",,",
 * or a comma first or last). */
static int next_item(const char **cursor, const char **item, const char **stop)
{
    const char *t = *cursor;
    if (t == NULL)
        return 0;
    const char *comma = strchr(t, ',');
    *item = t;
    *stop = comma ? comma : t + strlen(t);
    *cursor = comma ? comma + 1 : NULL;
    return *stop == t ? -1 : 1;
}

int cwb_parse_aligns(const char *opt, const char *text, struct cwb_aligns *a)
{
    a->n = 0;
    if (text[0] == '\0')
        return cwb_usage_error("%s: empty list", opt);
    const char *cursor = text, *t, *stop;
    int more;
    while ((more = next_item(&cursor, &t, &stop)) > 0) {
        const char *colon = memchr(t, ':', (size_t)(stop - t));
        int s0, s1, d0, d1;
        if (colon == NULL || parse_range(t, colon, &s0, &s1) != 0 ||
            parse_range(colon + 1, stop, &d0, &d1) != 0)
            return cwb_usage_error("%s %.*s: need SRC:DST byte offsets 0..%d, each a number or "
                                   "a range LO-HI, e.g. 0:1 or 0:1-63", opt, (int)(stop - t), t,
                                   CWB_MAX_OFF);
        for (int s = s0; s <= s1; s++)
            for (int d = d0; d <= d1; d++)
                if (add_pair(opt, a, s, d) != 0)
                    return 2;
    }
    if (more < 0)
        return cwb_usage_error("%s %s: empty item in the list", opt, text);
    return 0;
}

int cwb_parse_offlist(const char *opt, const char *text, int *v, size_t *n)
{
    *n = 0;
    if (text[0] == '\0')
        return cwb_usage_error("%s: empty list", opt);
    const char *cursor = text, *t, *stop;
    int more;
    while ((more = next_item(&cursor, &t, &stop)) > 0) {
        int lo, hi;
        if (parse_range(t, stop, &lo, &hi) != 0)
            return cwb_usage_error("%s %.*s: need byte offsets 0..%d, each a number or a range "
                                   "LO-HI, e.g. 1-63 or 0,1,3", opt, (int)(stop - t), t,
                                   CWB_MAX_OFF);
        for (int x = lo; x <= hi; x++) {
            for (size_t i = 0; i < *n; i++)
                if (v[i] == x)
                    return cwb_usage_error("%s: offset %d listed twice", opt, x);
            if (*n == CWB_MAX_OFF + 1)
                return cwb_usage_error("%s: too many offsets", opt);
            v[(*n)++] = x;
        }
    }
    if (more < 0)
        return cwb_usage_error("%s %s: empty item in the list", opt, text);
    return 0;
}

int cwb_parse_pair(const char *opt, const char *text, int *src, int *dst)
{
    const char *e;
    if ((*src = parse_off(text, &e)) < 0 || *e != ':' || (*dst = parse_off(e + 1, &e)) < 0 ||
        *e != '\0')
        return cwb_usage_error("%s %s: need one SRC:DST pair of byte offsets 0..%d, e.g. 0:1",
                               opt, text, CWB_MAX_OFF);
    return 0;
}

int cwb_offsets_to_aligns(const char *src_list, const char *dst_list, struct cwb_aligns *a)
{
    static int s[CWB_MAX_OFF + 1], d[CWB_MAX_OFF + 1];
    size_t ns = 1, nd = 1;
    s[0] = d[0] = 0;
    if (src_list != NULL && cwb_parse_offlist("--src-off", src_list, s, &ns) != 0)
        return 2;
    if (dst_list != NULL && cwb_parse_offlist("--dst-off", dst_list, d, &nd) != 0)
        return 2;
    if (ns * nd > CWB_MAX_ALIGNS)
        return cwb_usage_error("--src-off x --dst-off: %zu pairs, at most %d", ns * nd,
                               CWB_MAX_ALIGNS);
    a->n = 0;
    for (size_t i = 0; i < ns; i++)
        for (size_t j = 0; j < nd; j++) {
            a->pair[a->n][0] = s[i];
            a->pair[a->n][1] = d[j];
            a->n++;
        }
    return 0;
}
