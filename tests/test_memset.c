/* SPDX-License-Identifier: MIT */
/* Differential test of cw_memset_nt, cw_memset_flushcache and
 * cw_memset_persist against a byte-loop reference (tests/memset_cases.h),
 * with the implementation chosen by CACHEWISE_IMPL (CTest runs this once
 * per implementation name; exit 77 when this CPU cannot run it).
 *
 * Options (or environment): --quick (CW_TEST_QUICK=1) samples the
 * alignments; --max-size N[K|M|G] (CW_TEST_MAX_SIZE) caps the sizes
 * (default: 4 MiB, or twice the streaming threshold when that is larger,
 * at most 64 MiB); --only NAME runs one function; --threads runs the
 * concurrency test instead: threads fill neighbouring spans that share
 * cache lines, with every function, while another thread switches the
 * implementation (cw_impl_select) under them; a fill that wrote outside
 * its span, or read-modified-wrote a shared line, loses a neighbour's
 * bytes. */
#include <pthread.h>
#include <stdint.h>

#include "test_util.h"
#include "memset_cases.h"

static void *f_nt(void *d, int c, size_t n)
{
    return cw_memset_nt(d, c, n);
}

static void *f_flushcache(void *d, int c, size_t n)
{
    return cw_memset_flushcache(d, c, n);
}

static void *f_persist(void *d, int c, size_t n)
{
    return cw_memset_persist(d, c, n);
}

static const struct mc_func g_funcs[] = {
    {"cw_memset_nt", f_nt, 0},
    {"cw_memset_flushcache", f_flushcache, 1},
    {"cw_memset_persist", f_persist, 0},
};
#define N_FUNCS (sizeof g_funcs / sizeof g_funcs[0])

/* ---- concurrency ---- */

#define T_THREADS 4
#define T_SPAN ((size_t)65536 + 13) /* odd: neighbouring spans share lines */
#define T_ROUNDS 4000

struct worker {
    unsigned char *span;
    unsigned char *image; /* what the span must hold */
    uint64_t rng;
    int id;
    long bad;
};

static _Atomic int g_stop;

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    for (int r = 0; r < T_ROUNDS; r++) {
        size_t a = cwt_splitmix64(&w->rng) % T_SPAN, b = cwt_splitmix64(&w->rng) % T_SPAN;
        if (a > b) {
            size_t t = a;
            a = b;
            b = t;
        }
        /* a short fill now and then: the ladder, and the partial lines */
        if (r & 1)
            b = a + (b - a) % 300;
        int c = (int)(cwt_splitmix64(&w->rng) & 0xffff) | 0x10000 * w->id;
        const struct mc_func *f = &g_funcs[cwt_splitmix64(&w->rng) % N_FUNCS];
        if (f->fn(w->span + a, c, b - a) != w->span + a)
            w->bad++;
        if (f->drain)
            cw_drain();
        for (size_t i = a; i < b; i++)
            w->image[i] = (unsigned char)c;
        if (memcmp(w->span, w->image, T_SPAN) != 0)
            w->bad++;
    }
    return NULL;
}

static void *switcher_main(void *arg)
{
    (void)arg;
    const char *const *list = cw_impl_list();
    size_t n = 0;
    while (list[n] != NULL)
        n++;
    for (size_t i = 0; !g_stop; i++)
        if (cw_impl_select(list[i % n]) != 0)
            return (void *)1;
    return NULL;
}

static int threads_test(void)
{
    struct pp_buf buf;
    if (pp_alloc(&buf, T_THREADS * T_SPAN) != 0) {
        perror("test_memset: buffer");
        return 1;
    }
    struct worker w[T_THREADS];
    pthread_t t[T_THREADS], sw;
    uint64_t seed = cwt_rand();
    for (int i = 0; i < T_THREADS; i++) {
        w[i].span = buf.data + (size_t)i * T_SPAN;
        w[i].image = malloc(T_SPAN);
        if (w[i].image == NULL) {
            perror("test_memset: image");
            return 1;
        }
        memset(w[i].span, 0x11 * (i + 1), T_SPAN);
        memcpy(w[i].image, w[i].span, T_SPAN);
        w[i].rng = seed + (uint64_t)i;
        w[i].id = i;
        w[i].bad = 0;
    }
    if (pthread_create(&sw, NULL, switcher_main, NULL) != 0) {
        perror("test_memset: pthread_create");
        return 1;
    }
    for (int i = 0; i < T_THREADS; i++)
        if (pthread_create(&t[i], NULL, worker_main, &w[i]) != 0) {
            perror("test_memset: pthread_create");
            return 1;
        }
    for (int i = 0; i < T_THREADS; i++)
        pthread_join(t[i], NULL);
    g_stop = 1;
    void *swr;
    pthread_join(sw, &swr);
    CWT_CHECK(swr == NULL, "cw_impl_select of a listed implementation failed");
    for (int i = 0; i < T_THREADS; i++) {
        CWT_CHECK(w[i].bad == 0, "thread %d: %ld fills wrong or disturbed by a neighbour", i,
                  w[i].bad);
        CWT_CHECK(memcmp(w[i].span, w[i].image, T_SPAN) == 0, "thread %d: span changed", i);
        free(w[i].image);
    }
    printf("test_memset: %d threads x %d fills, implementation switched meanwhile\n", T_THREADS,
           T_ROUNDS);
    pp_free(&buf);
    return cwt_finish("test_memset");
}

int main(int argc, char **argv)
{
    int quick = 0, threads = 0;
    size_t max = 0;
    const char *only = NULL;
    const char *e = getenv("CW_TEST_QUICK");
    quick = e != NULL && *e != '\0' && *e != '0';
    e = getenv("CW_TEST_MAX_SIZE");
    if (e != NULL && cwt_parse_size(e, &max) != 0) {
        fprintf(stderr, "test_memset: bad CW_TEST_MAX_SIZE \"%s\"\n", e);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--threads") == 0) {
            threads = 1;
        } else if (strcmp(argv[i], "--max-size") == 0 && i + 1 < argc &&
                   cwt_parse_size(argv[i + 1], &max) == 0) {
            i++;
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else {
            fprintf(stderr, "usage: test_memset [--quick] [--max-size N] [--only NAME] "
                            "[--threads]\n");
            return 2;
        }
    }

    cwt_report_crashes();
    int rc = cwt_check_forced_impl("test_memset");
    if (rc != 0)
        return rc;
    cwt_seed("test_memset");
    if (threads)
        return threads_test();

    const struct cw_info *in = cw_get_info();
    if (max == 0) {
        max = (size_t)4 << 20;
        if (in->nt_threshold <= ((size_t)32 << 20) && 2 * in->nt_threshold + 64 > max)
            max = 2 * in->nt_threshold + 64;
    }
    if (max < 8192)
        max = 8192;
    printf("test_memset: nt_threshold %zu, persist_small %s, sizes up to %zu%s\n",
           in->nt_threshold,
           getenv("CACHEWISE_PERSIST_SMALL") ? getenv("CACHEWISE_PERSIST_SMALL") : "(profile)",
           max, quick ? ", quick" : "");
    if (mc_setup(max, quick) != 0) {
        perror("test_memset: buffers");
        return 1;
    }
    int ran = 0;
    for (size_t i = 0; i < N_FUNCS; i++) {
        if (only != NULL && strcmp(only, g_funcs[i].name) != 0)
            continue;
        mc_run(&g_funcs[i], in->nt_threshold);
        ran++;
    }
    if (ran == 0)
        cwt_fail("--only %s: no such function", only);
    printf("test_memset: %ld cases with %s\n", mc_cases, cw_impl_name());
    mc_teardown();
    return cwt_finish("test_memset");
}
