/* SPDX-License-Identifier: MIT */
/* Dispatch: the table of implementations, the temporal copy's entry points
 * (cw_memcpy, cw_memmove) that route each call by size, and the choice of
 * the active implementation (cw_impl_select). What they route by is chosen
 * once, at start-up, and published here (src/startup.c); the entry points
 * that write around or out of the caches, cw_copy's hints among them, read
 * it too (src/bypass.c). Compiled for the baseline ISA (x86-64 = SSE2): it
 * may run on any CPU. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <stdio.h>

#include "internal.h"

/* Implementations in priority order: the first runnable one wins, unless
 * the profile in force, the tuning file or CACHEWISE_IMPL names another
 * (src/startup.c, choose_impl). */
const struct cwi_impl *const cwi_impls[] = {
#if defined(__x86_64__)
    &cwi_impl_avx512,
#if defined(CWI_HAVE_AVX512_EVEX)
    /* after avx512: the best runnable row stays avx512 where no profile
     * chooses this one (src/profiles.c) */
    &cwi_impl_avx512_evex,
#endif
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
static void *memmove_first_use(void *dst, const void *src, size_t n);
/* The active row's temporal copy and memmove, for the sizes past the small
 * entry and below the threshold, kept beside it for the same reason: the
 * row's path reached the kernel through two dependent loads (the row,
 * then its function) and a test, and behind a store-bound copy each load
 * on the way shows: one jump through this pointer made 160 B-4 KiB copies
 * 1.07-1.11x faster with a misaligned source and destination, 1.0-1.1x
 * aligned (medians of three processes; AMD EPYC family 26 model 2,
 * docs/results/amd-26-2/README.md, "One load before the kernel"). Until selection: the
 * first-use paths. */
static _Atomic(cwi_copy_fn) g_memcpy_copy = memcpy_first_use;
static _Atomic(cwi_move_fn) g_memmove_move = memmove_first_use;
/* The non-temporal threshold (read by cwi_nt_threshold_now, here and in
 * src/bypass.c). Atomic because a copy may test it while another thread's
 * start-up (or cw_settings_apply) writes it; relaxed because a copy that
 * reads the old value is still right: before start-up every path below it
 * leads to the first-use code, which waits, and either side of a change
 * copies the same bytes. A relaxed load is a plain load: this costs the
 * copies nothing. */
_Atomic(size_t) cwi_nt_threshold = SIZE_MAX;

/* The policy's memcpy_inline as the entries test it (CWI_RETURN_IF_SMALL):
 * the largest copy they make themselves, and the smallest they make with
 * four 16-byte moves. Relaxed: every combination of old and new values
 * copies the same bytes (the row's kernels take any size below 64 B too),
 * so a copy that meets them while cw_settings_apply writes them is still
 * right. */
static struct {
    _Atomic(size_t) max;       /* 32 or 64 */
    _Atomic(size_t) four_from; /* 33 (never, below max) or 32 */
} g_inline = {32, 33};
static uint32_t g_features;
static const char *g_runnable[N_IMPLS + 1];

/* Whether a CPU with these CWI_F_* features runs impl. */
static CWI_LOOKUP int runs_on(const struct cwi_impl *impl, uint32_t features)
{
    return (impl->required & features) == impl->required;
}

/* The first row of cwi_impls (the best) a CPU with these features runs. */
static CWI_LOOKUP const struct cwi_impl *best_runnable(uint32_t features)
{
    for (size_t i = 0; cwi_impls[i] != NULL; i++)
        if (runs_on(cwi_impls[i], features))
            return cwi_impls[i];
    return NULL;
}

int cwi_impl_runnable(const struct cwi_impl *impl)
{
    return runs_on(impl, g_features);
}

/* without libc: cw_memcpy's IFUNC resolver asks it too */
CWI_LOOKUP const struct cwi_impl *cwi_impl_find(const char *name)
{
    for (size_t i = 0; cwi_impls[i] != NULL; i++)
        if (cwi_same_name(cwi_impls[i]->name, name))
            return cwi_impls[i];
    return NULL;
}

/* cw_memcpy's kernels between its inline copy and the threshold, as the
 * policy's memcpy_mid chooses them (a row without the direct kernel of a
 * class keeps its ladder there, one without the direct-lines kernel its
 * direct one) */
static void publish_memcpy_kernels(const struct cwi_impl *impl)
{
    int mid = CWI_POL(memcpy_mid);
    int direct = mid == CWI_MID_DIRECT || mid == CWI_MID_DIRECT_LINES;
    cwi_copy_fn small = impl->memcpy_small, copy = impl->copy;
    if (direct && impl->memcpy_small_flat != NULL)
        small = impl->memcpy_small_flat;
    if (direct && impl->memcpy_large != NULL)
        copy = impl->memcpy_large;
    if (mid == CWI_MID_DIRECT_LINES && impl->memcpy_large_lines != NULL)
        copy = impl->memcpy_large_lines;
    atomic_store_explicit(&g_memcpy_small, small, memory_order_release);
    atomic_store_explicit(&g_memcpy_copy, copy, memory_order_release);
    int wide = CWI_POL(memcpy_inline) == CWI_INLINE_64;
    /* any pair of old and new values copies right: four_from is 32 or 33,
     * so 33-64 B always take the four moves */
    atomic_store_explicit(&g_inline.four_from, wide ? 32 : 33, memory_order_relaxed);
    atomic_store_explicit(&g_inline.max, wide ? 64 : 32, memory_order_relaxed);
}

/* Makes impl the active implementation for every entry point. */
void cwi_dispatch_publish(const struct cwi_impl *impl)
{
    atomic_store_explicit(&cwi_active_row, impl, memory_order_release);
    publish_memcpy_kernels(impl);
    atomic_store_explicit(&g_memmove_move, impl->move, memory_order_release);
}

void cwi_dispatch_policy_changed(void)
{
    const struct cwi_impl *impl = atomic_load_explicit(&cwi_active_row, memory_order_acquire);
    if (impl != NULL)
        publish_memcpy_kernels(impl);
}

void cwi_dispatch_set_threshold(size_t nt)
{
    atomic_store_explicit(&cwi_nt_threshold, nt, memory_order_relaxed);
}

const struct cwi_impl *cwi_dispatch_setup(uint32_t features)
{
    g_features = features;
    size_t k = 0;
    for (size_t i = 0; cwi_impls[i] != NULL; i++)
        if (cwi_impl_runnable(cwi_impls[i]))
            g_runnable[k++] = cwi_impls[i]->name;
    g_runnable[k] = NULL;
    return best_runnable(features);
}

const struct cwi_impl *cwi_active(void)
{
    return cwi_active_row_or_init();
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
    cwi_write_stderr(line, len, sizeof line);
    abort();
}

/* The streaming path, taken at n >= cwi_nt_threshold <= CWI_MAX_COPY + 1: the
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

/* cw_memcpy at n >= cwi_nt_threshold: the row loaded here, off the path of
 * the temporal copies (the threshold is written before the row is
 * published, so a thread may see it first: then this waits for start-up). */
static __attribute__((noinline)) void *memcpy_streaming(void *dst, const void *src, size_t n)
{
    return copy_nt_fenced(cwi_active_row_or_init(), dst, src, n);
}

#if defined(__x86_64__) && defined(__SSE2__)
#include "x86/small_copy.h"
/* The small copies, the most common calls by far (96% of the fleet's
 * memcpy calls are <= 128 B), are done right here with baseline
 * instructions: the indirect jump into the implementation cost them about
 * 8% against glibc's directly resolved entry. Every load before any store,
 * so the same code serves cw_memmove. How many bytes, in which classes, is
 * the policy's memcpy_inline (enum cwi_memcpy_inline). */
#define CWI_INLINE_MAX 64

/* memcpy_inline 32: 0-15, 16-32 */
static inline __attribute__((always_inline)) void copy_upto32(unsigned char *d,
                                                             const unsigned char *s, size_t n)
{
    /* 16-32 B out of line: the layout GCC gave this tree when it stood
     * alone (0-15 B one taken branch fewer) */
    if (__builtin_expect(n >= 16, 0))
        cwi_copy_16to32(d, s, n);
    else
        cwi_copy_upto15(d, s, n);
}

/* copy_upto32 for the entries whose first test is the 128 B bound
 * (memcpy_past_small): behind that test GCC laid the tree out anew, 4-7 B
 * as the fall-through and 8-15 B (the commoner class in the fleet's
 * copies: 13-59% of their calls against 6-17%) and 1-3 B one taken branch
 * further (hot 1 B 0.82x); the hints restore copy_upto32's layout.
 * Unused in a shared library built without the avx512-evex row. */
static inline __attribute__((always_inline, unused)) void copy_upto32_8first(unsigned char *d,
                                                                            const unsigned char *s,
                                                                            size_t n)
{
    if (__builtin_expect(n >= 16, 0))
        cwi_copy_16to32(d, s, n);
    else if (__builtin_expect(n >= 8, 1))
        cwi_copy_8to15(d, s, n);
    else if (__builtin_expect(n >= 4, 0))
        cwi_copy_4to7(d, s, n);
    else
        cwi_copy_upto3(d, s, n);
}
#endif

/* The entries' first step: copies of at most g_inline.max bytes (32 or 64,
 * the policy's memcpy_inline) return from here, those from
 * g_inline.four_from on (32 with 64; 33, none, with 32) by the four moves
 * of cwi_copy_32to64, the others by copy_upto32. With 64 these are glibc's
 * classes, where a 32 B copy takes the path of 33-64 B: a program whose
 * copies are 32 B and 33-64 B (sort: 74% 32 B and 18% 64 B; sqlite3: 8%
 * 32 B, 36% 33-64 B) then takes each branch the same way for both, where a
 * class boundary between 32 and 33 sent them apart at random. Both values
 * take the same branches but for the 32-64 B class: a CPU whose profile
 * keeps 32 runs the tree it ran before the setting existed, behind two
 * loads and one branch never taken, and the 64 B tree pays nothing for the
 * setting below 32 B or above 64 B. (A first test of the setting itself cost the 64 B tree a taken
 * branch on every path: hot 4-24 B 0.81-0.86x the 32 B tree, random 80-128
 * B 0.88-0.91x, on AMD EPYC family 26 model 2, docs/results/amd-26-2/README.md, "The
 * entry's classes".) dst is put in the return register before the copy, so
 * that every size class ends in its own one-byte ret: with "mov %rdi,%rax;
 * ret" as the common tail, GCC sent the 1-7 B classes to one shared copy of
 * it (four taken branches where glibc takes two; 2-4 B hot 0.85-0.89 of
 * glibc on the Xeon, docs/RESULTS.md). */
#ifdef CWI_INLINE_MAX
#define CWI_RETURN_IF_SMALL_BY(dst, src, n, copy_upto32_fn)                                      \
    do {                                                                                         \
        if ((n) <= atomic_load_explicit(&g_inline.max, memory_order_relaxed)) {                  \
            void *ret_ = (dst);                                                                  \
            __asm__("" : "+a"(ret_));                                                            \
            if (__builtin_expect((n) >= atomic_load_explicit(&g_inline.four_from,                \
                                                             memory_order_relaxed), 0))          \
                cwi_copy_32to64(ret_, (src), (n));                                               \
            else                                                                                 \
                copy_upto32_fn(ret_, (src), (n));                                                \
            return ret_;                                                                         \
        }                                                                                        \
    } while (0)
#else
#define CWI_RETURN_IF_SMALL_BY(dst, src, n, copy_upto32_fn) ((void)0)
#endif
#define CWI_RETURN_IF_SMALL(dst, src, n) CWI_RETURN_IF_SMALL_BY(dst, src, n, copy_upto32)

/* The small-copy entries start on a 64-byte boundary: their few dozen
 * bytes of hot path then sit in the same fetch blocks whatever else in
 * this file grows or shrinks (a copy of a few ns moves with that). */
#define CWI_ENTRY __attribute__((aligned(64)))

/* cw_memcpy past CWI_MEMCPY_SMALL, for the entries that test that bound
 * first (the static cw_memcpy, the avx512-evex IFUNC entry): the
 * threshold, then the row's kernel. Testing the bound first, against an
 * immediate, keeps the load of g_inline.max off these copies' way: on AMD
 * EPYC family 26 model 2 a load on the way to a copy's kernel cost it
 * 0.2-1 ns where the kernel's stores take several nanoseconds (a
 * misaligned buffer; entry/loads.c). With the bound first every hot
 * size of 144 B-1 KiB ran 1.01-1.19x faster at the four offset pairs
 * (sizes below 0.97x glibc: 15 of 104 to 1), MemcpyGoogleD 1.03x, where
 * the copies below it pay one compare not taken (16-128 B 0.97-1.02x,
 * sort's mostly 32-64 B replay 0.95x, MemmoveGoogleA 0.98x; builds
 * alternating, docs/results/amd-26-2/README.md, "The 128 B bound
 * first"). */
static inline __attribute__((always_inline)) void *memcpy_past_small(void *restrict dst,
                                                                    const void *restrict src,
                                                                    size_t n)
{
    if (__builtin_expect(n >= cwi_nt_threshold_now(), 0))
        return memcpy_streaming(dst, src, n);
    return atomic_load_explicit(&g_memcpy_copy, memory_order_acquire)(dst, src, n);
}

/* cw_memcpy past its inline copy: 33..CWI_MEMCPY_SMALL bytes through the
 * row's small-copy entry, larger ones through the row. The baseline and
 * avx2 IFUNC entries' way (unused in the static library, whose cw_memcpy
 * tests the 128 B bound first). */
static inline __attribute__((always_inline, unused)) void *memcpy_through_row(void *restrict dst,
                                                                             const void *restrict src,
                                                                             size_t n)
{
    if (__builtin_expect(n <= CWI_MEMCPY_SMALL, 1))
        return atomic_load_explicit(&g_memcpy_small, memory_order_acquire)(dst, src, n);
    return memcpy_past_small(dst, src, n);
}

#ifdef CWI_MEMCPY_IFUNC
/* The bound an entry fixed at load copies up to itself (memcpy_entry_evex64:
 * 64), or 0 where the entry follows the policy; the resolver writes it. */
static _Atomic(size_t) g_entry_inline_max;
#endif

size_t cwi_inline_max(void)
{
#ifdef CWI_MEMCPY_IFUNC
    size_t fixed = atomic_load_explicit(&g_entry_inline_max, memory_order_relaxed);
    if (fixed != 0)
        return fixed;
#endif
#ifdef CWI_INLINE_MAX
    return atomic_load_explicit(&g_inline.max, memory_order_relaxed);
#else
    return 0;
#endif
}

/* The tests of CWI_RETURN_IF_SMALL and memcpy_through_row, in their order. */
int cwi_memcpy_path(const void *dst, const void *src, size_t n)
{
    if (n <= cwi_inline_max())
        return CWI_PATH_INLINE;
    if (n <= CWI_MEMCPY_SMALL)
        return CWI_PATH_TEMPORAL;
    const struct cwi_impl *impl = cwi_active_row_or_init();
    int streaming = n >= cwi_nt_threshold_now();
    if (impl->path != NULL)
        return impl->path(dst, src, n, streaming);
    return streaming ? CWI_PATH_STREAM : CWI_PATH_TEMPORAL;
}

#ifdef CWI_MEMCPY_IFUNC
/* In the shared library cw_memcpy is a GNU indirect function: the dynamic
 * linker calls resolve_cw_memcpy once, and every call through a program's
 * PLT then lands in the entry it returned, chosen for the implementation
 * cwi_init() will select (early_impl). On AVX2 CPUs that entry copies
 * 33..128 bytes itself, with no load on the way: behind the PLT's jump the
 * load and jump through g_memcpy_small made these copies about 7% slower
 * than glibc's memcpy, which is resolved the same way (AMD EPYC family 25
 * model 1, docs/results/amd-25-1/README.md, "The shared library's cw_memcpy
 * as an IFUNC"). cw_impl_select(), a tuning file's impl and
 * CACHEWISE_TUNING cannot move it (the entry is fixed at load time; every
 * entry copies right under any row); CACHEWISE_IMPL, read by the
 * resolver, can. The static library keeps a plain function (see
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

#if defined(CWI_HAVE_AVX512_EVEX)
/* The entry where the avx512-evex row will be selected (the amd-zen5
 * and amd-zen4 profiles' choice): the 128 B bound first (memcpy_past_small), the
 * baseline entry's inline copy, then 33..128 B by a direct jump to that
 * row's own kernel (two 64-byte vectors in zmm16-31, no vzeroupper)
 * instead of the load and jump through g_memcpy_small. On
 * AMD EPYC family 26 model 2, shared libraries side by side in one process:
 * 16-64 B 1.05-1.29x the AVX2 entry's VEX-encoded copy; 65-128 B ahead of
 * the baseline entry (1.02x, more with 4K-aliased buffers) and 2% behind
 * the AVX2 entry's own copy where the buffers are not 4K-aliased; the size
 * distributions 1.01-1.07x the AVX2 entry (docs/results/amd-26-2/README.md, "The shared
 * library's entry"). */
static CWI_ENTRY void *memcpy_entry_evex(void *restrict dst, const void *restrict src, size_t n)
{
    if (__builtin_expect(n > CWI_MEMCPY_SMALL, 0))
        return memcpy_past_small(dst, src, n);
    CWI_RETURN_IF_SMALL_BY(dst, src, n, copy_upto32_8first);
    return cwi_evex_memcpy_small(dst, src, n);
}

/* memcpy_entry_evex with its own copies' bounds as immediates, 0-64 B in
 * glibc's classes (memcpy_inline 64, fixed at load: cwi_inline_max says
 * so), where the profile the resolver finds asks for it (evex_entry,
 * amd-zen4): no load and no taken branch before a 32-64 B copy, where the
 * policy's two loads cost it both. On AMD EPYC family 25 model 17, cwbench
 * linked to the shared library against glibc through its own PLT: hot
 * 32-64 B 0.81-0.92x glibc -> 1.00-1.13x (16-24 B 1.08-1.17 -> 0.99-1.07,
 * 72-128 B 0.90-1.01 -> 0.86-0.92), sqlite3's profile 0.95 -> 1.00, sort's
 * 1.14-1.21 -> 1.27-1.34, MemcpyGoogleW 0.97-0.99 -> 0.99-1.04, the other
 * distributions level or ahead (docs/results/amd-25-17/README.md, "The
 * shared library against glibc"). */
static CWI_ENTRY void *memcpy_entry_evex64(void *restrict dst, const void *restrict src, size_t n)
{
    if (__builtin_expect(n > CWI_MEMCPY_SMALL, 0))
        return memcpy_past_small(dst, src, n);
    if (__builtin_expect(n <= 64, 1)) {
        void *ret = dst;
        __asm__("" : "+a"(ret));
        if (__builtin_expect(n >= 32, 1))
            cwi_copy_32to64(ret, src, n);
        else
            copy_upto32_8first(ret, src, n);
        return ret;
    }
    return cwi_evex_memcpy_small(dst, src, n);
}
#endif

/* The row called name if this CPU runs it, else NULL; without libc. */
static CWI_EARLY const struct cwi_impl *early_runnable(const char *name, uint32_t features)
{
    const struct cwi_impl *impl = cwi_impl_find(name);
    return impl != NULL && runs_on(impl, features) ? impl : NULL;
}

/* The implementation cwi_init() will select, as far as it is known before
 * the process is set up: CACHEWISE_IMPL's where it names one this CPU
 * runs, else the choice of the profile (*row: the built-in one
 * CACHEWISE_TUNING names, else the CPU's row) where it runs, else the best
 * runnable (choose_impl in src/startup.c, less the tuning file). */
static CWI_EARLY const struct cwi_impl *early_impl(const struct cwi_profile **row)
{
    uint32_t features = cwi_cpu_features();
    char setting[16], tuning[16];
    cwi_early_settings(setting, tuning);
    *row = cwi_early_row(tuning);
    const struct cwi_impl *impl = early_runnable(setting, features);
    if (impl == NULL && *row != NULL && (*row)->impl != NULL)
        impl = early_runnable((*row)->impl, features);
    return impl != NULL ? impl : best_runnable(features);
}

/* What the resolver chose, for cw_info (the same value every time it runs). */
static _Atomic(const char *) g_memcpy_entry;

static CWI_EARLY cwi_copy_fn resolve_cw_memcpy(void)
{
    const struct cwi_profile *row;
    const struct cwi_impl *impl = early_impl(&row);
    const char *name = "baseline";
    cwi_copy_fn entry = memcpy_entry_baseline;
    if (impl == &cwi_impl_avx2 || impl == &cwi_impl_avx512) {
        name = "avx2";
        entry = memcpy_entry_avx2;
    }
#if defined(CWI_HAVE_AVX512_EVEX)
    if (impl == &cwi_impl_avx512_evex) {
        int fixed = row != NULL && row->evex_entry == CWI_EVEX_ENTRY_FIXED64;
        name = fixed ? "avx512-evex-64" : "avx512-evex";
        entry = fixed ? memcpy_entry_evex64 : memcpy_entry_evex;
        atomic_store_explicit(&g_entry_inline_max, fixed ? 64 : 0, memory_order_relaxed);
    }
#else
    (void)row;
#endif
    atomic_store_explicit(&g_memcpy_entry, name, memory_order_relaxed);
    return entry;
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
    if (__builtin_expect(n > CWI_MEMCPY_SMALL, 0))
        return memcpy_past_small(dst, src, n);
    CWI_RETURN_IF_SMALL_BY(dst, src, n, copy_upto32_8first);
    return atomic_load_explicit(&g_memcpy_small, memory_order_acquire)(dst, src, n);
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

/* cw_memmove at n >= cwi_nt_threshold (the row loaded here, as
 * memcpy_streaming) */
static __attribute__((noinline)) void *memmove_large(void *dst, const void *src, size_t n)
{
    if (__builtin_expect(n > CWI_MAX_COPY, 0))
        cwi_size_overflow("cw_memmove", n);
    const struct cwi_impl *impl = cwi_active_row_or_init();
    if (disjoint(dst, src, n))
        return copy_nt_fenced(impl, dst, src, n);
    return impl->move(dst, src, n);
}

CWI_ENTRY void *cw_memmove(void *dst, const void *src, size_t n)
{
    CWI_RETURN_IF_SMALL(dst, src, n);
    if (__builtin_expect(n >= cwi_nt_threshold_now(), 0))
        return memmove_large(dst, src, n);
    return atomic_load_explicit(&g_memmove_move, memory_order_acquire)(dst, src, n);
}

const char *cw_impl_name(void)
{
    return cwi_active_row_or_init()->name;
}

const char *const *cw_impl_list(void)
{
    cwi_init();
    return g_runnable;
}

int cw_impl_select(const char *name)
{
    cwi_init();
    const struct cwi_impl *impl = name != NULL ? cwi_impl_find(name) : NULL;
    if (impl == NULL) {
        errno = ENOENT;
        return -1;
    }
    if (!cwi_impl_runnable(impl)) {
        errno = ENOTSUP;
        return -1;
    }
    /* the lock keeps cwi_active_row and the info fields describing the same
     * implementation when threads select concurrently */
    pthread_mutex_lock(&cwi_info_lock);
    cwi_dispatch_publish(impl);
    cwi_info.impl = impl->name;
    cwi_info.impl_source = "api";
    cwi_settings[CWI_SET_IMPL].source = "api";
    cwi_settings_refresh(&cwi_info);
    pthread_mutex_unlock(&cwi_info_lock);
    return 0;
}
