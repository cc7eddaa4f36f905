/* SPDX-License-Identifier: MIT */
/* Size formatting and parsing. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/format.h"

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
