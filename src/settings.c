/* SPDX-License-Identifier: MIT */
/* The settings of the copy policy (after mimalloc's options.c: one table,
 * each value with its default and its source): their names, variables and
 * values, the parsing of a value, the policy in force (cwi_pol) and
 * cw_get_info()'s settings, a tuning file's lines over the policy, what
 * the CPU cannot run switched off, and the settings a tool puts in force
 * (cw_settings_apply). The start-up pass that uses them: src/startup.c.
 *
 * Runs inside the library's one-time initialisation, which may come before
 * libc's constructors (a copy from another library's constructor, the
 * preload shim): nothing is allocated. Every problem of a file or variable
 * is recorded (cwi_config_error) and ignored; nothing here can choose code
 * the CPU lacks (implementations are checked at start-up, instructions by
 * cwi_settings_sanitize()). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

struct cwi_policy cwi_pol;

enum kind { K_SIZE, K_ENUM, K_IMPL };

static const char *const rep_names[] = {"off", "aligned", "align-dst", "align-dst-far", NULL};
static const char *const hint_names[] = {"t0", "t1", "t2", "nta", NULL};
static const char *const src_names[] = {"none", "prefetchnta", "flush", "both", NULL};
static const char *const persist_names[] = {"movnti", "clwb", NULL};
static const char *const stream_names[] = {"nt-stores", "rep-movsb", NULL};
static const char *const mid_names[] = {"ladder", "direct", "direct-lines", NULL};
static const char *const inline_names[] = {"32", "64", NULL};
const char *const cwi_flush_pref_names[] = {"auto",    "clwb",    "clflushopt", "clflush",
                                            "dc-cvap", "dc-cvac", NULL};

static const struct setting_def {
    const char *name, *env;
    enum kind kind;
    size_t offset;            /* into struct cwi_policy (K_SIZE: size_t, K_ENUM: int) */
    const char *const *names; /* K_ENUM: value i is names[i] */
    size_t max;               /* K_SIZE: largest accepted value */
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
    {"flush", "CACHEWISE_FLUSH", K_ENUM, offsetof(struct cwi_policy, flush_pref),
     cwi_flush_pref_names, 0},
    {"parallel_min", "CACHEWISE_PARALLEL_MIN", K_SIZE, offsetof(struct cwi_policy, parallel_min),
     NULL, SIZE_MAX},
    {"parallel_threads", "CACHEWISE_PARALLEL_THREADS", K_SIZE,
     offsetof(struct cwi_policy, parallel_threads), NULL, 64},
    {"memcpy_mid", "CACHEWISE_MEMCPY_MID", K_ENUM, offsetof(struct cwi_policy, memcpy_mid),
     mid_names, 0},
    {"memcpy_inline", "CACHEWISE_MEMCPY_INLINE", K_ENUM,
     offsetof(struct cwi_policy, memcpy_inline), inline_names, 0},
    {"impl", "CACHEWISE_IMPL", K_IMPL, 0, NULL, 0},
};
#define N_SETTINGS (sizeof defs / sizeof defs[0])
_Static_assert(N_SETTINGS == CWI_N_SETTINGS, "enum cwi_setting_id lists every setting");

struct cw_setting cwi_settings[CWI_N_SETTINGS];
static char g_impl[CW_SETTING_VALUE_LEN]; /* the impl setting ("" = best runnable) */
static struct cwi_policy g_startup_pol;   /* what cw_settings_restore() puts back */
static const char *g_startup_source[N_SETTINGS];

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
        cwi_copy_str(buf, cap, d->names[*(const int *)(const void *)base], SIZE_MAX);
    else
        cwi_copy_str(buf, cap, g_impl[0] != '\0' ? g_impl : "best", SIZE_MAX);
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
            cwi_copy_str(g_impl, sizeof g_impl, text, SIZE_MAX);
            return 0;
        }
    snprintf(why, cap, "unknown implementation");
    return -1;
}

int cwi_setting_parse(struct cwi_policy *p, int id, const char *text, char *why, size_t cap)
{
    return set_value(p, &defs[id], text, why, cap);
}

const char *cwi_setting_env(int id)
{
    return defs[id].env;
}

int cwi_setting_find(const char *name)
{
    for (size_t i = 0; i < N_SETTINGS; i++)
        if (strcmp(defs[i].name, name) == 0)
            return (int)i;
    return -1;
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
    case 'k':
    case 'K':
        shift = 10;
        p++;
        break;
    case 'm':
    case 'M':
        shift = 20;
        p++;
        break;
    case 'g':
    case 'G':
        shift = 30;
        p++;
        break;
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

/* ---- cw_get_info()'s settings -------------------------------------------- */

void cwi_settings_begin(void)
{
    g_impl[0] = '\0';
    cwi_settings_format(cwi_settings, &cwi_pol);
}

void cwi_settings_format(struct cw_setting *out, const struct cwi_policy *p)
{
    for (size_t i = 0; i < N_SETTINGS; i++) {
        out[i].name = defs[i].name;
        out[i].env = defs[i].env;
        out[i].source = "table";
        format_value(&defs[i], p, out[i].value, CW_SETTING_VALUE_LEN);
        format_value(&defs[i], p, out[i].table_value, CW_SETTING_VALUE_LEN);
    }
}

void cwi_settings_refresh(struct cw_info *in)
{
    for (size_t i = 0; i < N_SETTINGS; i++) {
        if (defs[i].kind == K_IMPL) {
            cwi_copy_str(cwi_settings[i].value, CW_SETTING_VALUE_LEN,
                         in->impl != NULL ? in->impl : "", SIZE_MAX);
            continue;
        }
        format_value(&defs[i], &cwi_pol, cwi_settings[i].value, CW_SETTING_VALUE_LEN);
    }
    in->settings = cwi_settings;
    in->n_settings = (int)N_SETTINGS;
}

const char *cwi_settings_impl(void)
{
    return g_impl[0] != '\0' ? g_impl : NULL;
}

/* ---- a tuning file's lines (read by src/tuning_file.c) -------------------- */

static void profile_line(const char *key, const char *value, int line, const char *path,
                         void *ctx)
{
    const struct cwi_profile **base = ctx;
    if (strcmp(key, "profile") != 0)
        return;
    const struct cwi_profile *r = cwi_profile_find(value);
    if (r == NULL)
        cwi_config_error("%s%s:%d: profile \"%.40s\": no such built-in profile",
                         CWI_PATH_TAIL(path), line, value);
    else
        *base = r;
}

const struct cwi_profile *cwi_settings_file_profile(const char *path)
{
    const struct cwi_profile *base = NULL;
    cwi_tuning_file_lines(path, 0, profile_line, &base);
    return base;
}

static void file_line(const char *key, const char *value, int line, const char *path, void *ctx)
{
    (void)ctx;
    if (strcmp(key, "profile") == 0 || strcmp(key, "cpu") == 0)
        return;
    int id = cwi_setting_find(key);
    char why[96];
    if (id < 0)
        cwi_config_error("%s%s:%d: unknown setting \"%.40s\"", CWI_PATH_TAIL(path), line, key);
    else if (set_value(&cwi_pol, &defs[id], value, why, sizeof why) != 0)
        cwi_config_error("%s%s:%d: %s = \"%.40s\": %s", CWI_PATH_TAIL(path), line, key, value,
                         why);
    else
        cwi_settings[id].source = "file";
}

void cwi_settings_overlay_file(const char *path)
{
    cwi_tuning_file_lines(path, 0, file_line, NULL);
}

/* ---- what the CPU runs ------------------------------------------------------ */

void cwi_settings_sanitize(struct cwi_policy *p, const struct cwi_cpu *c)
{
    if (p->rep_mode != CWI_REP_OFF && !(c->features & CWI_F_ERMS)) {
        if (strcmp(cwi_settings[CWI_SET_REP_MOVSB].source, "table") != 0)
            cwi_config_error("rep_movsb=%s: this CPU has no ERMS (fast rep movsb); off",
                             rep_names[p->rep_mode]);
        p->rep_mode = CWI_REP_OFF;
    }
    if (p->stream_method == CWI_STREAM_REP && !(c->features & CWI_F_ERMS)) {
        if (strcmp(cwi_settings[CWI_SET_STREAM_METHOD].source, "table") != 0)
            cwi_config_error("stream_method=rep-movsb: this CPU has no ERMS (fast rep movsb); "
                             "nt-stores");
        p->stream_method = CWI_STREAM_NT;
    }
    if ((p->src_mode & CWI_SRC_FLUSH) && !(c->features & CWI_F_CLFLUSHOPT)) {
        /* clflush instead would be ordered against every store */
        p->src_mode = CWI_SRC_PREFETCHNTA;
    }
    p->rep_from = p->rep_mode == CWI_REP_OFF ? SIZE_MAX : p->rep_min;
}

/* Field by field through the settings table, which names every field of
 * the policy but the derived rep_from (each setting is one field; the size
 * check below catches a field added without its setting). */
void cwi_policy_store(const struct cwi_policy *p)
{
    for (size_t i = 0; i < N_SETTINGS; i++) {
        const char *from = (const char *)p + defs[i].offset;
        char *to = (char *)&cwi_pol + defs[i].offset;
        if (defs[i].kind == K_SIZE)
            __atomic_store_n((size_t *)to, *(const size_t *)from, __ATOMIC_RELAXED);
        else if (defs[i].kind == K_ENUM)
            __atomic_store_n((int *)to, *(const int *)from, __ATOMIC_RELAXED);
    }
    CWI_POL_SET(rep_from, p->rep_from);
}
/* nine size_t and eight int settings and rep_from, as LP64 lays them out
 * (with padding) */
_Static_assert(sizeof(size_t) != 8 || sizeof(struct cwi_policy) == 120,
               "a field of struct cwi_policy has no setting: cwi_policy_store would skip it");

/* ---- settings put in force by a tool (cw_settings_apply) ------------------ */

void cwi_settings_keep_startup(void)
{
    g_startup_pol = cwi_pol;
    for (size_t i = 0; i < N_SETTINGS; i++)
        g_startup_source[i] = cwi_settings[i].source;
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
    int id = cwi_setting_find(key);
    const struct setting_def *d = id >= 0 ? &defs[id] : NULL;
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
    for (size_t i = 0; i < N_SETTINGS; i++)
        if (a.given[i])
            cwi_settings[i].source = "api";
    cwi_policy_republish(&a.pol);
    return 0;
}

int cw_settings_restore(void)
{
    cwi_init();
    for (size_t i = 0; i < N_SETTINGS; i++)
        if (defs[i].kind != K_IMPL)
            cwi_settings[i].source = g_startup_source[i];
    cwi_policy_republish(&g_startup_pol);
    return 0;
}
