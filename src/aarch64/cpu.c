/* SPDX-License-Identifier: MIT */
/* aarch64 CPU detection on Linux: the kernel's hwcaps, MIDR_EL1 (vendor,
 * part and revision, from sysfs or by MRS) and the caches Linux describes
 * in sysfs, the line size from CTR_EL0 where sysfs has none. The rest of
 * cwi_cpu_detect (fallbacks, the trusted L3) is src/cpu.c. Compiled for the
 * baseline ISA: nothing here may need more than ARMv8.0-A. Elsewhere than
 * Linux nothing is detected here. */
#include "internal.h"

#if defined(__linux__)
#include <fcntl.h>
#include <sys/auxv.h>
#include <unistd.h>

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
    {0x41, "ARM"},       {0x42, "Broadcom"},  {0x43, "Cavium"}, {0x46, "Fujitsu"},
    {0x48, "HiSilicon"}, {0x4e, "NVIDIA"},    {0x50, "APM"},    {0x51, "Qualcomm"},
    {0x61, "Apple"},     {0x6d, "Microsoft"}, {0xc0, "Ampere"},
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

void cwi_cpu_detect_arch(struct cwi_cpu *c)
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
#else
void cwi_cpu_detect_arch(struct cwi_cpu *c)
{
    (void)c;
}
#endif
