/* SPDX-License-Identifier: MIT */
/* The library's start-up, one pass: detect the CPU, choose the profile,
 * lay the tuning file over it, then the environment, switch off what the
 * CPU cannot run, publish. cw_get_info()'s struct is filled here and
 * nowhere else (the settings' texts come from src/settings.c), and the
 * policy a tool changes afterwards (cw_settings_apply) is published by the
 * same last step.
 *
 * The steps, each in its own file: src/cpu.c (the CPU), src/profiles.c
 * (the built-in profiles), src/tuning_file.c (which tuning file, and its
 * lines), src/settings.c (the settings and their values), src/env.c (the
 * environment, read once, and secure mode); the entry points the result
 * is published to: src/dispatch.c (and src/bypass.c). cw_memcpy's IFUNC resolver reads
 * CACHEWISE_IMPL itself, before any of this can run (src/x86/early.c).
 *
 * Runs once (pthread_once), from the library's constructor or from the
 * first call that needs it, which may come before libc's constructors: no
 * allocation, no memcpy. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

struct cw_info cwi_info;
pthread_mutex_t cwi_info_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static struct cwi_cpu g_cpu;                             /* what the policy is checked against */
static char g_signature[160];                            /* this CPU's, for tuning files */
static char g_tuning[CW_INFO_ERROR_LEN];                 /* the path of the file in force */
static struct cw_setting g_cpu_settings[CWI_N_SETTINGS]; /* the CPU's own profile's values */

/* ---- 1. the CPU --------------------------------------------------------------- */

static void info_cpu(struct cw_info *in, const struct cwi_cpu *c)
{
    in->sse2 = !!(c->features & CWI_F_SSE2);
    in->avx2 = !!(c->features & CWI_F_AVX2);
    in->avx512f = !!(c->features & CWI_F_AVX512F);
    in->avx512bw = !!(c->features & CWI_F_AVX512BW);
    in->avx512vl = !!(c->features & CWI_F_AVX512VL);
    in->erms = !!(c->features & CWI_F_ERMS);
    in->fsrm = !!(c->features & CWI_F_FSRM);
    in->clflush = !!(c->features & CWI_F_CLFLUSH);
    in->clflushopt = !!(c->features & CWI_F_CLFLUSHOPT);
    in->clwb = !!(c->features & CWI_F_CLWB);
    in->movdir64b = !!(c->features & CWI_F_MOVDIR64B);
    in->asimd = !!(c->features & CWI_F_ASIMD);
    in->dcpop = !!(c->features & CWI_F_DCPOP);
    in->dcpodp = !!(c->features & CWI_F_DCPODP);
    in->sve = !!(c->features & CWI_F_SVE);
    cwi_copy_str(in->cpu_vendor, sizeof in->cpu_vendor, c->vendor, SIZE_MAX);
    cwi_copy_str(in->cpu_model, sizeof in->cpu_model, c->model, SIZE_MAX);
    in->l1d_size = c->l1d;
    in->l2_size = c->l2;
    in->l3_size = c->l3;
    in->l3_policy_size = c->l3_used;
    in->l3_policy_note = c->l3_note;
    in->cache_line = c->line;
    in->cpu_stepping = c->stepping;
    in->cpu_family = c->family;
    in->cpu_model_number = c->model_number;
    cwi_cpu_signature(c, g_signature, sizeof g_signature);
    in->cpu_signature = g_signature;
}

/* ---- 2. the profile, and the tuning file over it ------------------------------ */

/* The profile the policy starts from: the CPU's own, or the one
 * CACHEWISE_TUNING or the tuning file names. *file: the file in force
 * (read into cwi_tuning_text), or NULL. */
static const struct cwi_profile *choose_profile(struct cw_info *in, const char **file)
{
    const struct cwi_profile *own = cwi_profile_for_cpu(&g_cpu), *r = own, *named;
    in->tuning_source = "cpu";
    in->tuning = own->name;
    /* the CPU's own profile, whatever names another */
    struct cwi_policy p = {0}; /* flush_pref auto: never a profile's */
    cwi_policy_from_profile(&p, own, &g_cpu);
    cwi_settings_format(g_cpu_settings, &p);
    in->cpu_profile = own->name;
    in->cpu_profile_settings = g_cpu_settings;

    const char *source;
    *file =
        cwi_tuning_file_choose(cwi_env.tuning, g_signature, cwi_secure_mode(), &named, &source);
    if (named != NULL) {
        r = named;
        in->tuning = r->name;
        in->tuning_source = "env";
    }
    if (*file != NULL) {
        cwi_copy_str(g_tuning, sizeof g_tuning, *file, SIZE_MAX);
        in->tuning = g_tuning;
        in->tuning_source = source;
        const struct cwi_profile *base = cwi_settings_file_profile(*file);
        if (base != NULL)
            r = base;
    }
    in->profile = r->name;
    return r;
}

/* ---- 5. what the CPU runs ----------------------------------------------------- */

/* The implementation: the best runnable one, or the profile's where this
 * build has it and this CPU runs it (quietly the best otherwise: a build or
 * a CPU without it is no error), or the one the tuning file (impl = NAME)
 * and then CACHEWISE_IMPL ask for, where this CPU runs it. */
static const struct cwi_impl *choose_impl(struct cw_info *in, const struct cwi_profile *r)
{
    const struct cwi_impl *best = cwi_dispatch_setup(g_cpu.features);
    const char *want = cwi_settings_impl();
    in->impl_source = "cpu";
    if (r->impl != NULL) {
        const struct cwi_impl *preferred = cwi_impl_find(r->impl);
        if (preferred != NULL && cwi_impl_runnable(preferred)) {
            best = preferred;
            in->impl_source = "profile";
        }
    }
    if (want != NULL) {
        const struct cwi_impl *forced = cwi_impl_find(want);
        if (!cwi_impl_runnable(forced))
            cwi_config_error("impl = %.40s (tuning file): not supported by this CPU", want);
        else {
            best = forced;
            in->impl_source = cwi_settings[CWI_SET_IMPL].source;
        }
    }
    const char *env = cwi_env.setting[CWI_SET_IMPL];
    if (env != NULL && env[0] != '\0') {
        const struct cwi_impl *forced = cwi_impl_find(env);
        if (forced == NULL)
            cwi_config_error("CACHEWISE_IMPL=\"%.60s\": unknown implementation", env);
        else if (!cwi_impl_runnable(forced))
            cwi_config_error("CACHEWISE_IMPL=\"%.60s\": not supported by this CPU", env);
        else {
            best = forced;
            in->impl_source = "env";
            cwi_settings[CWI_SET_IMPL].source = "env";
        }
    }
    return best;
}

/* ---- 6. publish ------------------------------------------------------------------ */

/* cwi_pol's threshold for the entry points and cw_info. Every size above
 * PTRDIFF_MAX takes the threshold's path, which refuses it
 * (cwi_size_overflow). */
static void publish_threshold(struct cw_info *in)
{
    size_t nt = cwi_pol.nt_threshold;
    if (nt > CWI_MAX_COPY + 1)
        nt = CWI_MAX_COPY + 1;
    cwi_dispatch_set_threshold(nt);
    in->nt_threshold = nt;
    const char *s = cwi_settings[CWI_SET_NT_THRESHOLD].source;
    in->nt_threshold_source = strcmp(s, "table") == 0 ? "cpu" : s;
}

/* CACHEWISE_VERBOSE=1: what is in force, and every setting. */
static void say_in_force(const struct cw_info *in)
{
    char line[512];
    int len =
        snprintf(line, sizeof line,
                 "cachewise: impl=%s (%s) memcpy_entry=%s nt_threshold=%zu (%s) "
                 "flush=%s L1d=%zu L2=%zu L3=%zu (policy: %zu, %s) cpu=%s "
                 "family %u model %u tuning=%s (%s) profile=%s version=%s\n",
                 in->impl, in->impl_source, in->memcpy_entry, in->nt_threshold,
                 in->nt_threshold_source, in->flush_insn, in->l1d_size, in->l2_size, in->l3_size,
                 in->l3_policy_size, in->l3_policy_note, in->cpu_vendor, in->cpu_family,
                 in->cpu_model_number, in->tuning, in->tuning_source, in->profile, cw_version());
    cwi_write_stderr(line, len, sizeof line);
    for (int i = 0; i < in->n_settings; i++) {
        const struct cw_setting *st = &in->settings[i];
        len = snprintf(line, sizeof line, "cachewise:   %-24s = %-10s (%s; profile %s; %s)\n",
                       st->name, st->value, st->source, st->table_value, st->env);
        cwi_write_stderr(line, len, sizeof line);
    }
}

static void init_once(void)
{
    struct cw_info *in = &cwi_info;
    cwi_cpu_detect(&g_cpu); /* 1 */
    info_cpu(in, &g_cpu);
    cwi_env_read(); /* every variable, once */
    const char *file;
    const struct cwi_profile *r = choose_profile(in, &file); /* 2 */
    cwi_policy_from_profile(&cwi_pol, r, &g_cpu);
    cwi_settings_begin();
    if (file != NULL) /* 3 */
        cwi_settings_overlay_file(file);
    cwi_env_overlay();                       /* 4 */
    cwi_settings_sanitize(&cwi_pol, &g_cpu); /* 5 */
    in->flush_insn = cwi_flush_select(g_cpu.features);
    const struct cwi_impl *impl = choose_impl(in, r);
    cwi_settings_keep_startup();
    publish_threshold(in); /* 6 */
    in->impl = impl->name;
    in->memcpy_entry = cwi_memcpy_entry_name();
    cwi_settings_refresh(in);
    cwi_dispatch_publish(impl);
    if (cwi_env.verbose)
        say_in_force(in);
    cwi_env_done();
}

void cwi_init(void)
{
    pthread_once(&g_once, init_once);
}

/* Selection also runs when the library is loaded, so the first copy does
 * not pay for it; the lazy path covers copies made by other constructors. */
__attribute__((constructor)) static void cwi_init_at_load(void)
{
    cwi_init();
}

void cwi_policy_republish(const struct cwi_policy *next)
{
    cwi_init();
    struct cwi_policy p = *next;
    cwi_settings_sanitize(&p, &g_cpu);
    int flush_changed = p.flush_pref != CWI_POL(flush_pref);
    cwi_policy_store(&p);
    cwi_dispatch_policy_changed();
    if (flush_changed)
        cwi_info.flush_insn = cwi_flush_select(g_cpu.features);
    pthread_mutex_lock(&cwi_info_lock);
    publish_threshold(&cwi_info);
    cwi_settings_refresh(&cwi_info);
    pthread_mutex_unlock(&cwi_info_lock);
}

/* ---- information and version ------------------------------------------------------ */

const struct cw_info *cw_get_info(void)
{
    cwi_init();
    return &cwi_info;
}

/* Made of the header's CW_VERSION_* macros, the one version source
 * (CMakeLists.txt takes the project's version, hence the SONAME and the
 * package files, from the same three lines). */
#define CWI_STR_(x) #x
#define CWI_STR(x) CWI_STR_(x)
const char *cw_version(void)
{
    return CWI_STR(CW_VERSION_MAJOR) "." CWI_STR(CW_VERSION_MINOR) "." CWI_STR(CW_VERSION_PATCH);
}

/* Compatible: the same major version, and at least the minor version the
 * caller's header had (the ABI promise, CHANGELOG.md: within a major
 * version nothing is removed or changed, so a newer minor version has all
 * an older one had). Constants only: no initialisation, no lock. */
int cw_check_version(unsigned major, unsigned minor)
{
    if (major == CW_VERSION_MAJOR && minor <= CW_VERSION_MINOR)
        return 0;
    errno = ENOTSUP;
    return -1;
}

size_t cw_info_size(void)
{
    return sizeof(struct cw_info);
}
