/* SPDX-License-Identifier: MIT */
/* Environment options (CACHEWISE_*): parsing and error recording.
 * Invalid settings are never fatal: they are ignored, recorded in
 * cw_get_info()->errors and printed when CACHEWISE_VERBOSE=1. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/auxv.h>
#endif

#include "internal.h"

extern char **environ;

int cwi_secure_mode(void)
{
#if defined(__linux__) && defined(AT_SECURE)
    /* getauxval reads the vector the kernel passed to the dynamic linker:
     * valid before libc's constructors, and it cannot be changed by the
     * (untrusted) environment. */
    return getauxval(AT_SECURE) != 0;
#else
    return 0;
#endif
}

static int any_setting_present(void)
{
    static const char prefix[] = "CACHEWISE_";
    if (environ == NULL)
        return 0;
    for (char **e = environ; *e != NULL; e++)
        if (strncmp(*e, prefix, sizeof prefix - 1) == 0)
            return 1;
    return 0;
}

const char *cwi_getenv(const char *name)
{
    size_t len = strlen(name);
    if (environ == NULL)
        return NULL;
    /* Secure mode (setuid, setgid, file capabilities): the environment
     * belongs to a less privileged user, who must not steer a privileged
     * process (which file it writes, which code path it runs). Every
     * CACHEWISE_* setting is read here, so nothing escapes this test. */
    if (cwi_secure_mode()) {
        static atomic_int recorded;
        if (any_setting_present() && atomic_exchange(&recorded, 1) == 0)
            cwi_config_error("CACHEWISE_* ignored: secure mode (setuid, setgid or file "
                             "capabilities)");
        return NULL;
    }
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
