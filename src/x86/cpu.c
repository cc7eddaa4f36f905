/* SPDX-License-Identifier: MIT */
/* x86-64 CPU detection: the CPUID + XGETBV feature ladder, vendor, model
 * string, family/model/stepping and the cache topology (CPUID leaf 4 or
 * AMD's 0x8000001D, else AMD's legacy leaves 0x80000005/6). The rest of
 * cwi_cpu_detect (fallbacks, the trusted L3) is src/cpu.c. Compiled for the
 * baseline ISA: nothing here may need more than x86-64. */
#include <cpuid.h>
#include <string.h>

#include "internal.h"

static CWI_EARLY void cpuid(unsigned leaf, unsigned sub, unsigned r[4])
{
    __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}

/* Library code never calls memcpy: under the LD_PRELOAD shim that would
 * recurse into cachewise before it is initialised. */
static CWI_EARLY void put_u32(char *p, uint32_t v)
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
        if (r[3] & (1u << 24))
            f |= CWI_F_AMX_TILE;
    }
    return f;
}

CWI_EARLY unsigned cwi_cpu_identity(char vendor[13], unsigned *family, unsigned *model,
                                    unsigned *stepping)
{
    unsigned r[4];
    cpuid(0, 0, r);
    unsigned max_leaf = r[0];
    put_u32(vendor + 0, r[1]);
    put_u32(vendor + 4, r[3]);
    put_u32(vendor + 8, r[2]);
    vendor[12] = '\0';
    *family = *model = *stepping = 0;
    if (max_leaf >= 1) {
        cpuid(1, 0, r);
        unsigned base_family = (r[0] >> 8) & 0xf, base_model = (r[0] >> 4) & 0xf;
        *family = base_family == 0xf ? base_family + ((r[0] >> 20) & 0xff) : base_family;
        *stepping = r[0] & 0xf;
        *model = base_family == 6 || base_family == 0xf ? base_model | (((r[0] >> 16) & 0xf) << 4)
                                                        : base_model;
    }
    return max_leaf;
}

void cwi_cpu_detect_arch(struct cwi_cpu *c)
{
    unsigned r[4];
    unsigned max_leaf = cwi_cpu_identity(c->vendor, &c->family, &c->model_number, &c->stepping);
    int amd = strcmp(c->vendor, "AuthenticAMD") == 0 || strcmp(c->vendor, "HygonGenuine") == 0;
    c->features = cwi_cpu_features();

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
