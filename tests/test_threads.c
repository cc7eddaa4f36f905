/* SPDX-License-Identifier: MIT */
/* Thread safety of implementation selection, meant for ThreadSanitizer.
 *
 * Phase 1, first use: built against the static library, this program's
 * constructor (priority 101) runs before the library's own load-time
 * initialiser, so two threads started there race each other into the lazy
 * one-time selection, one through a copy and one through the info calls.
 * (Against the shared library the library is initialised first and the
 * phase just adds load.)
 * Phase 2: two threads hammer cw_impl_select over every runnable
 * implementation while copying and checking every copy, and reading the
 * active name.
 * Phase 3: one thread moves the policy back and forth with
 * cw_settings_apply (which may run beside copies): the non-temporal
 * threshold, the rep movsb window, the write-back instruction and the kernel
 * cw_memcpy reaches past its small entry (memcpy_mid), while the
 * other copies and persists, checking sizes on both sides of each. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "test_util.h"

#define ROUNDS 20000

static atomic_int g_go;
static const char *g_first_name[2];
static const char *const *g_first_list[2];
static int g_first_ok[2];
static int g_first_ran;

static void wait_go(void)
{
    while (!atomic_load(&g_go))
        ;
}

static void *first_use(void *arg)
{
    int id = (int)(intptr_t)arg;
    unsigned char s[777], d[777];
    for (size_t i = 0; i < sizeof s; i++)
        s[i] = (unsigned char)(i ^ 0x5a);
    wait_go();
    if (id == 0) {
        g_first_ok[id] = cw_memcpy(d, s, sizeof s) == d && memcmp(d, s, sizeof s) == 0;
        g_first_name[id] = cw_impl_name();
        g_first_list[id] = cw_impl_list();
    } else {
        g_first_list[id] = cw_impl_list();
        g_first_name[id] = cw_get_info()->impl;
        g_first_ok[id] =
            cw_copy(d, s, sizeof s, CW_SRC_NOREUSE) == d && memcmp(d, s, sizeof s) == 0;
    }
    return NULL;
}

__attribute__((constructor(101))) static void before_library_init(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, first_use, (void *)(intptr_t)i) != 0)
            return;
    atomic_store(&g_go, 1);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    g_first_ran = 1;
}

static const char *g_runnable[8];
static int g_n_runnable;
static atomic_long g_bad;

static void *hammer(void *arg)
{
    int id = (int)(intptr_t)arg;
    unsigned char s[4096 + 64], d[4096 + 64];
    uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(id + 1);
    for (size_t i = 0; i < sizeof s; i++)
        s[i] = (unsigned char)(i * 31 + (size_t)id);
    wait_go();
    for (int r = 0; r < ROUNDS; r++) {
        cwt_xorshift64(&x);
        if (id == 0 || (r & 7) == 0) {
            const char *want = g_runnable[x % (uint64_t)g_n_runnable];
            if (cw_impl_select(want) != 0)
                atomic_fetch_add(&g_bad, 1);
        }
        size_t n = (size_t)(x >> 20) % 4096, off = (size_t)(x >> 40) % 64;
        d[off + n] = 0xee;
        void *ret = (r & 1) ? cw_memcpy(d + off, s, n) : cw_memmove(d + off, s + off, n);
        if (ret != d + off || memcmp(d + off, (r & 1) ? s : s + off, n) != 0 ||
            d[off + n] != 0xee)
            atomic_fetch_add(&g_bad, 1);
        const char *name = cw_impl_name();
        int known = 0;
        for (int k = 0; k < g_n_runnable; k++)
            known |= strcmp(name, g_runnable[k]) == 0;
        if (!known)
            atomic_fetch_add(&g_bad, 1);
    }
    return NULL;
}

#define APPLY_ROUNDS 2000

/* An instruction every CPU of the target has, to alternate with the one
 * in force at start-up (under qemu-user on aarch64 that is dc-cvac, which
 * the tests' environment names: "auto" would choose dc cvap, which
 * qemu-user 7.2 reports but does not run). */
#if defined(__x86_64__)
#define FLUSH_NAMED "clflush"
#elif defined(__aarch64__)
#define FLUSH_NAMED "dc-cvac"
#else
#define FLUSH_NAMED "auto"
#endif

static char g_policies[2][160];

static void *apply_thresholds(void *arg)
{
    (void)arg;
    char err[160];
    wait_go();
    for (int r = 0; r < APPLY_ROUNDS; r++)
        if (cw_settings_apply(g_policies[r & 1], err, sizeof err) != 0)
            atomic_fetch_add(&g_bad, 1);
    return NULL;
}

/* The two policies apply_thresholds alternates between. */
static void make_policies(void)
{
    const struct cw_info *in = cw_get_info();
    const char *flush = "auto";
    for (int i = 0; i < in->n_settings; i++)
        if (strcmp(in->settings[i].name, "flush") == 0)
            flush = in->settings[i].value;
    snprintf(g_policies[0], sizeof g_policies[0],
             "nt_threshold = 1K\nrep_movsb_min = 2K\nflush = %s\nmemcpy_mid = direct\n",
             FLUSH_NAMED);
    snprintf(g_policies[1], sizeof g_policies[1],
             "nt_threshold = 1M\nrep_movsb_min = 8K\nflush = %s\nmemcpy_mid = ladder\n", flush);
}

static void *copy_across_threshold(void *arg)
{
    (void)arg;
    static unsigned char s[8192 + 64], d[8192 + 64];
    uint64_t x = 0x2545f4914f6cdd1dull;
    for (size_t i = 0; i < sizeof s; i++)
        s[i] = (unsigned char)(i * 7 + 3);
    wait_go();
    for (int r = 0; r < ROUNDS; r++) {
        cwt_xorshift64(&x);
        size_t n = 129 + (size_t)(x >> 20) % 8063, off = (size_t)(x >> 40) % 64;
        d[off + n] = 0xee;
        void *ret = r % 3 == 0   ? cw_memcpy(d + off, s, n)
                    : r % 3 == 1 ? cw_memmove(d + off, s, n)
                                 : cw_copy(d + off, s, n, CW_PERSIST);
        if (ret != d + off || memcmp(d + off, s, n) != 0 || d[off + n] != 0xee)
            atomic_fetch_add(&g_bad, 1);
    }
    return NULL;
}

static int run_pair(void *(*a)(void *), void *(*b)(void *))
{
    pthread_t t[2];
    atomic_store(&g_go, 0);
    if (pthread_create(&t[0], NULL, a, (void *)(intptr_t)0) != 0)
        return -1;
    if (pthread_create(&t[1], NULL, b, (void *)(intptr_t)1) != 0) {
        atomic_store(&g_go, 1);
        pthread_join(t[0], NULL);
        return -1;
    }
    atomic_store(&g_go, 1);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    return 0;
}

int main(void)
{
    CWT_CHECK(g_first_ran, "first-use phase did not run (pthread_create failed?)");
    for (int i = 0; i < 2; i++) {
        CWT_CHECK(g_first_ok[i], "first-use thread %d: copy wrong", i);
        CWT_CHECK(g_first_list[i] == cw_impl_list(), "first-use thread %d: other list", i);
        CWT_CHECK(g_first_name[i] != NULL && strcmp(g_first_name[i], cw_impl_name()) == 0,
                  "first-use thread %d saw impl %s, now %s", i,
                  g_first_name[i] ? g_first_name[i] : "(null)", cw_impl_name());
    }
    for (const char *const *l = cw_impl_list(); *l != NULL && g_n_runnable < 8; l++)
        g_runnable[g_n_runnable++] = *l;
    printf("test_threads: %d runnable implementations, active %s\n", g_n_runnable,
           cw_impl_name());

    if (run_pair(hammer, hammer) != 0) {
        cwt_fail("pthread_create");
        return 1;
    }
    CWT_CHECK(atomic_load(&g_bad) == 0, "%ld wrong results under concurrent selection",
              atomic_load(&g_bad));
    make_policies();
    if (run_pair(apply_thresholds, copy_across_threshold) != 0) {
        cwt_fail("pthread_create");
        return 1;
    }
    CWT_CHECK(atomic_load(&g_bad) == 0, "%ld wrong results while the policy moved",
              atomic_load(&g_bad));
    CWT_CHECK(cw_settings_restore() == 0, "cw_settings_restore");
    return cwt_finish("test_threads");
}
