/* SPDX-License-Identifier: MIT */
/* The environment (CACHEWISE_*): secure mode, where none of it is read;
 * the variables of the library's start-up, read once (cwi_env_read); the
 * settings' variables over the policy (cwi_env_overlay); the recording of
 * configuration errors. Invalid settings are never fatal: they are
 * ignored, recorded in cw_get_info()->errors and printed when
 * CACHEWISE_VERBOSE=1. */
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

struct cwi_env cwi_env;

/* CACHEWISE_VERBOSE as the start-up pass read it (-1 outside the pass:
 * read where an error is recorded, as the shim's are). */
static int g_verbose = -1;

static int verbose_value(const char *v)
{
    return v != NULL && v[0] != '\0' && v[0] != '0';
}

static int verbose(void)
{
    return g_verbose >= 0 ? g_verbose : verbose_value(cwi_getenv("CACHEWISE_VERBOSE"));
}

void cwi_env_read(void)
{
    cwi_env.tuning = cwi_getenv("CACHEWISE_TUNING");
    for (int i = 0; i < CWI_N_SETTINGS; i++)
        cwi_env.setting[i] = cwi_getenv(cwi_setting_env(i));
    cwi_env.verbose = verbose_value(cwi_getenv("CACHEWISE_VERBOSE"));
    g_verbose = cwi_env.verbose;
}

void cwi_env_done(void)
{
    g_verbose = -1;
}

/* The other variables the library and the shim read, for the check that
 * warns about misspelled names. */
static const char *const other_vars[] = {
    "CACHEWISE_TUNING",
    "CACHEWISE_VERBOSE",
    "CACHEWISE_SRC_NOREUSE_THRESHOLD",
    "CACHEWISE_PROFILE",
    "CACHEWISE_PROFILE_SIGNAL",
    "CACHEWISE_PROFILE_SLOTS",
    "CACHEWISE_STATS",
    NULL,
};

static void warn_unknown_vars(void)
{
    if (environ == NULL || cwi_secure_mode())
        return;
    for (char **e = environ; *e != NULL; e++) {
        if (strncmp(*e, "CACHEWISE_", 10) != 0)
            continue;
        size_t len = (size_t)(strchr(*e, '=') != NULL ? strchr(*e, '=') - *e : (long)strlen(*e));
        int known = 0;
        for (int i = 0; i < CWI_N_SETTINGS && !known; i++)
            known =
                strlen(cwi_setting_env(i)) == len && strncmp(cwi_setting_env(i), *e, len) == 0;
        for (size_t i = 0; other_vars[i] != NULL && !known; i++)
            known = strlen(other_vars[i]) == len && strncmp(other_vars[i], *e, len) == 0;
        if (!known)
            cwi_config_error("%.*s: unknown setting (misspelled?)", (int)(len < 60 ? len : 60),
                             *e);
    }
}

void cwi_env_overlay(void)
{
    for (int i = 0; i < CWI_N_SETTINGS; i++) {
        const char *v = cwi_env.setting[i];
        char why[96];
        if (i == CWI_SET_IMPL || v == NULL)
            continue; /* CACHEWISE_IMPL: checked against the CPU with the file's impl */
        if (cwi_setting_parse(&cwi_pol, i, v, why, sizeof why) == 0)
            cwi_settings[i].source = "env";
        else
            cwi_config_error("%s=\"%.60s\": %s", cwi_setting_env(i), v, why);
    }
    warn_unknown_vars();
}

void cwi_config_error(const char *fmt, ...)
{
    char msg[CW_INFO_ERROR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (cwi_info.n_errors < CW_INFO_MAX_ERRORS)
        cwi_copy_str(cwi_info.errors[cwi_info.n_errors++], CW_INFO_ERROR_LEN, msg, SIZE_MAX);
    if (verbose()) {
        char line[CW_INFO_ERROR_LEN + 32];
        int len = snprintf(line, sizeof line, "cachewise: %s (ignored)\n", msg);
        cwi_write_stderr(line, len, sizeof line);
    }
}

void cwi_write_stderr(const char *line, int len, size_t cap)
{
    if (len > 0)
        (void)!write(2, line, (size_t)len < cap ? (size_t)len : cap - 1);
}
