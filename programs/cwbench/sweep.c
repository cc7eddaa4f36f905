/* `cwbench sweep`: routines x sizes x misalignment sets x cache states.
 * Sizes: fine steps 0..4096, then powers of two to 256 MiB. States: hot
 * (the same buffers), cold (rotating through a pool of at least 4x the
 * LLC), random (random offsets and alignments within a region). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "stats.h"

#define MAX_ALIGNS 16
#define MAX_SWEEP_SIZES 128

static const char *const default_routines[] = {
    "cw_memcpy", "cw_memcpy_nt", "cw_copy_nta", "glibc_memcpy", "rep_movsb", "stream_avx2", NULL,
};

static size_t default_sizes(size_t *s, size_t max)
{
    size_t n = 0;
    for (size_t v = 0; v < 64; v += 4)
        s[n++] = v;
    for (size_t v = 64; v < 512; v += 32)
        s[n++] = v;
    for (size_t v = 512; v <= 4096; v += 256)
        s[n++] = v;
    for (size_t v = 8192; v <= ((size_t)256 << 20); v *= 2)
        s[n++] = v;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] <= max)
            s[k++] = s[i];
    return k;
}

static int parse_aligns(const char *text, int (*al)[2], size_t *n)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    *n = 0;
    for (char *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
        int s, d, used = 0;
        if (sscanf(t, "%d:%d%n", &s, &d, &used) != 2 || t[used] != '\0' || s < 0 || s > 4095 ||
            d < 0 || d > 4095)
            return cwb_usage_error("--align %s: need SRC:DST byte offsets 0..4095, e.g. 0:1", t);
        if (*n == MAX_ALIGNS)
            return cwb_usage_error("--align: at most %d pairs", MAX_ALIGNS);
        al[*n][0] = s;
        al[(*n)++][1] = d;
    }
    if (*n == 0)
        return cwb_usage_error("--align: empty list");
    return 0;
}

static int parse_states(const char *text, enum cwb_state *st, size_t *n)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    *n = 0;
    for (char *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
        if (*n == 3)
            return cwb_usage_error("--states: at most hot, cold and random once each");
        if (strcmp(t, "hot") == 0)
            st[(*n)++] = CWB_HOT;
        else if (strcmp(t, "cold") == 0)
            st[(*n)++] = CWB_COLD;
        else if (strcmp(t, "random") == 0)
            st[(*n)++] = CWB_RANDOM;
        else
            return cwb_usage_error("--states: unknown state '%s' (hot, cold, random)", t);
    }
    if (*n == 0)
        return cwb_usage_error("--states: empty list");
    return 0;
}

/* Random state: calls at random source and destination offsets (so random
 * alignments too) within a region of 4x the size, at least 64 KiB. */
static struct cwb_call *random_calls(size_t size, size_t region, size_t n, uint64_t *rng)
{
    struct cwb_call *c = malloc(n * sizeof *c);
    if (c == NULL)
        return NULL;
    size_t span = region - size + 1;
    for (size_t i = 0; i < n; i++) {
        c[i].n = size;
        c[i].soff = (size_t)(cwb_rand(rng) % span);
        c[i].doff = (size_t)(cwb_rand(rng) % span);
    }
    return c;
}

int cwb_cmd_sweep(const struct cwb_opts *o)
{
    double t_start = cwb_now();
    const struct cwb_routine *rt[CWB_MAX_ROUTINES];
    size_t nrt;
    if (cwb_pick_routines(o->routines, default_routines, rt, &nrt) != 0)
        return 2;
    int al[MAX_ALIGNS][2];
    size_t nal;
    enum cwb_state st[3];
    size_t nst;
    if (parse_aligns(o->aligns ? o->aligns : o->quick ? "0:0,1:3" : "0:0,0:1,5:0,3:13", al,
                     &nal) != 0 ||
        parse_states(o->states ? o->states : "hot,cold,random", st, &nst) != 0)
        return 2;
    size_t max = o->max_size ? o->max_size : o->quick ? (size_t)64 << 10 : (size_t)256 << 20;
    size_t sizes[MAX_SWEEP_SIZES], nsz = 0;
    if (o->n_sizes) {
        for (size_t i = 0; i < o->n_sizes; i++)
            if (o->sizes[i] <= max)
                sizes[nsz++] = o->sizes[i];
    } else if (o->quick) {
        static const size_t q[] = {0, 1, 7, 64, 100, 4096, 65536};
        for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
            if (q[i] <= max)
                sizes[nsz++] = q[i];
    } else {
        nsz = default_sizes(sizes, max);
    }
    if (nsz == 0)
        return cwb_usage_error("sweep: no size left at or below --max-size %zu", max);
    size_t biggest = 0;
    for (size_t i = 0; i < nsz; i++)
        if (sizes[i] > biggest)
            biggest = sizes[i];
    int samples = o->samples ? o->samples : o->quick ? 3 : 10;
    size_t llc = cwb_llc_bytes();
    /* The cold pool must outgrow the LLC several times over so a slot is
     * evicted before the rotation comes back to it. */
    size_t pool = o->quick ? (size_t)8 << 20 : 4 * llc;
    if (pool < 4 * biggest + ((size_t)64 << 10))
        pool = 4 * biggest + ((size_t)64 << 10);
    struct cwb_engine e;
    if (cwb_engine_init(&e, pool, samples, o->quick ? 20e-6 : 100e-6, o->seed) != 0) {
        fprintf(stderr, "cwbench: cannot allocate 3 x %zu MiB of buffers\n", pool >> 20);
        return 1;
    }
    struct cwb_results res;
    cwb_results_init(&res);
    cwb_common_meta(&res, o, "cwbench sweep");
    struct cwb_ceiling ceil;
    cwb_measure_ceiling(&e, o->quick ? (size_t)8 << 20 : 4 * llc, &ceil);
    char buf[64];
    snprintf(buf, sizeof buf, "%.3f", ceil.ceiling_gbps);
    cwb_results_meta(&res, "copy_ceiling_gbps", buf);

    printf("cwbench sweep: %zu routines x %zu sizes x %zu alignments x %zu states, %d samples "
           "per cell (bytes counted once)\n", nrt, nsz, nal, nst, samples);
    printf("copy ceiling %.1f GB/s (read %.1f, streaming write %.1f); ns = per call; "
           "vs glibc = ratio of medians in the same cell\n\n", ceil.ceiling_gbps,
           ceil.read_gbps, ceil.write_gbps);
    printf("%-6s %-9s %-10s %-22s %10s %9s %5s %6s %8s\n", "state", "src:dst", "size",
           "routine", "ns", "GB/s", "±%", "%ceil", "vs glibc");
    int failed = 0;
    size_t total = nsz * nal * nst, done = 0;
    cwb_progress_begin("sweep", total);
    for (size_t si = 0; si < nst; si++) {
        for (size_t ai = 0; ai < nal; ai++) {
            for (size_t zi = 0; zi < nsz; zi++) {
                size_t size = sizes[zi];
                struct cwb_spec sp = {.state = st[si], .size = size, .src_off = al[ai][0],
                                      .dst_off = al[ai][1]};
                struct cwb_call *calls = NULL;
                if (st[si] == CWB_RANDOM) {
                    size_t region = size * 4 > ((size_t)64 << 10) ? size * 4 : (size_t)64 << 10;
                    if (region > e.pool - 16384)
                        region = e.pool - 16384;
                    calls = random_calls(size, region, 1024, &e.rng);
                    sp.calls = calls;
                    sp.n_calls = calls ? 1024 : 0;
                    sp.region = region;
                    sp.src_off = sp.dst_off = -1;
                }
                struct cwb_run runs[CWB_MAX_ROUTINES];
                if (cwb_measure(&e, &sp, rt, nrt, runs) != 0)
                    failed = 1;
                double glibc = NAN;
                double med_ns[CWB_MAX_ROUTINES];
                for (size_t j = 0; j < nrt; j++) {
                    med_ns[j] = NAN;
                    if (runs[j].n == 0)
                        continue;
                    double *per = malloc(runs[j].n * sizeof *per);
                    if (per == NULL)
                        continue;
                    for (size_t k = 0; k < runs[j].n; k++)
                        per[k] = runs[j].wall[k] / (double)runs[j].calls * 1e9;
                    double sp_unused;
                    cwb_median_spread(per, runs[j].n, &med_ns[j], &sp_unused);
                    free(per);
                    if (strcmp(rt[j]->name, "glibc_memcpy") == 0)
                        glibc = med_ns[j];
                }
                cwb_progress_clear();
                for (size_t j = 0; j < nrt; j++) {
                    char al_s[24], sz[32];
                    if (sp.state == CWB_RANDOM)
                        snprintf(al_s, sizeof al_s, "random");
                    else
                        snprintf(al_s, sizeof al_s, "%d:%d", al[ai][0], al[ai][1]);
                    cwb_fmt_size(size, sz, sizeof sz);
                    if (runs[j].failed || runs[j].unavailable) {
                        printf("%-6s %-9s %-10s %-22s %s\n", cwb_state_name(sp.state), al_s, sz,
                               rt[j]->name, runs[j].failed ? "FAILED" : "n/a");
                        if (runs[j].failed)
                            fprintf(stderr, "cwbench: %s\n", runs[j].err);
                        continue;
                    }
                    double *x = malloc(runs[j].n * sizeof *x);
                    if (x == NULL)
                        continue;
                    cwb_run_gbps(&runs[j], x, NULL);
                    double med, spread;
                    cwb_median_spread(x, runs[j].n, &med, &spread);
                    free(x);
                    if (size == 0)
                        printf("%-6s %-9s %-10s %-22s %10.1f %9s %5s %6s %8.2f%s\n",
                               cwb_state_name(sp.state), al_s, sz, rt[j]->name, med_ns[j], "-",
                               "-", "-", glibc / med_ns[j], runs[j].preempted ? " *" : "");
                    else
                        printf("%-6s %-9s %-10s %-22s %10.1f %9.2f %5.0f %6.0f %8.2f%s\n",
                               cwb_state_name(sp.state), al_s, sz, rt[j]->name, med_ns[j], med,
                               spread * 100, 100 * med / ceil.ceiling_gbps, glibc / med_ns[j],
                               runs[j].preempted ? " *" : "");
                    if (size > 0)
                        cwb_add_run(&res, rt[j]->name, "sweep", &sp, &runs[j]);
                }
                for (size_t j = 0; j < nrt; j++)
                    cwb_run_free(&runs[j]);
                free(calls);
                cwb_progress_step(++done);
            }
        }
    }
    cwb_progress_end();
    cwb_print_preemption(&e);
    cwb_engine_free(&e);
    if (cwb_write_outputs(&res, o) != 0)
        failed = 1;
    cwb_results_free(&res);
    printf("total time %.1f s\n", cwb_now() - t_start);
    return failed ? 1 : 0;
}
