/* SPDX-License-Identifier: MIT */
/* The routine registry: the cachewise entry points and the references they
 * are judged against (glibc, libpmem, and the plain loops of the machine's
 * ISA: on x86-64 a bare rep movsb and SSE2/AVX2/AVX-512 streaming loops, on
 * aarch64 an LDP/STNP streaming loop). A reference that only exists on one
 * architecture is compiled and listed only there, so a default routine list
 * naming it just skips it elsewhere. Every routine has the memcpy signature
 * so the engine calls them all the same way, through one indirect call; the
 * fills ignore src (cwb_routine_fills). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "engine/routines.h"
#include "platform/arch.h"
#include "cachewise.h"
#ifdef CWB_HAVE_LIBPMEM
#include <libpmem.h>
#endif

#ifdef CWB_LINKED_SHARED
/* From the shared library, through the resolved function's address like
 * glibc's memcpy below: the cost of a call through the PLT, for both. */
static void *(*volatile cw_memcpy_ptr)(void *, const void *, size_t) = cw_memcpy;

static void *r_cw_memcpy(void *d, const void *s, size_t n)
{
    return cw_memcpy_ptr(d, s, n);
}

static void *r_cw_memcpy_nt(void *d, const void *s, size_t n)
{
    return cw_memcpy_nt(d, s, n);
}

static void *r_cw_flushcache(void *d, const void *s, size_t n)
{
    return cw_memcpy_flushcache(d, s, n);
}

static void *r_cw_persist(void *d, const void *s, size_t n)
{
    return cw_memcpy_persist(d, s, n);
}

static void *r_cw_memmove(void *d, const void *s, size_t n)
{
    return cw_memmove(d, s, n);
}
#else
/* Linked in statically: called directly, as a static program calls them.
 * The table holds the entry points of memcpy's signature themselves: a
 * wrapper returning cw_memcpy(d, s, n) compiles to a jump into it, one
 * taken branch per call that no static program has, and on AMD EPYC
 * family 26 model 2 that branch cost a hot copy of 48-128 B a cycle of
 * about seven: 0.85-0.88x glibc through the wrapper, 0.99-1.02x called
 * directly (docs/results/amd-26-2/README.md, "How cwbench calls cw_memcpy"). */
#define r_cw_memcpy cw_memcpy
#define r_cw_memcpy_nt cw_memcpy_nt
#define r_cw_flushcache cw_memcpy_flushcache
#define r_cw_persist cw_memcpy_persist
#define r_cw_memmove cw_memmove
#endif

/* What a caller with a compile-time constant size gets: the header's
 * inlined movnti path for 4, 8 and 16 bytes (it must beat the out-of-line
 * call, or it has no reason to exist). Other sizes take the function. The timed hot and cold
 * loops call the one-size functions (for_size below), so the inlined path
 * is measured without the size dispatch a real caller would not have; the
 * random-offset replay and the warm-up check go through the dispatch. */
static void *r_cw_flushcache_const4(void *d, const void *s, size_t n)
{
    (void)n;
    return cw_memcpy_flushcache(d, s, 4);
}

static void *r_cw_flushcache_const8(void *d, const void *s, size_t n)
{
    (void)n;
    return cw_memcpy_flushcache(d, s, 8);
}

static void *r_cw_flushcache_const16(void *d, const void *s, size_t n)
{
    (void)n;
    return cw_memcpy_flushcache(d, s, 16);
}

static cwb_copy_fn flushcache_const_for_size(size_t n)
{
    return n == 4 ? r_cw_flushcache_const4
           : n == 8 ? r_cw_flushcache_const8
           : n == 16 ? r_cw_flushcache_const16
                     : NULL;
}

static void *r_cw_flushcache_const(void *d, const void *s, size_t n)
{
    cwb_copy_fn f = flushcache_const_for_size(n);
    return f != NULL ? f(d, s, n) : cw_memcpy_flushcache(d, s, n);
}

static void *r_cw_copy_temporal(void *d, const void *s, size_t n)
{
    return cw_copy(d, s, n, CW_DST_REUSE);
}

static void *r_cw_copy_nta(void *d, const void *s, size_t n)
{
    return cw_copy(d, s, n, CW_SRC_NOREUSE | CW_DST_NOREUSE);
}

static void *r_cw_copy_safe(void *d, const void *s, size_t n)
{
    return cw_copy_safe(d, s, n, 0) == 0 ? d : NULL;
}

/* Through a volatile pointer so the compiler cannot inline or specialise
 * glibc's memcpy: the benchmark measures the library function itself. */
static void *(*volatile glibc_memcpy_ptr)(void *, const void *, size_t) = memcpy;

static void *r_glibc_memcpy(void *d, const void *s, size_t n)
{
    return glibc_memcpy_ptr(d, s, n);
}

#if defined(CWB_ARCH_X86)
static void *r_rep_movsb(void *d, const void *s, size_t n)
{
    void *ret = d;
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
    return ret;
}

/* Plain streaming loops: align the destination, stream whole vectors with
 * unaligned loads, ordinary copies for the head and tail, sfence. The
 * yardstick cw_memcpy_nt must reach at DRAM sizes. */
static void *r_stream_sse2(void *d, const void *s, size_t n)
{
    unsigned char *dp = d;
    const unsigned char *sp = s;
    size_t head = (16 - ((uintptr_t)dp & 15)) & 15;
    if (n < 64 + head) {
        memcpy(dp, sp, n);
        return d;
    }
    memcpy(dp, sp, head);
    dp += head, sp += head, n -= head;
    for (; n >= 64; n -= 64, dp += 64, sp += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)sp);
        __m128i b = _mm_loadu_si128((const __m128i *)(sp + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(sp + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(sp + 48));
        _mm_stream_si128((__m128i *)dp, a);
        _mm_stream_si128((__m128i *)(dp + 16), b);
        _mm_stream_si128((__m128i *)(dp + 32), c);
        _mm_stream_si128((__m128i *)(dp + 48), e);
    }
    memcpy(dp, sp, n);
    cwb_sfence();
    return d;
}

__attribute__((target("avx2"))) static void *r_stream_avx2(void *d, const void *s, size_t n)
{
    unsigned char *dp = d;
    const unsigned char *sp = s;
    size_t head = (32 - ((uintptr_t)dp & 31)) & 31;
    if (n < 128 + head) {
        memcpy(dp, sp, n);
        return d;
    }
    memcpy(dp, sp, head);
    dp += head, sp += head, n -= head;
    for (; n >= 128; n -= 128, dp += 128, sp += 128) {
        __m256i a = _mm256_loadu_si256((const __m256i *)sp);
        __m256i b = _mm256_loadu_si256((const __m256i *)(sp + 32));
        __m256i c = _mm256_loadu_si256((const __m256i *)(sp + 64));
        __m256i e = _mm256_loadu_si256((const __m256i *)(sp + 96));
        _mm256_stream_si256((__m256i *)dp, a);
        _mm256_stream_si256((__m256i *)(dp + 32), b);
        _mm256_stream_si256((__m256i *)(dp + 64), c);
        _mm256_stream_si256((__m256i *)(dp + 96), e);
    }
    memcpy(dp, sp, n);
    cwb_sfence();
    return d;
}

__attribute__((target("avx512f"))) static void *r_stream_avx512(void *d, const void *s, size_t n)
{
    unsigned char *dp = d;
    const unsigned char *sp = s;
    size_t head = (64 - ((uintptr_t)dp & 63)) & 63;
    if (n < 256 + head) {
        memcpy(dp, sp, n);
        return d;
    }
    memcpy(dp, sp, head);
    dp += head, sp += head, n -= head;
    for (; n >= 256; n -= 256, dp += 256, sp += 256) {
        __m512i a = _mm512_loadu_si512((const void *)sp);
        __m512i b = _mm512_loadu_si512((const void *)(sp + 64));
        __m512i c = _mm512_loadu_si512((const void *)(sp + 128));
        __m512i e = _mm512_loadu_si512((const void *)(sp + 192));
        _mm512_stream_si512((void *)dp, a);
        _mm512_stream_si512((void *)(dp + 64), b);
        _mm512_stream_si512((void *)(dp + 128), c);
        _mm512_stream_si512((void *)(dp + 192), e);
    }
    memcpy(dp, sp, n);
    cwb_sfence();
    return d;
}
#elif defined(CWB_ARCH_A64)
/* The plain STNP streaming loop, the yardstick cw_memcpy_nt must reach at
 * DRAM sizes on aarch64: an ordinary copy of the head up to the
 * destination's first 64-byte boundary (of everything, when no whole line
 * follows it), then one whole line per iteration (two LDP and two STNP of
 * q registers, cwb_nt_copy64), an ordinary copy of the tail, dmb ishst.
 * Aligning to a line rather than to the 16-byte vector makes every STNP
 * pair half of one whole line. */
static void *r_stream_stnp(void *d, const void *s, size_t n)
{
    unsigned char *dp = d;
    const unsigned char *sp = s;
    size_t head = (64 - ((uintptr_t)dp & 63)) & 63;
    if (n < 64 + head) {
        memcpy(dp, sp, n);
        return d;
    }
    memcpy(dp, sp, head);
    dp += head, sp += head, n -= head;
    for (; n >= 64; n -= 64, dp += 64, sp += 64)
        cwb_nt_copy64(dp, sp);
    memcpy(dp, sp, n);
    cwb_sfence();
    return d;
}
#endif

/* ---- fills and persistence in place ----
 * A fill routine ignores src and writes CWB_FILL_BYTE, which the engine
 * checks it against (cwb_routine_fills below). */

static void *r_cw_memset_nt(void *d, const void *s, size_t n)
{
    (void)s;
    return cw_memset_nt(d, CWB_FILL_BYTE, n);
}

static void *r_cw_memset_flushcache(void *d, const void *s, size_t n)
{
    (void)s;
    return cw_memset_flushcache(d, CWB_FILL_BYTE, n);
}

static void *r_cw_memset_persist(void *d, const void *s, size_t n)
{
    (void)s;
    return cw_memset_persist(d, CWB_FILL_BYTE, n);
}

/* Through a volatile pointer, as glibc_memcpy: the library function itself,
 * never an inlined or specialised fill. */
static void *(*volatile glibc_memset_ptr)(void *, int, size_t) = memset;

static void *r_glibc_memset(void *d, const void *s, size_t n)
{
    (void)s;
    return glibc_memset_ptr(d, CWB_FILL_BYTE, n);
}

#if defined(CWB_ARCH_X86)
/* Plain streaming fill loops, the yardstick cw_memset_nt must reach at DRAM
 * sizes: the stream_* loops above without the loads (align the destination
 * to the vector, four vectors per iteration, memset for the head and tail,
 * sfence). */
static void *r_fill_stream_sse2(void *d, const void *s, size_t n)
{
    (void)s;
    unsigned char *dp = d;
    size_t head = (16 - ((uintptr_t)dp & 15)) & 15;
    if (n < 64 + head) {
        memset(dp, CWB_FILL_BYTE, n);
        return d;
    }
    memset(dp, CWB_FILL_BYTE, head);
    dp += head, n -= head;
    __m128i v = _mm_set1_epi8((char)CWB_FILL_BYTE);
    for (; n >= 64; n -= 64, dp += 64) {
        _mm_stream_si128((__m128i *)dp, v);
        _mm_stream_si128((__m128i *)(dp + 16), v);
        _mm_stream_si128((__m128i *)(dp + 32), v);
        _mm_stream_si128((__m128i *)(dp + 48), v);
    }
    memset(dp, CWB_FILL_BYTE, n);
    cwb_sfence();
    return d;
}

__attribute__((target("avx2"))) static void *r_fill_stream_avx2(void *d, const void *s, size_t n)
{
    (void)s;
    unsigned char *dp = d;
    size_t head = (32 - ((uintptr_t)dp & 31)) & 31;
    if (n < 128 + head) {
        memset(dp, CWB_FILL_BYTE, n);
        return d;
    }
    memset(dp, CWB_FILL_BYTE, head);
    dp += head, n -= head;
    __m256i v = _mm256_set1_epi8((char)CWB_FILL_BYTE);
    for (; n >= 128; n -= 128, dp += 128) {
        _mm256_stream_si256((__m256i *)dp, v);
        _mm256_stream_si256((__m256i *)(dp + 32), v);
        _mm256_stream_si256((__m256i *)(dp + 64), v);
        _mm256_stream_si256((__m256i *)(dp + 96), v);
    }
    memset(dp, CWB_FILL_BYTE, n);
    cwb_sfence();
    return d;
}

__attribute__((target("avx512f"))) static void *r_fill_stream_avx512(void *d, const void *s,
                                                                     size_t n)
{
    (void)s;
    unsigned char *dp = d;
    size_t head = (64 - ((uintptr_t)dp & 63)) & 63;
    if (n < 256 + head) {
        memset(dp, CWB_FILL_BYTE, n);
        return d;
    }
    memset(dp, CWB_FILL_BYTE, head);
    dp += head, n -= head;
    __m512i v = _mm512_set1_epi32((int)(0x01010101u * CWB_FILL_BYTE));
    for (; n >= 256; n -= 256, dp += 256) {
        _mm512_stream_si512((void *)dp, v);
        _mm512_stream_si512((void *)(dp + 64), v);
        _mm512_stream_si512((void *)(dp + 128), v);
        _mm512_stream_si512((void *)(dp + 192), v);
    }
    memset(dp, CWB_FILL_BYTE, n);
    cwb_sfence();
    return d;
}
#elif defined(CWB_ARCH_A64)
/* The STNP fill loop: r_stream_stnp without the loads. */
static void *r_fill_stream_stnp(void *d, const void *s, size_t n)
{
    (void)s;
    unsigned char *dp = d;
    size_t head = (64 - ((uintptr_t)dp & 63)) & 63;
    if (n < 64 + head) {
        memset(dp, CWB_FILL_BYTE, n);
        return d;
    }
    memset(dp, CWB_FILL_BYTE, head);
    dp += head, n -= head;
    cwb_v128 v = cwb_v128_splat(CWB_FILL_BYTE);
    for (; n >= 64; n -= 64, dp += 64)
        cwb_nt_fill64(dp, v);
    memset(dp, CWB_FILL_BYTE, n);
    cwb_sfence();
    return d;
}
#endif

/* Persistence in place, the pmemlog pattern: data stored with ordinary
 * stores (glibc memcpy here, the same for both sides), then written back.
 * The difference between the pairs is the write-back alone. */
static void *r_cw_persist_inplace(void *d, const void *s, size_t n)
{
    glibc_memcpy_ptr(d, s, n);
    cw_persist(d, n);
    return d;
}

static void *r_cw_flush_inplace(void *d, const void *s, size_t n)
{
    glibc_memcpy_ptr(d, s, n);
    cw_flush(d, n);
    return d;
}

#ifdef CWB_HAVE_LIBPMEM
static void *r_pmem_persist_inplace(void *d, const void *s, size_t n)
{
    glibc_memcpy_ptr(d, s, n);
    pmem_persist(d, n);
    return d;
}

static void *r_pmem_flush_inplace(void *d, const void *s, size_t n)
{
    glibc_memcpy_ptr(d, s, n);
    pmem_flush(d, n);
    return d;
}

static void *r_pmem_memset_persist(void *d, const void *s, size_t n)
{
    (void)s;
    return pmem_memset_persist(d, CWB_FILL_BYTE, n);
}

static void *r_pmem_memset_nodrain(void *d, const void *s, size_t n)
{
    (void)s;
    return pmem_memset_nodrain(d, CWB_FILL_BYTE, n);
}

static void *r_pmem_nt(void *d, const void *s, size_t n)
{
    return pmem_memcpy(d, s, n, PMEM_F_MEM_NONTEMPORAL | PMEM_F_MEM_NODRAIN);
}

static void *r_pmem_t(void *d, const void *s, size_t n)
{
    return pmem_memcpy(d, s, n, PMEM_F_MEM_TEMPORAL | PMEM_F_MEM_NODRAIN);
}

static void *r_pmem_persist(void *d, const void *s, size_t n)
{
    return pmem_memcpy_persist(d, s, n);
}
#endif

/* need: the CPU features a routine needs, and FILLS for a fill routine */
enum { NEED_NONE = 0, NEED_AVX2 = 1, NEED_AVX512 = 2, FILLS = 4 };

static const struct {
    struct cwb_routine r;
    int need;
} all[] = {
    {{"cw_memcpy", r_cw_memcpy, "cw_memcpy (auto: temporal, streaming above the threshold)", NULL, NULL, NULL},
     NEED_NONE},
    {{"cw_memcpy_nt", r_cw_memcpy_nt, "cw_memcpy_nt (streaming stores)", NULL, NULL, NULL}, NEED_NONE},
    {{"cw_memcpy_flushcache", r_cw_flushcache, "cw_memcpy_flushcache (no drain per call)", NULL, NULL, NULL},
     NEED_NONE},
    {{"cw_memcpy_persist", r_cw_persist, "cw_memcpy_persist (flushcache + drain)", NULL, NULL,
      NULL}, NEED_NONE},
    {{"cw_copy_nta", r_cw_copy_nta, "cw_copy(CW_SRC_NOREUSE|CW_DST_NOREUSE)", NULL, NULL, NULL}, NEED_NONE},
    {{"cw_copy_temporal", r_cw_copy_temporal, "cw_copy(CW_DST_REUSE): never streams", NULL, NULL, NULL},
     NEED_NONE},
    {{"cw_memmove", r_cw_memmove, "cw_memmove (non-overlapping buffers here)", NULL, NULL, NULL}, NEED_NONE},
    {{"cw_memcpy_flushcache_const", r_cw_flushcache_const,
      "cw_memcpy_flushcache with a constant size (inlined for 4, 8, 16)",
      flushcache_const_for_size, NULL, NULL}, NEED_NONE},
    {{"cw_copy_safe", r_cw_copy_safe, "cw_copy_safe(flags 0), fault-tolerant", NULL, NULL, NULL}, NEED_NONE},
    {{"glibc_memcpy", r_glibc_memcpy, "glibc memcpy", NULL, NULL, NULL}, NEED_NONE},
#if defined(CWB_ARCH_X86)
    {{"rep_movsb", r_rep_movsb, "a bare rep movsb", NULL, NULL, NULL}, NEED_NONE},
    {{"stream_sse2", r_stream_sse2, "plain SSE2 streaming-store loop", NULL, NULL, NULL}, NEED_NONE},
    {{"stream_avx2", r_stream_avx2, "plain AVX2 streaming-store loop", NULL, NULL, NULL}, NEED_AVX2},
    {{"stream_avx512", r_stream_avx512, "plain AVX-512 streaming-store loop", NULL, NULL, NULL}, NEED_AVX512},
#elif defined(CWB_ARCH_A64)
    {{"stream_stnp", r_stream_stnp, "plain LDP/STNP streaming-store loop (64 B a step)", NULL,
      NULL, NULL}, NEED_NONE},
#endif
    {{"cw_memset_nt", r_cw_memset_nt, "cw_memset_nt (streaming fill)", NULL, NULL, NULL},
     FILLS},
    {{"cw_memset_flushcache", r_cw_memset_flushcache, "cw_memset_flushcache (no drain per call)",
      NULL, NULL, NULL}, FILLS},
    {{"cw_memset_persist", r_cw_memset_persist, "cw_memset_persist (flushcache fill + drain)",
      NULL, NULL, NULL}, FILLS},
    {{"glibc_memset", r_glibc_memset, "glibc memset", NULL, NULL, NULL}, FILLS},
#if defined(CWB_ARCH_X86)
    {{"fill_stream_sse2", r_fill_stream_sse2, "plain SSE2 streaming-store fill loop", NULL, NULL,
      NULL}, FILLS},
    {{"fill_stream_avx2", r_fill_stream_avx2, "plain AVX2 streaming-store fill loop", NULL, NULL,
      NULL}, FILLS | NEED_AVX2},
    {{"fill_stream_avx512", r_fill_stream_avx512, "plain AVX-512 streaming-store fill loop", NULL,
      NULL, NULL}, FILLS | NEED_AVX512},
#elif defined(CWB_ARCH_A64)
    {{"fill_stream_stnp", r_fill_stream_stnp, "plain STNP streaming-store fill loop", NULL, NULL,
      NULL}, FILLS},
#endif
    {{"cw_persist", r_cw_persist_inplace, "glibc memcpy, then cw_persist (stored in place, persisted)",
      NULL, NULL, NULL}, NEED_NONE},
    {{"cw_flush", r_cw_flush_inplace, "glibc memcpy, then cw_flush (no drain per call)", NULL, NULL,
      NULL}, NEED_NONE},
#ifdef CWB_HAVE_LIBPMEM
    {{"pmem_persist", r_pmem_persist_inplace,
      "glibc memcpy, then libpmem pmem_persist (stored in place, persisted)", NULL, NULL, NULL},
     NEED_NONE},
    {{"pmem_flush", r_pmem_flush_inplace, "glibc memcpy, then libpmem pmem_flush (no drain)",
      NULL, NULL, NULL}, NEED_NONE},
    {{"pmem_memset_persist", r_pmem_memset_persist, "libpmem pmem_memset_persist (fill + drain)",
      NULL, NULL, NULL}, FILLS},
    {{"pmem_memset_nodrain", r_pmem_memset_nodrain, "libpmem pmem_memset_nodrain (no drain)",
      NULL, NULL, NULL}, FILLS},
    {{"pmem_memcpy_nt", r_pmem_nt, "libpmem pmem_memcpy(NONTEMPORAL|NODRAIN)", NULL, NULL, NULL}, NEED_NONE},
    {{"pmem_memcpy_t", r_pmem_t, "libpmem pmem_memcpy(TEMPORAL|NODRAIN)", NULL, NULL, NULL}, NEED_NONE},
    {{"pmem_memcpy_persist", r_pmem_persist, "libpmem pmem_memcpy_persist (copy + drain)", NULL,
      NULL, NULL}, NEED_NONE},
#endif
};
#define N_ALL (sizeof all / sizeof all[0])

static struct cwb_routine runnable[N_ALL];
static size_t n_runnable;
static char names[N_ALL * 32];

static void build(void)
{
    if (n_runnable != 0)
        return;
    const struct cw_info *in = cw_get_info();
    size_t len = 0;
    for (size_t i = 0; i < N_ALL; i++) {
        if (((all[i].need & NEED_AVX2) && !in->avx2) ||
            ((all[i].need & NEED_AVX512) && !in->avx512f))
            continue;
        runnable[n_runnable++] = all[i].r;
        int w = snprintf(names + len, sizeof names - len, "%s%s", len ? "," : "",
                         all[i].r.name);
        if (w > 0 && (size_t)w < sizeof names - len)
            len += (size_t)w;
    }
}

const struct cwb_routine *cwb_routines(size_t *count)
{
    build();
    *count = n_runnable;
    return runnable;
}

size_t cwb_routine_index(const struct cwb_routine *const *rt, size_t nrt, const char *name)
{
    size_t i = 0;
    while (i < nrt && strcmp(rt[i]->name, name) != 0)
        i++;
    return i;
}

const struct cwb_routine *cwb_routine_find(const char *name)
{
    build();
    for (size_t i = 0; name != NULL && i < n_runnable; i++)
        if (strcmp(runnable[i].name, name) == 0)
            return &runnable[i];
    return NULL;
}

const char *cwb_routine_names(void)
{
    build();
    return names;
}

int cwb_routine_fills(const struct cwb_routine *rt)
{
    for (size_t i = 0; rt != NULL && i < N_ALL; i++)
        if ((all[i].need & FILLS) && all[i].r.fn == rt->fn)
            return 1;
    return 0;
}
