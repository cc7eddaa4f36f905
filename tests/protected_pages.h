/* SPDX-License-Identifier: MIT */
/* protected_pages.h - test buffers that sit flush against PROT_NONE pages.
 *
 * A kernel that reads or writes even one byte past either end of a buffer
 * placed with pp_left()/pp_right() at offset 0 takes a SIGSEGV at once,
 * which a canary check after the fact could miss (over-reads leave no trace).
 *
 *   struct pp_buf b;
 *   if (pp_alloc(&b, 1 << 20) != 0) ...;    // [guard][>= 1 MiB rw][guard]
 *   unsigned char *p = pp_right(&b, n, 0);   // p + n is the right guard page
 *   unsigned char *q = pp_left(&b, 0);       // q - 1 is the left guard page
 *   pp_free(&b);
 *
 * Header-only, no dependency but POSIX mmap; any test may include it. */
#ifndef CW_TESTS_PROTECTED_PAGES_H
#define CW_TESTS_PROTECTED_PAGES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

struct pp_buf {
    unsigned char *map;  /* whole mapping, guards included */
    size_t map_len;
    unsigned char *data; /* first accessible byte (page aligned) */
    size_t len;          /* accessible bytes: capacity rounded up to pages */
};

static inline size_t pp_page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

/* Map one guard page, at least `cap` accessible bytes, then at least
 * `tail` inaccessible bytes (one page at least). A long tail lets a test
 * name a span that runs past the accessible part without the span reaching
 * some other mapping, whatever the kernel places next.
 * Returns 0, or -1 (errno from mmap/mprotect) with *b zeroed. */
static inline int pp_alloc_tail(struct pp_buf *b, size_t cap, size_t tail)
{
    size_t page = pp_page_size();
    size_t len = (cap + page - 1) / page * page;
    size_t tail_len = (tail + page - 1) / page * page;
    if (len == 0)
        len = page;
    if (tail_len == 0)
        tail_len = page;
    b->map = NULL;
    b->map_len = 0;
    b->data = NULL;
    b->len = 0;
    /* Reserve everything inaccessible, then open the middle: the guards
     * can never be merged with a neighbouring readable mapping. */
    void *m = mmap(NULL, page + len + tail_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    if (mprotect((unsigned char *)m + page, len, PROT_READ | PROT_WRITE) != 0) {
        munmap(m, page + len + tail_len);
        return -1;
    }
    b->map = (unsigned char *)m;
    b->map_len = page + len + tail_len;
    b->data = b->map + page;
    b->len = len;
    return 0;
}

/* Map one guard page, at least `cap` accessible bytes, one guard page. */
static inline int pp_alloc(struct pp_buf *b, size_t cap)
{
    return pp_alloc_tail(b, cap, 0);
}

static inline void pp_free(struct pp_buf *b)
{
    if (b->map != NULL)
        munmap(b->map, b->map_len);
    b->map = NULL;
    b->data = NULL;
    b->len = b->map_len = 0;
}

/* `off` bytes after the left guard page (off = 0: flush against it). */
static inline unsigned char *pp_left(const struct pp_buf *b, size_t off)
{
    return b->data + off;
}

/* Start of an n-byte span ending `off` bytes before the right guard page
 * (off = 0: the span's last byte is the last accessible byte).
 * Requires n + off <= b->len. */
static inline unsigned char *pp_right(const struct pp_buf *b, size_t n, size_t off)
{
    return b->data + b->len - n - off;
}

/* Either of the above: side 0 = left, 1 = right. */
static inline unsigned char *pp_place(const struct pp_buf *b, int side, size_t n, size_t off)
{
    return side ? pp_right(b, n, off) : pp_left(b, off);
}

#endif /* CW_TESTS_PROTECTED_PAGES_H */
