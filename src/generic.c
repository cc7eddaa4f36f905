/* STUB: replaced by the generic implementation. */
#include "internal.h"
static void g_copy(void *restrict d, const void *restrict s, size_t n)
{
    unsigned char *dd = d; const unsigned char *ss = s;
    for (size_t i = 0; i < n; i++) dd[i] = ss[i];
}
static void g_flush(void *restrict d, const void *restrict s, size_t n)
{
    g_copy(d, s, n);
    cwi_flush_range(d, n);
}
static void g_move(void *d, const void *s, size_t n)
{
    unsigned char *dd = d; const unsigned char *ss = s;
    if (dd < ss) for (size_t i = 0; i < n; i++) dd[i] = ss[i];
    else for (size_t i = n; i-- > 0;) dd[i] = ss[i];
}
const struct cwi_impl cwi_impl_generic = {"generic", 0, g_copy, g_copy, g_copy, g_copy, g_flush, g_move};
