/* What cw_memcpy's IFUNC resolver may ask before the process is set up.
 *
 * The dynamic linker runs the resolver while it relocates the library (or
 * the program, when cachewise is linked in statically), before libc has
 * run its constructors, and in a static program before thread-local
 * storage exists. So nothing here calls libc or touches TLS (no stack
 * protector either: its canary lives in TLS): CPUID and XGETBV inline, and
 * the environment read from the initial stack's copy through environ when
 * libc has set it, else from /proc/self/environ with raw system calls.
 * Compiled for the baseline ISA. */
#include "internal.h"

#if defined(__x86_64__) && defined(CWI_MEMCPY_IFUNC)
#include <cpuid.h>

extern char **environ;

#if defined(__has_attribute)
#if __has_attribute(no_stack_protector)
#define CWI_EARLY __attribute__((no_stack_protector))
#endif
#endif
#ifndef CWI_EARLY
#define CWI_EARLY __attribute__((optimize("no-stack-protector")))
#endif

static CWI_EARLY int cpu_has_avx2(void)
{
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, 0) < 7)
        return 0;
    __cpuid(1, a, b, c, d);
    const unsigned osxsave = 1u << 27, avx = 1u << 28;
    if ((c & (osxsave | avx)) != (osxsave | avx))
        return 0;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 6) != 6) /* the OS saves XMM and YMM state */
        return 0;
    __cpuid_count(7, 0, a, b, c, d);
    return (b >> 5) & 1;
}

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

/* The value of CACHEWISE_IMPL at start-up into out (cap 16), "" if unset. */
static CWI_EARLY void early_impl_setting(char out[16])
{
    struct early_match m = {"CACHEWISE_IMPL=", 15, 0, 0, 0, {0}};
    if (environ != NULL) {
        for (char **e = environ; *e != NULL; e++) {
            for (const char *p = *e; *p != '\0'; p++)
                match_byte(&m, *p);
            match_byte(&m, '\0');
        }
    } else {
        long fd = sys3(SYS_OPENAT, AT_CWD, (long)"/proc/self/environ", O_RD_CLOEXEC);
        if (fd >= 0) {
            char chunk[256];
            long got;
            while ((got = sys3(SYS_READ, fd, (long)chunk, sizeof chunk)) > 0 ||
                   got == -4 /* EINTR */)
                for (long i = 0; i < got; i++)
                    match_byte(&m, chunk[i]);
            sys3(SYS_CLOSE, fd, 0, 0);
        }
    }
    size_t i = 0;
    for (; m.found && m.value[i] != '\0' && i < 15; i++)
        out[i] = m.value[i];
    out[i] = '\0';
}

static CWI_EARLY int same(const char *a, const char *b)
{
    while (*a != '\0' && *a == *b)
        a++, b++;
    return *a == *b;
}

CWI_EARLY int cwi_early_wide_entry(void)
{
    if (!cpu_has_avx2())
        return 0;
    /* The implementation cwi_init() will select is avx512 or avx2 (the best
     * runnable here) unless CACHEWISE_IMPL names a narrower one; any other
     * name is refused there and the best one taken. */
    char impl[16];
    early_impl_setting(impl);
    return !same(impl, "sse2") && !same(impl, "generic");
}
#endif
