/* SPDX-License-Identifier: MIT */
/* Machine description (what a result is only meaningful with), timers,
 * counters probe, huge-page buffers and deterministic fill patterns. */
#include <emmintrin.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifdef CWB_LINKED_SHARED
#define CWB_CACHEWISE_LINK "shared"
#else
#define CWB_CACHEWISE_LINK "static"
#endif

#include "bench.h"
#include "cachewise.h"
#include "results.h"

#ifndef CWB_BUILD_FLAGS
#define CWB_BUILD_FLAGS "unknown"
#endif
#ifndef CWB_COMPILER_ID
#define CWB_COMPILER_ID "unknown"
#endif

double cwb_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

double cwb_cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

double cwb_timer_tick(void)
{
    static double tick;
    if (tick > 0)
        return tick;
    /* The smallest step two back-to-back reads can see: the clock's
     * granularity or the cost of reading it, whichever is larger. */
    double best = 1.0;
    for (int i = 0; i < 2000; i++) {
        double t0 = cwb_now(), t1;
        while ((t1 = cwb_now()) == t0)
            ;
        if (t1 - t0 < best)
            best = t1 - t0;
    }
    struct timespec res;
    if (clock_getres(CLOCK_MONOTONIC, &res) == 0) {
        double r = (double)res.tv_sec + (double)res.tv_nsec * 1e-9;
        if (r > best)
            best = r;
    }
    tick = best;
    return tick;
}

size_t cwb_llc_bytes(void)
{
    const struct cw_info *in = cw_get_info();
    if (in->l3_size != 0)
        return in->l3_size;
    if (in->l2_size != 0)
        return in->l2_size;
    return (size_t)32 << 20;
}

int cwb_counters_available(char *why, size_t cap)
{
    int fd = cwb_perf_open(PERF_COUNT_HW_CPU_CYCLES);
    if (fd < 0) {
        snprintf(why, cap, "perf_event_open(cycles): %s", strerror(errno));
        return 0;
    }
    for (unsigned i = 0; i < 100000; i++)
        __asm__ volatile("" : : : "memory");
    uint64_t v = 0;
    ssize_t got = read(fd, &v, sizeof v);
    close(fd);
    if (got != (ssize_t)sizeof v || v == 0) {
        snprintf(why, cap, "perf_event_open(cycles) opens but counts nothing (virtualised?)");
        return 0;
    }
    snprintf(why, cap, "cycles countable");
    return 1;
}

static void features(char *buf, size_t cap)
{
    const struct cw_info *in = cw_get_info();
    const struct { const char *name; int on; } f[] = {
        {"sse2", in->sse2},       {"avx2", in->avx2},         {"avx512f", in->avx512f},
        {"avx512bw", in->avx512bw}, {"avx512vl", in->avx512vl}, {"erms", in->erms},
        {"fsrm", in->fsrm},       {"clflush", in->clflush},   {"clflushopt", in->clflushopt},
        {"clwb", in->clwb},       {"movdir64b", in->movdir64b},
    };
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        int w = snprintf(buf + len, cap - len, "%s%s%s", len ? " " : "", f[i].on ? "" : "-",
                         f[i].name);
        if (w < 0 || (size_t)w >= cap - len)
            break;
        len += (size_t)w;
    }
}

static void kernel(char *buf, size_t cap)
{
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(buf, cap, "%s %s %s", u.sysname, u.release, u.machine);
    else
        snprintf(buf, cap, "unknown");
}

static void impls(char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (const char *const *p = cw_impl_list(); *p != NULL; p++) {
        int w = snprintf(buf + len, cap - len, "%s%s", len ? " " : "", *p);
        if (w < 0 || (size_t)w >= cap - len)
            break;
        len += (size_t)w;
    }
}

static int pinned_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return -1;
    return CPU_COUNT(&set);
}

void cwb_print_machine(FILE *f)
{
    const struct cw_info *in = cw_get_info();
    char feat[256], kern[256], imp[128], why[160], a[32], b[32], c[32];
    features(feat, sizeof feat);
    kernel(kern, sizeof kern);
    impls(imp, sizeof imp);
    fprintf(f, "Machine\n");
    fprintf(f, "  cpu          %s (%s), %ld online, this process may run on %d\n",
            in->cpu_model, in->cpu_vendor, sysconf(_SC_NPROCESSORS_ONLN), pinned_cpus());
    fprintf(f, "  features     %s  (-x = absent)\n", feat);
    fprintf(f, "  caches       L1d %s, L2 %s, L3 %s (whole L3, shared), line %zu B\n",
            cwb_fmt_size(in->l1d_size, a, sizeof a), cwb_fmt_size(in->l2_size, b, sizeof b),
            cwb_fmt_size(in->l3_size, c, sizeof c), in->cache_line);
    fprintf(f, "  kernel       %s\n", kern);
    fprintf(f, "  libc         glibc %s\n", gnu_get_libc_version());
    fprintf(f, "  compiler     %s (\"%s\"), flags %s\n", CWB_COMPILER_ID, __VERSION__,
            CWB_BUILD_FLAGS);
    fprintf(f, "  cachewise    %s (%s library), impl %s (%s; runnable: %s), memcpy entry %s, "
            "nt_threshold %s (%s), flush %s\n",
            cw_version(), CWB_CACHEWISE_LINK, in->impl, in->impl_source, imp, in->memcpy_entry,
            cwb_fmt_size(in->nt_threshold, a, sizeof a), in->nt_threshold_source,
            in->flush_insn);
    /* the policy in force: which tuning, and each setting that did not
     * come from the profile's table (cwbench info lists them all) */
    fprintf(f, "  policy       tuning %s (%s), profile %s, family %u model %u", in->tuning,
            in->tuning_source, in->profile, in->cpu_family, in->cpu_model_number);
    for (int i = 0; i < in->n_settings; i++)
        if (strcmp(in->settings[i].source, "table") != 0)
            fprintf(f, "; %s=%s (%s)", in->settings[i].name, in->settings[i].value,
                    in->settings[i].source);
    fprintf(f, "\n");
    for (int i = 0; i < in->n_errors && i < CW_INFO_MAX_ERRORS; i++)
        fprintf(f, "  config error %s\n", in->errors[i]);
#ifdef CWB_HAVE_LIBPMEM
    fprintf(f, "  libpmem      linked (PMEM_IS_PMEM_FORCE=1: DRAM treated as pmem)\n");
#else
    fprintf(f, "  libpmem      not built in (install libpmem-dev and rebuild to compare)\n");
#endif
    if (cwb_counters_available(why, sizeof why))
        fprintf(f, "  counters     available (%s)\n", why);
    else
        fprintf(f, "  counters     not available (%s)\n", why);
}

void cwb_machine_meta(struct cwb_results *r)
{
    const struct cw_info *in = cw_get_info();
    char buf[256], why[160];
    cwb_results_meta(r, "cpu", in->cpu_model);
    cwb_results_meta(r, "cpu_vendor", in->cpu_vendor);
    features(buf, sizeof buf);
    cwb_results_meta(r, "features", buf);
    snprintf(buf, sizeof buf, "%zu %zu %zu", in->l1d_size, in->l2_size, in->l3_size);
    cwb_results_meta(r, "caches_l1d_l2_l3", buf);
    kernel(buf, sizeof buf);
    cwb_results_meta(r, "kernel", buf);
    cwb_results_meta(r, "libc", gnu_get_libc_version());
    snprintf(buf, sizeof buf, "%s (%s)", CWB_COMPILER_ID, __VERSION__);
    cwb_results_meta(r, "compiler", buf);
    cwb_results_meta(r, "flags", CWB_BUILD_FLAGS);
    cwb_results_meta(r, "cachewise_version", cw_version());
    cwb_results_meta(r, "impl", in->impl);
    cwb_results_meta(r, "memcpy_entry", in->memcpy_entry);
    cwb_results_meta(r, "cachewise_library", CWB_CACHEWISE_LINK);
    snprintf(buf, sizeof buf, "%zu", in->nt_threshold);
    cwb_results_meta(r, "nt_threshold", buf);
    cwb_results_meta(r, "flush", in->flush_insn);
    cwb_results_meta(r, "tuning", in->tuning);
    cwb_results_meta(r, "tuning_source", in->tuning_source);
    cwb_results_meta(r, "profile", in->profile);
    for (int i = 0; i < in->n_settings; i++) {
        char key[64];
        snprintf(key, sizeof key, "policy_%s", in->settings[i].name);
        snprintf(buf, sizeof buf, "%s (%s)", in->settings[i].value, in->settings[i].source);
        cwb_results_meta(r, key, buf);
    }
    snprintf(buf, sizeof buf, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    cwb_results_meta(r, "cpus_online", buf);
    int ok = cwb_counters_available(why, sizeof why);
    snprintf(buf, sizeof buf, "%s (%s)", ok ? "available" : "not available", why);
    cwb_results_meta(r, "counters", buf);
    snprintf(buf, sizeof buf, "%.3g", cwb_timer_tick());
    cwb_results_meta(r, "timer_tick_s", buf);
}

/* ---- memory ---------------------------------------------------------------- */

#define HUGE ((size_t)2 << 20)

void *cwb_alloc_huge(size_t bytes)
{
    size_t len = (bytes + HUGE - 1) & ~(HUGE - 1);
    if (len == 0 || len < bytes)
        return NULL;
    unsigned char *raw = mmap(NULL, len + HUGE, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    unsigned char *p = (unsigned char *)(((uintptr_t)raw + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
    if (p > raw)
        munmap(raw, (size_t)(p - raw));
    if (raw + HUGE > p)
        munmap(p + len, (size_t)(raw + HUGE - p));
    (void)madvise(p, len, MADV_HUGEPAGE);
    /* Fault every page in now, never inside a timed region. */
    for (size_t i = 0; i < len; i += 4096)
        p[i] = 0;
    return p;
}

void cwb_free_huge(void *p, size_t bytes)
{
    if (p != NULL)
        munmap(p, (bytes + HUGE - 1) & ~(HUGE - 1));
}

void cwb_fill_nt(void *p, int byte, size_t n)
{
    unsigned char *d = p;
    unsigned char *a = (unsigned char *)(((uintptr_t)d + 15) & ~(uintptr_t)15);
    if ((size_t)(a - d) >= n) {
        memset(d, byte, n);
        return;
    }
    memset(d, byte, (size_t)(a - d));
    n -= (size_t)(a - d);
    __m128i v = _mm_set1_epi8((char)byte);
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm_stream_si128((__m128i *)(a + i), v);
    memset(a + i, byte, n - i);
    _mm_sfence();
}

void cwb_fill_pattern(void *p, size_t n, uint64_t seed)
{
    unsigned char *d = p;
    uint64_t x = seed | 1;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        /* xorshift64: cheap enough for 256 MiB buffers; OR-ing 1 into every
         * byte keeps the poison byte 0 out of the pattern. */
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint64_t w = x | 0x0101010101010101ull;
        memcpy(d + i, &w, 8);
    }
    for (; i < n; i++)
        d[i] = (unsigned char)(i | 1);
}

uint64_t cwb_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void cwb_shuffle(size_t *idx, size_t n, uint64_t *state)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(cwb_rand(state) % i);
        size_t t = idx[i - 1];
        idx[i - 1] = idx[j];
        idx[j] = t;
    }
}
