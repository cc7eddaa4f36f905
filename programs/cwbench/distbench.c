/* `cwbench dist FILE`: call sizes drawn from a size-distribution file (as
 * LLVM libc benchmarks memcpy on fleet distributions), at random source and
 * destination offsets within an L1-sized region; calls/s and bytes/s per
 * routine, interleaved, with verdicts against glibc memcpy. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "dist.h"
#include "stats.h"

static const char *const default_routines[] = {
    "cw_memcpy", "glibc_memcpy", "rep_movsb", "cw_memcpy_nt", NULL,
};

int cwb_cmd_dist(const struct cwb_opts *o)
{
    double t_start = cwb_now();
    const struct cwb_routine *rt[CWB_MAX_ROUTINES];
    size_t nrt;
    if (cwb_pick_routines(o->routines, default_routines, rt, &nrt) != 0)
        return 2;
    struct cwb_dist d;
    char err[512];
    if (cwb_dist_load(&d, o->file, err, sizeof err) != 0)
        return cwb_usage_error("%s", err);

    size_t ncalls = o->quick ? 512 : 4096;
    size_t l1 = cw_get_info()->l1d_size ? cw_get_info()->l1d_size : (size_t)32 << 10;
    uint64_t rng = o->seed;
    struct cwb_call *calls = malloc(ncalls * sizeof *calls);
    if (calls == NULL) {
        cwb_dist_free(&d);
        return 1;
    }
    size_t maxn = 0;
    double total = 0;
    for (size_t i = 0; i < ncalls; i++) {
        calls[i].n = cwb_dist_sample(&d, &rng);
        /* Any byte offset: the alignment is random too, as in a real
         * program's calls. */
        calls[i].soff = (size_t)(cwb_rand(&rng) % l1);
        calls[i].doff = (size_t)(cwb_rand(&rng) % l1);
        if (calls[i].n > maxn)
            maxn = calls[i].n;
        total += (double)calls[i].n;
    }
    size_t region = l1 + maxn;
    int samples = o->samples ? o->samples : o->quick ? 3 : 15;
    struct cwb_engine e;
    if (cwb_engine_init(&e, region + ((size_t)64 << 10), samples, o->quick ? 20e-6 : 200e-6,
                        o->seed) != 0) {
        fprintf(stderr, "cwbench: cannot allocate the buffers\n");
        free(calls);
        cwb_dist_free(&d);
        return 1;
    }
    e.stack_at = o->stack_at;
    struct cwb_results res;
    cwb_results_init(&res);
    cwb_common_meta(&res, o, "cwbench dist");
    cwb_results_meta(&res, "dist_file", o->file);
    struct cwb_spec sp = {.state = CWB_RANDOM, .size = (size_t)(total / (double)ncalls + 0.5),
                          .calls = calls, .n_calls = ncalls, .region = region,
                          .src_off = -1, .dst_off = -1};
    char a[32], b[32];
    printf("cwbench dist %s: %zu distinct sizes, mean %.1f B (file), %zu-call sequence with mean "
           "%.1f B, max %s\n", o->file, d.n, d.mean_size, ncalls, total / (double)ncalls,
           cwb_fmt_size(maxn, a, sizeof a));
    printf("random source and destination offsets (any alignment) within %s; every routine "
           "replays the same sequence; %d interleaved samples\n\n",
           cwb_fmt_size(l1, b, sizeof b), samples);
    struct cwb_run runs[CWB_MAX_ROUTINES];
    cwb_progress_begin("dist", 1);
    int failed = cwb_measure(&e, &sp, rt, nrt, runs) != 0;
    cwb_progress_end();

    double *cps[CWB_MAX_ROUTINES];
    size_t g = cwb_routine_index(rt, nrt, "glibc_memcpy");
    printf("%-22s %14s %*s %9s %9s  %s\n", "routine", "Mcalls/s", cwb_colw("±%", 7), "±%",
           "GB/s", "ns/call",
           "verdict vs glibc_memcpy (calls/s)");
    for (size_t j = 0; j < nrt; j++) {
        cps[j] = NULL;
        if (runs[j].n == 0)
            continue;
        cps[j] = malloc(runs[j].n * sizeof(double));
        if (cps[j] == NULL)
            continue;
        for (size_t k = 0; k < runs[j].n; k++)
            cps[j][k] = (double)runs[j].calls / runs[j].wall[k];
        struct cwb_cell proto;
        memset(&proto, 0, sizeof proto);
        snprintf(proto.routine, sizeof proto.routine, "%s", rt[j]->name);
        snprintf(proto.bench, sizeof proto.bench, "dist");
        snprintf(proto.state, sizeof proto.state, "random");
        snprintf(proto.unit, sizeof proto.unit, "calls/s");
        proto.size = sp.size;
        proto.src_off = proto.dst_off = -1;
        proto.higher_is_better = 1;
        double *cpu = malloc(runs[j].n * sizeof(double));
        if (cpu != NULL)
            for (size_t k = 0; k < runs[j].n; k++)
                cpu[k] = runs[j].cpu[k] > 0 ? (double)runs[j].calls / runs[j].cpu[k] : NAN;
        cwb_results_add(&res, &proto, cps[j], cpu, runs[j].n);
        free(cpu);
    }
    for (size_t j = 0; j < nrt; j++) {
        if (runs[j].n == 0 || cps[j] == NULL) {
            printf("%-22s %s\n", rt[j]->name, runs[j].failed ? "FAILED" : "n/a");
            if (runs[j].failed || runs[j].unavailable)
                fprintf(stderr, "cwbench: %s\n", runs[j].err);
            continue;
        }
        double med, spread;
        cwb_median_spread(cps[j], runs[j].n, &med, &spread);
        char v[160] = "(baseline)";
        struct cwb_cmp c;
        if (j != g && g < nrt && cps[g] != NULL &&
            cwb_compare(cps[g], runs[g].n, cps[j], runs[j].n, 0.05, &c) == 0)
            cwb_verdict(&c, 1, v, sizeof v);
        else if (j != g)
            snprintf(v, sizeof v, "-");
        printf("%-22s %14.2f %7.1f %9.2f %9.1f  %s%s\n", rt[j]->name, med / 1e6, spread * 100,
               med * runs[j].bytes / (double)runs[j].calls / 1e9, 1e9 / med, v,
               runs[j].preempted ? " *" : "");
    }
    for (size_t j = 0; j < nrt; j++) {
        free(cps[j]);
        cwb_run_free(&runs[j]);
    }
    cwb_print_preemption(&e);
    cwb_engine_free(&e);
    free(calls);
    cwb_dist_free(&d);
    if (cwb_write_outputs(&res, o) != 0)
        failed = 1;
    cwb_results_free(&res);
    printf("total time %.1f s\n", cwb_now() - t_start);
    return failed ? 1 : 0;
}
