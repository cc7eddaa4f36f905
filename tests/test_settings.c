/* SPDX-License-Identifier: MIT */
/* cw_settings_apply() and cw_settings_restore(), the interface of measuring
 * tools: valid settings change cw_get_info()'s values and sources (and what
 * cw_memcpy streams from), refused ones change nothing and say why, restore
 * brings back the start-up policy; cpu_profile names the CPU's own profile.
 * Run once plainly and once under CACHEWISE_TUNING=generic (then the policy
 * starts from another profile than the CPU's). Secure mode, where
 * cw_settings_apply() is refused, is tested by tests/secure/run.sh. */
#include <stdlib.h>

#include "test_util.h"

static const struct cw_setting *setting(const char *name)
{
    const struct cw_info *in = cw_get_info();
    for (int i = 0; i < in->n_settings; i++)
        if (strcmp(in->settings[i].name, name) == 0)
            return &in->settings[i];
    CWT_CHECK(0, "no setting %s", name);
    exit(1);
}

/* The values and sources of every setting, and the fields that follow them. */
struct snapshot {
    char value[32][CW_SETTING_VALUE_LEN];
    const char *source[32];
    size_t nt_threshold;
    const char *nt_source, *flush_insn;
    int n_errors;
};

static void take(struct snapshot *s)
{
    const struct cw_info *in = cw_get_info();
    CWT_CHECK(in->n_settings <= 32, "%d settings", in->n_settings);
    for (int i = 0; i < in->n_settings && i < 32; i++) {
        snprintf(s->value[i], sizeof s->value[i], "%s", in->settings[i].value);
        s->source[i] = in->settings[i].source;
    }
    s->nt_threshold = in->nt_threshold;
    s->nt_source = in->nt_threshold_source;
    s->flush_insn = in->flush_insn;
    s->n_errors = in->n_errors;
}

static void same(const struct snapshot *a, const char *when)
{
    struct snapshot b;
    take(&b);
    const struct cw_info *in = cw_get_info();
    for (int i = 0; i < in->n_settings && i < 32; i++)
        CWT_CHECK(strcmp(a->value[i], b.value[i]) == 0 && strcmp(a->source[i], b.source[i]) == 0,
                  "%s: %s is %s (%s), was %s (%s)", when, in->settings[i].name, b.value[i],
                  b.source[i], a->value[i], a->source[i]);
    CWT_CHECK(a->nt_threshold == b.nt_threshold && strcmp(a->nt_source, b.nt_source) == 0,
              "%s: nt_threshold %zu (%s), was %zu (%s)", when, b.nt_threshold, b.nt_source,
              a->nt_threshold, a->nt_source);
    CWT_CHECK(strcmp(a->flush_insn, b.flush_insn) == 0, "%s: flush_insn %s, was %s", when,
              b.flush_insn, a->flush_insn);
    CWT_CHECK(a->n_errors == b.n_errors, "%s: %d errors, were %d", when, b.n_errors, a->n_errors);
}

static void refused(const char *text, const char *says, const struct snapshot *before)
{
    char err[160];
    errno = 0;
    int r = cw_settings_apply(text, err, sizeof err);
    CWT_CHECK(r == -1 && errno == EINVAL, "\"%s\": want -1/EINVAL, got %d/%d", text, r, errno);
    CWT_CHECK(strstr(err, says) != NULL, "\"%s\": the error \"%s\" does not say \"%s\"", text,
              err, says);
    same(before, text);
}

/* cw_memcpy of n bytes streams (its copy still right) */
static void copy_ok(size_t n)
{
    unsigned char *a = malloc(n), *b = malloc(n);
    for (size_t i = 0; i < n; i++)
        a[i] = (unsigned char)(i * 7 + 1);
    cw_memcpy(b, a, n);
    CWT_CHECK(memcmp(a, b, n) == 0, "cw_memcpy of %zu bytes under the applied policy", n);
    free(a);
    free(b);
}

int main(void)
{
    const struct cw_info *in = cw_get_info();
    struct snapshot start;
    take(&start);

    /* the CPU's own profile */
    CWT_CHECK(in->cpu_profile != NULL && in->cpu_profile_settings != NULL, "no cpu_profile");
    for (int i = 0; i < in->n_settings; i++) {
        const struct cw_setting *c = &in->cpu_profile_settings[i];
        CWT_CHECK(strcmp(c->name, in->settings[i].name) == 0 && strcmp(c->source, "table") == 0 &&
                      strcmp(c->value, c->table_value) == 0,
                  "cpu_profile_settings[%d]: %s = %s/%s (%s)", i, c->name, c->value,
                  c->table_value, c->source);
        if (strcmp(in->profile, in->cpu_profile) == 0)
            CWT_CHECK(strcmp(c->value, in->settings[i].table_value) == 0,
                      "%s: the CPU's profile %s says %s, the profile in force %s", c->name,
                      in->cpu_profile, c->value, in->settings[i].table_value);
    }
    const char *tuning = getenv("CACHEWISE_TUNING");
    if (tuning != NULL && strcmp(tuning, "generic") == 0)
        CWT_CHECK(strcmp(in->profile, "generic") == 0, "CACHEWISE_TUNING=generic: profile %s",
                  in->profile);

    /* refused: nothing changes, the error names the line */
    refused(NULL, "NULL", &start);
    refused("nt_threshold = 8K\nno_such_setting = 1\n", "line 2: unknown setting", &start);
    refused("nt_threshold = 8K\nrep_movsb = sideways", "not one of off aligned align-dst",
            &start);
    refused("nt_threshold = lots", "not a byte count", &start);
    refused("stream_prefetch = 2M", "larger than the limit", &start);
    refused("# a comment\n\nnt_threshold 8K\n", "line 3: expected", &start);
    refused("impl = generic", "cw_impl_select", &start);
    refused("profile = generic", "tuning file's head", &start);
    refused("cpu = any", "tuning file's head", &start);
    CWT_CHECK(cw_settings_apply("bad", NULL, 0) == -1 && errno == EINVAL, "err NULL: not -1");
    char tiny[4] = "xyz";
    CWT_CHECK(cw_settings_apply("bad", tiny, sizeof tiny) == -1 && strlen(tiny) < sizeof tiny,
              "err cut to err_len: \"%s\"", tiny);

    /* applied: the named settings change value and source, the others not */
    char err[160] = "x";
    int r = cw_settings_apply("nt_threshold = 64K  # streams from here\n"
                              "  stream_prefetch=2K\n\n"
                              "src_noreuse_prefetch = 1k\n",
                              err, sizeof err);
    CWT_CHECK(r == 0 && err[0] == '\0', "valid settings refused: %d, \"%s\"", r, err);
    CWT_CHECK(in->nt_threshold == 65536 && strcmp(in->nt_threshold_source, "api") == 0,
              "nt_threshold %zu (%s), want 65536 (api)", in->nt_threshold,
              in->nt_threshold_source);
    static const char *const changed[][2] = {
        {"nt_threshold", "64K"}, {"stream_prefetch", "2K"}, {"src_noreuse_prefetch", "1K"}};
    for (size_t k = 0; k < 3; k++) {
        const struct cw_setting *s = setting(changed[k][0]);
        CWT_CHECK(strcmp(s->value, changed[k][1]) == 0 && strcmp(s->source, "api") == 0,
                  "%s = %s (%s), want %s (api)", s->name, s->value, s->source, changed[k][1]);
    }
    for (int i = 0; i < in->n_settings; i++) {
        int named = 0;
        for (size_t k = 0; k < 3; k++)
            named |= strcmp(in->settings[i].name, changed[k][0]) == 0;
        if (!named)
            CWT_CHECK(strcmp(in->settings[i].value, start.value[i]) == 0 &&
                          strcmp(in->settings[i].source, start.source[i]) == 0,
                      "%s changed to %s (%s), not named", in->settings[i].name,
                      in->settings[i].value, in->settings[i].source);
    }
    CWT_CHECK(in->n_errors == start.n_errors, "valid settings recorded an error");
    copy_ok(256 << 10);
    copy_ok(1000);

    /* a second call builds on the first; a refused one after it keeps both */
    CWT_CHECK(cw_settings_apply("parallel_threads = 2", NULL, 0) == 0, "parallel_threads = 2");
    CWT_CHECK(strcmp(setting("parallel_threads")->value, "2") == 0 &&
                  strcmp(setting("nt_threshold")->value, "64K") == 0,
              "the second call undid the first");
    struct snapshot applied;
    take(&applied);
    refused("parallel_threads = 65", "larger than the limit", &applied);

    /* restore: the start-up policy, values and sources */
    CWT_CHECK(cw_settings_restore() == 0, "cw_settings_restore failed");
    same(&start, "after cw_settings_restore");
    CWT_CHECK(cw_settings_restore() == 0, "a second cw_settings_restore failed");
    same(&start, "after a second cw_settings_restore");
    copy_ok(256 << 10);

    if (cwt_failures != 0)
        return 1;
    printf("ok: cw_settings_apply changes values and sources, refuses bad lines with nothing "
           "changed; cw_settings_restore brings back the start-up policy (profile %s, the "
           "CPU's %s)\n",
           in->profile, in->cpu_profile);
    return 0;
}
