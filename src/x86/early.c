/* SPDX-License-Identifier: MIT */
/* What cw_memcpy's IFUNC resolver may ask before the process is set up.
 *
 * The dynamic linker runs the resolver while it relocates the shared
 * library, before libc has run its constructors (with -z now, or when the
 * library is loaded at start-up and bound eagerly). So nothing here calls
 * libc or touches TLS (CWI_EARLY: no stack protector either): the CPU's
 * features from cwi_cpu_features(), its profile row from its CPUID vendor,
 * family and model (src/profiles.c), and the environment read through
 * environ when libc has set it, else from /proc/self/environ with raw
 * system calls; in a privileged process (AT_SECURE, read from
 * /proc/self/auxv) not at all. Compiled for the baseline ISA. */
#include "internal.h"

#if defined(__x86_64__) && defined(CWI_MEMCPY_IFUNC)
extern char **environ;

static CWI_EARLY long sys3(long nr, long a, long b, long c)
{
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(nr), "D"(a), "S"(b), "d"(c)
                     : "rcx", "r11", "memory");
    return ret;
}

enum { SYS_READ = 0, SYS_CLOSE = 3, SYS_OPENAT = 257, AT_CWD = -100, O_RD_CLOEXEC = 02000000 };

/* Finds the first entry "NAME=value" in a stream of NUL-terminated
 * entries, fed byte by byte; keeps up to 15 bytes of the value (a longer
 * one reads as "", which names no implementation). */
struct early_match {
    const char *name; /* "NAME=" */
    size_t nlen, at;  /* bytes of the current entry seen */
    int dead, found;
    char value[16];
};

static CWI_EARLY void match_byte(struct early_match *m, char ch)
{
    if (ch == '\0') {
        if (!m->found && !m->dead && m->at >= m->nlen) {
            size_t v = m->at - m->nlen;
            m->value[v < sizeof m->value ? v : 0] = '\0';
            m->found = 1;
        }
        m->at = 0;
        m->dead = 0;
        return;
    }
    if (m->dead || m->found)
        return;
    if (m->at < m->nlen) {
        if (ch != m->name[m->at]) {
            m->dead = 1;
            return;
        }
    } else if (m->at - m->nlen < sizeof m->value - 1) {
        m->value[m->at - m->nlen] = ch;
    }
    m->at++;
}

/* AT_SECURE from /proc/self/auxv (getauxval is libc's): non-zero in a
 * setuid, setgid or file-capability process, whose environment must not
 * steer it. Unreadable counts as secure: the CPU alone then decides, which
 * is always a correct choice. */
static CWI_EARLY int early_secure(void)
{
    long fd = sys3(SYS_OPENAT, AT_CWD, (long)"/proc/self/auxv", O_RD_CLOEXEC);
    if (fd < 0)
        return 1;
    unsigned long pair[2];
    int secure = 1;
    for (;;) {
        long got = sys3(SYS_READ, fd, (long)pair, sizeof pair);
        if (got == -4 /* EINTR */)
            continue;
        if (got != (long)sizeof pair || pair[0] == 0 /* AT_NULL */)
            break;
        if (pair[0] == 23 /* AT_SECURE */) {
            secure = pair[1] != 0;
            break;
        }
    }
    sys3(SYS_CLOSE, fd, 0, 0);
    return secure;
}

static CWI_EARLY void match_both(struct early_match m[2], char ch)
{
    match_byte(&m[0], ch);
    match_byte(&m[1], ch);
}

/* Looks for both variables of m in the environment the process started
 * with, in one pass (nowhere in a privileged process). */
static CWI_EARLY void early_settings(struct early_match m[2])
{
    if (early_secure())
        return;
    if (environ != NULL) {
        for (char **e = environ; *e != NULL; e++) {
            for (const char *p = *e; *p != '\0'; p++)
                match_both(m, *p);
            match_both(m, '\0');
        }
        return;
    }
    long fd = sys3(SYS_OPENAT, AT_CWD, (long)"/proc/self/environ", O_RD_CLOEXEC);
    if (fd < 0)
        return;
    char chunk[256];
    long got;
    while ((got = sys3(SYS_READ, fd, (long)chunk, sizeof chunk)) > 0 || got == -4 /* EINTR */)
        for (long i = 0; i < got; i++)
            match_both(m, chunk[i]);
    sys3(SYS_CLOSE, fd, 0, 0);
}

CWI_EARLY void cwi_early_settings(char impl[16], char tuning[16])
{
    struct early_match m[2] = {{"CACHEWISE_IMPL=", 15, 0, 0, 0, {0}},
                               {"CACHEWISE_TUNING=", 17, 0, 0, 0, {0}}};
    early_settings(m);
    for (size_t i = 0; i < sizeof m[0].value; i++) {
        impl[i] = m[0].found ? m[0].value[i] : '\0';
        tuning[i] = m[1].found ? m[1].value[i] : '\0';
    }
}

CWI_EARLY const struct cwi_profile *cwi_early_row(const char *tuning)
{
    const struct cwi_profile *named = cwi_profile_find(tuning);
    if (named != NULL)
        return named;
    char vendor[13];
    unsigned family, model, stepping;
    cwi_cpu_identity(vendor, &family, &model, &stepping);
    return cwi_profile_row(vendor, family, model, cwi_cpu_features());
}
#endif
