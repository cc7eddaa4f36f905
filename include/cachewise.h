/* SPDX-License-Identifier: MIT */
/*
 * cachewise.h - cache-aware memory copies with runtime CPU dispatch.
 *
 * The only public header of the cachewise library. Every function is
 * thread-safe. Implementation selection happens once, on first use (or at
 * load time), and may be changed later with cw_impl_select().
 *
 * Common contract of the copy functions, unless a function says otherwise:
 *  - n == 0 copies nothing and never dereferences dst or src, so NULL is
 *    allowed there (unlike ISO memcpy).
 *  - No alignment is required of dst, src or n.
 *  - The "restrict" functions require [dst, dst+n) and [src, src+n) not to
 *    overlap; overlapping calls give unspecified bytes in dst (but never
 *    touch memory outside [dst, dst+n)). Use cw_memmove for overlap.
 *  - No byte outside [dst, dst+n) is ever written, and no byte outside
 *    [src, src+n) is ever read (buffers may end at a protected page).
 *  - n must not exceed PTRDIFF_MAX (no object is that large: such a size is
 *    a negative length converted to size_t). cw_copy() then returns NULL
 *    with errno = EINVAL and cw_copy_safe() returns n with errno = EINVAL;
 *    the other copies, which cannot report an error, print one line on
 *    stderr and abort() before touching a byte, as glibc's fortified
 *    functions do. No size makes any of them write outside [dst, dst+n)
 *    or return as if it had copied.
 *
 * Environment (CACHEWISE_*, see README.md) is read once, at initialisation.
 * In a privileged process (getauxval(AT_SECURE) != 0: setuid, setgid, file
 * capabilities) every CACHEWISE_* variable is ignored, which
 * cw_get_info()->errors records once as "CACHEWISE_* ignored: secure mode";
 * nothing then reads or writes a file on the environment's word.
 */
#ifndef CACHEWISE_H
#define CACHEWISE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#define CW_RESTRICT
#else
#define CW_RESTRICT restrict
#endif

/* The version of this header and of the library built with it: the one
 * version source (CMakeLists.txt reads these three lines for the project,
 * the SONAME and the package files; cw_version() is made of them). A
 * program compares its own with the library it runs with by
 * cw_check_version(CW_VERSION_MAJOR, CW_VERSION_MINOR). */
#define CW_VERSION_MAJOR 0
#define CW_VERSION_MINOR 2
#define CW_VERSION_PATCH 0

#if defined(__GNUC__)
#define CW_API __attribute__((visibility("default")))
#else
#define CW_API
#endif

/* ---- Copy hints for cw_copy() (and flags for cw_copy_safe()) ------------ */

/** Destination won't be read soon: write it with streaming (non-temporal)
 *  stores so it does not evict other data from the caches. */
#define CW_DST_NOREUSE 0x1u
/** Destination will be read soon: keep it cached, never stream. */
#define CW_DST_REUSE 0x2u
/** Source won't be read again: read it with non-temporal hints
 *  (prefetchnta; PRFM PLDL1STRM on aarch64) so the source doesn't evict
 *  other data either. On x86 CPUs
 *  with clflushopt, source lines are also evicted from the caches right
 *  after they are read (prefetchnta alone did not keep them out of the L2
 *  on the CPUs measured; docs/RESULTS.md): don't use it on a source that is
 *  about to be read again. */
#define CW_SRC_NOREUSE 0x4u
/** Persist: flushcache copy followed by cw_drain(). */
#define CW_PERSIST 0x8u
/** cw_copy_safe() only: after a fault in the source, zero the part of the
 *  destination that could not be copied. Invalid for cw_copy(). */
#define CW_ZERO_TAIL 0x10u

/* ---- Copies -------------------------------------------------------------- */

/** Drop-in memcpy: the fastest copy for the size on this CPU. At or above
 *  the non-temporal threshold (cw_get_info()->nt_threshold) it uses
 *  streaming stores, as glibc does, and fences before returning.
 *  Returns dst. */
CW_API void *cw_memcpy(void *CW_RESTRICT dst, const void *CW_RESTRICT src, size_t n);

/** Drop-in memmove: any overlap, either direction. Returns dst. */
CW_API void *cw_memmove(void *dst, const void *src, size_t n);

/** Copy writing the destination with non-temporal (streaming) stores wherever
 *  possible: every whole, aligned 64-byte line of the destination is
 *  streamed (movnt on x86-64; STNP on aarch64, where the architecture
 *  makes it a hint only); the partial first and last lines use ordinary stores, and so do
 *  copies shorter than 256 bytes (a few lines: streaming them costs more than
 *  the cache space it saves). Ends with a store fence, so it can replace
 *  memcpy anywhere (the copy is globally visible in order on return).
 *  Returns dst. */
CW_API void *cw_memcpy_nt(void *CW_RESTRICT dst, const void *CW_RESTRICT src, size_t n);

/** Like the Linux kernel's memcpy_flushcache(): after this call and a
 *  following cw_drain(), no cache line of [dst, dst+n) is left dirty in the
 *  CPU caches. x86-64: whole lines are written with streaming stores,
 *  partial lines with ordinary stores followed by clwb (else clflushopt,
 *  else clflush). aarch64: ordinary stores, each line then written back
 *  with DC CVAP (to the point of persistence, where the CPU has FEAT_DPB),
 *  else DC CVAC (to the point of coherency), as the kernel's arm64
 *  memcpy_flushcache does. Does NOT fence: call cw_drain() once after a
 *  batch of these. On other targets the copy is done but cache flushing is
 *  unavailable (cw_get_info()->flush_insn is "none").
 *  Returns dst. The header wrapper cw_memcpy_flushcache() below inlines
 *  constant 4, 8 and 16-byte copies. */
CW_API void *cw_memcpy_flushcache_fn(void *CW_RESTRICT dst, const void *CW_RESTRICT src,
                                     size_t n);

/** Store fence completing earlier streaming stores and cache flushes
 *  (sfence on x86-64; DSB SY on aarch64, which waits for the DC CVAP/CVAC
 *  write-backs to complete; a full fence elsewhere). */
CW_API void cw_drain(void);

/** cw_memcpy_flushcache() + cw_drain(). Returns dst. */
CW_API void *cw_memcpy_persist(void *CW_RESTRICT dst, const void *CW_RESTRICT src, size_t n);

/** The same copy engine with per-call hints (CW_DST_NOREUSE, CW_DST_REUSE,
 *  CW_SRC_NOREUSE, CW_PERSIST), 0 = auto (exactly cw_memcpy).
 *   - CW_DST_NOREUSE: stream the destination at every size (as cw_memcpy_nt,
 *     fenced on return).
 *   - CW_DST_REUSE: temporal stores at every size, never streaming.
 *   - CW_SRC_NOREUSE: read the source with non-temporal hints; the
 *     destination follows the other bits (auto if none).
 *   - CW_PERSIST: cw_memcpy_persist (may be combined with CW_DST_NOREUSE and
 *     CW_SRC_NOREUSE).
 *  Contradictory bits (CW_DST_NOREUSE|CW_DST_REUSE, CW_PERSIST|CW_DST_REUSE)
 *  or unknown bits (including CW_ZERO_TAIL): returns NULL, sets errno to
 *  EINVAL and copies nothing. Otherwise returns dst.
 *  From libpmem (PMDK): CW_PERSIST is pmem_memcpy_persist(), whole lines
 *  streamed (CW_DST_NOREUSE with it changes nothing). PMDK's
 *  PMEM_F_MEM_TEMPORAL (temporal stores, then flushed) has no hint:
 *  CW_PERSIST|CW_DST_REUSE is refused with EINVAL, as above. Copy with
 *  CW_DST_REUSE, then cw_persist(dst, n) (the _nodrain form: cw_flush(dst,
 *  n), and one cw_drain() after the batch). There is no flushing memmove
 *  either (pmem_memmove_persist, pmem_memmove_nodrain): cw_memmove(dst, src,
 *  n), then cw_persist(dst, n) (or cw_flush and cw_drain) does the same. */
CW_API void *cw_copy(void *CW_RESTRICT dst, const void *CW_RESTRICT src, size_t n,
                     unsigned hints);

/* ---- Copies larger than one core can move --------------------------------- */

/* One core moves a large copy at a fraction of what the memory system can
 * (its outstanding misses bound it, not the DRAM), so a copy of hundreds of
 * MiB goes faster split across cores. Two ways, with the same slices and
 * the same policy; docs/PARALLEL.md has the design, its limits and figures.
 * Common contract of both, besides the copies' common contract above:
 *  - The policy (temporal, streaming or persist) is decided for the whole
 *    n and the hints, exactly as cw_copy(dst, src, n, hints) decides it, and
 *    every slice follows it: a slice of a copy at or above the streaming
 *    threshold streams however small the slice is, and with CW_PERSIST
 *    every slice persists (its stores written back and drained).
 *  - Each slice ends with its own store fence where it streamed or
 *    persisted, so a thread that joins the threads that copied (or is
 *    otherwise ordered after them: pthread_join, a barrier, a release/acquire
 *    pair) sees every byte.
 *  - Unknown or contradictory hints (as cw_copy) or n > PTRDIFF_MAX: NULL,
 *    errno = EINVAL, nothing copied. Overlapping buffers are not allowed.
 *  - Slice i of k is [b(i), b(i+1)) of the copy, where b(0) = 0, b(k) = n
 *    and otherwise b(i) is i*n/k (rounded down) rounded up to the next
 *    multiple of G of the destination's address (dst + b(i) is a multiple of
 *    G), at most n; G is 4096 when n/k >= 16 KiB, else 64 (the cache line).
 *    So every byte is in exactly one slice, no two slices write one cache
 *    line, and large slices begin on page boundaries (a NUMA-aware caller
 *    can place each slice's pages on the node of the thread that copies
 *    it). Some slices may be empty (small n, large k). */

/** Copy slice i of k (0 <= i < k) of the copy cw_copy(dst, src, n, hints),
 *  on the calling thread: each of k threads (any thread pool: pthreads,
 *  OpenMP, a work queue) calls it with the same dst, src, n, hints and k and
 *  its own i, and once every call has returned (and the caller is ordered
 *  after them) [dst, dst+n) holds the copy. Calls for different i may run at
 *  the same time; the library starts no thread. An empty slice touches
 *  nothing. Returns dst; NULL with errno = EINVAL for bad hints, k == 0,
 *  i >= k or n > PTRDIFF_MAX (nothing copied). Thread-safe, no lock. */
CW_API void *cw_copy_part(void *CW_RESTRICT dst, const void *CW_RESTRICT src, size_t n,
                          unsigned hints, unsigned i, unsigned k);

/** cw_copy(dst, src, n, hints) split across up to nthreads threads, the
 *  calling thread's included, from a pool of worker threads the library
 *  starts on first need and keeps for reuse. Returns as cw_copy: dst, or
 *  NULL with errno = EINVAL (nothing copied); on return the whole copy is
 *  done and visible to the caller.
 *   - nthreads == 0 takes the policy's parallel_threads setting (its
 *     default 0: every CPU the caller may run on). The count is capped at
 *     64, at the number of CPUs in the calling thread's affinity mask, and
 *     at one thread per parallel_min/2 bytes.
 *   - Below the parallel_min setting (default 4 MiB; CACHEWISE_PARALLEL_MIN,
 *     docs/PARALLEL.md), or with one thread, the copy is made on the calling
 *     thread alone, exactly as cw_copy: no thread is started or woken.
 *   - Slices are taken dynamically by the caller and the workers (four per
 *     thread), so a worker that wakes late costs little; which thread copies
 *     which slice is not fixed (nothing here places slices by NUMA node).
 *   - One copy uses the pool at a time: a call made while another copy owns
 *     it copies on its own thread alone (never waits for the other copy), so
 *     any number of threads may call at once, and no call can deadlock.
 *   - Workers are created with every asynchronous signal blocked and the
 *     caller's CPU affinity; a fault in a buffer (SIGSEGV, SIGBUS) is raised
 *     in whichever thread touched it.
 *   - If thread creation fails (RLIMIT_NPROC, memory), the copy uses the
 *     workers that did start, or the caller alone; the failure is recorded
 *     in cw_get_info()->parallel_note and not retried.
 *   - fork(): the child starts with no pool (its workers do not exist
 *     there) and starts a new one when a copy needs it; a fork during a
 *     copy in another thread is safe.
 *  Never used by cw_memcpy, cw_copy or the LD_PRELOAD shim: only a program
 *  that calls this gets threads. Not async-signal-safe. */
CW_API void *cw_copy_parallel(void *CW_RESTRICT dst, const void *CW_RESTRICT src, size_t n,
                              unsigned hints, unsigned nthreads);

/** Fault-tolerant copy, the userspace copy_from_user().
 *  Returns the number of bytes NOT copied (0 = all copied); on return
 *  [dst, dst + n - ret) holds the copy. When the first inaccessible byte is
 *  at offset k of the source (or of the destination), ret == n - k exactly.
 *  Survives SIGSEGV (PROT_NONE, unmapped, read-only destination) and SIGBUS
 *  (past the end of a truncated file mapping, media errors) in source or
 *  destination, and addresses outside the user address space (x86-64: the
 *  kernel half, non-canonical addresses, copies running off the last user
 *  page), in every build, sanitizer builds included.
 *  After a fault no byte of [dst + n - ret, dst + n) has been written,
 *  whichever buffer faulted: the copy stops at the first inaccessible byte,
 *  as copy_to_user does, and every byte from there on keeps what it held
 *  (past a hole in the destination too, where it is writable again);
 *  CW_ZERO_TAIL is the only exception.
 *  flags: the cw_copy() hints plus CW_ZERO_TAIL (after a source fault, zero
 *  [dst + n - ret, dst + n) as far as the destination is writable: up to its
 *  first unwritable byte, nothing at or beyond it). Unlike the kernel, whose
 *  copy_from_user zeroes that tail after every failure (its raw_ and __
 *  variants do not), cachewise zeroes only when asked: without CW_ZERO_TAIL
 *  a failed copy leaves the tail's old bytes (stale data, if the buffer is
 *  reused) in place. After a destination fault nothing is zeroed (nor does
 *  copy_to_user zero anything). NULL src or dst with n > 0 returns n; a
 *  NULL src is a source that cannot be read, like an unmapped one: nothing
 *  is copied, and with CW_ZERO_TAIL the destination is zeroed as far as it
 *  is writable. Unknown or contradictory flags (as for cw_copy():
 *  CW_PERSIST|CW_DST_REUSE is refused here too): returns n with errno =
 *  EINVAL; otherwise errno is left unchanged. Overlapping buffers are not
 *  allowed.
 *  Thread-safe; async-signal-safe once cw_safe_init() has run. Installs
 *  SIGSEGV/SIGBUS handlers once (on first call, or by cw_safe_init()),
 *  chained to the handlers installed before: a fault outside cw_copy_safe
 *  goes to the previous handler or the default action (so a real crash is
 *  still a crash, by the right signal). A program that installs its own
 *  SIGSEGV/SIGBUS handler AFTER cachewise must call cw_safe_handle_fault()
 *  first thing in that handler (see below); one that cannot should install
 *  its handlers before its first cw_copy_safe()/cw_safe_init(). The full
 *  contract is in docs/SAFE.md. */
CW_API size_t cw_copy_safe(void *dst, const void *src, size_t n, unsigned flags);

/** Install cachewise's SIGSEGV/SIGBUS handlers now (idempotent). Returns 0,
 *  or -1 with errno from sigaction(). Called implicitly by cw_copy_safe(). */
CW_API int cw_safe_init(void);

/** For programs that install their own SIGSEGV/SIGBUS handler after
 *  cachewise's: call this first in that handler with its three arguments.
 *  If the fault belongs to a cw_copy_safe() in progress on this thread it
 *  does not return (the copy resumes and reports the fault); otherwise it
 *  returns 0 and the program's handler continues. ucontext must be the
 *  handler's third argument (SA_SIGINFO): on x86-64 Linux the copy resumes
 *  with the registers saved there, and with NULL nothing is claimed.
 *  Async-signal-safe. */
CW_API int cw_safe_handle_fault(int sig, void *siginfo, void *ucontext);

/* ---- Persistence in place and streaming fills ----------------------------- */

/* The rest of what a persistent-memory or log-writing program takes from
 * libpmem (pmem_flush, pmem_persist, pmem_memset_nodrain,
 * pmem_memset_persist) or the Linux kernel (arch_wb_cache_pmem, clearing
 * with movnti): writing back data already stored in place, and fills that
 * leave nothing in the caches. docs/PERSISTENCE.md has the details.
 * Common contract of these functions, unless a function says otherwise:
 *  - n == 0 touches nothing and never dereferences addr or dst, so NULL is
 *    allowed there.
 *  - No alignment is required of addr, dst or n.
 *  - The fills write every byte of [dst, dst+n) and no byte outside it;
 *    they store (unsigned char)c: only the low byte of c counts, as for
 *    memset. The flushes write no byte at all.
 *  - n must not exceed PTRDIFF_MAX: like the copies that cannot report an
 *    error, they print one line on stderr and abort() before touching a
 *    byte.
 *  - Thread-safe; the fills are dispatched to the active implementation
 *    like the copies (cw_impl_select() applies).
 *  - Where the CPU has no user-space cache write-back
 *    (cw_get_info()->flush_insn is "none": targets other than x86-64 and
 *    aarch64), the
 *    flushes write nothing back and the fills are ordinary fills; the
 *    drains still fence. */

/** Write back to memory every cache line overlapping [addr, addr+n): clwb,
 *  else clflushopt, else clflush on x86-64; DC CVAP, else DC CVAC by the
 *  CPU's smallest data cache line (CTR_EL0) on aarch64
 *  (cw_get_info()->flush_insn), like libpmem's pmem_flush() and the
 *  kernel's arch_wb_cache_pmem(). The first
 *  and last lines may hold bytes outside the range; they are written back
 *  too, which changes nothing. Stores nothing and needs no write access:
 *  the range may lie in a read-only mapping (these instructions are
 *  permission-checked like a one-byte load), but every page of it must be
 *  mapped and readable, or the call faults as a load would. With clwb a
 *  line may stay in the cache, clean; clflushopt and clflush evict it.
 *  Does NOT fence: call cw_drain() once after a batch (or use
 *  cw_persist()). */
CW_API void cw_flush(const void *addr, size_t n);

/** cw_flush(addr, n) + cw_drain(), like pmem_persist(): on return every
 *  store made to the range before the call has been written back from the
 *  caches. With n == 0 (addr may be NULL) it is a plain cw_drain(). */
CW_API void cw_persist(const void *addr, size_t n);

/** Fill [dst, dst+n) with the byte (unsigned char)c using non-temporal
 *  (streaming) stores wherever possible, the twin of cw_memcpy_nt(): every
 *  whole, aligned 64-byte line of the destination is streamed; the partial
 *  first and last lines use ordinary stores, and so do fills shorter than
 *  256 bytes. For clearing memory that will not be read soon (pages given
 *  back to an allocator, a large buffer) without evicting what the caches
 *  hold. Ends with a store fence, so it can replace memset anywhere (the
 *  fill is globally visible in order on return). Returns dst. */
CW_API void *cw_memset_nt(void *dst, int c, size_t n);

/** Fill [dst, dst+n) with the byte (unsigned char)c so that after this call
 *  and a following cw_drain() no cache line of the range is left dirty in
 *  the CPU caches, like pmem_memset_nodrain() and the kernel's movnti-based
 *  clearing. Whole lines are written with streaming stores; a partial line
 *  made of whole, aligned 4- or 8-byte words with movnti; any other partial
 *  line with ordinary stores followed by its write-back (clwb, else
 *  clflushopt, else clflush). On aarch64: ordinary stores, every line then
 *  written back (DC CVAP, else DC CVAC), as cw_memcpy_flushcache(). Does
 *  NOT fence: call cw_drain() once after a batch of these. Returns dst. */
CW_API void *cw_memset_flushcache(void *dst, int c, size_t n);

/** cw_memset_flushcache() + cw_drain(), like pmem_memset_persist(). Its
 *  partial lines follow cw_memcpy_persist()'s rule (the policy's
 *  persist_small setting, docs/TUNING.md: movnti, or stores + clwb, which
 *  is faster on some CPUs when a fence follows at once); under the stores +
 *  clwb rule, fills shorter than 256 bytes are written that way whole.
 *  Returns dst. */
CW_API void *cw_memset_persist(void *dst, int c, size_t n);

/* ---- Implementations and information ------------------------------------- */

/** Name of the active implementation ("generic", "sse2", "avx2", "avx512",
 *  "avx512-evex"; "aarch64" on 64-bit Arm). At start-up the library takes
 *  the best the CPU runs (cw_impl_list()'s first), or the one its profile
 *  chooses where this build has it and the CPU runs it (amd-zen5:
 *  "avx512-evex", the avx512 code with its vectors in zmm16-31, built by
 *  GCC only), or the one a tuning file or CACHEWISE_IMPL names;
 *  cw_info.impl_source says which.
 *  Not every copy runs it. On x86-64, cw_memcpy and cw_memmove copy at most
 *  32 bytes (64 where the policy's memcpy_inline says so: the amd-zen5
 *  and amd-zen4 profiles) with baseline (SSE2) instructions, whatever the active
 *  implementation. And in the shared library (with glibc), cw_memcpy's
 *  entry is chosen once, when the library is loaded, for the implementation
 *  the profile (the CPU's, or the built-in one CACHEWISE_TUNING names) and
 *  CACHEWISE_IMPL in the process's environment will select (where the
 *  environment cannot be read that early, the CPU alone decides): where
 *  that is avx512-evex it sends 33..128 bytes straight to that
 *  implementation's kernel (with its own copies' bounds fixed at 64 bytes
 *  where the profile asks for it: amd-zen4); on other AVX2 CPUs it copies
 *  them itself with AVX, unless CACHEWISE_IMPL names sse2 or generic.
 *  cw_impl_select() and a tuning file do not change that entry, only where
 *  larger copies go.
 *  cw_info.memcpy_entry says which entry is in use; docs/TUNING.md ("The
 *  entries of small copies") says why. */
CW_API const char *cw_impl_name(void);

/** NULL-terminated list of the implementations this CPU can run, best first.
 *  Static storage; never freed. */
CW_API const char *const *cw_impl_list(void);

/** Make `name` the active implementation for the whole process.
 *  Returns 0; or -1 with errno = ENOENT (unknown name, or NULL) or ENOTSUP
 *  (known but not runnable on this CPU/OS), keeping the current one.
 *  Thread-safe, but copies already running in other threads finish with the
 *  implementation they started with. */
CW_API int cw_impl_select(const char *name);

#define CW_INFO_MAX_ERRORS 8
#define CW_INFO_ERROR_LEN 160
#define CW_SETTING_VALUE_LEN 32

/** One setting of the copy policy in force (docs/TUNING.md): its name (the
 *  key of a tuning file), the environment variable that overrides it, its
 *  value, the built-in profile's value for this CPU, and where the value in
 *  force came from: "table" (the built-in profile), "file" (a tuning file)
 *  or "env" (its CACHEWISE_* variable). Values are written as a tuning file
 *  takes them ("1536K", "align-dst", ...). */
/* cw_info's settings is an array of these, so struct cw_setting never
 * changes size within a major version (a program built against another
 * size would step through the array wrongly); struct cw_info may grow. */
struct cw_setting {
    const char *name;
    const char *env;
    char value[CW_SETTING_VALUE_LEN];
    char table_value[CW_SETTING_VALUE_LEN];
    const char *source;
};

/* Filled by the library; only ever grown at its end, one release's fields
 * after the last's (cw_info_size() says where the loaded library's ends). */
struct cw_info {
    /* CPU features, 1 = usable (for vector ISAs: CPUID and OS-enabled state) */
    int sse2, avx2, avx512f, avx512bw, avx512vl;
    int erms, fsrm, clflush, clflushopt, clwb, movdir64b;
    char cpu_vendor[16];
    char cpu_model[64];
    /* data/unified cache sizes in bytes per level, 0 = unknown; l3 is the
     * whole shared L3 as CPUID reports it */
    size_t l1d_size, l2_size, l3_size;
    size_t cache_line;
    /* thresholds in force */
    size_t nt_threshold;     /* cw_memcpy streams at n >= this */
    const char *nt_threshold_source; /* "cpu" (formula), "file", "env" or "api" */
    /* "clwb", "clflushopt", "clflush" (x86-64), "dc cvap", "dc cvac"
     * (aarch64) or "none" */
    const char *flush_insn;
    const char *impl;        /* active implementation name */
    /* "cpu" (best runnable), "profile" (the profile's choice), "file"
     * (the tuning file's impl), "env" or "api" */
    const char *impl_source;
    /* configuration errors: invalid environment settings that were ignored */
    int n_errors;
    char errors[CW_INFO_MAX_ERRORS][CW_INFO_ERROR_LEN];
    /* the entry cw_memcpy was resolved to at load time: "avx2" (copies of
     * 33..128 B made there with AVX), "avx512-evex" (copies of 33..128 B
     * made by that implementation's kernel, reached directly),
     * "avx512-evex-64" (the same, its own copies 0..64 B whatever
     * memcpy_inline says later) or "baseline" (see cw_impl_name) */
    const char *memcpy_entry;
    /* The per-CPU policy (docs/TUNING.md). tuning: the built-in profile's
     * name ("intel-server", "amd-zen3", "generic", ...) or the path of the
     * tuning file in force; tuning_source: "cpu" (chosen from CPUID vendor,
     * family and model), "env" (CACHEWISE_TUNING: a profile name, a file,
     * or a directory of per-CPU files) or "system" (the file of
     * CW_SYSTEM_TUNING_DIR whose signature matches this CPU, else
     * CW_SYSTEM_TUNING_FILE). A file measured on another CPU (its "cpu"
     * line is not cpu_signature, nor "any") is ignored and recorded.
     * profile: the built-in profile the values start from (a file may name
     * one with "profile = NAME"). */
    const char *tuning;
    const char *tuning_source;
    const char *profile;
    unsigned cpu_family, cpu_model_number; /* CPUID display family and model */
    /* every setting of the policy, with its value and source */
    int n_settings;
    const struct cw_setting *settings;
    /* aarch64 features (getauxval(AT_HWCAP), AT_HWCAP2), 0 elsewhere:
     * Advanced SIMD, DC CVAP (FEAT_DPB, write-back to the point of
     * persistence), DC CVADP (FEAT_DPB2), SVE. On aarch64 cpu_vendor names
     * the MIDR_EL1 implementer and cpu_family/cpu_model_number are its
     * implementer code and part number (0 where Linux does not expose MIDR);
     * cache sizes come from sysfs (/sys/devices/system/cpu/cpu0/cache). */
    int asimd, dcpop, dcpodp, sve;
    /* The L3 the policy's rules use, and why: l3_size as reported where it
     * is credible, else what the vendor and family imply (a guest may
     * report a whole socket's L3 with no sharing count, e.g. 508 MiB on a
     * Zen 5 whose core shares a 32 MiB CCD L3). */
    size_t l3_policy_size;
    const char *l3_policy_note;
    /* CPUID stepping (aarch64: the MIDR revision) */
    unsigned cpu_stepping;
    /* This CPU's signature as a tuning file's "cpu = ..." line spells it
     * (vendor, family, model, stepping, caches as reported, best
     * implementation): a file measured on another CPU is ignored. */
    const char *cpu_signature;
    /* cw_copy_parallel's pool: the worker threads started in this process
     * (the callers' threads not counted), and what happened when they were
     * started: NULL until a copy first needs workers (and in a child after
     * fork() until it does), then a sentence, which says so when thread
     * creation failed. Written by that copy; read it from a thread ordered
     * after it. */
    int parallel_threads_started;
    const char *parallel_note;
    /* The built-in profile CPUID vendor, family and model choose for this
     * CPU, whatever names another (profile is the one in force: it differs
     * where CACHEWISE_TUNING or a tuning file's "profile" line names one),
     * and that profile's value of every setting: n_settings entries, in the
     * order and with the names of settings, value and table_value both the
     * profile's (for this CPU's caches, before anything the CPU lacks is
     * switched off), source "table". New in 0.2.0. */
    const char *cpu_profile;
    const struct cw_setting *cpu_profile_settings;
};

/** The system-wide tuning file read when CACHEWISE_TUNING is not set (in a
 *  privileged process: only if root owns it and nobody else may write it). */
#define CW_SYSTEM_TUNING_FILE "/etc/cachewise.conf"
/** The system-wide directory of per-CPU tuning files, looked at before
 *  CW_SYSTEM_TUNING_FILE: the first *.conf file (by name) whose "cpu" line
 *  is this CPU's signature is taken (`cwbench tune --install` writes one;
 *  in a privileged process the directory and the file must be root's and
 *  writable by nobody else). */
#define CW_SYSTEM_TUNING_DIR "/etc/cachewise.d"

/** Detected features, cache sizes, thresholds in force and configuration
 *  errors. Static storage, valid for the life of the process; the fields
 *  impl/impl_source follow cw_impl_select(). */
CW_API const struct cw_info *cw_get_info(void);

/** Library version as "major.minor.patch" (the loaded library's, which
 *  may be newer than the header's CW_VERSION_*). */
CW_API const char *cw_version(void);

/** Whether the loaded library serves a program built against the header of
 *  version major.minor, like libpmem's pmem_check_version(); a program
 *  passes its own header's numbers: cw_check_version(CW_VERSION_MAJOR,
 *  CW_VERSION_MINOR). Returns 0 when the library's major version equals
 *  major and its minor version is at least minor (the patch level does not
 *  count: within a major version functions and fields are only added,
 *  CHANGELOG.md); otherwise -1 with errno = ENOTSUP (a library older than
 *  that header, or of another major version). errno is left unchanged on
 *  success. Needs no initialisation; thread-safe and async-signal-safe.
 *  New in 0.2.0 (symbol version node CACHEWISE_0.2): a program that calls
 *  it does not load at all with a 0.1 library (the dynamic linker names
 *  the missing node), which is the same verdict given earlier. */
CW_API int cw_check_version(unsigned major, unsigned minor);

/** sizeof(struct cw_info) in the loaded library: the fields it fills are
 *  those that end within this size. struct cw_info only grows at its end,
 *  so a program built against a newer header than the library reads a
 *  field only when offsetof(struct cw_info, field) + sizeof(field) <=
 *  cw_info_size() (the struct the program was compiled with may be larger
 *  than the one cw_get_info() points to). New in 0.2.0 (CACHEWISE_0.2),
 *  so every field the 0.2.0 header declares is there when it exists.
 *  Needs no initialisation; thread-safe and async-signal-safe. */
CW_API size_t cw_info_size(void);

/* ---- Settings for measuring tools ----------------------------------------- */

/** Puts settings of the copy policy in force for every entry point, as a
 *  tuning file's lines would: `settings` is text in a tuning file's format
 *  ("setting = value" per line, '#' starts a comment, blank lines skipped;
 *  sizes take K, M, G; docs/TUNING.md), each line a setting of
 *  cw_get_info()->settings except impl (cw_impl_select() chooses the
 *  implementation). The lines are parsed and checked like a file's, over
 *  the policy in force; the settings they name then take their values,
 *  with source "api" in cw_get_info()->settings (and nt_threshold_source
 *  "api" for nt_threshold), while the others keep theirs. What this CPU
 *  cannot run is switched off afterwards, as at start-up (recorded in
 *  cw_get_info()->errors). cw_get_info()'s nt_threshold, flush_insn and
 *  settings' values follow at once; its profile, tuning and table_value
 *  keep describing the start-up policy.
 *  It is meant for a measuring tool that tries policies one after another
 *  (cwbench tune), not for a program's normal work: a copy running in
 *  another thread during the call may run with either policy, or with a
 *  mixture of both (each setting is read whole: there is no data race),
 *  and calls must not be made concurrently with each other, with
 *  cw_settings_restore() or with cw_impl_select(); reading cw_get_info()
 *  meanwhile may see a setting half written.
 *  Returns 0; or -1 with errno set, changing nothing: EINVAL (settings is
 *  NULL, or a line is not "setting = value", names an unknown setting,
 *  impl, "profile" or "cpu", or has a value the setting does not take),
 *  EPERM (secure mode: in a privileged process the policy is what the
 *  system's files and the CPU decide). err, when not NULL and err_len is
 *  not 0, gets a NUL-terminated sentence saying which line was refused
 *  and why (the first, when several are), "" on success; it is cut to
 *  err_len bytes. New in 0.2.0 (CACHEWISE_0.2). */
CW_API int cw_settings_apply(const char *settings, char *err, size_t err_len);

/** Puts the start-up policy back in force: every setting but impl takes
 *  the value and source it had once the library had initialised, as
 *  cw_get_info() showed them then (the implementation stays what
 *  cw_impl_select() made it). Returns 0. The same rules of use as
 *  cw_settings_apply(); in secure mode the policy in force is already the
 *  start-up one. New in 0.2.0 (CACHEWISE_0.2). */
CW_API int cw_settings_restore(void);

/* ---- Header fast paths ---------------------------------------------------- */

/* The inline code below is compiled into the program (with GCC and clang).
 * Defining CW_NO_INLINE before including this header turns all of it off:
 * every call is then a call of the exported function. It stays free of
 * warnings under the strict C and C++ flags users build with
 * (tests/packaging/header_flags.sh), hence casts through CW__CAST, which
 * is static_cast in C++ (-Wold-style-cast) and a plain cast in C. */
#ifdef __cplusplus
#define CW__CAST(type, expr) static_cast<type>(expr)
#else
#define CW__CAST(type, expr) ((type)(expr))
#endif

/* The kernel's memcpy_flushcache inlines constant 4, 8 and 16-byte copies as
 * movnti stores (no call, no flush needed: movnti bypasses the cache). The
 * destination of an inlined copy must be naturally aligned for the size
 * (4/8 bytes) for movnti not to split a cache line; unaligned constant-size
 * destinations are fine too, they just may span two lines. */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(CW_NO_INLINE)
#define CW__INLINE static inline __attribute__((always_inline))
/* The store is the asm's, so no C access needs the type's alignment: the
 * destination goes through void * (a direct cast from unsigned char * is an
 * error under clang -Wcast-align -Werror in the user's build). */
#define CW__MOVNTI(type, dst, val) \
    __asm__ volatile("movnti %1, %0" \
                     : "=m"(*CW__CAST(type *, CW__CAST(void *, dst))) \
                     : "r"(val))
CW__INLINE void *cw_memcpy_flushcache(void *CW_RESTRICT dst, const void *CW_RESTRICT src,
                                      size_t n)
{
    if (__builtin_constant_p(n) && (n == 4 || n == 8 || n == 16)) {
        unsigned char *d = CW__CAST(unsigned char *, dst);
        const unsigned char *s = CW__CAST(const unsigned char *, src);
        uint32_t w4;
        uint64_t lo, hi;
        if (n == 4) {
            __builtin_memcpy(&w4, s, 4);
            CW__MOVNTI(uint32_t, d, w4);
        } else if (n == 8) {
            __builtin_memcpy(&lo, s, 8);
            CW__MOVNTI(uint64_t, d, lo);
        } else {
            __builtin_memcpy(&lo, s, 8);
            __builtin_memcpy(&hi, s + 8, 8);
            CW__MOVNTI(uint64_t, d, lo);
            CW__MOVNTI(uint64_t, d + 8, hi);
        }
        return dst;
    }
    return cw_memcpy_flushcache_fn(dst, src, n);
}
#undef CW__MOVNTI
#undef CW__INLINE
#else
static inline void *cw_memcpy_flushcache(void *CW_RESTRICT dst, const void *CW_RESTRICT src,
                                         size_t n)
{
    return cw_memcpy_flushcache_fn(dst, src, n);
}
#endif

/* cw_memcpy and cw_memmove of a small constant size, 1 to 32 bytes, become
 * what a compiler makes of memcpy's: a few loads and stores in the caller,
 * no call (a call and the library's size dispatch cost more than such a
 * copy). Only sizes known at compile time, when optimising (at -O0
 * __builtin_constant_p is false for an argument): every other call reaches
 * the library as before. The contract is the functions' own (returns dst;
 * n == 0 and larger sizes are the library's calls), and the bytes stored
 * are those the library would store: it never streams a copy of 32 bytes
 * or less. cw_memmove loads every byte before it stores one, so any overlap
 * is copied right; it is built from fixed-width copies rather than
 * __builtin_memmove, which GCC 12 expands only for 1, 2, 4, 8 and 16 bytes
 * and otherwise turns into a call of libc's memmove. These are
 * function-like macros: cw_memcpy without an argument list (a pointer to
 * the function), (cw_memcpy)(d, s, n) and CW_NO_INLINE reach the exported
 * function itself. */
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__aarch64__)) && \
    !defined(CW_NO_INLINE)
#define CW__INLINE static inline __attribute__((always_inline))
#define CW__INLINE_MAX 32u
CW__INLINE void *cw_memcpy_inline_(void *CW_RESTRICT dst, const void *CW_RESTRICT src, size_t n)
{
    if (__builtin_constant_p(n) && n - 1u < CW__INLINE_MAX)
        return __builtin_memcpy(dst, src, n);
    return (cw_memcpy)(dst, src, n);
}
/* The first and the last sizeof(type) bytes, loaded both before either is
 * stored (they overlap when n < 2 * sizeof(type)). */
#define CW__MOVE_ENDS(type, d, s, n) \
    do { \
        type head_, tail_; \
        __builtin_memcpy(&head_, (s), sizeof(type)); \
        __builtin_memcpy(&tail_, (s) + (n) - sizeof(type), sizeof(type)); \
        __builtin_memcpy((d), &head_, sizeof(type)); \
        __builtin_memcpy((d) + (n) - sizeof(type), &tail_, sizeof(type)); \
    } while (0)
CW__INLINE void *cw_memmove_inline_(void *dst, const void *src, size_t n)
{
    if (__builtin_constant_p(n) && n - 1u < CW__INLINE_MAX) {
        unsigned char *d = CW__CAST(unsigned char *, dst);
        const unsigned char *s = CW__CAST(const unsigned char *, src);
        if (n >= 16) {
            /* four 8-byte words: two 16-byte types would go through the
             * stack under clang */
            uint64_t w0, w1, w2, w3;
            __builtin_memcpy(&w0, s, 8);
            __builtin_memcpy(&w1, s + 8, 8);
            __builtin_memcpy(&w2, s + n - 16, 8);
            __builtin_memcpy(&w3, s + n - 8, 8);
            __builtin_memcpy(d, &w0, 8);
            __builtin_memcpy(d + 8, &w1, 8);
            __builtin_memcpy(d + n - 16, &w2, 8);
            __builtin_memcpy(d + n - 8, &w3, 8);
        } else if (n >= 8) {
            CW__MOVE_ENDS(uint64_t, d, s, n);
        } else if (n >= 4) {
            CW__MOVE_ENDS(uint32_t, d, s, n);
        } else if (n >= 2) {
            CW__MOVE_ENDS(uint16_t, d, s, n);
        } else {
            *d = *s;
        }
        return dst;
    }
    return (cw_memmove)(dst, src, n);
}
#undef CW__MOVE_ENDS
#undef CW__INLINE_MAX
#undef CW__INLINE
#define cw_memcpy(dst, src, n) cw_memcpy_inline_((dst), (src), (n))
#define cw_memmove(dst, src, n) cw_memmove_inline_((dst), (src), (n))
#endif
#undef CW__CAST

#ifdef __cplusplus
}
#endif
#endif /* CACHEWISE_H */
