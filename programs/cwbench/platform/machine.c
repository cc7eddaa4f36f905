/* SPDX-License-Identifier: MIT */
/* Machine description: what a result is only meaningful with (CPU, cache
 * sizes, kernel, build, the policy in force), and the emulator check. */
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

#include "base/clock.h"
#include "base/format.h"
#include "platform/arch.h"
#include "platform/counters.h"
#include "platform/machine.h"
#include "cachewise.h"
#if defined(CWB_ARCH_A64)
#include <sys/auxv.h>
#endif

#ifndef CWB_BUILD_FLAGS
#define CWB_BUILD_FLAGS "unknown"
#endif
#ifndef CWB_COMPILER_ID
#define CWB_COMPILER_ID "unknown"
#endif

/* The L3 the library's policy trusts, not a socket's worth a guest may
 * report: victims and pools sized from it measure what one core sees. */
size_t cwb_llc_bytes(void)
{
    const struct cw_info *in = cw_get_info();
    if (in->l3_policy_size != 0)
        return in->l3_policy_size;
    if (in->l2_size != 0)
        return in->l2_size;
    return (size_t)32 << 20;
}

/* The CPU features a result depends on: the library's x86 ladder, or on
 * aarch64 the kernel's hardware capabilities (AT_HWCAP, AT_HWCAP2): Advanced
 * SIMD, SVE, LSE atomics, DC CVAP (dcpop) and DC CVADP (dcpodp). */
static void features(char *buf, size_t cap)
{
#if defined(CWB_ARCH_A64)
    unsigned long h = getauxval(AT_HWCAP), h2 = getauxval(AT_HWCAP2);
    (void)h2;
    const struct { const char *name; int on; } f[] = {
        {"asimd", (h & HWCAP_ASIMD) != 0}, {"atomics", (h & HWCAP_ATOMICS) != 0},
        {"sve", (h & HWCAP_SVE) != 0},     {"dcpop", (h & HWCAP_DCPOP) != 0},
#ifdef HWCAP2_DCPODP
        {"dcpodp", (h2 & HWCAP2_DCPODP) != 0},
#endif
    };
#else
    const struct cw_info *in = cw_get_info();
    const struct { const char *name; int on; } f[] = {
        {"sse2", in->sse2},       {"avx2", in->avx2},         {"avx512f", in->avx512f},
        {"avx512bw", in->avx512bw}, {"avx512vl", in->avx512vl}, {"erms", in->erms},
        {"fsrm", in->fsrm},       {"clflush", in->clflush},   {"clflushopt", in->clflushopt},
        {"clwb", in->clwb},       {"movdir64b", in->movdir64b},
    };
#endif
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

/* ---- emulation ------------------------------------------------------------ */

/* Under a user-mode emulator (qemu-user, or an x86 translator on an Arm
 * host) every timing is the translator's, not the CPU's. Two checks, either
 * one enough, both reading files the emulator passes through untouched:
 * 1. /proc/sys/kernel/arch names the kernel's own architecture. qemu-user
 *    rewrites uname()'s machine field to the guest's, so uname is no use,
 *    but it leaves /proc/sys alone: a kernel of another architecture than
 *    this build's means something translates in between.
 * 2. /proc/cpuinfo in the other architecture's format, for kernels without
 *    kernel.arch: qemu-user up to 8.1 shows the host's file (x86
 *    "vendor_id" and "flags" lines seen from an aarch64 build; an Arm
 *    kernel's "CPU implementer" from an x86 build). qemu 8.2 and later fake
 *    an Arm /proc/cpuinfo, hence check 1 first.
 * Neither sees a full-system emulator (there the kernel is emulated too and
 * the architectures agree), which is why builds for anything but x86-64
 * always print the note that emulated timings mean nothing. */
static int emu_state = -1;
static char emu_why[160];

static int read_line(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    int ok = fgets(buf, (int)cap, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

static int detect_emulation(char *why, size_t cap)
{
    char line[256];
    if (read_line("/proc/sys/kernel/arch", line, sizeof line) == 0) {
        if (strcmp(line, CWB_ARCH_NAME) != 0 && strcmp(CWB_ARCH_NAME, "unknown") != 0) {
            snprintf(why, cap, "this %s build runs on a %.40s kernel", CWB_ARCH_NAME, line);
            return 1;
        }
        snprintf(why, cap, "the kernel is %.40s like this build", line);
        return 0;
    }
    FILE *f = fopen("/proc/cpuinfo", "r");
    int readable = f != NULL, x86_lines = 0, arm_lines = 0;
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        x86_lines += strncmp(line, "vendor_id", 9) == 0 || strncmp(line, "flags\t", 6) == 0;
        arm_lines += strncmp(line, "CPU implementer", 15) == 0;
    }
    if (f != NULL)
        fclose(f);
#if defined(__x86_64__) || defined(__i386__)
    int foreign = arm_lines > 0 && x86_lines == 0;
#elif defined(__aarch64__) || defined(__arm__)
    int foreign = x86_lines > 0 && arm_lines == 0;
#else
    int foreign = x86_lines > 0 || arm_lines > 0;
#endif
    if (foreign) {
        snprintf(why, cap, "this %s build sees another architecture's /proc/cpuinfo",
                 CWB_ARCH_NAME);
        return 1;
    }
    snprintf(why, cap, "no /proc/sys/kernel/arch; /proc/cpuinfo %s",
             readable ? "looks native" : "unreadable");
    return 0;
}

int cwb_emulated(const char **why)
{
    if (emu_state < 0)
        emu_state = detect_emulation(emu_why, sizeof emu_why);
    if (why != NULL)
        *why = emu_why;
    return emu_state;
}

void cwb_emulation_banner(FILE *out, int to_stderr)
{
    static int told;
    const char *why;
    if (cwb_emulated(&why)) {
        fprintf(out, "%s (%s)\n", CWB_EMULATED_MSG, why);
        /* once per process, and not twice on one terminal */
        if (to_stderr && !told++ && !(isatty(fileno(out)) && isatty(STDERR_FILENO)))
            fprintf(stderr, "%s\n", CWB_EMULATED_MSG);
        return;
    }
#if !defined(CWB_ARCH_X86)
    fprintf(out, "cwbench: no emulator detected (%s); under an emulator such as qemu-user "
            "timings mean nothing\n", why);
#endif
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
    if (in->l3_policy_size != in->l3_size)
        fprintf(f, "  L3 used      %s: %s\n", cwb_fmt_size(in->l3_policy_size, a, sizeof a),
                in->l3_policy_note);
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
#if defined(CWB_ARCH_A64)
    fprintf(f, "  timestamps   cntvct_el0 at %.2f MHz (cntfrq_el0: the generic timer, not the "
            "CPU clock)\n", (double)cwb_ts_hz() / 1e6);
#endif
    const char *ewhy;
    if (cwb_emulated(&ewhy))
        fprintf(f, "  emulation    DETECTED (%s): timings under an emulator (qemu-user) mean "
                "nothing here; only correctness is checked\n", ewhy);
#if !defined(CWB_ARCH_X86)
    else
        fprintf(f, "  emulation    none detected (%s); timings under an emulator (qemu-user) "
                "would mean nothing\n", ewhy);
#endif
}

void cwb_machine_meta(cwb_meta_sink add, void *ctx)
{
    const struct cw_info *in = cw_get_info();
    char buf[256], why[160];
    add(ctx, "cpu", in->cpu_model);
    add(ctx, "cpu_vendor", in->cpu_vendor);
    features(buf, sizeof buf);
    add(ctx, "features", buf);
    snprintf(buf, sizeof buf, "%zu %zu %zu", in->l1d_size, in->l2_size, in->l3_size);
    add(ctx, "caches_l1d_l2_l3", buf);
    snprintf(buf, sizeof buf, "%zu", in->l3_policy_size);
    add(ctx, "l3_policy", buf);
    add(ctx, "l3_policy_note", in->l3_policy_note);
    add(ctx, "cpu_signature", in->cpu_signature);
    kernel(buf, sizeof buf);
    add(ctx, "kernel", buf);
    add(ctx, "libc", gnu_get_libc_version());
    snprintf(buf, sizeof buf, "%s (%s)", CWB_COMPILER_ID, __VERSION__);
    add(ctx, "compiler", buf);
    add(ctx, "flags", CWB_BUILD_FLAGS);
    add(ctx, "cachewise_version", cw_version());
    add(ctx, "impl", in->impl);
    add(ctx, "memcpy_entry", in->memcpy_entry);
    add(ctx, "cachewise_library", CWB_CACHEWISE_LINK);
    snprintf(buf, sizeof buf, "%zu", in->nt_threshold);
    add(ctx, "nt_threshold", buf);
    add(ctx, "flush", in->flush_insn);
    add(ctx, "tuning", in->tuning);
    add(ctx, "tuning_source", in->tuning_source);
    add(ctx, "profile", in->profile);
    for (int i = 0; i < in->n_settings; i++) {
        char key[64];
        snprintf(key, sizeof key, "policy_%s", in->settings[i].name);
        snprintf(buf, sizeof buf, "%s (%s)", in->settings[i].value, in->settings[i].source);
        add(ctx, key, buf);
    }
    snprintf(buf, sizeof buf, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    add(ctx, "cpus_online", buf);
    int ok = cwb_counters_available(why, sizeof why);
    snprintf(buf, sizeof buf, "%s (%s)", ok ? "available" : "not available", why);
    add(ctx, "counters", buf);
    snprintf(buf, sizeof buf, "%.3g", cwb_timer_tick());
    add(ctx, "timer_tick_s", buf);
    /* "true"/"false" go out as JSON booleans (results_write.c) */
    const char *ewhy;
    add(ctx, "emulated", cwb_emulated(&ewhy) ? "true" : "false");
    add(ctx, "emulation", ewhy);
    add(ctx, "arch", CWB_ARCH_NAME);
}
