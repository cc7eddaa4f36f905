/* SPDX-License-Identifier: MIT */
/* Environment settings: CACHEWISE_IMPL, CACHEWISE_NT_THRESHOLD (K/M/G
 * suffixes) and CACHEWISE_VERBOSE. The library reads them once, at load
 * time, so every case runs this program again as a child with its own
 * environment and checks what the child reports on stdout and what the
 * library printed on stderr. Invalid values must be ignored, recorded in
 * cw_get_info()->errors, printed only with CACHEWISE_VERBOSE=1, and never be
 * fatal (the child still copies correctly and exits 0). */
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cwt_exec.h"
#include "test_util.h"

extern char **environ;

static int child(void)
{
    const struct cw_info *in = cw_get_info();
    unsigned char s[5000], d[5000];
    for (size_t i = 0; i < sizeof s; i++)
        s[i] = (unsigned char)(i * 13 + 1);
    cw_memcpy(d, s, sizeof s);
    int ok = memcmp(d, s, sizeof s) == 0;
    cw_memmove(d + 1, d, sizeof d - 1);
    ok = ok && memcmp(d + 1, s, sizeof s - 1) == 0;
    /* the sizes cw_memcpy's load-time entry copies itself */
    for (size_t n = 33; n <= 64; n++) {
        memset(d, 0, 200);
        cw_memcpy(d + 7, s + 3, n);
        ok = ok && memcmp(d + 7, s + 3, n) == 0 && d[6] == 0 && d[7 + n] == 0;
    }
    printf("impl=%s\nimpl_source=%s\nnt=%zu\nnt_source=%s\nn_errors=%d\ncopy_ok=%d\n"
           "entry=%s\ncpu_profile=%s\n",
           cw_impl_name(), in->impl_source, in->nt_threshold, in->nt_threshold_source,
           in->n_errors, ok, in->memcpy_entry, in->cpu_profile);
    for (int i = 0; i < in->n_errors && i < CW_INFO_MAX_ERRORS; i++)
        printf("error=%s\n", in->errors[i]);
    return 0;
}

struct result {
    char out[4096];
    char err[4096];
    int status;
};

static void slurp(FILE *f, char *buf, size_t cap)
{
    rewind(f);
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* Run ourselves with --child and the environment minus every CACHEWISE_*
 * variable, plus `vars` (NULL-terminated "NAME=value" strings). */
static int spawn(const char *self, const char *const *vars, struct result *r)
{
    char *envp[256];
    size_t k = 0;
    for (char **e = environ; *e != NULL && k < 200; e++)
        if (strncmp(*e, "CACHEWISE_", 10) != 0)
            envp[k++] = *e;
    for (size_t i = 0; vars[i] != NULL && k < 255; i++)
        envp[k++] = (char *)vars[i];
    envp[k] = NULL;

    FILE *out = tmpfile(), *err = tmpfile();
    if (out == NULL || err == NULL) {
        perror("tmpfile");
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return -1;
    }
    if (pid == 0) {
        dup2(fileno(out), 1);
        dup2(fileno(err), 2);
        char *argv[] = {(char *)"test_env", (char *)"--child", NULL};
        cwt_execve(self, argv, envp); /* through the emulator in a cross build */
        _exit(127);
    }
    if (waitpid(pid, &r->status, 0) != pid)
        return -1;
    slurp(out, r->out, sizeof r->out);
    slurp(err, r->err, sizeof r->err);
    return 0;
}

/* Value of "key=" on a line of the child's report, or "" */
static const char *field(const struct result *r, const char *key, char *buf, size_t cap)
{
    size_t klen = strlen(key);
    for (const char *p = r->out; *p != '\0';) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
            size_t v = len - klen - 1 < cap - 1 ? len - klen - 1 : cap - 1;
            memcpy(buf, p + klen + 1, v);
            buf[v] = '\0';
            return buf;
        }
        p += len + (eol != NULL);
    }
    buf[0] = '\0';
    return buf;
}

struct expect {
    const char *impl;        /* NULL: don't care */
    const char *impl_source;
    long long nt;            /* -1: the default */
    const char *nt_source;
    int n_errors;
    const char *error_has;   /* substring of some recorded error, or NULL */
    const char *stderr_has;  /* substring of stderr; "" = stderr must be empty */
};

static const char *g_self;
static size_t g_default_nt;
static const char *g_best, *g_best_source;

static void run(const char *const *vars, const struct expect *x)
{
    struct result r;
    char desc[256] = "", b[512];
    for (size_t i = 0; vars[i] != NULL; i++)
        snprintf(desc + strlen(desc), sizeof desc - strlen(desc), "%s'%s'", i ? " " : "",
                 vars[i]);
    if (spawn(g_self, vars, &r) != 0) {
        cwt_fail("[%s] could not run the child", desc);
        return;
    }
    if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
        cwt_fail("[%s] child died (status 0x%x): stderr: %s", desc, r.status, r.err);
        return;
    }
    CWT_CHECK(strcmp(field(&r, "copy_ok", b, sizeof b), "1") == 0, "[%s] copies wrong", desc);
    const char *want_impl = x->impl ? x->impl : g_best;
    CWT_CHECK(strcmp(field(&r, "impl", b, sizeof b), want_impl) == 0, "[%s] impl %s, want %s",
              desc, b, want_impl);
    /* "cpu" with no implementation named: what the library picks by itself */
    const char *want_source =
        x->impl == NULL && strcmp(x->impl_source, "cpu") == 0 ? g_best_source : x->impl_source;
    CWT_CHECK(strcmp(field(&r, "impl_source", b, sizeof b), want_source) == 0,
              "[%s] impl_source %s, want %s", desc, b, want_source);
    /* cw_memcpy's IFUNC entry, chosen before the library's own selection,
     * must agree with it: AVX2 copies only for the AVX2 and AVX-512 rows,
     * the avx512-evex row's own kernel for that row, with its 0-64 B
     * classes fixed where the CPU's profile row asks for it (no case here
     * names a profile: src/profiles.c, evex_entry, amd-zen4) */
    const char *want_entry = "baseline";
#if defined(__x86_64__) && defined(__GLIBC__) && !defined(CWT_NO_IFUNC)
    if (strcmp(want_impl, "avx2") == 0 || strcmp(want_impl, "avx512") == 0)
        want_entry = "avx2";
    else if (strcmp(want_impl, "avx512-evex") == 0)
        want_entry = strcmp(field(&r, "cpu_profile", b, sizeof b), "amd-zen4") == 0
                         ? "avx512-evex-64"
                         : "avx512-evex";
#endif
    CWT_CHECK(strcmp(field(&r, "entry", b, sizeof b), want_entry) == 0,
              "[%s] memcpy entry %s, want %s (impl %s)", desc, b, want_entry, want_impl);
    unsigned long long want_nt = x->nt < 0 ? g_default_nt : (unsigned long long)x->nt;
    CWT_CHECK(strtoull(field(&r, "nt", b, sizeof b), NULL, 10) == want_nt,
              "[%s] nt_threshold %s, want %llu", desc, b, want_nt);
    CWT_CHECK(strcmp(field(&r, "nt_source", b, sizeof b), x->nt_source) == 0,
              "[%s] nt_threshold_source %s, want %s", desc, b, x->nt_source);
    CWT_CHECK(atoi(field(&r, "n_errors", b, sizeof b)) == x->n_errors,
              "[%s] %s errors recorded, want %d (stdout: %s)", desc, b, x->n_errors, r.out);
    if (x->error_has != NULL)
        CWT_CHECK(strstr(r.out, "error=") != NULL && strstr(strstr(r.out, "error="),
                                                             x->error_has) != NULL,
                  "[%s] no recorded error mentions \"%s\": %s", desc, x->error_has, r.out);
    if (x->stderr_has != NULL && x->stderr_has[0] == '\0')
        CWT_CHECK(r.err[0] == '\0', "[%s] printed without CACHEWISE_VERBOSE: %s", desc, r.err);
    else if (x->stderr_has != NULL)
        CWT_CHECK(strstr(r.err, x->stderr_has) != NULL, "[%s] stderr lacks \"%s\": \"%s\"", desc,
                  x->stderr_has, r.err);
}

#define VARS(...) ((const char *const[]){__VA_ARGS__, NULL})

static void impl_cases(void)
{
    run(VARS("CACHEWISE_VERBOSE=0"), &(struct expect){NULL, "cpu", -1, "cpu", 0, NULL, ""});
    run(VARS("CACHEWISE_IMPL="), &(struct expect){NULL, "cpu", -1, "cpu", 0, NULL, ""});
    run(VARS("CACHEWISE_IMPL=generic"),
        &(struct expect){"generic", "env", -1, "cpu", 0, NULL, ""});
    for (size_t k = 0; cwt_known_impls[k] != NULL; k++) {
        char var[64];
        snprintf(var, sizeof var, "CACHEWISE_IMPL=%s", cwt_known_impls[k]);
        if (cwt_in_list(cwt_known_impls[k]))
            run(VARS(var), &(struct expect){cwt_known_impls[k], "env", -1, "cpu", 0, NULL, ""});
        else /* refused, recorded, not printed, and no SIGILL */
            run(VARS(var), &(struct expect){NULL, "cpu", -1, "cpu", 1, cwt_known_impls[k], ""});
    }
    run(VARS("CACHEWISE_IMPL=bogus"), &(struct expect){NULL, "cpu", -1, "cpu", 1, "bogus", ""});
    run(VARS("CACHEWISE_IMPL=bogus", "CACHEWISE_VERBOSE=1"),
        &(struct expect){NULL, "cpu", -1, "cpu", 1, "bogus", "bogus"});
    run(VARS("CACHEWISE_IMPL=AVX2", "CACHEWISE_VERBOSE=1"),
        &(struct expect){NULL, "cpu", -1, "cpu", 1, "CACHEWISE_IMPL", "AVX2"});
    /* the first of two settings counts, for the library and its IFUNC alike
     * (not under an emulator: qemu-user gives the target one value per
     * name, the last) */
    const char *emu = getenv("CW_EMULATOR");
    if (emu == NULL || *emu == '\0')
        run(VARS("CACHEWISE_IMPL=generic", "CACHEWISE_IMPL=avx2"),
            &(struct expect){"generic", "env", -1, "cpu", 0, NULL, ""});
    else
        printf("test_env: not checked under %s: two settings of one variable (the emulator "
               "keeps the last only)\n", emu);
    /* longer than any name (and than the resolver keeps): unknown */
    run(VARS("CACHEWISE_IMPL=sse2sse2sse2sse2sse2sse2"),
        &(struct expect){NULL, "cpu", -1, "cpu", 1, "sse2sse2", ""});
    run(VARS("CACHEWISE_IMPL=sse"), &(struct expect){NULL, "cpu", -1, "cpu", 1, "sse", ""});
    /* the verbose summary names the implementation in force */
    run(VARS("CACHEWISE_IMPL=generic", "CACHEWISE_VERBOSE=1"),
        &(struct expect){"generic", "env", -1, "cpu", 0, NULL, "generic"});
}

static void threshold_cases(void)
{
    static const struct {
        const char *var;
        long long nt;
    } good[] = {
        {"CACHEWISE_NT_THRESHOLD=4096", 4096},
        {"CACHEWISE_NT_THRESHOLD=123", 123},
        {"CACHEWISE_NT_THRESHOLD=4K", 4096},
        {"CACHEWISE_NT_THRESHOLD=4k", 4096},
        {"CACHEWISE_NT_THRESHOLD=3M", 3 << 20},
        {"CACHEWISE_NT_THRESHOLD=2m", 2 << 20},
        {"CACHEWISE_NT_THRESHOLD=1G", 1LL << 30},
        {"CACHEWISE_NT_THRESHOLD=0", 0},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        run(VARS(good[i].var), &(struct expect){NULL, "cpu", good[i].nt, "env", 0, NULL, ""});

    static const char *const bad[] = {
        "CACHEWISE_NT_THRESHOLD=abc",  "CACHEWISE_NT_THRESHOLD=12Q",
        "CACHEWISE_NT_THRESHOLD=-5",   "CACHEWISE_NT_THRESHOLD=4KK",
        "CACHEWISE_NT_THRESHOLD=1.5M", "CACHEWISE_NT_THRESHOLD= 4K",
        "CACHEWISE_NT_THRESHOLD=99999999999999999999999",
        "CACHEWISE_NT_THRESHOLD=99999999999G",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        run(VARS(bad[i]),
            &(struct expect){NULL, "cpu", -1, "cpu", 1, "CACHEWISE_NT_THRESHOLD", ""});
        run(VARS(bad[i], "CACHEWISE_VERBOSE=1"),
            &(struct expect){NULL, "cpu", -1, "cpu", 1, "CACHEWISE_NT_THRESHOLD",
                             "CACHEWISE_NT_THRESHOLD"});
    }
    /* both wrong: both recorded, and still usable */
    run(VARS("CACHEWISE_NT_THRESHOLD=lots", "CACHEWISE_IMPL=nope"),
        &(struct expect){NULL, "cpu", -1, "cpu", 2, "nope", ""});
    run(VARS("CACHEWISE_NT_THRESHOLD=8K", "CACHEWISE_IMPL=generic"),
        &(struct expect){"generic", "env", 8192, "env", 0, NULL, ""});
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--child") == 0)
        return child();
    if (getenv("CACHEWISE_IMPL") != NULL || getenv("CACHEWISE_NT_THRESHOLD") != NULL) {
        printf("test_env: run without CACHEWISE_IMPL / CACHEWISE_NT_THRESHOLD set\n");
        return 2;
    }
    static char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        perror("readlink /proc/self/exe");
        return 1;
    }
    self[n] = '\0';
    g_self = self;
    g_default_nt = cw_get_info()->nt_threshold;
    g_best = cwt_default_impl(cw_get_info(), &g_best_source);
    impl_cases();
    threshold_cases();
    return cwt_finish("test_env");
}
