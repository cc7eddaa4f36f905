/* SPDX-License-Identifier: MIT */
/* The settings of the copy policy (after mimalloc's options.c: one table,
 * each value with its default and its source) and the tuning they come
 * from: a built-in profile, a tuning file, single CACHEWISE_* variables.
 *
 * Runs inside the library's one-time initialisation, which may come before
 * libc's constructors (a copy from another library's constructor, the
 * preload shim): the file is read with open/read into static storage,
 * nothing is allocated. Every problem is recorded (cwi_config_error) and
 * ignored; nothing here can choose code the CPU lacks (implementations are
 * checked by the dispatcher, instructions by sanitize()). */
#define _GNU_SOURCE /* strerrordesc_np */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

enum kind { K_SIZE, K_ENUM, K_IMPL };

static const char *const rep_names[] = {"off", "aligned", "align-dst", NULL};
static const char *const hint_names[] = {"t0", "t1", "t2", "nta", NULL};
static const char *const src_names[] = {"none", "prefetchnta", "flush", "both", NULL};
static const char *const persist_names[] = {"movnti", "clwb", NULL};
static const char *const stream_names[] = {"nt-stores", "rep-movsb", NULL};
const char *const cwi_flush_pref_names[] = {"auto",    "clwb",    "clflushopt", "clflush",
                                            "dc-cvap", "dc-cvac", NULL};

static const struct setting_def {
    const char *name, *env;
    enum kind kind;
    size_t offset;              /* into struct cwi_policy (K_SIZE: size_t, K_ENUM: int) */
    const char *const *names;   /* K_ENUM: value i is names[i] */
    size_t max;                 /* K_SIZE: largest accepted value */
} defs[] = {
    {"nt_threshold", "CACHEWISE_NT_THRESHOLD", K_SIZE, offsetof(struct cwi_policy, nt_threshold),
     NULL, SIZE_MAX},
    {"rep_movsb", "CACHEWISE_REP_MOVSB", K_ENUM, offsetof(struct cwi_policy, rep_mode), rep_names,
     0},
    {"rep_movsb_min", "CACHEWISE_REP_MOVSB_MIN", K_SIZE, offsetof(struct cwi_policy, rep_min),
     NULL, SIZE_MAX},
    {"rep_movsb_max", "CACHEWISE_REP_MOVSB_MAX", K_SIZE, offsetof(struct cwi_policy, rep_max),
     NULL, SIZE_MAX},
    {"stream_prefetch", "CACHEWISE_STREAM_PREFETCH", K_SIZE,
     offsetof(struct cwi_policy, stream_pf_dist), NULL, (size_t)1 << 20},
    {"stream_prefetch_hint", "CACHEWISE_STREAM_PREFETCH_HINT", K_ENUM,
     offsetof(struct cwi_policy, stream_pf_hint), hint_names, 0},
    {"stream_method", "CACHEWISE_STREAM_METHOD", K_ENUM,
     offsetof(struct cwi_policy, stream_method), stream_names, 0},
    {"stream_rep_min", "CACHEWISE_STREAM_REP_MIN", K_SIZE,
     offsetof(struct cwi_policy, stream_rep_min), NULL, SIZE_MAX},
    {"src_noreuse", "CACHEWISE_SRC_NOREUSE", K_ENUM, offsetof(struct cwi_policy, src_mode),
     src_names, 0},
    {"src_noreuse_prefetch", "CACHEWISE_SRC_NOREUSE_PREFETCH", K_SIZE,
     offsetof(struct cwi_policy, src_pf_dist), NULL, (size_t)1 << 20},
    {"src_noreuse_flush_behind", "CACHEWISE_SRC_NOREUSE_FLUSH_BEHIND", K_SIZE,
     offsetof(struct cwi_policy, src_flush_back), NULL, (size_t)1 << 20},
    {"persist_small", "CACHEWISE_PERSIST_SMALL", K_ENUM,
     offsetof(struct cwi_policy, persist_small), persist_names, 0},
    {"flush", "CACHEWISE_FLUSH", K_ENUM, offsetof(struct cwi_policy, flush_pref), cwi_flush_pref_names, 0},
    {"parallel_min", "CACHEWISE_PARALLEL_MIN", K_SIZE, offsetof(struct cwi_policy, parallel_min),
     NULL, SIZE_MAX},
    {"parallel_threads", "CACHEWISE_PARALLEL_THREADS", K_SIZE,
     offsetof(struct cwi_policy, parallel_threads), NULL, 64},
    {"impl", "CACHEWISE_IMPL", K_IMPL, 0, NULL, 0},
};
#define N_SETTINGS (sizeof defs / sizeof defs[0])

static struct cw_setting g_settings[N_SETTINGS];
static char g_impl[CW_SETTING_VALUE_LEN];     /* the impl setting ("" = best runnable) */
static char g_tuning[CW_INFO_ERROR_LEN];      /* profile name or file path */
static char g_path[CW_INFO_ERROR_LEN];        /* a file chosen from a directory */
static char g_signature[160];                 /* this CPU's, for tuning files */
static struct cw_setting g_cpu_settings[N_SETTINGS]; /* the CPU's own profile's values */
static struct cwi_cpu g_cpu;                  /* what sanitize() checks against */
static struct cwi_policy g_startup_pol;       /* what cw_settings_restore() puts back */
static const char *g_startup_source[N_SETTINGS];

/* The other variables the library and the shim read, for the check that
 * warns about misspelled names. */
static const char *const other_vars[] = {
    "CACHEWISE_TUNING", "CACHEWISE_VERBOSE", "CACHEWISE_SRC_NOREUSE_THRESHOLD",
    "CACHEWISE_PROFILE", "CACHEWISE_PROFILE_SIGNAL", "CACHEWISE_PROFILE_SLOTS",
    "CACHEWISE_STATS", NULL,
};

static void copy_str(char *dst, size_t cap, const char *src, size_t len)
{
    size_t i = 0;
    for (; i + 1 < cap && i < len && src[i] != '\0'; i++)
        dst[i] = src[i];
    dst[i] = '\0';
}

/* "1536K", "2M", "100": what cwi_parse_size reads back. */
static void format_size(char *buf, size_t cap, size_t v)
{
    if (v != 0 && v % ((size_t)1 << 30) == 0)
        snprintf(buf, cap, "%zuG", v >> 30);
    else if (v != 0 && v % ((size_t)1 << 20) == 0)
        snprintf(buf, cap, "%zuM", v >> 20);
    else if (v != 0 && v % ((size_t)1 << 10) == 0)
        snprintf(buf, cap, "%zuK", v >> 10);
    else
        snprintf(buf, cap, "%zu", v);
}

static void format_value(const struct setting_def *d, const struct cwi_policy *p, char *buf,
                         size_t cap)
{
    const char *base = (const char *)p + d->offset;
    if (d->kind == K_SIZE)
        format_size(buf, cap, *(const size_t *)(const void *)base);
    else if (d->kind == K_ENUM)
        copy_str(buf, cap, d->names[*(const int *)(const void *)base], SIZE_MAX);
    else
        copy_str(buf, cap, g_impl[0] != '\0' ? g_impl : "best", SIZE_MAX);
}

/* Sets setting d of policy p from text; 0, or -1 with why[] filled. */
static int set_value(struct cwi_policy *p, const struct setting_def *d, const char *text,
                     char *why, size_t cap)
{
    char *base = (char *)p + d->offset;
    if (d->kind == K_SIZE) {
        size_t v;
        if (cwi_parse_size(text, &v) != 0) {
            snprintf(why, cap, "not a byte count (digits with optional K/M/G suffix)");
            return -1;
        }
        if (v > d->max) {
            snprintf(why, cap, "larger than the limit %zu", d->max);
            return -1;
        }
        *(size_t *)(void *)base = v;
        return 0;
    }
    if (d->kind == K_ENUM) {
        for (int i = 0; d->names[i] != NULL; i++)
            if (strcmp(text, d->names[i]) == 0) {
                *(int *)(void *)base = i;
                return 0;
            }
        size_t len = (size_t)snprintf(why, cap, "not one of");
        for (int i = 0; d->names[i] != NULL && len < cap; i++)
            len += (size_t)snprintf(why + len, cap - len, " %s", d->names[i]);
        return -1;
    }
    /* K_IMPL: "best" or an implementation's name; whether this CPU runs it
     * is decided (and refused, if not) by the dispatcher */
    if (strcmp(text, "best") == 0) {
        g_impl[0] = '\0';
        return 0;
    }
    for (size_t i = 0; cwi_impls[i] != NULL; i++)
        if (strcmp(cwi_impls[i]->name, text) == 0) {
            copy_str(g_impl, sizeof g_impl, text, SIZE_MAX);
            return 0;
        }
    snprintf(why, cap, "unknown implementation");
    return -1;
}

static const struct setting_def *find_def(const char *name)
{
    for (size_t i = 0; i < N_SETTINGS; i++)
        if (strcmp(defs[i].name, name) == 0)
            return &defs[i];
    return NULL;
}

/* ---- the tuning file's lines (read by src/tuning_file.c) ---------------- */

static const struct cwi_profile *g_base; /* the profile a file names */

static void find_profile_line(const char *key, const char *value, int line, const char *path,
                              void *ctx)
{
    (void)ctx;
    if (strcmp(key, "profile") != 0)
        return;
    const struct cwi_profile *r = cwi_profile_find(value);
    if (r == NULL)
        cwi_config_error("%s%s:%d: profile \"%.40s\": no such built-in profile", CWI_PATH_TAIL(path), line,
                         value);
    else
        g_base = r;
}

static void apply_file_line(const char *key, const char *value, int line, const char *path,
                            void *ctx)
{
    (void)ctx;
    if (strcmp(key, "profile") == 0 || strcmp(key, "cpu") == 0)
        return;
    const struct setting_def *d = find_def(key);
    char why[96];
    if (d == NULL)
        cwi_config_error("%s%s:%d: unknown setting \"%.40s\"", CWI_PATH_TAIL(path), line, key);
    else if (set_value(&cwi_pol, d, value, why, sizeof why) != 0)
        cwi_config_error("%s%s:%d: %s = \"%.40s\": %s", CWI_PATH_TAIL(path), line, key, value,
                         why);
    else
        g_settings[d - defs].source = "file";
}

/* ---- the whole sequence -------------------------------------------------- */

static void warn_unknown_vars(void)
{
    extern char **environ;
    if (environ == NULL || cwi_secure_mode())
        return;
    for (char **e = environ; *e != NULL; e++) {
        if (strncmp(*e, "CACHEWISE_", 10) != 0)
            continue;
        size_t len = (size_t)(strchr(*e, '=') != NULL ? strchr(*e, '=') - *e : (long)strlen(*e));
        int known = 0;
        for (size_t i = 0; i < N_SETTINGS && !known; i++)
            known = strlen(defs[i].env) == len && strncmp(defs[i].env, *e, len) == 0;
        for (size_t i = 0; other_vars[i] != NULL && !known; i++)
            known = strlen(other_vars[i]) == len && strncmp(other_vars[i], *e, len) == 0;
        if (!known)
            cwi_config_error("%.*s: unknown setting (misspelled?)", (int)(len < 60 ? len : 60),
                             *e);
    }
}

/* What the CPU cannot do is switched off here, whatever asked for it. */
static void sanitize(const struct cwi_cpu *c)
{
    if (cwi_pol.rep_mode != CWI_REP_OFF && !(c->features & CWI_F_ERMS)) {
        if (strcmp(g_settings[find_def("rep_movsb") - defs].source, "table") != 0)
            cwi_config_error("rep_movsb=%s: this CPU has no ERMS (fast rep movsb); off",
                             rep_names[cwi_pol.rep_mode]);
        cwi_pol.rep_mode = CWI_REP_OFF;
    }
    if (cwi_pol.stream_method == CWI_STREAM_REP && !(c->features & CWI_F_ERMS)) {
        if (strcmp(g_settings[find_def("stream_method") - defs].source, "table") != 0)
            cwi_config_error("stream_method=rep-movsb: this CPU has no ERMS (fast rep movsb); "
                             "nt-stores");
        cwi_pol.stream_method = CWI_STREAM_NT;
    }
    if ((cwi_pol.src_mode & CWI_SRC_FLUSH) && !(c->features & CWI_F_CLFLUSHOPT)) {
        /* clflush instead would be ordered against every store */
        cwi_pol.src_mode = CWI_SRC_PREFETCHNTA;
    }
}

/* The profile names for a message: "intel-server, amd-zen3, ..." */
static void profile_list(char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; cwi_profile_names[i] != NULL && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ", " : "",
                                cwi_profile_names[i]);
}

static const char *read_error(int e)
{
    return e == EPERM   ? "not owned by root or writable by others"
           : e == EINVAL ? "not a regular file"
                         : strerrordesc_np(e);
}

/* A file whose "cpu" line names another CPU is not applied. 1: use it. */
static int signature_fits(const char *path)
{
    char found[160];
    if (cwi_tuning_file_cpu(path, g_signature, found, sizeof found) != CWI_CPU_OTHER)
        return 1;
    cwi_config_error("%s%s: measured on another CPU, ignored (cpu = %.60s)", CWI_PATH_TAIL(path),
                     found);
    return 0;
}

/* The tuning file in force, read into cwi_tuning_text: CACHEWISE_TUNING's
 * file, or the matching file of its directory; without the variable, the
 * matching file of CW_SYSTEM_TUNING_DIR, else CW_SYSTEM_TUNING_FILE; its
 * source ("env", "system") in *source. NULL: none (where CACHEWISE_TUNING
 * names a profile, *r is that profile and in->tuning says so). */
static const char *choose_file(const char *env, int secure, const struct cwi_profile **r,
                               struct cw_info *in, const char **source)
{
    *source = "env";
    if (env != NULL && env[0] != '\0') {
        if (strchr(env, '/') == NULL) {
            if (cwi_profile_find(env) != NULL) {
                *r = cwi_profile_find(env);
                in->tuning = (*r)->name;
                in->tuning_source = "env";
            } else {
                char names[200];
                profile_list(names, sizeof names);
                cwi_config_error("CACHEWISE_TUNING=\"%.60s\": no such profile (%s) and not "
                                 "a path (a file is named with a '/': ./FILE)", env, names);
            }
            return NULL;
        }
        if (cwi_tuning_file_read(env, 0) == 0)
            return signature_fits(env) ? env : NULL;
        if (errno != EISDIR) {
            cwi_config_error("CACHEWISE_TUNING=\"%.60s\": %s; ignored", env, read_error(errno));
            return NULL;
        }
        if (cwi_tuning_dir_choose(env, g_signature, 0, g_path, sizeof g_path) == 0)
            return g_path;
        cwi_config_error("CACHEWISE_TUNING=\"%.60s\": %s; ignored", env,
                         errno == ESRCH ? "no *.conf file there was measured on this CPU"
                                        : read_error(errno));
        return NULL;
    }
    *source = "system";
    if (cwi_tuning_dir_choose(CW_SYSTEM_TUNING_DIR, g_signature, secure, g_path,
                              sizeof g_path) == 0)
        return g_path;
    if (errno != ENOENT && errno != ESRCH)
        cwi_config_error("%s: %s; ignored", CW_SYSTEM_TUNING_DIR, read_error(errno));
    if (cwi_tuning_file_read(CW_SYSTEM_TUNING_FILE, secure) == 0)
        return signature_fits(CW_SYSTEM_TUNING_FILE) ? CW_SYSTEM_TUNING_FILE : NULL;
    if (errno != ENOENT)
        cwi_config_error("%s: %s; ignored", CW_SYSTEM_TUNING_FILE, read_error(errno));
    return NULL;
}

void cwi_tuning_init(const struct cwi_cpu *c, struct cw_info *in, const char **impl,
                     const char **impl_source)
{
    const struct cwi_profile *r = cwi_profile_for_cpu(c);
    in->tuning_source = "cpu";
    in->tuning = r->name;
    g_cpu = *c;
    /* the CPU's own profile, whatever names another */
    struct cwi_policy own = {0}; /* flush_pref auto: never a profile's */
    cwi_policy_from_profile(&own, r, c);
    for (size_t i = 0; i < N_SETTINGS; i++) {
        g_cpu_settings[i].name = defs[i].name;
        g_cpu_settings[i].env = defs[i].env;
        g_cpu_settings[i].source = "table";
        format_value(&defs[i], &own, g_cpu_settings[i].value, CW_SETTING_VALUE_LEN);
        format_value(&defs[i], &own, g_cpu_settings[i].table_value, CW_SETTING_VALUE_LEN);
    }
    in->cpu_profile = r->name;
    in->cpu_profile_settings = g_cpu_settings;
    cwi_cpu_signature(c, g_signature, sizeof g_signature);
    in->cpu_signature = g_signature;

    const char *source;
    const char *file = choose_file(cwi_getenv("CACHEWISE_TUNING"), cwi_secure_mode(), &r, in,
                                   &source);
    if (file != NULL) {
        copy_str(g_tuning, sizeof g_tuning, file, SIZE_MAX);
        in->tuning = g_tuning;
        in->tuning_source = source;
        g_base = NULL;
        cwi_tuning_file_lines(file, 0, find_profile_line, NULL);
        if (g_base != NULL)
            r = g_base;
    }
    in->profile = r->name;

    /* the table, then the file, then the environment */
    cwi_policy_from_profile(&cwi_pol, r, c);
    g_impl[0] = '\0';
    for (size_t i = 0; i < N_SETTINGS; i++) {
        g_settings[i].name = defs[i].name;
        g_settings[i].env = defs[i].env;
        g_settings[i].source = "table";
        format_value(&defs[i], &cwi_pol, g_settings[i].table_value, CW_SETTING_VALUE_LEN);
    }
    if (file != NULL)
        cwi_tuning_file_lines(file, 0, apply_file_line, NULL);
    for (size_t i = 0; i < N_SETTINGS; i++) {
        if (defs[i].kind == K_IMPL)
            continue; /* CACHEWISE_IMPL: the dispatcher reads and checks it */
        const char *v = cwi_getenv(defs[i].env);
        char why[96];
        if (v == NULL)
            continue;
        if (set_value(&cwi_pol, &defs[i], v, why, sizeof why) == 0)
            g_settings[i].source = "env";
        else
            cwi_config_error("%s=\"%.60s\": %s", defs[i].env, v, why);
    }
    warn_unknown_vars();
    sanitize(c);
    *impl = g_impl[0] != '\0' ? g_impl : NULL;
    *impl_source = g_settings[find_def("impl") - defs].source;
    cwi_tuning_refresh(in);
}

void cwi_tuning_refresh(struct cw_info *in)
{
    for (size_t i = 0; i < N_SETTINGS; i++) {
        if (defs[i].kind == K_IMPL) {
            copy_str(g_settings[i].value, CW_SETTING_VALUE_LEN, in->impl != NULL ? in->impl : "",
                     SIZE_MAX);
            continue;
        }
        format_value(&defs[i], &cwi_pol, g_settings[i].value, CW_SETTING_VALUE_LEN);
    }
    in->settings = g_settings;
    in->n_settings = (int)N_SETTINGS;
}

const char *cwi_tuning_source(const char *name)
{
    const struct setting_def *d = find_def(name);
    return d != NULL ? g_settings[d - defs].source : NULL;
}

void cwi_tuning_set_source(const char *name, const char *source)
{
    const struct setting_def *d = find_def(name);
    if (d != NULL)
        g_settings[d - defs].source = source;
}

/* ---- settings put in force by a tool (cw_settings_apply) ------------------ */

void cwi_tuning_keep_startup(void)
{
    g_startup_pol = cwi_pol;
    for (size_t i = 0; i < N_SETTINGS; i++)
        g_startup_source[i] = g_settings[i].source;
}

struct apply {
    struct cwi_policy pol; /* the policy in force with the lines applied */
    unsigned char given[N_SETTINGS];
    char *err;
    size_t cap;
    int failed;
};

static void refuse(struct apply *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void refuse(struct apply *a, const char *fmt, ...)
{
    if (a->failed++ != 0 || a->err == NULL || a->cap == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->err, a->cap, fmt, ap);
    va_end(ap);
}

static void apply_line(const char *key, const char *value, int line, void *ctx)
{
    struct apply *a = ctx;
    const struct setting_def *d = find_def(key);
    char why[96];
    if (value == NULL)
        refuse(a, "line %d: expected \"key = value\"", line);
    else if (strcmp(key, "profile") == 0 || strcmp(key, "cpu") == 0)
        refuse(a, "line %d: \"%s\" belongs to a tuning file's head, not to its settings", line,
               key);
    else if (d == NULL)
        refuse(a, "line %d: unknown setting \"%.40s\"", line, key);
    else if (d->kind == K_IMPL)
        refuse(a, "line %d: impl: cw_impl_select() chooses the implementation", line);
    else if (set_value(&a->pol, d, value, why, sizeof why) != 0)
        refuse(a, "line %d: %s = \"%.40s\": %s", line, key, value, why);
    else
        a->given[d - defs] = 1;
}

/* cwi_pol (already the new policy) for the CPU and every entry point. */
static void put_in_force(int old_flush)
{
    sanitize(&g_cpu);
    if (cwi_pol.flush_pref != old_flush)
        cwi_info.flush_insn = cwi_flush_select(g_cpu.features);
    cwi_policy_republish();
}

int cw_settings_apply(const char *settings, char *err, size_t err_len)
{
    cwi_init();
    if (err != NULL && err_len != 0)
        err[0] = '\0';
    struct apply a = {cwi_pol, {0}, err, err_len, 0};
    if (settings == NULL) {
        refuse(&a, "no settings (NULL)");
        errno = EINVAL;
        return -1;
    }
    if (cwi_secure_mode()) {
        refuse(&a, "secure mode (setuid, setgid or file capabilities): the policy stays the "
                   "start-up one");
        errno = EPERM;
        return -1;
    }
    cwi_text_lines(settings, apply_line, &a);
    if (a.failed) {
        errno = EINVAL;
        return -1;
    }
    int old_flush = cwi_pol.flush_pref;
    cwi_pol = a.pol;
    for (size_t i = 0; i < N_SETTINGS; i++)
        if (a.given[i])
            g_settings[i].source = "api";
    put_in_force(old_flush);
    return 0;
}

int cw_settings_restore(void)
{
    cwi_init();
    int old_flush = cwi_pol.flush_pref;
    cwi_pol = g_startup_pol;
    for (size_t i = 0; i < N_SETTINGS; i++)
        if (defs[i].kind != K_IMPL)
            g_settings[i].source = g_startup_source[i];
    put_in_force(old_flush);
    return 0;
}
