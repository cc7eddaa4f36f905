/* SPDX-License-Identifier: MIT */
/* libFuzzer target for cw_copy and cw_memmove (and the other copies, the
 * fills and the flushes): the input chooses the operation, implementation,
 * hints, size, placement and the bytes copied; each result is checked
 * against a byte-loop reference, including that no byte outside
 * [dst, dst+n) changed. Invalid hints must
 * give NULL/EINVAL and leave dst alone. Buffers sit flush against (or up to
 * 63 bytes from) PROT_NONE pages, so over-reads fault even without ASan.
 * Operations 8 and 9 are cw_copy_safe with only the first k bytes of the
 * source (8) or of the destination (9) accessible: it must return n - k,
 * copy those k bytes, zero the rest after a source fault with CW_ZERO_TAIL,
 * and touch nothing outside [dst, dst+n). Everything from the cut to the
 * span's end is inaccessible (a tail guard of MAXN bytes): the two spans
 * never overlap, as the contract requires, even where a source or
 * destination span runs past its own mapping.
 *
 * Operation 10 is a fill (cw_memset_nt, cw_memset_flushcache + cw_drain,
 * cw_memset_persist): every byte of [dst, dst+n) must become the low byte
 * of c (c a signed 16-bit value: above 255 and negative too), and none
 * outside change. Operation 11 is cw_flush + cw_drain or cw_persist over a
 * span of freshly stored bytes, or of a read-only mapping: nothing may
 * change, and nothing may fault.
 *
 * Input layout (missing bytes read as 0):
 *   [0] operation: 0..191 give op [0] % 10 (the corpus's first inputs),
 *       192..255 give 10 + ([0] - 192) % 2
 *   [1] implementation index  [2] cw_copy hints (ops 8-9:
 *       bit 0 CW_ZERO_TAIL, 1 CW_DST_NOREUSE, 2 CW_SRC_NOREUSE, 3 CW_PERSIST;
 *       op 10: % 3 = nt, flushcache, persist; op 11: bit 0 cw_persist,
 *       bit 1 the read-only mapping)
 *   [3..6] size: bits 27..31 = log2 bound, bits 0..26 = value
 *   [7] src offset 0..63, bit 6 = right side  [8] same for dst (ops 10-11:
 *       the span's)
 *   [9..10] memmove distance (signed, folded into [-(n+64), n+64]); ops 8-9:
 *       the accessible bytes k = [7] << 16 | [9..10], folded into [0, n];
 *       op 10: c
 *   [11..] bytes to copy, repeated */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../protected_pages.h"
#include "cachewise.h"

#define MAXN ((size_t)1 << 20)
#define WIN 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct pp_buf g_a, g_b, g_m, g_ro;
static unsigned char *g_exp;

static unsigned char ro_byte(size_t x)
{
    return (unsigned char)(x * 13 + 5);
}

static unsigned at(const uint8_t *data, size_t size, size_t i)
{
    return i < size ? data[i] : 0;
}

static void ref_move(unsigned char *d, const unsigned char *s, size_t n)
{
    if (d < s)
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    else if (d > s)
        for (size_t i = n; i-- > 0;)
            d[i] = s[i];
}

static void die(const char *what, size_t n, unsigned op, unsigned hints, long where)
{
    fprintf(stderr, "fuzz_copy: %s (op %u, impl %s, hints 0x%x, n %zu, at dst%+ld)\n", what,
            op, cw_impl_name(), hints, n, where);
    abort();
}

/* Compare [lo, hi) of buf with the expected image; dpos is dst's offset. */
static void compare(const unsigned char *buf, size_t lo, size_t hi, size_t dpos, size_t n,
                    unsigned op, unsigned hints)
{
    if (memcmp(buf + lo, g_exp + lo, hi - lo) == 0)
        return;
    size_t i = lo;
    while (buf[i] == g_exp[i])
        i++;
    long rel = (long)i - (long)dpos;
    die(rel < 0 || (size_t)rel >= n ? "byte outside [dst,dst+n) changed" : "wrong byte copied",
        n, op, hints, rel);
}

static void setup(void)
{
    if (pp_alloc_tail(&g_a, MAXN + 2 * WIN, MAXN) != 0 ||
        pp_alloc_tail(&g_b, MAXN + 2 * WIN, MAXN) != 0 ||
        pp_alloc(&g_m, 2 * MAXN + 4 * WIN) != 0 || pp_alloc(&g_ro, MAXN + 2 * WIN) != 0 ||
        (g_exp = malloc(g_m.len)) == NULL) {
        perror("fuzz_copy: buffers");
        abort();
    }
    for (size_t x = 0; x < g_ro.len; x++)
        g_ro.data[x] = ro_byte(x);
    if (mprotect(g_ro.data, g_ro.len, PROT_READ) != 0) {
        perror("fuzz_copy: mprotect");
        abort();
    }
}

static void fill(unsigned char *p, size_t n, const uint8_t *bytes, size_t nbytes, unsigned salt)
{
    for (size_t i = 0; i < n; i++)
        p[i] = nbytes ? (unsigned char)(bytes[i % nbytes] + (i / nbytes) * salt)
                      : (unsigned char)(i * 7 + salt);
}

/* cw_copy_safe with the source (op 8) or the destination (op 9) cut short
 * by the right guard page after k bytes. */
static int safe_case(unsigned op, unsigned hints, size_t n, size_t kraw, unsigned db,
                     const uint8_t *bytes, size_t nbytes)
{
    unsigned flags = (hints & 1 ? CW_ZERO_TAIL : 0) | (hints & 2 ? CW_DST_NOREUSE : 0) |
                     (hints & 4 ? CW_SRC_NOREUSE : 0) | (hints & 8 ? CW_PERSIST : 0);
    size_t k = kraw % (n + 1);
    unsigned char *s, *d;
    size_t lo, hi, dpos;
    if (op == 8) {
        s = g_a.data + g_a.len - k; /* s + k is the guard page */
        d = pp_place(&g_b, (db >> 6) & 1, n, db & 63);
    } else {
        s = pp_place(&g_a, 0, n, 0);
        d = g_b.data + g_b.len - k;
    }
    dpos = (size_t)(d - g_b.data);
    lo = dpos >= WIN ? dpos - WIN : 0;
    hi = op == 8 && dpos + n + WIN <= g_b.len ? dpos + n + WIN : g_b.len;
    if (op == 9)
        hi = g_b.len; /* d + k is the guard page */
    fill(s, op == 8 ? k : n, bytes, nbytes, 29);
    fill(g_b.data + lo, hi - lo, bytes, nbytes, 101);
    size_t writable = op == 8 ? n : k;
    for (size_t i = 0; i < writable && i < k; i++)
        d[i] = (unsigned char)~s[i];
    memcpy(g_exp + lo, g_b.data + lo, hi - lo);
    for (size_t i = 0; i < k; i++)
        g_exp[dpos + i] = s[i];
    int saved = errno = 1234;
    size_t r = cw_copy_safe(d, s, n, flags);
    if (errno != saved)
        die("cw_copy_safe changed errno", n, op, flags, 0);
    if (r != n - k)
        die(op == 8 ? "cw_copy_safe: wrong count after a source fault"
                    : "cw_copy_safe: wrong count after a destination fault",
            n, op, flags, (long)k);
    if (op == 8 && k < n) {
        if (flags & CW_ZERO_TAIL) {
            for (size_t i = k; i < n; i++)
                g_exp[dpos + i] = 0;
        } else {
            /* unspecified after the fault: take what is there */
            memcpy(g_exp + dpos + k, d + k, n - k);
        }
    }
    compare(g_b.data, lo, hi, dpos, n, op, flags);
    return 0;
}

/* op 10: a fill of n bytes with c at placement db */
static int fill_case(unsigned variant, size_t n, unsigned db, int c, const uint8_t *bytes,
                     size_t nbytes)
{
    unsigned char *d = pp_place(&g_b, (db >> 6) & 1, n, db & 63);
    size_t dpos = (size_t)(d - g_b.data);
    size_t lo = dpos >= WIN ? dpos - WIN : 0;
    size_t hi = dpos + n + WIN <= g_b.len ? dpos + n + WIN : g_b.len;
    fill(g_b.data + lo, hi - lo, bytes, nbytes, 101);
    /* inside the span start from the complement of the fill byte */
    for (size_t i = 0; i < n; i++)
        d[i] = (unsigned char)~c;
    memcpy(g_exp + lo, g_b.data + lo, hi - lo);
    for (size_t i = 0; i < n; i++)
        g_exp[dpos + i] = (unsigned char)c;
    void *r;
    switch (variant % 3) {
    case 0: r = cw_memset_nt(d, c, n); break;
    case 1: r = cw_memset_flushcache(d, c, n); cw_drain(); break;
    default: r = cw_memset_persist(d, c, n); break;
    }
    if (r != d)
        die("fill did not return dst", n, 10, variant, 0);
    compare(g_b.data, lo, hi, dpos, n, 10, variant);
    return 0;
}

/* op 11: cw_flush + cw_drain (bit 0 clear) or cw_persist (set) over n
 * bytes of freshly stored data, or (bit 1) of the read-only mapping */
static int flush_case(unsigned variant, size_t n, unsigned db, const uint8_t *bytes,
                      size_t nbytes)
{
    int ro = (variant & 2) != 0;
    struct pp_buf *b = ro ? &g_ro : &g_b;
    unsigned char *d = pp_place(b, (db >> 6) & 1, n, db & 63);
    size_t dpos = (size_t)(d - b->data);
    size_t lo = dpos >= WIN ? dpos - WIN : 0;
    size_t hi = dpos + n + WIN <= b->len ? dpos + n + WIN : b->len;
    if (ro) {
        for (size_t x = lo; x < hi; x++)
            g_exp[x] = ro_byte(x);
    } else {
        fill(g_b.data + lo, hi - lo, bytes, nbytes, 57); /* dirty lines to write back */
        memcpy(g_exp + lo, g_b.data + lo, hi - lo);
    }
    if (variant & 1) {
        cw_persist(d, n);
    } else {
        cw_flush(d, n);
        cw_drain();
    }
    compare(b->data, lo, hi, dpos, n, 11, variant);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (g_exp == NULL)
        setup();
    unsigned op0 = at(data, size, 0);
    unsigned op = op0 < 192 ? op0 % 10 : 10 + (op0 - 192) % 2;
    const char *const *list = cw_impl_list();
    size_t nimpl = 0;
    while (list[nimpl] != NULL)
        nimpl++;
    if (cw_impl_select(list[at(data, size, 1) % nimpl]) != 0)
        die("cw_impl_select of a listed implementation failed", 0, op, 0, 0);
    unsigned hints = at(data, size, 2);
    uint32_t raw = at(data, size, 3) | at(data, size, 4) << 8 | at(data, size, 5) << 16 |
                   (uint32_t)at(data, size, 6) << 24;
    unsigned bits = (raw >> 27) % 21;
    size_t n = (raw & 0x07ffffffu) & (((size_t)1 << bits) - 1);
    unsigned sb = at(data, size, 7), db = at(data, size, 8);
    int16_t dist16 = (int16_t)(at(data, size, 9) | at(data, size, 10) << 8);
    const uint8_t *bytes = size > 11 ? data + 11 : NULL;
    size_t nbytes = size > 11 ? size - 11 : 0;

    if (op == 1) { /* overlapping (or not) move inside one buffer */
        long span_d = (long)(n + WIN);
        long dist = (long)dist16 % (span_d + 1);
        size_t ad = dist < 0 ? (size_t)-dist : (size_t)dist;
        size_t span = n + ad;
        unsigned char *base = pp_place(&g_m, (sb >> 6) & 1, span, sb & 63);
        size_t bpos = (size_t)(base - g_m.data);
        size_t spos = dist >= 0 ? bpos : bpos + ad, dpos = dist >= 0 ? bpos + ad : bpos;
        size_t lo = bpos >= WIN ? bpos - WIN : 0;
        size_t hi = bpos + span + WIN <= g_m.len ? bpos + span + WIN : g_m.len;
        fill(g_m.data + lo, hi - lo, bytes, nbytes, 13);
        memcpy(g_exp + lo, g_m.data + lo, hi - lo);
        ref_move(g_exp + dpos, g_exp + spos, n);
        if (cw_memmove(g_m.data + dpos, g_m.data + spos, n) != g_m.data + dpos)
            die("cw_memmove did not return dst", n, op, 0, 0);
        compare(g_m.data, lo, hi, dpos, n, op, 0);
        return 0;
    }

    if (op == 10)
        return fill_case(hints, n, db, (int)dist16, bytes, nbytes);
    if (op == 11)
        return flush_case(hints, n, db, bytes, nbytes);
    if (op >= 8)
        return safe_case(op, hints, n, (size_t)sb << 16 | (uint16_t)dist16, db, bytes, nbytes);

    unsigned char *s = pp_place(&g_a, (sb >> 6) & 1, n, sb & 63);
    unsigned char *d = pp_place(&g_b, (db >> 6) & 1, n, db & 63);
    size_t dpos = (size_t)(d - g_b.data);
    size_t lo = dpos >= WIN ? dpos - WIN : 0;
    size_t hi = dpos + n + WIN <= g_b.len ? dpos + n + WIN : g_b.len;
    fill(s, n, bytes, nbytes, 29);
    fill(g_b.data + lo, hi - lo, bytes, nbytes, 101);
    /* inside the copy start from the complement of what belongs there, so a
     * byte left unwritten can never pass by chance */
    for (size_t i = 0; i < n; i++)
        d[i] = (unsigned char)~s[i];
    memcpy(g_exp + lo, g_b.data + lo, hi - lo);
    const unsigned known = CW_DST_NOREUSE | CW_DST_REUSE | CW_SRC_NOREUSE | CW_PERSIST;
    /* op 0 passes the raw byte (invalid bits included), op 7 only known bits
     * (contradictions still possible) */
    unsigned h = op == 0 ? hints : hints & known;
    int valid = !(h & ~known) && !((h & CW_DST_NOREUSE) && (h & CW_DST_REUSE)) &&
                !((h & CW_PERSIST) && (h & CW_DST_REUSE));
    void *r;
    errno = 0;
    switch (op) {
    case 2: r = cw_memmove(d, s, n); break;
    case 3: r = cw_memcpy(d, s, n); break;
    case 4: r = cw_memcpy_nt(d, s, n); break;
    case 5: r = cw_memcpy_flushcache_fn(d, s, n); cw_drain(); break;
    case 6: r = cw_memcpy_persist(d, s, n); break;
    default: r = cw_copy(d, s, n, h); break;
    }
    if (op >= 2 && op <= 6)
        valid = 1;
    if (!valid) {
        if (r != NULL || errno != EINVAL)
            die("invalid hints not refused with NULL/EINVAL", n, op, h, 0);
    } else {
        if (r != d)
            die("did not return dst", n, op, h, 0);
        ref_move(g_exp + dpos, s, n);
    }
    compare(g_b.data, lo, hi, dpos, n, op, h);
    return 0;
}
