/* SPDX-License-Identifier: MIT */
/* cw_flush and cw_persist: they never write and never fault on a valid
 * range, so they work on read-only mappings (anonymous, and a read-only
 * file mapping like a persistent-memory file opened O_RDONLY); ranges of
 * every size 0..4160 at every alignment, flush against PROT_NONE pages on
 * either side; data stored in place and persisted keeps its bytes. And the
 * contract checks the new entry points share: n == 0 with NULL touches
 * nothing, the flush instruction is the best the CPU has, and n above
 * PTRDIFF_MAX aborts before a byte is touched (every one of cw_flush,
 * cw_persist, cw_memset_nt, cw_memset_flushcache, cw_memset_persist). */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "protected_pages.h"
#include "test_util.h"

static unsigned char pattern_byte(size_t x)
{
    return (unsigned char)(0x10 + (x * 7 + 3) % 239);
}

static void fill_pattern(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = pattern_byte(i);
}

/* The bytes of [p, p+n) against the pattern. */
static void check_pattern(const char *what, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != pattern_byte(i)) {
            cwt_fail("%s: byte %zu changed to 0x%02x", what, i, p[i]);
            return;
        }
    }
}

static void flush_or_persist(int persist, const void *p, size_t n)
{
    cwt_ctx.what = persist ? "cw_persist" : "cw_flush";
    cwt_ctx.n = n;
    cwt_ctx.dst = p;
    if (persist) {
        cw_persist(p, n);
    } else {
        cw_flush(p, n);
        cw_drain();
    }
}

/* Every size 0..4160 at every alignment, at both ends of a read-only span
 * between guard pages (a touch past either end faults, a store anywhere
 * faults). */
static void sweep_readonly(const char *what, const unsigned char *data, size_t len)
{
    for (size_t n = 0; n <= 4160; n++) {
        for (size_t off = 0; off < 64; off++) {
            flush_or_persist((int)(n & 1), data + off, n);
            flush_or_persist((int)(~n & 1), data + len - n - off, n);
        }
    }
    /* the whole span, and ranges crossing pages */
    flush_or_persist(0, data, len);
    flush_or_persist(1, data + 1, len - 1);
    for (size_t i = 0; i < 64; i++) {
        size_t n = 1 + cwt_below(len - 64);
        flush_or_persist((int)(i & 1), data + cwt_below(len - n + 1), n);
    }
    check_pattern(what, data, len);
}

static void anonymous_readonly(void)
{
    struct pp_buf b;
    size_t len = (size_t)1 << 20;
    if (pp_alloc(&b, len) != 0) {
        perror("test_flush: mmap");
        cwt_fail("anonymous mapping");
        return;
    }
    fill_pattern(b.data, b.len);
    if (mprotect(b.data, b.len, PROT_READ) != 0) {
        perror("test_flush: mprotect");
        cwt_fail("mprotect(PROT_READ)");
        pp_free(&b);
        return;
    }
    sweep_readonly("read-only anonymous mapping", b.data, b.len);
    printf("  read-only anonymous mapping: ok\n");
    pp_free(&b);
}

/* A file written, closed, opened again O_RDONLY and mapped PROT_READ
 * MAP_SHARED: the page cache's pages, which a store could never reach. */
static void file_readonly(void)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/cw_test_flush_XXXXXX", dir != NULL && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("test_flush: mkstemp");
        cwt_fail("temporary file");
        return;
    }
    size_t page = pp_page_size(), len = 64 * page;
    unsigned char *tmp = malloc(len);
    fill_pattern(tmp, len);
    ssize_t wr = write(fd, tmp, len);
    free(tmp);
    close(fd);
    if (wr != (ssize_t)len || (fd = open(path, O_RDONLY)) < 0) {
        cwt_fail("writing %s", path);
        unlink(path);
        return;
    }
    /* guard pages around the file's pages */
    unsigned char *res = mmap(NULL, len + 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char *m = res == MAP_FAILED ? MAP_FAILED
                                         : mmap(res + page, len, PROT_READ, MAP_SHARED | MAP_FIXED,
                                                fd, 0);
    close(fd);
    unlink(path);
    if (m == MAP_FAILED) {
        perror("test_flush: mmap of the file");
        cwt_fail("read-only file mapping");
        if (res != MAP_FAILED)
            munmap(res, len + 2 * page);
        return;
    }
    sweep_readonly("read-only file mapping", m, len);
    printf("  read-only file mapping: ok\n");
    munmap(res, len + 2 * page);
}

/* Stores in place, then cw_persist / cw_flush: the bytes stay what was
 * stored (a flush changes no byte, neighbours included). */
static void dirty_in_place(void)
{
    struct pp_buf b;
    size_t len = (size_t)256 << 10;
    if (pp_alloc(&b, len) != 0) {
        cwt_fail("mapping");
        return;
    }
    unsigned char *ref = malloc(b.len);
    fill_pattern(b.data, b.len);
    memcpy(ref, b.data, b.len);
    for (int i = 0; i < 4000; i++) {
        size_t n = i < 2000 ? cwt_below(300) : cwt_below(b.len / 4);
        size_t at = cwt_below(b.len - n + 1);
        for (size_t k = 0; k < n; k++)
            ref[at + k] = b.data[at + k] = (unsigned char)(i + k);
        flush_or_persist(i & 1, b.data + at, n);
        if (memcmp(b.data, ref, b.len) != 0) {
            cwt_fail("stored %zu bytes at %zu then flushed: the buffer changed", n, at);
            break;
        }
    }
    /* a huge range, most of it clean */
    flush_or_persist(1, b.data, b.len);
    CWT_CHECK(memcmp(b.data, ref, b.len) == 0, "whole-buffer persist changed bytes");
    printf("  stores in place, then flushed: ok\n");
    free(ref);
    pp_free(&b);
}

static void zero_and_info(void)
{
    cw_flush(NULL, 0);
    cw_persist(NULL, 0);
    const struct cw_info *in = cw_get_info();
#if defined(__x86_64__)
    const char *want = in->clwb ? "clwb" : in->clflushopt ? "clflushopt" : "clflush";
    CWT_CHECK(strcmp(in->flush_insn, want) == 0, "flush_insn %s, want %s", in->flush_insn, want);
#elif defined(__aarch64__)
    CWT_CHECK(strcmp(in->flush_insn, "dc cvac") == 0 ||
                  (in->dcpop && strcmp(in->flush_insn, "dc cvap") == 0),
              "flush_insn %s, want dc cvac or (with DC CVAP) dc cvap", in->flush_insn);
#endif
    printf("  n == 0 with NULL; flush instruction %s: ok\n", in->flush_insn);
}

/* ---- n > PTRDIFF_MAX ---- */

enum { O_FLUSH, O_PERSIST, O_SET_NT, O_SET_FLUSHCACHE, O_SET_PERSIST };
static const char *const over_names[] = {"cw_flush", "cw_persist", "cw_memset_nt",
                                         "cw_memset_flushcache", "cw_memset_persist"};

/* In a child, with stderr into a pipe: must die of SIGABRT, say which
 * function on stderr, and not touch the shared buffer. */
static void oversize(int which, size_t n)
{
    size_t len = 8192;
    unsigned char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int pfd[2];
    if (buf == MAP_FAILED || pipe(pfd) != 0) {
        cwt_fail("oversize setup");
        return;
    }
    fill_pattern(buf, len);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pfd[1], 2);
        close(pfd[0]);
        signal(SIGABRT, SIG_DFL);
        switch (which) {
        case O_FLUSH: cw_flush(buf + 1, n); break;
        case O_PERSIST: cw_persist(buf + 1, n); break;
        case O_SET_NT: cw_memset_nt(buf + 1, 0x5a, n); break;
        case O_SET_FLUSHCACHE: cw_memset_flushcache(buf + 1, 0x5a, n); break;
        default: cw_memset_persist(buf + 1, 0x5a, n); break;
        }
        _exit(3);
    }
    close(pfd[1]);
    char msg[512];
    size_t got = 0;
    ssize_t r;
    while (got + 1 < sizeof msg && (r = read(pfd[0], msg + got, sizeof msg - 1 - got)) > 0)
        got += (size_t)r;
    msg[got] = '\0';
    close(pfd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    const char *name = over_names[which];
    CWT_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT,
              "%s(n=%zu): want SIGABRT, got status %#x", name, n, (unsigned)st);
    char want[96];
    snprintf(want, sizeof want, "cachewise: %s: size %zu", name, n);
    CWT_CHECK(strstr(msg, want) != NULL, "%s(n=%zu): stderr \"%s\", want \"%s...\"", name, n,
              msg, want);
    check_pattern(name, buf, len);
    munmap(buf, len);
}

static void oversize_all(void)
{
    const size_t sizes[] = {(size_t)PTRDIFF_MAX + 1, SIZE_MAX, (size_t)-4096};
    for (int w = O_FLUSH; w <= O_SET_PERSIST; w++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            oversize(w, sizes[i]);
    printf("  n > PTRDIFF_MAX aborts before touching a byte: checked\n");
}

int main(void)
{
    cwt_report_crashes();
    int rc = cwt_check_forced_impl("test_flush");
    if (rc != 0)
        return rc;
    cwt_seed("test_flush");
    zero_and_info();
    anonymous_readonly();
    file_readonly();
    dirty_in_place();
    oversize_all();
    return cwt_finish("test_flush");
}
