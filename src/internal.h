/* SPDX-License-Identifier: MIT */
/* Internal interfaces of the cachewise library. Not installed. Every symbol
 * here is hidden (the library is built with -fvisibility=hidden); only the
 * cw_* functions of include/cachewise.h are exported. */
#ifndef CW_INTERNAL_H
#define CW_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "cachewise.h"
#include "policy.h"

#define CWI_HIDDEN __attribute__((visibility("hidden")))

/* At most len bytes of src, up to its NUL, into dst of cap > 0 bytes,
 * always terminated. A loop of our own: the library calls no string
 * function that may reach memcpy, which is cw_memcpy itself under the
 * shim, during start-up. */
static inline void cwi_copy_str(char *dst, size_t cap, const char *src, size_t len)
{
    size_t i = 0;
    for (; i + 1 < cap && i < len && src[i] != '\0'; i++)
        dst[i] = src[i];
    dst[i] = '\0';
}

/* CPU feature bits: the `required` mask of an implementation. */
enum {
    CWI_F_SSE2 = 1u << 0,
    CWI_F_AVX2 = 1u << 1,     /* AVX2 + OS-enabled YMM state */
    CWI_F_AVX512F = 1u << 2,  /* + OS-enabled ZMM/opmask state */
    CWI_F_AVX512BW = 1u << 3,
    CWI_F_AVX512VL = 1u << 4,
    CWI_F_ERMS = 1u << 5,
    CWI_F_FSRM = 1u << 6,
    CWI_F_CLFLUSH = 1u << 7,
    CWI_F_CLFLUSHOPT = 1u << 8,
    CWI_F_CLWB = 1u << 9,
    CWI_F_MOVDIR64B = 1u << 10,
    /* CPUID 7.0:EDX[24], AMX tiles: only Xeon Scalable cores from Sapphire
     * Rapids have them. A hint for the profile choice (a guest may hide the
     * model behind another number), never a kernel's requirement. */
    CWI_F_AMX_TILE = 1u << 11,
    /* aarch64 (getauxval(AT_HWCAP) / AT_HWCAP2) */
    CWI_F_ASIMD = 1u << 16,  /* Advanced SIMD (NEON) */
    CWI_F_DCPOP = 1u << 17,  /* DC CVAP: write-back to the point of persistence */
    CWI_F_DCPODP = 1u << 18, /* DC CVADP: to the point of deep persistence */
    CWI_F_SVE = 1u << 19,
};

/* A copy kernel. All kernels: n may be 0 (then dst/src are not touched);
 * no byte outside [dst,dst+n) is written, none outside [src,src+n) read;
 * no trailing fence (the dispatcher fences). They return dst, so that the
 * unfenced entry points reach them with a tail jump (one call level, not
 * two: ~2 ns per call, a third of a small copy). */
typedef void *(*cwi_copy_fn)(void *restrict dst, const void *restrict src, size_t n);
typedef void *(*cwi_move_fn)(void *dst, const void *src, size_t n);
typedef size_t (*cwi_safe_fn)(void *restrict dst, const void *restrict src, size_t n);
/* A fill kernel: sets [dst, dst+n) to (unsigned char)c, nothing else; n may
 * be 0 (then dst is not touched); no trailing fence; returns dst. */
typedef void *(*cwi_set_fn)(void *dst, int c, size_t n);

/* The safe kernels (CWI_SAFE_KERNELS builds: src/safe_generic.c,
 * src/x86/safe_<isa>.c, each the ISA's file compiled again with
 * CWL_SAFE_INSTANCE). CWI_SAFE_KERNEL(f) is f where they exist, else NULL. */
#if defined(CWI_SAFE_KERNELS)
#define CWI_SAFE_KERNEL(f) f
#define CWI_SAFE_SECTION __attribute__((section("cw_safe_text"), noinline))
#else
#define CWI_SAFE_KERNEL(f) NULL
#endif

/* cw_memcpy is an indirect function (IFUNC) where the toolchain and libc
 * have them and the build is not instrumented (a sanitizer's checks would
 * run before its runtime is up): src/dispatch.c. */
#if defined(__x86_64__) && defined(__ELF__) && defined(__GLIBC__) && !defined(CWI_NO_IFUNC)
#define CWI_MEMCPY_IFUNC 1
/* For cw_memcpy's IFUNC resolver, before the process is set up
 * (src/x86/early.c): CACHEWISE_IMPL's and CACHEWISE_TUNING's values as the
 * process started with them ("" where unset, longer than 15 bytes, or in a
 * privileged process), and the profile the policy will start from as far
 * as the resolver can know it: the built-in one tuning names, else the
 * CPU's row (a tuning file's profile is read later). */
struct cwi_profile;
void cwi_early_settings(char impl[16], char tuning[16]) CWI_HIDDEN;
const struct cwi_profile *cwi_early_row(const char *tuning) CWI_HIDDEN;
#endif
/* "avx512-evex-64", "avx512-evex", "avx2" or "baseline": the entry cw_memcpy
 * was resolved to */
const char *cwi_memcpy_entry_name(void) CWI_HIDDEN;

/* The largest copy cw_memcpy sends to a row's memcpy_small entry: below
 * CWL_NT_MIN (256) the streaming copy is the temporal one anyway, so these
 * calls need no threshold compare. */
#define CWI_MEMCPY_SMALL 128

/* The largest n any entry point copies: PTRDIFF_MAX (no object is larger;
 * see cwi_size_overflow in src/dispatch.c and the header's contract). */
#define CWI_MAX_COPY ((size_t)PTRDIFF_MAX)
/* Prints which function was called with n > CWI_MAX_COPY and aborts. Cold,
 * as its definition says: the callers in other files (src/bypass.c) then
 * keep the call out of line too, off their hot path. */
CWI_HIDDEN __attribute__((noreturn, cold)) void cwi_size_overflow(const char *fn, size_t n);

/* The ways a memcpy-shaped copy moves its bytes: what the shim's
 * CACHEWISE_STATS counts per call (src/preload/stats.c). */
enum cwi_copy_path {
    CWI_PATH_INLINE,     /* n <= cwi_inline_max(): the entry's own loads and stores */
    CWI_PATH_TEMPORAL,   /* the row's temporal loops (vector or scalar) */
    CWI_PATH_REP,        /* rep movsb inside the policy's window */
    CWI_PATH_STREAM,     /* n >= nt_threshold: non-temporal stores */
    CWI_PATH_STREAM_REP, /* n >= nt_threshold, moved by rep movsb (stream_method) */
    CWI_PATH_SRC_NOREUSE, /* CW_SRC_NOREUSE (the shim's src_noreuse threshold) */
    CWI_PATH_OVERLAP,    /* overlapping buffers: the memmove loops */
    CWI_NPATH
};
/* The largest copy the entries make themselves, before any row (0: none):
 * 32 or 64 B on x86 (the policy's memcpy_inline). */
CWI_HIDDEN size_t cwi_inline_max(void);
/* Which of the paths above cw_memcpy(dst, src, n) takes with the policy in
 * force (one of INLINE..STREAM_REP), by the same tests as the copy itself.
 * Initialises the library if needed; never on a copy's path. */
CWI_HIDDEN int cwi_memcpy_path(const void *dst, const void *src, size_t n);

/* One implementation: a row of the dispatch table. */
struct cwi_impl {
    const char *name;
    uint32_t required; /* CWI_F_* all of which must be present */
    /* temporal copy, no overlap: the cw_memcpy body below the nt threshold */
    cwi_copy_fn copy;
    /* streaming destination (non-temporal stores for every whole aligned
     * vector/line; ordinary stores for the unaligned head and tail) */
    cwi_copy_fn copy_nt;
    /* as copy_nt, and the source read with prefetchnta / non-temporal hints */
    cwi_copy_fn copy_nt_srcnta;
    /* temporal destination, source read with prefetchnta hints
     * (CW_SRC_NOREUSE|CW_DST_REUSE) */
    cwi_copy_fn copy_srcnta;
    /* flushcache: streaming stores for whole lines, ordinary stores followed
     * by a line write-back for partial lines (movnti for aligned 4/8-byte
     * words); no fence */
    cwi_copy_fn flushcache;
    /* the same for the persisting entry points, whose drain follows at
     * once: partial lines by the policy's persist_small rule (store + clwb
     * is twice as fast as movnti + sfence on the Xeon, where movnti without
     * a fence is ten times faster than store + clwb) */
    cwi_copy_fn persist;
    /* any overlap */
    cwi_move_fn move;
    /* cw_copy_safe's fast path: the temporal copy again, returning 0, in
     * section cw_safe_text and built never to touch rbx, rbp, r8-r15 (see
     * src/safe.c); NULL where the build cannot guarantee that */
    cwi_safe_fn copy_safe;
    /* cw_memcpy for 33..CWI_MEMCPY_SMALL bytes (correct for any n up to
     * that), reached with one load and an indirect jump (src/dispatch.c) */
    cwi_copy_fn memcpy_small;
    /* the same without a size test for 33..CWI_MEMCPY_SMALL (also correct
     * for any n up to that); NULL: memcpy_small serves */
    cwi_copy_fn memcpy_small_flat;
    /* cw_memcpy for CWI_MEMCPY_SMALL < n below the threshold (only such
     * n): copy's bytes and path without copy's tests for the smaller
     * classes; NULL: copy serves */
    cwi_copy_fn memcpy_large;
    /* the same with fewer stores that straddle two 64-byte lines
     * (memcpy_mid direct-lines); NULL: memcpy_large serves */
    cwi_copy_fn memcpy_large_lines;
    /* cw_memset_nt: non-temporal stores for every whole aligned line,
     * ordinary stores for the partial first and last lines and below
     * CWL_NT_MIN bytes, as copy_nt */
    cwi_set_fn memset_nt;
    /* cw_memset_flushcache: the fill with copy_nt's line split, partial
     * lines by flushcache's rules (store + write-back, movnti for aligned
     * 4/8-byte words); no fence */
    cwi_set_fn memset_flushcache;
    /* cw_memset_persist, drained at once: partial lines by the policy's
     * persist_small rule, as persist (under the clwb rule, fills below
     * CWL_NT_MIN all stores + write-back) */
    cwi_set_fn memset_persist;
    /* which path (enum cwi_copy_path) copy (streaming 0) or copy_nt
     * (streaming 1) takes for these bytes; NULL: the row has only its
     * loops (CWI_PATH_TEMPORAL, CWI_PATH_STREAM) */
    int (*path)(const void *dst, const void *src, size_t n, int streaming);
};

/* Table of implementations compiled into this build, best first, terminated
 * by a row with name == NULL. Defined in dispatch.c. */
CWI_HIDDEN extern const struct cwi_impl *const cwi_impls[];

/* Per-ISA rows (defined in src/generic.c and src/x86/<isa>.c). */
CWI_HIDDEN extern const struct cwi_impl cwi_impl_generic;
#if defined(__x86_64__)
CWI_HIDDEN extern const struct cwi_impl cwi_impl_sse2;
CWI_HIDDEN extern const struct cwi_impl cwi_impl_avx2;
CWI_HIDDEN extern const struct cwi_impl cwi_impl_avx512;
#if defined(CWI_HAVE_AVX512_EVEX)
/* the avx512 kernels in zmm16-31, without vzeroupper (src/x86/avx512_evex.c) */
CWI_HIDDEN extern const struct cwi_impl cwi_impl_avx512_evex;
/* that row's cw_memcpy kernel for 33..128 B (correct for any n up to 128) */
CWI_HIDDEN void *cwi_evex_memcpy_small(void *restrict dst, const void *restrict src, size_t n);
#endif
#endif
#if defined(__aarch64__)
CWI_HIDDEN extern const struct cwi_impl cwi_impl_aarch64;
#endif
CWI_HIDDEN size_t cwi_generic_copy_safe(void *restrict dst, const void *restrict src, size_t n);
CWI_HIDDEN size_t cwi_sse2_copy_safe(void *restrict dst, const void *restrict src, size_t n);
CWI_HIDDEN size_t cwi_avx2_copy_safe(void *restrict dst, const void *restrict src, size_t n);
CWI_HIDDEN size_t cwi_avx512_copy_safe(void *restrict dst, const void *restrict src, size_t n);

/* ---- CPU detection (src/cpu.c, with src/x86/cpu.c, src/aarch64/cpu.c or
 * src/cpu_portable.c) ---- */
struct cwi_cpu {
    uint32_t features; /* CWI_F_* */
    char vendor[16];
    char model[64];
    size_t l1d, l2, l3, line; /* l3: as the CPU (or sysfs) reports it */
    /* logical CPUs sharing the L3 (CPUID leaf 4 / 0x8000001D, sysfs);
     * 0 = nothing says */
    unsigned threads_sharing_l3;
    /* x86: CPUID display family, model and stepping; aarch64: MIDR_EL1
     * implementer, part number and revision (0 where the kernel does not
     * expose MIDR) */
    unsigned family, model_number, stepping;
    /* the L3 the policy's rules use, and why (cwi_cache_trust) */
    size_t l3_used;
    const char *l3_note;
};
/* Detects everything above, the trusted L3 included (src/cpu.c). */
CWI_HIDDEN void cwi_cpu_detect(struct cwi_cpu *out);
/* What this architecture's own means report, into c zeroed by the caller:
 * features, vendor, model, family/model/stepping, the caches and their
 * sharing; what they cannot tell stays 0 (src/x86/cpu.c, src/aarch64/cpu.c,
 * src/cpu_portable.c). */
CWI_HIDDEN void cwi_cpu_detect_arch(struct cwi_cpu *c);
/* Sets c->l3_used and c->l3_note from c->l3, its sharing count and what
 * the vendor and family imply (src/profiles.c): a guest may report a
 * socket's L3 as if one core shared it. */
CWI_HIDDEN void cwi_cache_trust(struct cwi_cpu *c);
#if defined(__x86_64__)
/* For code that runs before the process is set up (cw_memcpy's IFUNC
 * resolver, src/x86/early.c): no stack protector, whose canary lives in
 * thread-local storage. */
#if defined(__has_attribute)
#if __has_attribute(no_stack_protector)
#define CWI_EARLY __attribute__((no_stack_protector))
#endif
#endif
#ifndef CWI_EARLY
#define CWI_EARLY __attribute__((optimize("no-stack-protector")))
#endif
/* The CPUID + XGETBV feature bits (CWI_F_*) alone: no libc, no TLS, so the
 * IFUNC resolver may call it; cwi_cpu_detect() fills features with it
 * (src/x86/cpu.c). */
CWI_HIDDEN uint32_t cwi_cpu_features(void);
/* CPUID's vendor string, display family, model and stepping, the same way
 * (0 where leaf 1 is missing); returns the highest basic leaf. */
CWI_HIDDEN unsigned cwi_cpu_identity(char vendor[13], unsigned *family, unsigned *model,
                                     unsigned *stepping);
#endif
/* The lookups that cw_memcpy's IFUNC resolver shares with start-up (the
 * profile row, src/profiles.c; the implementation row, src/dispatch.c):
 * CWI_EARLY where it exists (x86), plain functions elsewhere. */
#ifdef CWI_EARLY
#define CWI_LOOKUP CWI_EARLY
#else
#define CWI_LOOKUP
#endif

/* ---- The settings (src/settings.c) ---- */
/* Every setting of the policy, in the order of cw_info's settings. */
enum cwi_setting_id {
    CWI_SET_NT_THRESHOLD,
    CWI_SET_REP_MOVSB,
    CWI_SET_REP_MOVSB_MIN,
    CWI_SET_REP_MOVSB_MAX,
    CWI_SET_STREAM_PREFETCH,
    CWI_SET_STREAM_PREFETCH_HINT,
    CWI_SET_STREAM_METHOD,
    CWI_SET_STREAM_REP_MIN,
    CWI_SET_SRC_NOREUSE,
    CWI_SET_SRC_NOREUSE_PREFETCH,
    CWI_SET_SRC_NOREUSE_FLUSH_BEHIND,
    CWI_SET_PERSIST_SMALL,
    CWI_SET_FLUSH,
    CWI_SET_PARALLEL_MIN,
    CWI_SET_PARALLEL_THREADS,
    CWI_SET_MEMCPY_MID,
    CWI_SET_MEMCPY_INLINE,
    CWI_SET_IMPL,
    CWI_N_SETTINGS
};
/* cw_info's settings: name, variable, value, the profile's value, source
 * ("table", "file", "env", "api"). */
CWI_HIDDEN extern struct cw_setting cwi_settings[CWI_N_SETTINGS];
/* Parse a byte count with optional K/M/G suffix (binary: 1K = 1024).
 * Returns 0 and sets *out, or -1 on malformed/overflowing input. */
CWI_HIDDEN int cwi_parse_size(const char *text, size_t *out);
/* The setting called name (a file's key), or -1. */
CWI_HIDDEN int cwi_setting_find(const char *name);
/* Its CACHEWISE_* variable. */
CWI_HIDDEN const char *cwi_setting_env(int id);
/* Sets setting id of p from text (impl: the setting kept for
 * cwi_settings_impl); 0, or -1 with why[] filled. */
CWI_HIDDEN int cwi_setting_parse(struct cwi_policy *p, int id, const char *text, char *why,
                                 size_t cap);
/* cwi_settings from cwi_pol, every source "table" (the profile's values). */
CWI_HIDDEN void cwi_settings_begin(void);
/* out[CWI_N_SETTINGS]: names, variables, p's values (value and
 * table_value), source "table". */
CWI_HIDDEN void cwi_settings_format(struct cw_setting *out, const struct cwi_policy *p);
/* Rewrites the settings' value texts from cwi_pol and in->impl. */
CWI_HIDDEN void cwi_settings_refresh(struct cw_info *in);
/* The implementation a tuning file asks for, NULL: the best runnable. */
CWI_HIDDEN const char *cwi_settings_impl(void);
/* The profile the tuning file read into cwi_tuning_text names with
 * "profile = NAME", or NULL (an unknown name recorded). */
CWI_HIDDEN const struct cwi_profile *cwi_settings_file_profile(const char *path);
/* That file's settings over cwi_pol (bad lines recorded and skipped). */
CWI_HIDDEN void cwi_settings_overlay_file(const char *path);
/* Switches off in p what the CPU cannot run, whatever asked for it
 * (recorded unless the profile did). */
CWI_HIDDEN void cwi_settings_sanitize(struct cwi_policy *p, const struct cwi_cpu *c);
/* Keeps the policy and the sources in force as the start-up ones that
 * cw_settings_restore() puts back. */
CWI_HIDDEN void cwi_settings_keep_startup(void);

/* ---- The environment (src/env.c) ---- */
/* Non-zero in a privileged process (getauxval(AT_SECURE): setuid, setgid,
 * file capabilities). Then cwi_getenv() reads nothing, no profile is
 * written, and a tuning file is read only from the system-wide path when
 * root owns it and nobody else may write it. */
CWI_HIDDEN int cwi_secure_mode(void);
/* getenv that is safe before the C runtime is fully up (reads environ).
 * Returns NULL for every name in secure mode (recording that once). */
CWI_HIDDEN const char *cwi_getenv(const char *name);
/* The variables of the library's start-up, each read once by
 * cwi_env_read() (NULL: not set, or secure mode). */
struct cwi_env {
    const char *tuning;                   /* CACHEWISE_TUNING */
    const char *setting[CWI_N_SETTINGS]; /* each setting's variable (CACHEWISE_IMPL too) */
    int verbose;                          /* CACHEWISE_VERBOSE set, not "" or "0" */
};
CWI_HIDDEN extern struct cwi_env cwi_env;
/* Reads them; until cwi_env_done(), recorded errors are printed by the
 * CACHEWISE_VERBOSE read here (afterwards by its value at each error). */
CWI_HIDDEN void cwi_env_read(void);
CWI_HIDDEN void cwi_env_done(void);
/* The settings' variables over cwi_pol (but CACHEWISE_IMPL, which the
 * start-up checks against the CPU), then a warning for every CACHEWISE_*
 * variable nothing reads. */
CWI_HIDDEN void cwi_env_overlay(void);
/* Record a configuration error in the info block (first CW_INFO_MAX_ERRORS
 * kept) and print it when CACHEWISE_VERBOSE=1. printf-style. */
CWI_HIDDEN void cwi_config_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A message line made by snprintf (len its result, cap its buffer's
 * size) to stderr with one write(2), cut to the buffer: no stdio, so it
 * also serves before libc's constructors and on the way to abort(). */
CWI_HIDDEN void cwi_write_stderr(const char *line, int len, size_t cap);

/* ---- Tuning files (src/tuning_file.c) ---- */
/* A path in a recorded message, "%s%s": its last 64 characters after
 * "..." when longer, so that the file's name always shows. */
#define CWI_PATH_TAIL(p)                                                                         \
    (strlen(p) > 64 ? "..." : ""), ((p) + (strlen(p) > 64 ? strlen(p) - 64 : 0))
/* The text of the file read last (NUL-terminated). */
CWI_HIDDEN extern char cwi_tuning_text[8192];
/* Reads path into cwi_tuning_text. secure: only a regular file owned by
 * root that nobody else may write, never through a symlink. 0, or -1 with
 * errno (ENOENT: no file; EISDIR: a directory; EINVAL: not a regular
 * file; EPERM: refused in secure mode; EFBIG: over 8 KiB). */
CWI_HIDDEN int cwi_tuning_file_read(const char *path, int secure);
/* Calls fn for each line of text that is not blank or a '#' comment: key
 * and value with the white space around them cut (value NULL for a line
 * without '='), line its number from 1. */
typedef void (*cwi_line_fn)(const char *key, const char *value, int line, void *ctx);
CWI_HIDDEN void cwi_text_lines(const char *text, cwi_line_fn fn, void *ctx);
/* Calls fn for each "key = value" line of cwi_tuning_text, read from path
 * ('#' comments and blank lines skipped); a line without '=' is recorded
 * unless quiet. */
typedef void (*cwi_file_line_fn)(const char *key, const char *value, int line,
                                 const char *path, void *ctx);
CWI_HIDDEN void cwi_tuning_file_lines(const char *path, int quiet, cwi_file_line_fn fn,
                                      void *ctx);
/* This CPU's signature, as a tuning file's "cpu = ..." line spells it. */
CWI_HIDDEN void cwi_cpu_signature(const struct cwi_cpu *c, char *buf, size_t cap);
/* The "cpu" line of cwi_tuning_text against sig (copied to found). */
enum { CWI_CPU_UNSTATED, CWI_CPU_ANY, CWI_CPU_MATCH, CWI_CPU_OTHER };
CWI_HIDDEN int cwi_tuning_file_cpu(const char *path, const char *sig, char *found, size_t cap);
/* The tuning file in force, read into cwi_tuning_text, for this CPU's
 * signature sig: env (CACHEWISE_TUNING)'s file, or the matching file of
 * its directory; without it, the matching file of CW_SYSTEM_TUNING_DIR,
 * else CW_SYSTEM_TUNING_FILE (secure: only root's, as cwi_tuning_file_read
 * says); *source "env" or "system". NULL: none, a problem recorded; where
 * env names a profile, *named is that profile (else NULL). */
CWI_HIDDEN const char *cwi_tuning_file_choose(const char *env, const char *sig, int secure,
                                              const struct cwi_profile **named,
                                              const char **source);
/* Of dir's *.conf files, reads the first by name whose cpu line is sig
 * into cwi_tuning_text and its path into path. 0, or -1 with errno
 * (ESRCH: none matches; EPERM: secure mode refuses the directory). */
CWI_HIDDEN int cwi_tuning_dir_choose(const char *dir, const char *sig, int secure, char *path,
                                     size_t cap);

/* ---- Start-up (src/startup.c) ---- */
/* Ensure the one-time initialisation (CPU detection, the policy, the
 * implementation) has run. Cheap after the first call. */
CWI_HIDDEN void cwi_init(void);
CWI_HIDDEN extern struct cw_info cwi_info;
/* Held while cw_info's implementation, threshold and settings change
 * after start-up. */
CWI_HIDDEN extern pthread_mutex_t cwi_info_lock;
/* For cw_settings_apply/restore: puts next in force, with what the CPU
 * cannot run switched off, the write-back instruction chosen again when
 * its flush setting changed, and the streaming threshold and cw_info's
 * settings following. Copies running meanwhile may see either policy
 * (each field is stored atomically, src/policy.h). */
CWI_HIDDEN void cwi_policy_republish(const struct cwi_policy *next);

/* ---- The entry points' state (src/dispatch.c) ---- */
/* The active row itself, NULL before initialisation (read with acquire).
 * cw_copy_safe's trampoline calls through it directly. */
CWI_HIDDEN extern _Atomic(const struct cwi_impl *) cwi_active_row;
/* The active row, the library initialised first where none is published
 * yet: the entry points' way to their row (src/dispatch.c, src/bypass.c),
 * inlined. */
static inline const struct cwi_impl *cwi_active_row_or_init(void)
{
    const struct cwi_impl *impl = atomic_load_explicit(&cwi_active_row, memory_order_acquire);
    if (__builtin_expect(impl == NULL, 0)) {
        cwi_init();
        impl = atomic_load_explicit(&cwi_active_row, memory_order_acquire);
    }
    return impl;
}
/* The same, out of line. */
CWI_HIDDEN const struct cwi_impl *cwi_active(void);
/* The non-temporal threshold the entry points compare with, and its read:
 * relaxed (why that is right, and free: at its definition in
 * src/dispatch.c). */
CWI_HIDDEN extern _Atomic(size_t) cwi_nt_threshold;
static inline size_t cwi_nt_threshold_now(void)
{
    return atomic_load_explicit(&cwi_nt_threshold, memory_order_relaxed);
}
/* The row called name, or NULL; whether this CPU runs it (after
 * cwi_dispatch_setup). */
CWI_HIDDEN const struct cwi_impl *cwi_impl_find(const char *name);
CWI_HIDDEN int cwi_impl_runnable(const struct cwi_impl *impl);
/* The CPU's features for the rows: fills cw_impl_list()'s list and
 * returns the best runnable row. */
CWI_HIDDEN const struct cwi_impl *cwi_dispatch_setup(uint32_t features);
/* The streaming threshold the entry points compare with (at most
 * CWI_MAX_COPY + 1). */
CWI_HIDDEN void cwi_dispatch_set_threshold(size_t nt);
/* After the policy changed (cw_settings_apply/_restore): the entries that
 * depend on it chosen again */
CWI_HIDDEN void cwi_dispatch_policy_changed(void);
/* Makes impl the active row of every entry point. */
CWI_HIDDEN void cwi_dispatch_publish(const struct cwi_impl *impl);

/* ---- Cache-line flushing (src/x86/flush.c, src/aarch64/flush.c; elsewhere
 * a no-op: src/flush_portable.c) ---- */
#if defined(__x86_64__)
/* Write back the line containing p with the instruction cwi_flush_select()
 * chose (clwb, else clflushopt, else clflush). Inlined into the kernels: a
 * flushcache copy of a few bytes is dominated by its flush, and a call
 * around it cost 10-40% at 8-96 B. */
enum { CWI_FLUSH_NONE, CWI_FLUSH_CLFLUSH, CWI_FLUSH_CLFLUSHOPT, CWI_FLUSH_CLWB };
CWI_HIDDEN extern int cwi_flush_kind;
/* cwi_flush_kind as a relaxed atomic load: cw_settings_apply may choose the
 * instruction again while other threads flush (either one writes the line
 * back). */
static inline __attribute__((always_inline)) int cwi_flush_kind_now(void)
{
    return __atomic_load_n(&cwi_flush_kind, __ATOMIC_RELAXED);
}
static inline __attribute__((always_inline)) void cwi_flush_line_inline(const void *p)
{
    switch (cwi_flush_kind_now()) {
    case CWI_FLUSH_CLWB:
        __asm__ volatile("clwb %0" : "+m"(*(volatile char *)p));
        break;
    case CWI_FLUSH_CLFLUSHOPT:
        __asm__ volatile("clflushopt %0" : "+m"(*(volatile char *)p));
        break;
    case CWI_FLUSH_CLFLUSH:
        /* ordered with respect to stores on its own, so a later sfence
         * (cw_drain) completes it as well */
        __asm__ volatile("clflush %0" : "+m"(*(volatile char *)p));
        break;
    default:
        break;
    }
}
#endif
/* Write back every line overlapping [p, p+n) (cw_flush's body). Never
 * stores: the write-back instructions are checked like a one-byte load,
 * so a read-only mapping may be flushed. */
CWI_HIDDEN void cwi_flush_range(const void *p, size_t n);
/* Choose the flush instruction: the policy's flush_pref if the CPU has it
 * (else that is recorded as a configuration error and cwi_pol.flush_pref
 * reset to auto), or the best the features offer; returns its name
 * ("clwb", "clflushopt", "clflush", "dc cvap", "dc cvac" or "none").
 * Called once by cwi_init, after the policy is set. */
CWI_HIDDEN const char *cwi_flush_select(uint32_t features);
/* Store fence. */
CWI_HIDDEN void cwi_sfence(void);

/* cw_copy hint handling shared with cw_copy_safe (src/bypass.c). */
CWI_HIDDEN int cwi_hints_valid(unsigned hints);
CWI_HIDDEN void cwi_copy_hinted(void *restrict dst, const void *restrict src, size_t n,
                                unsigned hints);

#endif /* CW_INTERNAL_H */
