/* SPDX-License-Identifier: MIT */
/* Dispatch: one-time CPU detection and implementation selection, and the
 * public copy entry points that route each call by size and hints.
 * Compiled for the baseline ISA (x86-64 = SSE2): it may run on any CPU. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* Implementations in priority order: the first runnable one wins. */
const struct cwi_impl *const cwi_impls[] = {
#if defined(__x86_64__)
    &cwi_impl_avx512,
    &cwi_impl_avx2,
    &cwi_impl_sse2,
#endif
#if defined(__aarch64__)
    &cwi_impl_aarch64,
#endif
    &cwi_impl_generic,
    NULL,
};
#define N_IMPLS (sizeof cwi_impls / sizeof cwi_impls[0] - 1)

struct cw_info cwi_info;

_Atomic(const struct cwi_impl *) cwi_active_row;
static void *memcpy_first_use(void *restrict dst, const void *restrict src, size_t n);
/* The active row's cw_memcpy entry for 33..CWI_MEMCPY_SMALL bytes, kept
 * beside the row pointer so that those calls reach it with one load and
 * no test: on the row's path (row load, test, threshold load, jump, size
 * ladder) 40-64 B copies at random offsets lost 5-10% to glibc's resolved
 * entry, where each load on the way cost about 0.17 ns of 3.4 (AMD EPYC
 * family 25 model 1, docs/results/amd-25-1/README.md, "33-128 B through one
 * pointer to a small-copy kernel"). Until selection: the first-use path. */
static _Atomic(cwi_copy_fn) g_memcpy_small = memcpy_first_use;
static size_t g_nt_threshold = SIZE_MAX; /* written once, before cwi_active_row */
static uint32_t g_features;
static const char *g_runnable[N_IMPLS + 1];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t g_select_lock = PTHREAD_MUTEX_INITIALIZER;

static int runnable(const struct cwi_impl *impl)
{
    return (impl->required & g_features) == impl->required;
}

static const struct cwi_impl *find_impl(const char *name)
{
    for (size_t i = 0; cwi_impls[i] != NULL; i++)
        if (strcmp(cwi_impls[i]->name, name) == 0)
            return cwi_impls[i];
    return NULL;
}

static int env_verbose(void)
{
    const char *v = cwi_getenv("CACHEWISE_VERBOSE");
    return v != NULL && v[0] != '\0' && v[0] != '0';
}

static void copy_string(char *dst, size_t cap, const char *src)
{
    size_t i = 0;
    for (; i + 1 < cap && src[i] != '\0'; i++)
        dst[i] = src[i];
    dst[i] = '\0';
}

/* Makes impl the active implementation for every entry point. */
static void publish(const struct cwi_impl *impl)
{
    atomic_store_explicit(&cwi_active_row, impl, memory_order_release);
    atomic_store_explicit(&g_memcpy_small, impl->memcpy_small, memory_order_release);
}

static const char *nt_source(void);

static void init_once(void)
{
    struct cwi_cpu cpu;
    cwi_cpu_detect(&cpu);
    g_features = cpu.features;

    struct cw_info *in = &cwi_info;
    in->sse2 = !!(cpu.features & CWI_F_SSE2);
    in->avx2 = !!(cpu.features & CWI_F_AVX2);
    in->avx512f = !!(cpu.features & CWI_F_AVX512F);
    in->avx512bw = !!(cpu.features & CWI_F_AVX512BW);
    in->avx512vl = !!(cpu.features & CWI_F_AVX512VL);
    in->erms = !!(cpu.features & CWI_F_ERMS);
    in->fsrm = !!(cpu.features & CWI_F_FSRM);
    in->clflush = !!(cpu.features & CWI_F_CLFLUSH);
    in->clflushopt = !!(cpu.features & CWI_F_CLFLUSHOPT);
    in->clwb = !!(cpu.features & CWI_F_CLWB);
    in->movdir64b = !!(cpu.features & CWI_F_MOVDIR64B);
    in->asimd = !!(cpu.features & CWI_F_ASIMD);
    in->dcpop = !!(cpu.features & CWI_F_DCPOP);
    in->dcpodp = !!(cpu.features & CWI_F_DCPODP);
    in->sve = !!(cpu.features & CWI_F_SVE);
    copy_string(in->cpu_vendor, sizeof in->cpu_vendor, cpu.vendor);
    copy_string(in->cpu_model, sizeof in->cpu_model, cpu.model);
    in->l1d_size = cpu.l1d;
    in->l2_size = cpu.l2;
    in->l3_size = cpu.l3;
    in->l3_policy_size = cpu.l3_used;
    in->l3_policy_note = cpu.l3_note;
    in->cache_line = cpu.line;
    in->cpu_stepping = cpu.stepping;

    in->cpu_family = cpu.family;
    in->cpu_model_number = cpu.model_number;
    const char *want_impl, *want_source;
    cwi_tuning_init(&cpu, in, &want_impl, &want_source);
    in->flush_insn = cwi_flush_select(cpu.features);
    cwi_tuning_keep_startup();

    /* every size above PTRDIFF_MAX takes the threshold's path, which
     * refuses it (cwi_size_overflow) */
    size_t nt = cwi_pol.nt_threshold;
    if (nt > CWI_MAX_COPY + 1)
        nt = CWI_MAX_COPY + 1;
    in->nt_threshold = nt;
    g_nt_threshold = nt;
    in->nt_threshold_source = nt_source();

    size_t k = 0;
    const struct cwi_impl *best = NULL;
    for (size_t i = 0; cwi_impls[i] != NULL; i++) {
        if (runnable(cwi_impls[i])) {
            g_runnable[k++] = cwi_impls[i]->name;
            if (best == NULL)
                best = cwi_impls[i];
        }
    }
    g_runnable[k] = NULL;
    in->impl_source = "cpu";
    if (want_impl != NULL) {
        const struct cwi_impl *forced = find_impl(want_impl);
        if (!runnable(forced))
            cwi_config_error("impl = %.40s (tuning file): not supported by this CPU", want_impl);
        else {
            best = forced;
            in->impl_source = want_source;
        }
    }

    const char *env = cwi_getenv("CACHEWISE_IMPL");
    if (env != NULL && env[0] != '\0') {
        const struct cwi_impl *forced = find_impl(env);
        if (forced == NULL)
            cwi_config_error("CACHEWISE_IMPL=\"%.60s\": unknown implementation", env);
        else if (!runnable(forced))
            cwi_config_error("CACHEWISE_IMPL=\"%.60s\": not supported by this CPU", env);
        else {
            best = forced;
            in->impl_source = "env";
            cwi_tuning_set_source("impl", "env");
        }
    }
    in->impl = best->name;
    in->memcpy_entry = cwi_memcpy_entry_name();
    cwi_tuning_refresh(in);
    publish(best);

    if (env_verbose()) {
        char line[512];
        int len = snprintf(line, sizeof line,
                           "cachewise: impl=%s (%s) memcpy_entry=%s nt_threshold=%zu (%s) "
                           "flush=%s L1d=%zu L2=%zu L3=%zu (policy: %zu, %s) cpu=%s "
                           "family %u model %u tuning=%s (%s) profile=%s version=%s\n",
                           in->impl, in->impl_source, in->memcpy_entry,
                           in->nt_threshold, in->nt_threshold_source, in->flush_insn,
                           in->l1d_size, in->l2_size, in->l3_size, in->l3_policy_size,
                           in->l3_policy_note, in->cpu_vendor,
                           in->cpu_family, in->cpu_model_number, in->tuning,
                           in->tuning_source, in->profile, cw_version());
        if (len > 0)
            (void)!write(2, line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
        for (int i = 0; i < in->n_settings; i++) {
            const struct cw_setting *st = &in->settings[i];
            len = snprintf(line, sizeof line, "cachewise:   %-24s = %-10s (%s; profile %s; %s)\n",
                           st->name, st->value, st->source, st->table_value, st->env);
            if (len > 0)
                (void)!write(2, line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
        }
    }
}

static const char *nt_source(void)
{
    const char *s = cwi_tuning_source("nt_threshold");
    return strcmp(s, "table") == 0 ? "cpu" : s;
}

void cwi_policy_republish(void)
{
    cwi_init();
    size_t nt = cwi_pol.nt_threshold;
    pthread_mutex_lock(&g_select_lock);
    g_nt_threshold = nt > CWI_MAX_COPY + 1 ? CWI_MAX_COPY + 1 : nt;
    cwi_info.nt_threshold = g_nt_threshold;
    cwi_info.nt_threshold_source = nt_source();
    cwi_tuning_refresh(&cwi_info);
    pthread_mutex_unlock(&g_select_lock);
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

static inline const struct cwi_impl *active(void)
{
    const struct cwi_impl *impl = atomic_load_explicit(&cwi_active_row, memory_order_acquire);
    if (__builtin_expect(impl == NULL, 0)) {
        cwi_init();
        impl = atomic_load_explicit(&cwi_active_row, memory_order_acquire);
    }
    return impl;
}

const struct cwi_impl *cwi_active(void)
{
    return active();
}

static int disjoint(const void *a, const void *b, size_t n)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return (x > y ? x - y : y - x) >= n;
}

/* The fast paths below only jump: every call made on the way (first-use
 * initialisation, the fenced streaming copy) sits in its own function, so
 * the compiler sets up no stack frame for the common case. */
static __attribute__((noinline, cold)) void *memcpy_first_use(void *restrict dst,
                                                             const void *restrict src, size_t n)
{
    cwi_init();
    return cw_memcpy(dst, src, n);
}

/* A size above PTRDIFF_MAX is a caller's bug (a negative length cast to
 * size_t, an underflowed subtraction): no object is that large, and a
 * kernel's pointer arithmetic would wrap and write below dst. The entry
 * points that can report it return EINVAL; the memcpy-shaped ones, which
 * cannot, stop the process here before touching a byte (as glibc's
 * fortified functions do), never return as if they had copied. */
__attribute__((noinline, cold, noreturn)) void cwi_size_overflow(const char *fn, size_t n)
{
    char line[160];
    int len = snprintf(line, sizeof line,
                       "cachewise: %s: size %zu is larger than PTRDIFF_MAX (no object is that "
                       "large); aborting\n", fn, n);
    if (len > 0)
        (void)!write(2, line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
    abort();
}

/* The streaming path, taken at n >= g_nt_threshold <= CWI_MAX_COPY + 1: the
 * size check costs the small copies nothing. */
static __attribute__((noinline)) void *copy_nt_fenced(const struct cwi_impl *impl, void *dst,
                                                      const void *src, size_t n)
{
    if (__builtin_expect(n > CWI_MAX_COPY, 0))
        cwi_size_overflow("cw_memcpy", n);
    impl->copy_nt(dst, src, n);
    cwi_sfence();
    return dst;
}

#if defined(__x86_64__) && defined(__SSE2__)
#include "x86/small_copy.h"
/* Copies of at most 32 bytes, the most common calls by far (96% of the
 * fleet's memcpy calls are <= 128 B), are done right here with baseline
 * instructions: the indirect jump into the implementation cost them about
 * 8% against glibc's directly resolved entry. Every load before any store,
 * so the same code serves cw_memmove. */
#define CWI_INLINE_MAX 32
static inline __attribute__((always_inline)) void copy_upto32(unsigned char *d,
                                                             const unsigned char *s, size_t n)
{
    if (n >= 16)
        cwi_copy_16to32(d, s, n);
    else
        cwi_copy_upto15(d, s, n);
}
#endif

/* The entries' first step: copies of at most CWI_INLINE_MAX bytes return
 * from here. dst is put in the return register before the copy, so that
 * every size class ends in its own one-byte ret: with "mov %rdi,%rax; ret"
 * as the common tail, GCC sent the 1-7 B classes to one shared copy of it
 * (four taken branches where glibc takes two; 2-4 B hot 0.85-0.89 of glibc
 * on the Xeon, docs/RESULTS.md). */
#ifdef CWI_INLINE_MAX
#define CWI_RETURN_IF_SMALL(dst, src, n)                                                         \
    do {                                                                                         \
        if ((n) <= CWI_INLINE_MAX) {                                                             \
            void *ret_ = (dst);                                                                  \
            __asm__("" : "+a"(ret_));                                                            \
            copy_upto32(ret_, (src), (n));                                                       \
            return ret_;                                                                         \
        }                                                                                        \
    } while (0)
#else
#define CWI_RETURN_IF_SMALL(dst, src, n) ((void)0)
#endif

/* The small-copy entries start on a 64-byte boundary: their few dozen
 * bytes of hot path then sit in the same fetch blocks whatever else in
 * this file grows or shrinks (a copy of a few ns moves with that). */
#define CWI_ENTRY __attribute__((aligned(64)))

/* cw_memcpy past its inline copy: 33..CWI_MEMCPY_SMALL bytes through the
 * row's small-copy entry, larger ones through the row. */
static inline __attribute__((always_inline)) void *memcpy_through_row(void *restrict dst,
                                                                     const void *restrict src,
                                                                     size_t n)
{
    if (__builtin_expect(n <= CWI_MEMCPY_SMALL, 1))
        return atomic_load_explicit(&g_memcpy_small, memory_order_acquire)(dst, src, n);
    const struct cwi_impl *impl = atomic_load_explicit(&cwi_active_row, memory_order_acquire);
    if (__builtin_expect(impl == NULL, 0))
        return memcpy_first_use(dst, src, n);
    if (__builtin_expect(n >= g_nt_threshold, 0))
        return copy_nt_fenced(impl, dst, src, n);
    return impl->copy(dst, src, n);
}

#ifdef CWI_INLINE_MAX
const size_t cwi_inline_max = CWI_INLINE_MAX;
#else
const size_t cwi_inline_max = 0;
#endif

/* The tests of CWI_RETURN_IF_SMALL and memcpy_through_row, in their order. */
int cwi_memcpy_path(const void *dst, const void *src, size_t n)
{
    if (n <= cwi_inline_max)
        return CWI_PATH_INLINE;
    if (n <= CWI_MEMCPY_SMALL)
        return CWI_PATH_TEMPORAL;
    const struct cwi_impl *impl = active();
    int streaming = n >= g_nt_threshold;
    if (impl->path != NULL)
        return impl->path(dst, src, n, streaming);
    return streaming ? CWI_PATH_STREAM : CWI_PATH_TEMPORAL;
}

#ifdef CWI_MEMCPY_IFUNC
/* In the shared library cw_memcpy is a GNU indirect function: the dynamic
 * linker calls resolve_cw_memcpy once, and every call through a program's
 * PLT then lands in the entry it returned. On AVX2 CPUs that entry copies
 * 33..128 bytes itself, with no load on the way: behind the PLT's jump the
 * load and jump through g_memcpy_small made these copies about 7% slower
 * than glibc's memcpy, which is resolved the same way (AMD EPYC family 25
 * model 1, docs/results/amd-25-1/README.md, "The shared library's cw_memcpy
 * as an IFUNC"). cw_impl_select() cannot move them (the entry is fixed at load
 * time); CACHEWISE_IMPL=sse2 or generic, read by the resolver, selects the
 * baseline entry. The static library keeps a plain function (see
 * src/CMakeLists.txt). */
static CWI_ENTRY void *memcpy_entry_baseline(void *restrict dst, const void *restrict src,
                                             size_t n)
{
    CWI_RETURN_IF_SMALL(dst, src, n);
    return memcpy_through_row(dst, src, n);
}

static CWI_ENTRY __attribute__((target("avx,avx2"))) void *memcpy_entry_avx2(void *restrict dst,
                                                                     const void *restrict src,
                                                                     size_t n)
{
    CWI_RETURN_IF_SMALL(dst, src, n);
    if (__builtin_expect(n <= 64, 1)) {
        cwi_copy_32to64_avx(dst, src, n);
        return dst;
    }
    if (__builtin_expect(n <= 128, 1)) {
        cwi_copy_64to128_avx(dst, src, n);
        return dst;
    }
    return memcpy_through_row(dst, src, n);
}

/* What the resolver chose, for cw_info (the same value every time it runs). */
static _Atomic(const char *) g_memcpy_entry;

static cwi_copy_fn resolve_cw_memcpy(void)
{
    int wide = cwi_early_wide_entry();
    atomic_store_explicit(&g_memcpy_entry, wide ? "avx2" : "baseline", memory_order_relaxed);
    return wide ? memcpy_entry_avx2 : memcpy_entry_baseline;
}

void *cw_memcpy(void *restrict dst, const void *restrict src, size_t n)
    __attribute__((ifunc("resolve_cw_memcpy")));

const char *cwi_memcpy_entry_name(void)
{
    if (atomic_load_explicit(&g_memcpy_entry, memory_order_relaxed) == NULL)
        (void)resolve_cw_memcpy(); /* lazy binding: not resolved yet */
    return atomic_load_explicit(&g_memcpy_entry, memory_order_relaxed);
}
#else
CWI_ENTRY void *cw_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    CWI_RETURN_IF_SMALL(dst, src, n);
    return memcpy_through_row(dst, src, n);
}

const char *cwi_memcpy_entry_name(void)
{
    return "baseline";
}
#endif

static __attribute__((noinline, cold)) void *memmove_first_use(void *dst, const void *src,
                                                              size_t n)
{
    cwi_init();
    return cw_memmove(dst, src, n);
}

static __attribute__((noinline)) void *memmove_large(const struct cwi_impl *impl, void *dst,
                                                     const void *src, size_t n)
{
    if (__builtin_expect(n > CWI_MAX_COPY, 0))
        cwi_size_overflow("cw_memmove", n);
    if (disjoint(dst, src, n))
        return copy_nt_fenced(impl, dst, src, n);
    return impl->move(dst, src, n);
}

CWI_ENTRY void *cw_memmove(void *dst, const void *src, size_t n)
{
    CWI_RETURN_IF_SMALL(dst, src, n);
    const struct cwi_impl *impl = atomic_load_explicit(&cwi_active_row, memory_order_acquire);
    if (__builtin_expect(impl == NULL, 0))
        return memmove_first_use(dst, src, n);
    if (__builtin_expect(n >= g_nt_threshold, 0))
        return memmove_large(impl, dst, src, n);
    return impl->move(dst, src, n);
}

void *cw_memcpy_nt(void *restrict dst, const void *restrict src, size_t n)
{
    if (__builtin_expect(n > CWI_MAX_COPY, 0))
        cwi_size_overflow("cw_memcpy_nt", n);
    active()->copy_nt(dst, src, n);
    cwi_sfence();
    return dst;
}

void *cw_memcpy_flushcache_fn(void *restrict dst, const void *restrict src, size_t n)
{
    if (__builtin_expect(n > CWI_MAX_COPY, 0))
        cwi_size_overflow("cw_memcpy_flushcache", n);
    return active()->flushcache(dst, src, n);
}

void cw_drain(void)
{
    cwi_sfence();
}

void *cw_memcpy_persist(void *restrict dst, const void *restrict src, size_t n)
{
    if (__builtin_expect(n > CWI_MAX_COPY, 0))
        cwi_size_overflow("cw_memcpy_persist", n);
    active()->persist(dst, src, n);
    cwi_sfence();
    return dst;
}

/* ---- Persistence in place and fills ---- */

/* The write-back instruction depends on the CPU's flush features alone,
 * not on the vector width, so cw_flush and cw_persist have no kernel in
 * the row: every implementation shares cwi_flush_range (src/x86/flush.c).
 * Initialised first all the same, so that the instruction is the one
 * cw_get_info() names even for a flush made before the library's
 * constructor ran (the static default is clflush). */
void cw_flush(const void *addr, size_t n)
{
    if (__builtin_expect(n > CWI_MAX_COPY, 0))
        cwi_size_overflow("cw_flush", n);
    (void)active();
    cwi_flush_range(addr, n);
}

void cw_persist(const void *addr, size_t n)
{
    if (__builtin_expect(n > CWI_MAX_COPY, 0))
        cwi_size_overflow("cw_persist", n);
    (void)active();
    cwi_flush_range(addr, n);
    cwi_sfence();
}

void *cw_memset_nt(void *dst, int c, size_t n)
{
    if (__builtin_expect(n > CWI_MAX_COPY, 0))
        cwi_size_overflow("cw_memset_nt", n);
    active()->memset_nt(dst, c, n);
    cwi_sfence();
    return dst;
}

void *cw_memset_flushcache(void *dst, int c, size_t n)
{
    if (__builtin_expect(n > CWI_MAX_COPY, 0))
        cwi_size_overflow("cw_memset_flushcache", n);
    return active()->memset_flushcache(dst, c, n);
}

void *cw_memset_persist(void *dst, int c, size_t n)
{
    if (__builtin_expect(n > CWI_MAX_COPY, 0))
        cwi_size_overflow("cw_memset_persist", n);
    active()->memset_persist(dst, c, n);
    cwi_sfence();
    return dst;
}

int cwi_hints_valid(unsigned hints)
{
    const unsigned known = CW_DST_NOREUSE | CW_DST_REUSE | CW_SRC_NOREUSE | CW_PERSIST;
    if (hints & ~known)
        return 0;
    if ((hints & CW_DST_NOREUSE) && (hints & CW_DST_REUSE))
        return 0;
    if ((hints & CW_PERSIST) && (hints & CW_DST_REUSE))
        return 0;
    return 1;
}

void cwi_copy_hinted(void *restrict dst, const void *restrict src, size_t n, unsigned hints)
{
    const struct cwi_impl *impl = active();
    if (hints & CW_PERSIST) {
        impl->persist(dst, src, n);
        cwi_sfence();
    } else if (hints & CW_DST_NOREUSE) {
        (hints & CW_SRC_NOREUSE ? impl->copy_nt_srcnta : impl->copy_nt)(dst, src, n);
        cwi_sfence();
    } else if (hints & CW_DST_REUSE) {
        (hints & CW_SRC_NOREUSE ? impl->copy_srcnta : impl->copy)(dst, src, n);
    } else if (n >= g_nt_threshold) {
        (hints & CW_SRC_NOREUSE ? impl->copy_nt_srcnta : impl->copy_nt)(dst, src, n);
        cwi_sfence();
    } else {
        (hints & CW_SRC_NOREUSE ? impl->copy_srcnta : impl->copy)(dst, src, n);
    }
}

void *cw_copy(void *restrict dst, const void *restrict src, size_t n, unsigned hints)
{
    if (!cwi_hints_valid(hints) || n > CWI_MAX_COPY) {
        errno = EINVAL;
        return NULL;
    }
    cwi_copy_hinted(dst, src, n, hints);
    return dst;
}

const char *cw_impl_name(void)
{
    return active()->name;
}

const char *const *cw_impl_list(void)
{
    cwi_init();
    return g_runnable;
}

int cw_impl_select(const char *name)
{
    cwi_init();
    const struct cwi_impl *impl = name != NULL ? find_impl(name) : NULL;
    if (impl == NULL) {
        errno = ENOENT;
        return -1;
    }
    if (!runnable(impl)) {
        errno = ENOTSUP;
        return -1;
    }
    /* the lock keeps cwi_active_row and the info fields describing the same
     * implementation when threads select concurrently */
    pthread_mutex_lock(&g_select_lock);
    publish(impl);
    cwi_info.impl = impl->name;
    cwi_info.impl_source = "api";
    cwi_tuning_set_source("impl", "api");
    cwi_tuning_refresh(&cwi_info);
    pthread_mutex_unlock(&g_select_lock);
    return 0;
}

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
    return CWI_STR(CW_VERSION_MAJOR) "." CWI_STR(CW_VERSION_MINOR) "." CWI_STR(
        CW_VERSION_PATCH);
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
