/* SPDX-License-Identifier: MIT */
/* The shared library's cw_memcpy (the entry its IFUNC resolver chose,
 * through dlsym) against the static library's and glibc's memcpy in one
 * process, interleaved round by round, each through a volatile function
 * pointer from one loop.
 *   gcc -O2 solib.c BUILD/src/libcachewise.a -lpthread -ldl -o solib
 *   taskset -c 1 ./solib BUILD/src/libcachewise.so SRC_OFF DST_OFF SIZE...
 * CACHEWISE_IMPL=sse2 makes the resolver choose the baseline entry (the
 * static library's), so that the two entries can be told apart. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "harness.h"
typedef void *(*fn)(void *, const void *, size_t);
extern void *cw_memcpy(void *restrict, const void *restrict, size_t);
int main(int argc, char **argv) {
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL); if (!h) { puts(dlerror()); return 1; }
  fn so = (fn)dlsym(h, "cw_memcpy");
  int soff = atoi(argv[2]), doff = atoi(argv[3]);
  unsigned char *buf = mmap(0, 1<<22, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
  memset(buf, 1, 1<<22);
  unsigned char *s = buf + 4096 + soff, *d = buf + (1<<20) + doff;
  fn f[3] = {(fn)memcpy, cw_memcpy, so};
  for (int a = 4; a < argc; a++) {
    size_t n = atoi(argv[a]); enum { R = 31 }; double t[3][R];
    for (int r = 0; r < R; r++) for (int i0 = 0; i0 < 3; i0++) { int i = (i0 + r) % 3;
      volatile fn fp = f[i]; fn g = fp; double t0 = now();
      for (int k = 0; k < 100000; k++) { g(d, s, n); __asm__ volatile("" ::: "memory"); }
      t[i][r] = (now() - t0) / 1e5; }
    for (int i = 0; i < 3; i++) qsort(t[i], R, 8, by_value);
    printf("%4zu B %d:%d  glibc %.2f  static %.2f  shared %.2f ns\n", n, soff, doff, t[0][R/2], t[1][R/2], t[2][R/2]);
  }
}
