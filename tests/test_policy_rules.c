/* SPDX-License-Identifier: MIT */
/* The policy's CPU rules as data, on CPUs described by hand: which profile
 * each vendor, family and model gets, which L3 the rules trust (a guest may
 * report a socket's L3 as one core's), and the streaming threshold that
 * follows. No CPU is needed: cwi_cpu structs stand in for what detection
 * would find. */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "test_util.h"

#define MiB ((size_t)1 << 20)

static struct cwi_cpu cpu(const char *vendor, unsigned family, unsigned model, size_t l2,
                          size_t l3, unsigned sharing)
{
    struct cwi_cpu c;
    memset(&c, 0, sizeof c);
    snprintf(c.vendor, sizeof c.vendor, "%s", vendor);
    c.family = family;
    c.model_number = model;
    c.l1d = 48 << 10;
    c.l2 = l2;
    c.l3 = l3;
    c.line = 64;
    c.threads_sharing_l3 = sharing;
    cwi_cache_trust(&c);
    return c;
}

static void trusted(const char *what, struct cwi_cpu c, size_t want)
{
    CWT_CHECK(c.l3_used == want, "%s: L3 used %zu MiB, want %zu MiB (%s)", what, c.l3_used >> 20,
              want >> 20, c.l3_note);
    CWT_CHECK(c.l3_note != NULL && c.l3_note[0] != '\0', "%s: no note", what);
}

static void profile(const char *what, struct cwi_cpu c, const char *want, size_t threshold)
{
    const struct cwi_profile *r = cwi_profile_for_cpu(&c);
#if defined(__aarch64__)
    /* the rows match by vendor first; past them every CPU gets the Arm row */
    if (strncmp(want, "generic", 7) == 0) {
        want = "generic-aarch64";
        threshold = 0;
    }
#endif
    CWT_CHECK(r != NULL && strcmp(r->name, want) == 0, "%s: profile %s, want %s", what,
              r ? r->name : "(none)", want);
    if (r == NULL || threshold == 0)
        return;
    struct cwi_policy p;
    cwi_policy_from_profile(&p, r, &c);
    CWT_CHECK(p.nt_threshold == threshold, "%s: threshold %zu, want %zu", what, p.nt_threshold,
              threshold);
}

/* the end of the rep movsb window the CPU's row gives it (x86 only: on
 * aarch64 every CPU gets generic-aarch64, which has no window) */
static void rep_window_end(const char *what, struct cwi_cpu c, size_t want)
{
#if defined(__aarch64__)
    (void)what;
    (void)c;
    (void)want;
#else
    const struct cwi_profile *r = cwi_profile_for_cpu(&c);
    struct cwi_policy p;
    cwi_policy_from_profile(&p, r, &c);
    CWT_CHECK(p.rep_max == want, "%s (%s): rep movsb window ends at %zu, want %zu", what, r->name,
              p.rep_max, want);
#endif
}

/* each row's streaming prefetch, as docs/TUNING.md's profile table states
 * it: the one measured gain on its own row only (a row's settings are
 * easily edited for the wrong row: the Zen 3 and Zen 4 rows share most of
 * their text) */
static void stream_prefetch(const char *name, size_t dist, int hint)
{
    const struct cwi_profile *r = cwi_profile_find(name);
    CWT_CHECK(r != NULL, "profile %s not in the table", name);
    if (r == NULL)
        return;
    CWT_CHECK(r->stream_pf_dist == dist && (dist == 0 || r->stream_pf_hint == hint),
              "%s: streaming prefetch %zu B with hint %d, want %zu B with hint %d", name,
              r->stream_pf_dist, r->stream_pf_hint, dist, hint);
}

int main(void)
{
    /* the Zen 5 guest: 508 MiB in 0x80000006, no 0x8000001D */
    struct cwi_cpu zen5 = cpu("AuthenticAMD", 0x1a, 2, 1 * MiB, 508 * MiB, 0);
    trusted("Zen 5 guest, socket L3, no sharing count", zen5, 32 * MiB);
    CWT_CHECK(strstr(zen5.l3_note, "508 MiB") != NULL, "the note names the reported L3: %s",
              zen5.l3_note);
    profile("Zen 5 Turin", zen5, "amd-zen5", 16 * MiB);
    profile("Zen 5 Granite Ridge", cpu("AuthenticAMD", 0x1a, 0x44, 1 * MiB, 32 * MiB, 16),
            "amd-zen5", 16 * MiB);
    profile("Zen 5 Strix (mobile)", cpu("AuthenticAMD", 0x1a, 0x24, 1 * MiB, 16 * MiB, 8),
            "generic-amd", 4 * MiB);
    /* credible reports are taken as they are */
    trusted("Zen 3, 32 MiB shared by 16", cpu("AuthenticAMD", 0x19, 1, 512 << 10, 32 * MiB, 16),
            32 * MiB);
    trusted("Zen 4 X3D, 96 MiB shared by 16", cpu("AuthenticAMD", 0x19, 0x61, 1 * MiB, 96 * MiB, 16),
            96 * MiB);
    trusted("Zen 4, 96 MiB with no sharing count", cpu("AuthenticAMD", 0x19, 0x11, 1 * MiB,
                                                       96 * MiB, 0), 32 * MiB);
    trusted("Zen 3, 256 MiB with a sharing count", cpu("AuthenticAMD", 0x19, 1, 512 << 10,
                                                       256 * MiB, 128), 32 * MiB);
    trusted("Zen 2, 64 MiB", cpu("AuthenticAMD", 0x17, 0x31, 512 << 10, 64 * MiB, 0), 16 * MiB);
    trusted("Intel mesh L3, 260 MiB", cpu("GenuineIntel", 6, 0xcf, 2 * MiB, 260 * MiB, 2),
            260 * MiB);
    trusted("no L3", cpu("AuthenticAMD", 0x1a, 2, 1 * MiB, 0, 0), 0);
    /* the rows by vendor, family and model, and their thresholds */
    profile("Zen 3 Milan", cpu("AuthenticAMD", 0x19, 1, 512 << 10, 32 * MiB, 16), "amd-zen3",
            8 * MiB);
    profile("Zen 4 Genoa", cpu("AuthenticAMD", 0x19, 0x11, 1 * MiB, 32 * MiB, 16), "amd-zen4",
            16 * MiB);
    profile("Zen 2 Rome", cpu("AuthenticAMD", 0x17, 0x31, 512 << 10, 16 * MiB, 8), "generic-amd",
            4 * MiB);
    profile("Hygon", cpu("HygonGenuine", 0x18, 0, 512 << 10, 8 * MiB, 0), "generic-amd", 2 * MiB);
    profile("Xeon model 207", cpu("GenuineIntel", 6, 0xcf, 2 * MiB, 260 * MiB, 2), "intel-server",
            3 * 512 * 1024);
    profile("Intel client", cpu("GenuineIntel", 6, 0x97, 1280 << 10, 30 * MiB, 16),
            "generic-intel", 30 * MiB / 4);
    /* a model the table does not know, with AMX tiles: the server row */
    struct cwi_cpu amx = cpu("GenuineIntel", 6, 0xa7, 2 * MiB, 105 * MiB, 0);
    profile("Xeon guest as model 167, no AMX", amx, "generic-intel", 105 * MiB / 4);
    amx.features |= CWI_F_AMX_TILE;
    profile("Xeon guest as model 167 with AMX", amx, "intel-server", 3 * 512 * 1024);
    struct cwi_cpu amx_other_family = cpu("GenuineIntel", 19, 1, 2 * MiB, 105 * MiB, 0);
    amx_other_family.features |= CWI_F_AMX_TILE;
    profile("AMX outside family 6", amx_other_family, "generic-intel", 105 * MiB / 4);
    struct cwi_cpu amd_amx = cpu("AuthenticAMD", 0x1a, 0x70, 1 * MiB, 32 * MiB, 16);
    amd_amx.features |= CWI_F_AMX_TILE;
    profile("the AMX bit on another vendor", amd_amx, "generic-amd", 8 * MiB);
    profile("another vendor", cpu("CentaurHauls", 7, 0x3b, 2 * MiB, 16 * MiB, 8), "generic",
            4 * MiB);
    /* generic-amd's rep movsb window ends at the L2 the CPU reports, at
     * 256 KiB where it reports none; the measured rows keep their own */
    rep_window_end("Zen 2 Rome", cpu("AuthenticAMD", 0x17, 0x31, 512 << 10, 16 * MiB, 8),
                   512 << 10);
    rep_window_end("Zen 5 Strix (mobile)", cpu("AuthenticAMD", 0x1a, 0x24, 1 * MiB, 16 * MiB, 8),
                   1 * MiB);
    rep_window_end("AMD without an L2 report", cpu("AuthenticAMD", 0x17, 0x31, 0, 16 * MiB, 8),
                   256 << 10);
    rep_window_end("Zen 3 Milan", cpu("AuthenticAMD", 0x19, 1, 512 << 10, 32 * MiB, 16),
                   256 << 10);
    rep_window_end("Zen 5 Turin", zen5, 16 * MiB);
    stream_prefetch("intel-server", 4 << 10, CWI_PF_T2);
    stream_prefetch("amd-zen3", 0, 0);
    stream_prefetch("amd-zen4", 4 << 10, CWI_PF_NTA);
    stream_prefetch("amd-zen5", 0, 0);
    stream_prefetch("generic-intel", 0, 0);
    stream_prefetch("generic-amd", 0, 0);
    stream_prefetch("generic-aarch64", 0, 0);
    stream_prefetch("generic", 0, 0);
    /* every profile name resolves */
    for (int i = 0; cwi_profile_names[i] != NULL; i++)
        CWT_CHECK(cwi_profile_find(cwi_profile_names[i]) != NULL, "profile %s not in the table",
                  cwi_profile_names[i]);
    return cwt_finish("test_policy_rules");
}
