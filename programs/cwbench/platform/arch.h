/* SPDX-License-Identifier: MIT */
/* The few machine instructions cwbench needs outside the library: fences, a
 * serialising timestamp, a cache-line flush and non-temporal stores, for
 * x86-64, aarch64 and (plain C, weaker, and saying so) anything else.
 *
 * Every helper is static inline, and on x86-64 each compiles to exactly the
 * intrinsic it replaced (sfence, mfence, lfence + rdtsc, clflush, movntdq),
 * so x86 timings stay comparable with the runs in docs/RESULTS.md. The
 * reference routines that only exist on one architecture (rep movsb, the
 * SSE2/AVX streaming loops) keep their own intrinsics in routines.c. */
#ifndef CWB_ARCH_H
#define CWB_ARCH_H

#include <stdint.h>
#include <string.h>
#include <time.h>

/* -DCWB_PLAIN_C=1 builds the plain C fallback on any architecture, so that
 * it can be tested where it is not the default. */
#if defined(__x86_64__) && !defined(CWB_PLAIN_C)
#define CWB_ARCH_X86 1
#include <immintrin.h>
#include <x86intrin.h>
#elif defined(__aarch64__) && !defined(CWB_PLAIN_C)
#define CWB_ARCH_A64 1
#include <arm_neon.h>
#else
#define CWB_ARCH_OTHER 1
#endif

/* What this build was compiled for, as the kernel's /proc/sys/kernel/arch
 * spells it (the emulator check in machine.c compares the two). */
#if defined(__x86_64__)
#define CWB_ARCH_NAME "x86_64"
#elif defined(__aarch64__)
#define CWB_ARCH_NAME "aarch64"
#elif defined(__riscv) && __riscv_xlen == 64
#define CWB_ARCH_NAME "riscv64"
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
#define CWB_ARCH_NAME "ppc64le"
#elif defined(__s390x__)
#define CWB_ARCH_NAME "s390x"
#else
#define CWB_ARCH_NAME "unknown"
#endif

/* 1 where cwb_flush_line really evicts a line: without it a "cold" victim
 * walk (pollution, tune) is not cold, and the tables say so. */
#if defined(CWB_ARCH_OTHER)
#define CWB_HAVE_FLUSH 0
#else
#define CWB_HAVE_FLUSH 1
#endif

/* ---- fences ---------------------------------------------------------------- */

/* Orders the streaming stores before every later store: what a routine that
 * streams promises on return. x86: sfence. aarch64: dmb ishst (STNP is a
 * hint only; barriers order it like any other store). Elsewhere: a release
 * fence, which orders the ordinary stores the fallback makes. */
static inline void cwb_sfence(void)
{
#if defined(CWB_ARCH_X86)
    _mm_sfence();
#elif defined(CWB_ARCH_A64)
    __asm__ volatile("dmb ishst" ::: "memory");
#else
    __atomic_thread_fence(__ATOMIC_RELEASE);
#endif
}

/* The end of a timed region: the stores made in it complete, not merely
 * ordered, before the clock is read. x86's sfence already waits for the
 * write-combining buffers to drain; on aarch64 a DMB would only order, a
 * DSB waits. */
static inline void cwb_store_drain(void)
{
#if defined(CWB_ARCH_X86)
    _mm_sfence();
#elif defined(CWB_ARCH_A64)
    __asm__ volatile("dsb ishst" ::: "memory");
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* Full fence, after a run of cwb_flush_line: every flush has completed.
 * x86: mfence. aarch64: dsb ish (only a DSB waits for DC CIVAC). */
static inline void cwb_mfence(void)
{
#if defined(CWB_ARCH_X86)
    _mm_mfence();
#elif defined(CWB_ARCH_A64)
    __asm__ volatile("dsb ish" ::: "memory");
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* Writes back and evicts the cache line holding p from every level, to
 * make a buffer cold. x86: clflush. aarch64: dc civac (clean and
 * invalidate to the point of coherency; Linux lets user space run it).
 * Elsewhere nothing: CWB_HAVE_FLUSH is 0. */
static inline void cwb_flush_line(const void *p)
{
#if defined(CWB_ARCH_X86)
    _mm_clflush(p);
#elif defined(CWB_ARCH_A64)
    __asm__ volatile("dc civac, %0" : : "r"(p) : "memory");
#else
    (void)p;
#endif
}

/* ---- timestamps -------------------------------------------------------------- */

/* A cheap free-running counter. x86: the TSC. aarch64: the generic timer's
 * virtual count CNTVCT_EL0, which ticks at CNTFRQ_EL0 (fixed, typically
 * 24-1000 MHz) and not at the CPU clock. Elsewhere CLOCK_MONOTONIC_RAW in
 * nanoseconds. */
static inline uint64_t cwb_ts_raw(void)
{
#if defined(CWB_ARCH_X86)
    return __rdtsc();
#elif defined(CWB_ARCH_A64)
    uint64_t v;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v) : : "memory");
    return v;
#else
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC_RAW, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
#endif
}

/* The counter at the start of a timed region: nothing before it still
 * running, nothing after it started early. x86: lfence, rdtsc, lfence.
 * aarch64: isb, mrs, isb (an ISB completes every earlier instruction, and
 * the counter read may otherwise be taken speculatively). */
static inline uint64_t cwb_ts_begin(void)
{
#if defined(CWB_ARCH_X86)
    _mm_lfence();
    uint64_t c = __rdtsc();
    _mm_lfence();
    return c;
#elif defined(CWB_ARCH_A64)
    __asm__ volatile("isb" ::: "memory");
    uint64_t c = cwb_ts_raw();
    __asm__ volatile("isb" ::: "memory");
    return c;
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return cwb_ts_raw();
#endif
}

/* The counter at the end of a timed region: read once everything before it
 * has completed. x86: lfence, rdtsc. aarch64: isb, mrs. */
static inline uint64_t cwb_ts_end(void)
{
#if defined(CWB_ARCH_X86)
    _mm_lfence();
    return __rdtsc();
#elif defined(CWB_ARCH_A64)
    __asm__ volatile("isb" ::: "memory");
    return cwb_ts_raw();
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return cwb_ts_raw();
#endif
}

/* Counts per second of cwb_ts_raw where the architecture states it
 * (aarch64: CNTFRQ_EL0; the fallback: nanoseconds), or 0 where it has to be
 * calibrated against the clock (x86: the TSC's rate is not architectural). */
static inline uint64_t cwb_ts_hz(void)
{
#if defined(CWB_ARCH_X86)
    return 0;
#elif defined(CWB_ARCH_A64)
    uint64_t f;
    __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(f));
    return f;
#else
    return 1000000000u;
#endif
}

/* ---- non-temporal stores --------------------------------------------------- */

/* A 16-byte vector: the value of a streaming fill. */
#if defined(CWB_ARCH_X86)
typedef __m128i cwb_v128;
#elif defined(CWB_ARCH_A64)
typedef uint8x16_t cwb_v128;
#else
typedef struct { unsigned char b[16]; } cwb_v128;
#endif

static inline cwb_v128 cwb_v128_splat(int byte)
{
#if defined(CWB_ARCH_X86)
    return _mm_set1_epi8((char)byte);
#elif defined(CWB_ARCH_A64)
    return vdupq_n_u8((uint8_t)byte);
#else
    cwb_v128 v;
    memset(v.b, byte, sizeof v.b);
    return v;
#endif
}

#if defined(CWB_ARCH_X86)
/* One 16-byte streaming store (movntdq), p 16-byte aligned. x86 only: the
 * aarch64 pair store is 32 bytes (cwb_nt_fill64). */
static inline void cwb_nt_store16(void *p, cwb_v128 v)
{
    _mm_stream_si128((__m128i *)p, v);
}

/* Four 16-byte streaming stores (movntdq): a, b, c, e to the 64 bytes at
 * dst (16-byte aligned), in that order. */
static inline void cwb_nt_store64(void *dst, __m128i a, __m128i b, __m128i c, __m128i e)
{
    _mm_stream_si128((__m128i *)dst, a);
    _mm_stream_si128((__m128i *)dst + 1, b);
    _mm_stream_si128((__m128i *)dst + 2, c);
    _mm_stream_si128((__m128i *)dst + 3, e);
}
#endif

/* Copies one 64-byte line from src (any alignment) to dst (16-byte aligned,
 * a line boundary to write a whole line) with non-temporal stores. x86: four
 * unaligned loads, four movntdq. aarch64: two LDP and two STNP of q
 * registers, written out so the compiler cannot pick other instructions.
 * Elsewhere: ordinary stores. */
static inline void cwb_nt_copy64(void *dst, const void *src)
{
#if defined(CWB_ARCH_X86)
    __m128i a = _mm_loadu_si128((const __m128i *)src);
    __m128i b = _mm_loadu_si128((const __m128i *)src + 1);
    __m128i c = _mm_loadu_si128((const __m128i *)src + 2);
    __m128i e = _mm_loadu_si128((const __m128i *)src + 3);
    cwb_nt_store64(dst, a, b, c, e);
#elif defined(CWB_ARCH_A64)
    __asm__ volatile("ldp q0, q1, [%1]\n\t"
                     "ldp q2, q3, [%1, #32]\n\t"
                     "stnp q0, q1, [%0]\n\t"
                     "stnp q2, q3, [%0, #32]"
                     : : "r"(dst), "r"(src) : "v0", "v1", "v2", "v3", "memory");
#else
    memcpy(dst, src, 64);
#endif
}

/* Fills one 64-byte line at dst (16-byte aligned) with v, non-temporally:
 * x86 four movntdq, aarch64 two STNP of q registers, elsewhere memcpy. */
static inline void cwb_nt_fill64(void *dst, cwb_v128 v)
{
#if defined(CWB_ARCH_X86)
    cwb_nt_store64(dst, v, v, v, v);
#elif defined(CWB_ARCH_A64)
    __asm__ volatile("stnp %q1, %q1, [%0]\n\t"
                     "stnp %q1, %q1, [%0, #32]"
                     : : "r"(dst), "w"(v) : "memory");
#else
    unsigned char *d = dst;
    for (int i = 0; i < 4; i++)
        memcpy(d + 16 * i, v.b, 16);
#endif
}

#endif /* CWB_ARCH_H */
