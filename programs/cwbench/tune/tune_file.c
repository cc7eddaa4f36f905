/* SPDX-License-Identifier: MIT */
/* `cwbench tune`: the tuning file it writes (docs/TUNING.md has the format):
 * a header saying where and when it was measured, the base profile, then
 * each setting with its documentation and the evidence for it. Written to
 * FILE.tmp and renamed, so a reader never sees half a file. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "platform/machine.h"
#include "tune/tune.h"
#include "cachewise.h"

const char *const tune_keys[TUNE_N_KEYS] = {
    "nt_threshold", "rep_movsb", "rep_movsb_min", "rep_movsb_max", "stream_prefetch",
    "stream_prefetch_hint", "stream_method", "stream_rep_min", "src_noreuse",
    "src_noreuse_prefetch", "src_noreuse_flush_behind", "persist_small", "parallel_threads",
    "memcpy_mid", "memcpy_inline"};
/* which evidence line (why[]) explains each key */
static const int key_why[TUNE_N_KEYS] = {1, 2, 2, 2, 0, 0, 5, 5, 3, 3, 3, 4, 6, 7, 8};
/* a second evidence line, for the key two decisions set (memcpy_mid: ladder
 * or direct by decision 8, direct or direct-lines by decision 10); 0: none */
static const int key_why_second[TUNE_N_KEYS] = {[TK_MEMCPY_MID] = 9};
/* One evidence line, "# measured: ..." (or "# not measured: ..."), after
 * lead; nothing where the decision left none. */
static void write_evidence(FILE *o, const char *lead, const char *w)
{
    if (w[0] != '\0')
        fprintf(o, "%s# %s%s\n", lead, strncmp(w, "not measured", 12) == 0 ? "" : "measured: ", w);
}

static const char *const key_doc[TUNE_N_KEYS] = {
    "cw_memcpy, cw_memmove and cw_copy(auto) stream at and above this size",
    "rep movsb for temporal copies: off, aligned (both buffers 64-byte aligned) or "
    "align-dst (any alignment, destination aligned first)",
    "smallest copy rep movsb is used for", "largest copy rep movsb is used for",
    "the streaming loops prefetch the source this far ahead (0: no software prefetch)",
    "prefetch hint of the streaming loops: t0, t1, t2 or nta",
    "how streaming copies move their bytes: nt-stores (non-temporal stores) or rep-movsb "
    "(from stream_rep_min on)",
    "smallest streaming copy made by rep movsb (stream_method = rep-movsb)",
    "how CW_SRC_NOREUSE keeps the source out of the caches: none, prefetchnta, flush "
    "(clflushopt behind the loads) or both",
    "CW_SRC_NOREUSE prefetchnta distance", "CW_SRC_NOREUSE: source lines are flushed this "
    "far behind the loads",
    "partial-line persists of aligned 4/8-byte words: movnti, or clwb (store + write-back)",
    "threads cw_copy_parallel(..., 0) asks for, the caller's included (0: every CPU the caller "
    "may run on)",
    "cw_memcpy past its own copy (memcpy_inline), below the threshold: ladder (the row's size ladders), "
    "direct (its kernels with fewer branches: 33-128 B in one block, 129 B and up without "
    "the smaller classes' tests) or direct-lines (direct, with 513 B-1 KiB through the loop that aligns the "
    "destination where both buffers are off a line, and that loop started at a destination on a line "
    "where that saves a store; avx512-evex)",
    "the copies cw_memcpy and cw_memmove make themselves: 32 (0-32 B) or 64 (0-64 B in glibc's "
    "classes, 32 B with 33-64 B)"};

int tune_write_file(const char *path, char v[TUNE_N_KEYS][32], char why[][480], const char *base,
                    const struct cw_info *in)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *o = fopen(tmp, "wx");
    if (o == NULL) {
        fprintf(stderr, "cwbench tune: cannot write %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    /* the library takes a name without '/' for a profile's: the file's
     * message names it by its absolute path */
    char abs[4200], cwd[4096];
    if (path[0] != '/' && getcwd(cwd, sizeof cwd) != NULL)
        snprintf(abs, sizeof abs, "%s/%s", cwd, path);
    else
        snprintf(abs, sizeof abs, "%s", path);
    char date[32], host[64] = "?";
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    gethostname(host, sizeof host);
    host[sizeof host - 1] = '\0';
    fprintf(o, "# cachewise tuning file, written by `cwbench tune` (cachewise %s)\n"
               "# date %s, host %s\n# CPU: %s (%s family %u model %u), L1d %zu, L2 %zu, "
               "L3 %zu bytes\n"
               "# Load it with CACHEWISE_TUNING=%s, or install it as %s.\n"
               "# Format: \"setting = value\" per line, '#' starts a comment; sizes take K, M, G\n"
               "# (binary). A setting left out keeps the value of the profile named first.\n"
               "# docs/TUNING.md explains every setting.\n%s\n"
               "# The CPU it was measured on: on any other the library ignores this file\n"
               "# (and says so); \"cpu = any\" applies it anywhere.\n"
               "cpu = %s\n"
               "profile = %s\n",
            cw_version(), date, host, in->cpu_model, in->cpu_vendor, in->cpu_family,
            in->cpu_model_number, in->l1d_size, in->l2_size, in->l3_size, abs,
            CW_SYSTEM_TUNING_FILE,
            cwb_emulated(NULL) ? "# MEASURED UNDER AN EMULATOR (qemu-user): the values below "
                                 "mean nothing; do not install this file.\n"
                               : "",
            in->cpu_signature, base);
    int last = -1;
    for (int k = 0; k < TUNE_N_KEYS; k++) {
        if (key_why[k] != last)
            write_evidence(o, "\n", why[key_why[k]]);
        if (key_why_second[k] != 0)
            write_evidence(o, "", why[key_why_second[k]]);
        last = key_why[k];
        fprintf(o, "# %s\n%s = %s\n", key_doc[k], tune_keys[k], v[k]);
    }
    int bad = ferror(o);
    if (fclose(o) != 0 || bad || rename(tmp, path) != 0) {
        fprintf(stderr, "cwbench tune: cannot write %s: %s\n", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    printf("\ntuning written to %s (load it with CACHEWISE_TUNING=%s)\n", path, abs);
    return 0;
}

/* <vendor>-f<family>-m<model>-s<stepping>-<hash of the signature>.conf: one
 * file per CPU signature, so that tuning a second kind of machine into the
 * same directory adds a file instead of replacing one. */
int tune_install_path(const char *dir, const struct cw_info *in, char *path, size_t cap)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *p = in->cpu_signature; *p != '\0'; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "cwbench tune: cannot create %s: %s\n", dir, strerror(errno));
        return -1;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "cwbench tune: %s is not a directory\n", dir);
        return -1;
    }
    int len = snprintf(path, cap, "%s/%s-f%u-m%u-s%u-%08x.conf", dir, in->cpu_vendor,
                       in->cpu_family, in->cpu_model_number, in->cpu_stepping,
                       (unsigned)(h ^ (h >> 32)));
    if (len < 0 || (size_t)len >= cap) {
        fprintf(stderr, "cwbench tune: %s: path too long\n", dir);
        return -1;
    }
    return 0;
}
