/* SPDX-License-Identifier: MIT */
/* `cwbench tune`: measures, on the machine it runs on, each decision of the
 * copy policy (docs/TUNING.md) and writes a tuning file the library loads
 * (CACHEWISE_TUNING=FILE). Candidates are the library's own kernels under
 * different policies, interleaved sample by sample like routines (each
 * candidate's policy is put in force before its batch: cwb_routine's
 * prepare hook), compared with the Mann-Whitney test of --ab. Candidates
 * are put in force with cw_settings_apply(), the library's interface for
 * tools (a tuning file's lines as text), and the start-up policy comes back
 * with cw_settings_restore(); everything else is read from cw_get_info().
 * The method and the file format: docs/TUNING.md.
 *
 * A decision is measured where the library's kernels have instructions for
 * it: the streaming threshold everywhere; the streaming prefetch and
 * CW_SRC_NOREUSE's modes on x86-64 (prefetcht0/t1/t2/nta, clflushopt) and
 * aarch64 (PRFM PLDL1KEEP/PLDL2KEEP/PLDL3KEEP/PLDL1STRM; no flush mode
 * without clflushopt); rep movsb and the small-persist rule (movnti or clwb)
 * on x86-64 only. Elsewhere a decision keeps the value of the policy in force
 * (the profile's; rep movsb off), and the file says so. Under an emulator
 * every figure is the translator's: the run says so, and still writes a
 * valid file (the tests load it).
 *
 * This file runs the decisions in order, prints what they found and writes
 * the file. The decisions: decide_copy_kernels.c (1, 2, 3, 6: the kernels a
 * copy runs), decide_hints.c (4, 5: CW_SRC_NOREUSE, small persists),
 * tune_threads.c (7: parallel_threads), tune_entry.c (8, 9, 10: cw_memcpy's
 * small copies). */
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "base/format.h"
#include "cmd/common.h"
#include "cmd/options.h"
#include "engine/measure.h"
#include "platform/arch.h"
#include "platform/machine.h"
#include "tune/candidates.h"
#include "tune/decide.h"
#include "tune/tune.h"
#include "tune/tune_entry.h"
#include "cachewise.h"

const char *tune_fmt_size(size_t n, char buf[32])
{
    return cwb_fmt_size(n, buf, 32);
}

void tune_say(const char *phase, size_t i, size_t n)
{
    fprintf(stderr, "cwbench tune: %s (%zu/%zu)\n", phase, i, n);
}

#ifndef TUNE_X86
/* The decisions this architecture's kernels have no instruction for (the
 * comment at the top), not measured: the values of the policy in force
 * stay, rep movsb is off (the library turns it off without ERMS anyway),
 * and each evidence line says why. */
static void keep_unmeasured(struct tune_found *f)
{
    static const struct { int k, prefetch; const char *what; } kept[] = {
        {0, 1, "its kernels have no software prefetch; the profile's values kept"},
        {2, 0, "rep movsb is an x86 instruction; off, the window kept at the profile's value"},
        {3, 1, "its kernels have no source prefetch or flush; the profile's values kept"},
        {4, 0, "its choice is between x86 instructions (movnti, clwb); the profile's value "
               "kept"},
        {5, 0, "rep movsb is an x86 instruction; streaming stores"},
        {7, 0, "its row has one temporal copy kernel for every size; the profile's value "
               "kept"},
        {8, 0, "its entries copy nothing themselves; the profile's value kept"},
        {9, 0, "its row has one temporal copy kernel for every size; the profile's value "
               "kept"},
    };
    f->pol.v[TK_REP_MOVSB] = REP_OFF;
    f->pol.v[TK_STREAM_METHOD] = STREAM_NT;
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
#ifdef TUNE_PREFETCH
        if (kept[i].prefetch)
            continue; /* measured here */
#endif
        snprintf(f->why[kept[i].k], sizeof f->why[kept[i].k], "not measured on %s: %s",
                 CWB_ARCH_NAME, kept[i].what);
    }
}
#endif

/* ---- output ------------------------------------------------------------------ */

int cwb_cmd_tune(const struct tune_opts *t, const struct cwb_opts *o)
{
    double t_start = cwb_now();
    const struct cw_info *in = cw_get_info();
    /* the CPU's features and caches: cw_info's */
    const struct cw_info *cpu = in;
    struct tune_policy builtin;
    struct tune_found f;
    memset(&f, 0, sizeof f);
    /* start from the policy in force (CACHEWISE_TUNING=generic: generic);
     * beside it, the CPU's own profile */
    if (tune_policy_read(&f.pol, in->settings, in->n_settings) != 0 ||
        tune_policy_read(&builtin, in->cpu_profile_settings, in->n_settings) != 0)
        return 1;
    size_t pool = t->quick ? 16 * MiB : 4 * cwb_llc_bytes();
    if (pool < 4 * t->big)
        pool = 4 * t->big;
    if (pool > 1024 * MiB)
        pool = 1024 * MiB;
    struct cwb_engine e;
    if (cwb_engine_open(&e, pool, o->samples ? o->samples : t->quick ? 3 : 21, o) != 0)
        return 1;
    cwb_emulation_banner(stdout, 1);
    printf("cwbench tune: %s (%s family %u model %u), implementation %s; starting from "
           "profile %s (%s)\n", in->cpu_model, in->cpu_vendor, in->cpu_family,
           in->cpu_model_number, in->impl, in->profile, in->tuning);
    fflush(stdout);
    int rc = 0;
#if defined(TUNE_X86)
    if (tune_stream_prefetch(&e, t, &f) != 0 || tune_nt_threshold(&e, t, &f) != 0 ||
        tune_rep_movsb(&e, t, &f, cpu->erms != 0) != 0 ||
        tune_stream_method(&e, t, &f, cpu) != 0 ||
        tune_src_noreuse(&e, t, &f, cpu) != 0 || tune_persist_small(&e, &f, cpu) != 0 ||
        tune_memcpy_mid(&e, &f.pol, f.why[7], sizeof f.why[7]) != 0 ||
        tune_memcpy_inline(&e, &f.pol, f.why[8], sizeof f.why[8]) != 0 ||
        tune_memcpy_lines(&e, &f.pol, f.why[9], sizeof f.why[9]) != 0) {
#elif defined(TUNE_PREFETCH)
    keep_unmeasured(&f);
    if (tune_stream_prefetch(&e, t, &f) != 0 || tune_nt_threshold(&e, t, &f) != 0 ||
        tune_src_noreuse(&e, t, &f, cpu) != 0) {
#else
    keep_unmeasured(&f);
    if (tune_nt_threshold(&e, t, &f) != 0) {
#endif
        fprintf(stderr, "cwbench tune: a measurement failed\n");
        rc = 1;
    }
    /* the thread count under the policy measured so far */
    tune_policy_apply(&f.pol);
    if (rc == 0 && tune_parallel_threads(&e, t, &f.pol.v[TK_PARALLEL_THREADS], f.why[6],
                                         sizeof f.why[6]) != 0) {
        fprintf(stderr, "cwbench tune: a measurement failed\n");
        rc = 1;
    }
    cwb_engine_free(&e);
    cw_settings_restore();
    if (rc != 0)
        return rc;

    char vf[TUNE_N_KEYS][32], vb[TUNE_N_KEYS][32];
    tune_policy_rows(&f.pol, vf);
    tune_policy_rows(&builtin, vb);
    printf("\n%-26s %-14s %-14s %s\n", "setting", "measured", in->cpu_profile, "");
    for (int k = 0; k < TUNE_N_KEYS; k++)
        printf("%-26s %-14s %-14s %s\n", tune_keys[k], vf[k], vb[k],
               strcmp(vf[k], vb[k]) == 0 ? "" : "differs");
    printf("\nevidence (each line: the candidates interleaved in one run, medians):\n");
    static const char *const what[10] = {"streaming prefetch",
                                         "streaming threshold",
                                         "rep movsb",
                                         "CW_SRC_NOREUSE",
                                         "small persists",
                                         "streaming method",
                                         "parallel threads",
                                         "cw_memcpy past its own copy",
                                         "cw_memcpy's own copy",
                                         "cw_memcpy's stores across two lines"};
    for (int k = 0; k < 10; k++)
        if (f.why[k][0] != '\0')
            printf("  %s: %s\n", what[k], f.why[k]);
    if (cwb_emulated(NULL))
        printf("\nmeasured under an emulator: these values mean nothing (the file is valid, "
               "for tests; do not install it)\n");
    if (t->output != NULL) {
        if (tune_write_file(t->output, vf, f.why, in->profile, in) != 0)
            rc = 1;
    }
    if (t->install != NULL) {
        char path[4200];
        if (tune_install_path(t->install, in, path, sizeof path) != 0 ||
            tune_write_file(path, vf, f.why, in->profile, in) != 0)
            rc = 1;
    }
    printf("total time %.1f s\n", cwb_now() - t_start);
    return rc;
}

const char *tune_size_text(size_t v, char buf[32])
{
    if (v != 0 && v % ((size_t)1 << 20) == 0)
        snprintf(buf, 32, "%zuM", v >> 20);
    else if (v != 0 && v % 1024 == 0)
        snprintf(buf, 32, "%zuK", v >> 10);
    else
        snprintf(buf, 32, "%zu", v);
    return buf;
}
