/* SPDX-License-Identifier: MIT */
/* test_dc_cvap: the aarch64 write-back paths, DC CVAP and DC CVAC, each
 * forced in turn (CACHEWISE_FLUSH, set by the test registration), through
 * every persistence entry point, against guard pages at every size to 300
 * bytes and a stride beyond (the flushcache kernels work in 4 KiB chunks of
 * the destination), at every destination alignment in a line.
 *
 * qemu-user 7.2 (Debian 12) reports HWCAP_DCPOP for "-cpu max" but raises
 * SIGILL on DC CVAP (the instruction is registered for system emulation
 * only). Where that happens this test stands in for the emulator: its
 * SIGILL handler recognises the DC CVAP encoding at the faulting pc and
 * steps over it, as later qemu releases do (a no-op in user mode), and counts the
 * lines. Any other illegal instruction is a failure. On hardware with
 * FEAT_DPB the handler never runs. The count proves the DC CVAP loops ran:
 * every line of every range must have been written back once at least. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "cachewise.h"
#include "protected_pages.h"
#include "test_util.h"

#if defined(__aarch64__) && defined(__linux__)

static volatile sig_atomic_t g_cvap_emulated, g_bad_sigill;

static void on_sigill(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    (void)si;
    ucontext_t *uc = ctx;
    uint32_t insn = *(const uint32_t *)(uintptr_t)uc->uc_mcontext.pc;
    /* DC CVAP, Xt = SYS #3, C7, C12, #1, Xt: 0xd50b7c20 | t */
    if ((insn & ~(uint32_t)0x1f) == 0xd50b7c20u) {
        g_cvap_emulated++;
        uc->uc_mcontext.pc += 4;
        return;
    }
    g_bad_sigill = 1;
    signal(SIGILL, SIG_DFL); /* re-executing it dies with the right signal */
}

enum op { OP_COPY_FC, OP_COPY_PERSIST, OP_SET_FC, OP_SET_PERSIST, OP_FLUSH, OP_PERSIST, N_OPS };
static const char *const op_names[] = {
    "cw_memcpy_flushcache", "cw_memcpy_persist", "cw_memset_flushcache",
    "cw_memset_persist",    "cw_flush",          "cw_persist",
};

static void run_op(enum op op, unsigned char *d, const unsigned char *s, size_t n)
{
    switch (op) {
    case OP_COPY_FC: cw_memcpy_flushcache(d, s, n); cw_drain(); break;
    case OP_COPY_PERSIST: cw_memcpy_persist(d, s, n); break;
    case OP_SET_FC: cw_memset_flushcache(d, 0xa5, n); cw_drain(); break;
    case OP_SET_PERSIST: cw_memset_persist(d, 0xa5, n); break;
    case OP_FLUSH: cw_flush(d, n); cw_drain(); break;
    case OP_PERSIST: cw_persist(d, n); break;
    default: break;
    }
}

int main(void)
{
    const struct cw_info *in = cw_get_info();
    const char *want = getenv("CACHEWISE_FLUSH");
    int want_cvap = want != NULL && strcmp(want, "dc-cvap") == 0;
    printf("test_dc_cvap: impl %s, flush %s, HWCAP_DCPOP %d, CACHEWISE_FLUSH=%s\n", in->impl,
           in->flush_insn, in->dcpop, want != NULL ? want : "(unset)");
    if (want_cvap && !in->dcpop) {
        /* refused and recorded, the best instruction used instead */
        CWT_CHECK(strcmp(in->flush_insn, "dc cvac") == 0, "flush %s without DCPOP",
                  in->flush_insn);
        CWT_CHECK(cwt_find_error("flush=dc-cvap") >= 0, "refusal of dc-cvap not recorded");
        if (cwt_failures != 0)
            return 1;
        printf("test_dc_cvap: SKIP: this CPU has no DC CVAP (refusal recorded)\n");
        return CWT_SKIP;
    }
    /* auto (unset): the best the CPU has */
    int want_cvac = want != NULL && strcmp(want, "dc-cvac") == 0;
    const char *expect = want_cvap || (!want_cvac && in->dcpop) ? "dc cvap" : "dc cvac";
    CWT_CHECK(strcmp(in->flush_insn, expect) == 0, "flush_insn %s, want %s", in->flush_insn,
              expect);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigill;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGILL, &sa, NULL);
    /* does the handler stand in here? one DC CVAP of our own tells */
    static unsigned char probe[64];
    __asm__ volatile("sys #3, c7, c12, #1, %0" : : "r"(probe) : "memory");
    int counting = g_cvap_emulated != 0 && strcmp(in->flush_insn, "dc cvap") == 0;
    g_cvap_emulated = 0;
    uint64_t ctr;
    __asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
    size_t dline = (size_t)4 << ((ctr >> 16) & 0xf);

    enum { MAXN = 70000 };
    struct pp_buf db, sb;
    if (pp_alloc(&db, MAXN + 64) != 0 || pp_alloc(&sb, MAXN + 64) != 0) {
        perror("test_dc_cvap: mmap");
        return 1;
    }
    unsigned char *ref = malloc(db.len);
    if (ref == NULL)
        return 1;
    for (size_t i = 0; i < MAXN + 64; i++)
        sb.data[i] = (unsigned char)(i * 131 + 7);

    long cases = 0;
    for (int op = 0; op < N_OPS && cwt_failures == 0; op++) {
        for (size_t n = 0; n <= MAXN && cwt_failures == 0;
             n += n < 300 ? 1 : n < 9000 ? 61 : 4093) {
            for (size_t al = 0; al < 64; al += n < 300 ? 1 : 7) {
                /* the destination ends at the right guard page */
                unsigned char *d = pp_right(&db, n, 0) - al;
                if (d < db.data)
                    continue;
                const unsigned char *s = pp_right(&sb, n, 0);
                /* checked: the 64 bytes below d and [d, d+n); above it is
                 * the guard page */
                unsigned char *lo = d - 64 >= db.data ? d - 64 : db.data;
                size_t span = (size_t)(d + n - lo);
                memset(lo, 0x3c, span);
                memcpy(ref, lo, span);
                size_t off = (size_t)(d - lo);
                if (op == OP_COPY_FC || op == OP_COPY_PERSIST)
                    memcpy(ref + off, s, n);
                else if (op == OP_SET_FC || op == OP_SET_PERSIST)
                    memset(ref + off, 0xa5, n);
                long before = g_cvap_emulated;
                run_op((enum op)op, d, s, n);
                cases++;
                if (g_bad_sigill)
                    return 1;
                if (memcmp(lo, ref, span) != 0) {
                    size_t i = 0;
                    while (lo[i] == ref[i])
                        i++;
                    cwt_fail("%s n=%zu align=%zu: byte %td differs", op_names[op], n, al,
                             (ptrdiff_t)i - (ptrdiff_t)off);
                    break;
                }
                /* where the handler stands in: every line of the range (by
                 * CTR_EL0's smallest data line) written back once at least */
                long emulated = g_cvap_emulated - before;
                if (counting && n != 0) {
                    long lines = (long)(((uintptr_t)d + n - 1) / dline - (uintptr_t)d / dline + 1);
                    if (emulated < lines) {
                        cwt_fail("%s n=%zu align=%zu: %ld DC CVAP for %ld lines", op_names[op], n,
                                 al, emulated, lines);
                        break;
                    }
                }
            }
        }
    }
    printf("test_dc_cvap: %ld cases; DC CVAP executed by the test's SIGILL handler %ld times "
           "(0 where the CPU or emulator executes it)\n",
           cases, (long)g_cvap_emulated);
    if (strcmp(in->flush_insn, "dc cvap") == 0)
        printf("test_dc_cvap: DC CVAP path %s\n",
               g_cvap_emulated != 0 ? "ran (instruction stood in for by the handler)"
                                    : "ran natively");
    if (strcmp(in->flush_insn, "dc cvac") == 0)
        CWT_CHECK(g_cvap_emulated == 0, "DC CVAP executed with flush=%s", in->flush_insn);
    free(ref);
    pp_free(&db);
    pp_free(&sb);
    return cwt_finish("test_dc_cvap");
}

#else
int main(void)
{
    printf("test_dc_cvap: SKIP: not an aarch64 Linux build\n");
    return CWT_SKIP;
}
#endif
