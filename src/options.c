/* Environment options (CACHEWISE_*): parsing and error recording.
 * Invalid settings are never fatal: they are ignored, recorded in
 * cw_get_info()->errors and printed when CACHEWISE_VERBOSE=1. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

extern char **environ;

const char *cwi_getenv(const char *name)
{
    size_t len = strlen(name);
    if (environ == NULL)
        return NULL;
    for (char **e = environ; *e != NULL; e++) {
        if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
            return *e + len + 1;
    }
    return NULL;
}

int cwi_parse_size(const char *text, size_t *out)
{
    if (text == NULL || *text < '0' || *text > '9')
        return -1;
    unsigned long long v = 0;
    const char *p = text;
    while (*p >= '0' && *p <= '9') {
        unsigned digit = (unsigned)(*p - '0');
        if (v > (~0ull - digit) / 10)
            return -1;
        v = v * 10 + digit;
        p++;
    }
    unsigned shift = 0;
    switch (*p) {
    case 'k': case 'K': shift = 10; p++; break;
    case 'm': case 'M': shift = 20; p++; break;
    case 'g': case 'G': shift = 30; p++; break;
    default: break;
    }
    if (shift != 0 && (*p == 'i' || *p == 'I')) /* accept KiB-style "Ki" */
        p++;
    if (shift != 0 && (*p == 'b' || *p == 'B'))
        p++;
    if (*p != '\0')
        return -1;
    if (shift != 0 && v > ((~0ull) >> shift))
        return -1;
    v <<= shift;
    if (v > (unsigned long long)SIZE_MAX)
        return -1;
    *out = (size_t)v;
    return 0;
}

static int verbose(void)
{
    const char *v = cwi_getenv("CACHEWISE_VERBOSE");
    return v != NULL && v[0] != '\0' && v[0] != '0';
}

void cwi_config_error(const char *fmt, ...)
{
    char msg[CW_INFO_ERROR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (cwi_info.n_errors < CW_INFO_MAX_ERRORS) {
        char *slot = cwi_info.errors[cwi_info.n_errors++];
        size_t len = strlen(msg);
        for (size_t i = 0; i <= len; i++) /* strcpy without the builtin */
            slot[i] = msg[i];
    }
    if (verbose()) {
        char line[CW_INFO_ERROR_LEN + 32];
        int len = snprintf(line, sizeof line, "cachewise: %s (ignored)\n", msg);
        if (len > 0)
            (void)!write(2, line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
    }
}
