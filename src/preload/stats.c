/* SPDX-License-Identifier: MIT */
/* CACHEWISE_STATS: what the shim did, written at exit. The calls and bytes
 * per size class and per path (inline, temporal loops, rep movsb, streaming
 * stores, streaming by rep movsb, src_noreuse, overlapping), with the
 * policy that decided them. CACHEWISE_STATS=1 writes them to the stderr the
 * program started with (kept: see out.c), any other value names a file (%p:
 * the pid), written whole or not at all as the profile is. Secure mode
 * ignores the setting (cwi_getenv). The counting is the profile's
 * (profile.c); this file adds each call's path and the report. */
#include <limits.h>
#include <stdatomic.h>
#include <unistd.h>

#include "out.h"
#include "policy.h"
#include "preload.h"

int cwp_stats;
static int g_to_file;
static char g_template[PATH_MAX]; /* absolute, still with %p */
static char g_path[PATH_MAX + 32];

void cwp_stats_setup(void)
{
    const char *v = cwi_getenv("CACHEWISE_STATS");
    if (v == NULL || v[0] == '\0' || (v[0] == '0' && v[1] == '\0'))
        return;
    if (!(v[0] == '1' && v[1] == '\0')) {
        const char *why;
        if (cwp_absolute(g_template, sizeof g_template, v, &why) != 0) {
            cwp_say("CACHEWISE_STATS: ", why, "; no statistics\n");
            return;
        }
        g_to_file = 1;
    }
    cwp_keep_stderr();
    cwp_stats = cwp_counting = 1;
}

const char *cwp_stats_target(char *buf, size_t cap)
{
    if (!cwp_stats)
        return "off";
    if (!g_to_file)
        return "stderr";
    return cwp_expand(buf, cap, g_template, getpid()) == 0 ? buf : g_template;
}

/* The shim's do_copy and cw_memcpy's tests, in their order. */
static int shim_path(const void *dst, const void *src, size_t n)
{
    if (!cwp_disjoint(dst, src, n))
        return CWI_PATH_OVERLAP;
    if (n >= cwp_srcnta_threshold)
        return CWI_PATH_SRC_NOREUSE;
    return cwi_memcpy_path(dst, src, n);
}

void cwp_count_path(const void *dst, const void *src, size_t n)
{
    struct cwp_slot *s = cwp_tls_slot; /* cwp_record just took it */
    if (s == NULL)
        return;
    int p = shim_path(dst, src, n);
    if (s->shared) {
        atomic_fetch_add_explicit(&s->path_calls[p], 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&s->path_bytes[p], n, memory_order_relaxed);
    } else {
        cwp_bump(&s->path_calls[p], 1);
        cwp_bump(&s->path_bytes[p], n);
    }
}

/* ---- the report ---- */

static const char *const path_names[CWI_NPATH] = {
    [CWI_PATH_INLINE] = "inline",
    [CWI_PATH_TEMPORAL] = "temporal loop",
    [CWI_PATH_REP] = "rep movsb",
    [CWI_PATH_STREAM] = "streaming stores",
    [CWI_PATH_STREAM_REP] = "streaming rep movsb",
    [CWI_PATH_SRC_NOREUSE] = "src_noreuse",
    [CWI_PATH_OVERLAP] = "overlapping",
};

/* Size classes: edges where the histogram is exact (every size to 4096,
 * powers of two above). */
static const struct {
    const char *name;
    uint64_t lo, hi;
} classes[] = {
    {"0..32", 0, 32},
    {"33..128", 33, 128},
    {"129..512", 129, 512},
    {"513..4K", 513, 4096},
    {"4K+1..32K-1", 4097, 32767},
    {"32K..256K-1", 32768, 262143},
    {"256K..2M-1", 262144, 2097151},
    {"2M..16M-1", 2097152, 16777215},
    {">=16M", 16777216, UINT64_MAX},
};

static uint64_t calls_between(uint64_t lo, uint64_t hi)
{
    uint64_t c = 0;
    for (size_t i = 0; i < CWP_NBUCKETS; i++) {
        /* a log2 bucket lies wholly inside or outside a class */
        uint64_t size = i <= CWP_EXACT_MAX
                            ? i
                            : (uint64_t)1 << (CWP_LOG_FIRST + (i - CWP_EXACT_MAX - 1));
        if (i == CWP_EXACT_MAX + 1)
            size = CWP_EXACT_MAX + 1;
        if (size >= lo && size <= hi)
            c += cwp_total.count[i];
    }
    return c;
}

/* part / total as a percentage with one decimal, right-aligned in 7 columns. */
static void out_share(struct cwp_out *o, uint64_t part, uint64_t total)
{
    char b[24], pct[32];
    size_t len = 0;
    pct[0] = '\0';
    uint64_t tenths =
        total == 0 ? 0
                   : (uint64_t)(((unsigned __int128)part * 1000 + total / 2) / total);
    (void)cwp_str_append(pct, sizeof pct, &len, cwp_u64_str(b, tenths / 10));
    (void)cwp_str_append(pct, sizeof pct, &len, ".");
    (void)cwp_str_append(pct, sizeof pct, &len, cwp_u64_str(b, tenths % 10));
    (void)cwp_str_append(pct, sizeof pct, &len, "%");
    cwp_out_right(o, pct, 7);
}

static void row(struct cwp_out *o, const char *name, uint64_t calls, uint64_t calls_all,
                uint64_t bytes, uint64_t bytes_all)
{
    char b[24];
    cwp_out_str(o, "  ");
    cwp_out_str(o, name);
    for (size_t n = cwp_str_len(name); n < 20; n++)
        cwp_out_str(o, " ");
    cwp_out_right(o, cwp_u64_str(b, calls), 14);
    cwp_out_str(o, " ");
    out_share(o, calls, calls_all);
    cwp_out_str(o, " ");
    cwp_out_right(o, cwp_u64_str(b, bytes), 20);
    cwp_out_str(o, " ");
    out_share(o, bytes, bytes_all);
    cwp_out_str(o, "\n");
}

static void out_size(struct cwp_out *o, const char *label, uint64_t v)
{
    cwp_out_str(o, label);
    cwp_out_u64(o, v);
    cwp_out_str(o, " B");
}

static void emit(struct cwp_out *o, void *arg)
{
    pid_t pid = *(const pid_t *)arg;
    uint64_t calls = 0, bytes = cwp_bytes_ge(0);
    for (size_t i = 0; i < CWP_NBUCKETS; i++)
        calls += cwp_total.count[i];
    const struct cwi_impl *impl = cwi_active();

    cwp_out_str(o, "cachewise-preload stats: ");
    cwp_out_str(o, cwp_program());
    cwp_out_str(o, " (pid ");
    cwp_out_u64(o, (uint64_t)pid);
    cwp_out_str(o, "): ");
    cwp_out_u64(o, calls);
    cwp_out_str(o, " calls, ");
    cwp_out_u64(o, bytes);
    cwp_out_str(o, " bytes\n  policy: impl ");
    cwp_out_str(o, cwi_info.impl != NULL ? cwi_info.impl : "?");
    cwp_out_str(o, ", profile ");
    cwp_out_str(o, cwi_info.profile != NULL ? cwi_info.profile : "?");
    cwp_out_str(o, "; ");
    if (cwi_inline_max() != 0)
        out_size(o, "inline up to ", cwi_inline_max());
    else
        cwp_out_str(o, "no inline path");
    cwp_out_str(o, "; rep movsb ");
    if (impl->path == NULL || CWI_POL(rep_mode) == CWI_REP_OFF ||
        CWI_POL(rep_min) > CWI_POL(rep_max)) {
        cwp_out_str(o, "off");
    } else {
        /* the window as cw_memcpy sees it: streaming takes over at the threshold */
        size_t hi = CWI_POL(rep_max) < cwp_nt_threshold ? CWI_POL(rep_max) : cwp_nt_threshold - 1;
        cwp_out_u64(o, CWI_POL(rep_min));
        cwp_out_str(o, "..");
        cwp_out_u64(o, hi);
        if (CWI_POL(rep_mode) == CWI_REP_ALIGNED)
            cwp_out_str(o, " B (both 64-byte aligned)");
        else if (CWI_POL(rep_mode) == CWI_REP_ALIGN_DST_FAR)
            cwp_out_str(o, " B (any alignment, but not dst 1-63 B past src mod 4 KiB)");
        else
            cwp_out_str(o, " B (any alignment)");
    }
    out_size(o, "; streaming from ", cwp_nt_threshold);
    if (impl->path != NULL && CWI_POL(stream_method) == CWI_STREAM_REP) {
        out_size(o, " (by rep movsb from ", CWI_POL(stream_rep_min));
        cwp_out_str(o, ")");
    }
    cwp_out_str(o, "; src_noreuse ");
    if (cwp_srcnta_threshold == SIZE_MAX)
        cwp_out_str(o, "off");
    else
        out_size(o, "from ", cwp_srcnta_threshold);
    cwp_out_str(o, "\n  size class                   calls   share                bytes   share\n");
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
        row(o, classes[i].name, calls_between(classes[i].lo, classes[i].hi), calls,
            cwp_bytes_between(classes[i].lo, classes[i].hi), bytes);
    cwp_out_str(o, "  path                         calls   share                bytes   share\n");
    for (int p = 0; p < CWI_NPATH; p++)
        row(o, path_names[p], cwp_total.path_calls[p], calls, cwp_total.path_bytes[p], bytes);
}

void cwp_stats_write(void)
{
    if (!cwp_stats || !cwp_out_lock())
        return;
    pid_t pid = getpid();
    cwp_merge();
    if (!g_to_file)
        cwp_write_err(emit, &pid);
    else if (cwp_expand(g_path, sizeof g_path, g_template, pid) != 0)
        cwp_say("CACHEWISE_STATS: path too long; no statistics\n", NULL, NULL);
    else
        cwp_write_file(g_path, "statistics", emit, &pid);
    cwp_out_unlock();
}
