/* SPDX-License-Identifier: MIT */
/* CPU detection: x86-64 CPUID + XGETBV feature ladder and cache topology;
 * aarch64 hwcaps, MIDR_EL1 and the caches Linux describes in sysfs.
 * Compiled for the baseline ISA: nothing here may need more than x86-64 or
 * ARMv8.0-A. */
#include <string.h>
#include <unistd.h>

#include "internal.h"

#if defined(__x86_64__)
#include <cpuid.h>

static CWI_EARLY void cpuid(unsigned leaf, unsigned sub, unsigned r[4])
{
    __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}

/* Library code never calls memcpy: under the LD_PRELOAD shim that would
 * recurse into cachewise before it is initialised. */
static void put_u32(char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (char)(v >> (8 * i));
}

static CWI_EARLY uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

/* Deterministic cache parameters: leaf 4 (Intel) or 0x8000001D (AMD
 * topology extensions) share one format. */
static int cache_leaf(struct cwi_cpu *c, unsigned leaf)
{
    int found = 0;
    for (unsigned i = 0; i < 16; i++) {
        unsigned r[4];
        cpuid(leaf, i, r);
        unsigned type = r[0] & 0x1f;
        if (type == 0)
            break;
        if (type == 2) /* instruction cache */
            continue;
        unsigned level = (r[0] >> 5) & 7;
        size_t ways = ((r[1] >> 22) & 0x3ff) + 1;
        size_t parts = ((r[1] >> 12) & 0x3ff) + 1;
        size_t line = (r[1] & 0xfff) + 1;
        size_t sets = (size_t)r[2] + 1;
        size_t size = ways * parts * line * sets;
        unsigned sharing = ((r[0] >> 14) & 0xfff) + 1;
        found = 1;
        if (level == 1) {
            c->l1d = size;
            c->line = line;
        } else if (level == 2) {
            c->l2 = size;
        } else if (level == 3) {
            c->l3 = size;
            c->threads_sharing_l3 = sharing;
        }
    }
    return found;
}

CWI_EARLY uint32_t cwi_cpu_features(void)
{
    unsigned r[4];
    cpuid(0, 0, r);
    unsigned max_leaf = r[0];
    cpuid(1, 0, r);
    uint32_t f = 0;
    if (r[3] & (1u << 26))
        f |= CWI_F_SSE2;
    if (r[3] & (1u << 19))
        f |= CWI_F_CLFLUSH;
    int osxsave = (r[2] >> 27) & 1, avx = (r[2] >> 28) & 1;
    uint64_t xcr0 = osxsave ? xgetbv0() : 0;
    int ymm_ok = avx && (xcr0 & 0x6) == 0x6;
    int zmm_ok = ymm_ok && (xcr0 & 0xe0) == 0xe0;

    if (max_leaf >= 7) {
        cpuid(7, 0, r);
        if ((r[1] & (1u << 5)) && ymm_ok)
            f |= CWI_F_AVX2;
        if ((r[1] & (1u << 16)) && zmm_ok)
            f |= CWI_F_AVX512F;
        if ((r[1] & (1u << 30)) && zmm_ok)
            f |= CWI_F_AVX512BW;
        if ((r[1] & (1u << 31)) && zmm_ok)
            f |= CWI_F_AVX512VL;
        if (r[1] & (1u << 9))
            f |= CWI_F_ERMS;
        if (r[1] & (1u << 23))
            f |= CWI_F_CLFLUSHOPT;
        if (r[1] & (1u << 24))
            f |= CWI_F_CLWB;
        if (r[2] & (1u << 28))
            f |= CWI_F_MOVDIR64B;
        if (r[3] & (1u << 4))
            f |= CWI_F_FSRM;
    }
    return f;
}

static void detect_x86(struct cwi_cpu *c)
{
    unsigned r[4];
    cpuid(0, 0, r);
    unsigned max_leaf = r[0];
    put_u32(c->vendor + 0, r[1]);
    put_u32(c->vendor + 4, r[3]);
    put_u32(c->vendor + 8, r[2]);
    c->vendor[12] = '\0';
    int amd = strcmp(c->vendor, "AuthenticAMD") == 0 || strcmp(c->vendor, "HygonGenuine") == 0;
    c->features = cwi_cpu_features();
    if (max_leaf >= 1) {
        cpuid(1, 0, r);
        unsigned base_family = (r[0] >> 8) & 0xf, base_model = (r[0] >> 4) & 0xf;
        c->family = base_family == 0xf ? base_family + ((r[0] >> 20) & 0xff) : base_family;
        c->stepping = r[0] & 0xf;
        c->model_number = base_family == 6 || base_family == 0xf
                              ? base_model | (((r[0] >> 16) & 0xf) << 4)
                              : base_model;
    }

    cpuid(0x80000000, 0, r);
    unsigned max_ext = r[0];
    if (max_ext >= 0x80000004) {
        char model[49];
        for (unsigned i = 0; i < 3; i++) {
            cpuid(0x80000002 + i, 0, r);
            for (unsigned j = 0; j < 4; j++)
                put_u32(model + 16 * i + 4 * j, r[j]);
        }
        model[48] = '\0';
        const char *m = model;
        while (*m == ' ')
            m++;
        size_t len = strlen(m);
        while (len > 0 && m[len - 1] == ' ')
            len--;
        if (len >= sizeof c->model)
            len = sizeof c->model - 1;
        for (size_t i = 0; i < len; i++)
            c->model[i] = m[i];
        c->model[len] = '\0';
    }

    int found = 0;
    if (amd && max_ext >= 0x8000001d) {
        cpuid(0x80000001, 0, r);
        if (r[2] & (1u << 22)) /* TOPOEXT */
            found = cache_leaf(c, 0x8000001d);
    }
    if (!found && !amd && max_leaf >= 4)
        found = cache_leaf(c, 4);
    if (!found && amd && max_ext >= 0x80000006) {
        cpuid(0x80000005, 0, r);
        c->l1d = (size_t)(r[2] >> 24) << 10;
        c->line = r[2] & 0xff;
        cpuid(0x80000006, 0, r);
        c->l2 = (size_t)(r[2] >> 16) << 10;
        c->l3 = (size_t)(r[3] >> 18) << 19;
    }
}
#endif

#if defined(__aarch64__) && defined(__linux__)
#include <fcntl.h>
#include <sys/auxv.h>

/* Linux's arm64 hwcaps (<asm/hwcap.h>, stable ABI), spelled here so that
 * older kernel headers do not matter. */
#define CWI_HWCAP_ASIMD (1ul << 1)
#define CWI_HWCAP_CPUID (1ul << 11)
#define CWI_HWCAP_DCPOP (1ul << 16)
#define CWI_HWCAP_SVE (1ul << 22)
#define CWI_HWCAP2_DCPODP (1ul << 0)

/* Reads a small sysfs file into buf (NUL-terminated, trailing newline
 * dropped); 0 on success. open/read, not stdio: nothing here may allocate
 * or call memcpy (the LD_PRELOAD shim may be initialising). */
static int read_small(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t got = read(fd, buf, cap - 1);
    close(fd);
    if (got <= 0)
        return -1;
    while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
        got--;
    buf[got] = '\0';
    return 0;
}

/* "48K", "1024K", "32M", "512" -> bytes; 0 if malformed */
static size_t parse_cache_size(const char *t)
{
    size_t v = 0;
    int digits = 0;
    for (; *t >= '0' && *t <= '9'; t++, digits++)
        v = v * 10 + (size_t)(*t - '0');
    if (digits == 0 || digits > 9)
        return 0;
    if (*t == 'K')
        return v << 10;
    if (*t == 'M')
        return v << 20;
    if (*t == 'G')
        return v << 30;
    return *t == '\0' ? v : 0;
}

/* "0-63", "0,2,4-7": how many CPUs */
static unsigned count_cpu_list(const char *t)
{
    unsigned count = 0;
    while (*t != '\0') {
        unsigned a = 0, b;
        if (*t < '0' || *t > '9')
            return count;
        for (; *t >= '0' && *t <= '9'; t++)
            a = a * 10 + (unsigned)(*t - '0');
        b = a;
        if (*t == '-') {
            b = 0;
            for (t++; *t >= '0' && *t <= '9'; t++)
                b = b * 10 + (unsigned)(*t - '0');
        }
        count += b >= a && b - a < 65536 ? b - a + 1 : 1;
        if (*t == ',')
            t++;
    }
    return count;
}

static void append(char *dst, size_t cap, size_t *len, const char *src)
{
    for (; *src != '\0' && *len + 1 < cap; src++)
        dst[(*len)++] = *src;
    dst[*len] = '\0';
}

/* The data and unified caches Linux describes in sysfs (on aarch64 from the
 * firmware's tables: absent on some machines, and under qemu-user it is
 * the host's). */
static void sysfs_caches(struct cwi_cpu *c)
{
    for (int i = 0; i < 8; i++) {
        char path[96], buf[64];
        size_t len = 0;
        path[0] = '\0';
        append(path, sizeof path, &len, "/sys/devices/system/cpu/cpu0/cache/index");
        char idx[2] = {(char)('0' + i), '\0'};
        append(path, sizeof path, &len, idx);
        append(path, sizeof path, &len, "/");
        size_t base = len;
        append(path, sizeof path, &len, "type");
        if (read_small(path, buf, sizeof buf) != 0)
            break;
        if (buf[0] == 'I') /* Instruction */
            continue;
        len = base;
        append(path, sizeof path, &len, "level");
        if (read_small(path, buf, sizeof buf) != 0)
            continue;
        int level = buf[0] - '0';
        len = base;
        append(path, sizeof path, &len, "size");
        size_t size = read_small(path, buf, sizeof buf) == 0 ? parse_cache_size(buf) : 0;
        if (level == 1) {
            c->l1d = size;
            len = base;
            append(path, sizeof path, &len, "coherency_line_size");
            if (read_small(path, buf, sizeof buf) == 0)
                c->line = parse_cache_size(buf);
        } else if (level == 2) {
            c->l2 = size;
        } else if (level == 3) {
            c->l3 = size;
            len = base;
            append(path, sizeof path, &len, "shared_cpu_list");
            if (read_small(path, buf, sizeof buf) == 0)
                c->threads_sharing_l3 = count_cpu_list(buf);
        }
    }
}

static unsigned hex_digit(char ch)
{
    if (ch >= '0' && ch <= '9')
        return (unsigned)(ch - '0');
    if (ch >= 'a' && ch <= 'f')
        return (unsigned)(ch - 'a' + 10);
    if (ch >= 'A' && ch <= 'F')
        return (unsigned)(ch - 'A' + 10);
    return 16;
}

/* MIDR_EL1: from sysfs, else by MRS where the kernel emulates it for EL0
 * (HWCAP_CPUID); 0 if neither. */
static uint64_t read_midr(unsigned long hwcap)
{
    char buf[40];
    if (read_small("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", buf,
                   sizeof buf) == 0) {
        const char *t = buf;
        if (t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
            t += 2;
        uint64_t v = 0;
        for (; *t != '\0' && hex_digit(*t) < 16; t++)
            v = v << 4 | hex_digit(*t);
        return v;
    }
    if (hwcap & CWI_HWCAP_CPUID) {
        uint64_t v;
        __asm__ volatile("mrs %0, midr_el1" : "=r"(v));
        return v;
    }
    return 0;
}

static const struct {
    unsigned code;
    const char *name;
} implementers[] = {
    {0x41, "ARM"},      {0x42, "Broadcom"}, {0x43, "Cavium"}, {0x46, "Fujitsu"},
    {0x48, "HiSilicon"}, {0x4e, "NVIDIA"},  {0x50, "APM"},    {0x51, "Qualcomm"},
    {0x61, "Apple"},    {0x6d, "Microsoft"}, {0xc0, "Ampere"},
};

/* Arm Ltd's server and common cores, for cw_info's model string */
static const struct {
    unsigned part;
    const char *name;
} arm_parts[] = {
    {0xd03, "Cortex-A53"},  {0xd07, "Cortex-A57"},  {0xd08, "Cortex-A72"},
    {0xd0b, "Cortex-A76"},  {0xd0c, "Neoverse-N1"}, {0xd40, "Neoverse-V1"},
    {0xd49, "Neoverse-N2"}, {0xd4f, "Neoverse-V2"}, {0xd84, "Neoverse-V3"},
    {0xd8e, "Neoverse-N3"},
};

static void put_hex(char *dst, size_t cap, size_t *len, unsigned v, int digits)
{
    char t[9];
    for (int i = digits - 1; i >= 0; i--, v >>= 4)
        t[i] = "0123456789abcdef"[v & 15];
    t[digits] = '\0';
    append(dst, cap, len, t);
}

static void detect_aarch64(struct cwi_cpu *c)
{
    unsigned long hwcap = getauxval(AT_HWCAP), hwcap2 = getauxval(AT_HWCAP2);
    if (hwcap & CWI_HWCAP_ASIMD)
        c->features |= CWI_F_ASIMD;
    if (hwcap & CWI_HWCAP_DCPOP)
        c->features |= CWI_F_DCPOP;
    if (hwcap & CWI_HWCAP_SVE)
        c->features |= CWI_F_SVE;
    if (hwcap2 & CWI_HWCAP2_DCPODP)
        c->features |= CWI_F_DCPODP;

    uint64_t midr = read_midr(hwcap);
    unsigned impl = (unsigned)(midr >> 24) & 0xff, part = (unsigned)(midr >> 4) & 0xfff;
    c->family = impl;
    c->model_number = part;
    c->stepping = (unsigned)midr & 0xf; /* the revision */
    size_t len = 0;
    const char *vendor = NULL;
    for (size_t i = 0; i < sizeof implementers / sizeof implementers[0]; i++)
        if (implementers[i].code == impl)
            vendor = implementers[i].name;
    if (vendor != NULL) {
        append(c->vendor, sizeof c->vendor, &len, vendor);
    } else {
        append(c->vendor, sizeof c->vendor, &len, "0x");
        put_hex(c->vendor, sizeof c->vendor, &len, impl, 2);
    }
    len = 0;
    const char *model = NULL;
    for (size_t i = 0; impl == 0x41 && i < sizeof arm_parts / sizeof arm_parts[0]; i++)
        if (arm_parts[i].part == part)
            model = arm_parts[i].name;
    if (model != NULL) {
        append(c->model, sizeof c->model, &len, model);
    } else if (midr != 0) {
        append(c->model, sizeof c->model, &len, "MIDR 0x");
        put_hex(c->model, sizeof c->model, &len, (unsigned)midr, 8);
    }
    sysfs_caches(c);
    if (c->line == 0) {
        uint64_t ctr;
        __asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
        c->line = (size_t)4 << ((ctr >> 16) & 0xf);
    }
}
#endif

static size_t sysconf_size(int name)
{
    long v = sysconf(name);
    return v > 0 ? (size_t)v : 0;
}

void cwi_cpu_detect(struct cwi_cpu *c)
{
    *c = (struct cwi_cpu){.threads_sharing_l3 = 0};
#if defined(__x86_64__)
    detect_x86(c);
#elif defined(__aarch64__) && defined(__linux__)
    detect_aarch64(c);
#endif
#if defined(_SC_LEVEL1_DCACHE_SIZE)
    if (c->l1d == 0)
        c->l1d = sysconf_size(_SC_LEVEL1_DCACHE_SIZE);
    if (c->l2 == 0)
        c->l2 = sysconf_size(_SC_LEVEL2_CACHE_SIZE);
    if (c->l3 == 0)
        c->l3 = sysconf_size(_SC_LEVEL3_CACHE_SIZE);
    if (c->line == 0)
        c->line = sysconf_size(_SC_LEVEL1_DCACHE_LINESIZE);
#else
    (void)sysconf_size;
#endif
    if (c->line == 0)
        c->line = 64;
    /* threads_sharing_l3 stays 0 where nothing said: cwi_cache_trust()
     * (src/policy.c) must know that the sharing is unknown */
    cwi_cache_trust(c);
}
