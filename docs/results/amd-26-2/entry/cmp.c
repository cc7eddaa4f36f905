/* SPDX-License-Identifier: MIT */
/* Two builds of cw_memcpy and glibc's memcpy in one process, interleaved
 * round by round (rotating order), called through a volatile function
 * pointer from one loop: what a change to cw_memcpy's small-copy entry
 * does, without the process-to-process swing of separate binaries.
 *
 * Build (OLD = a build directory of the base commit, NEW = of the change):
 *   ld -r --whole-archive $OLD/src/libcachewise.a -o old.o
 *   objcopy --localize-hidden old.o
 *   nm old.o | awk '$2 ~ /[TDBRW]/ && $3 ~ /^cw_/ {print $3" old_"$3}' > ren.txt
 *   objcopy --redefine-syms=ren.txt old.o
 *   gcc -O2 cmp.c old.o $NEW/src/libcachewise.a -lpthread -o cmp
 * Run: taskset -c 1 ./cmp SRC_OFF DST_OFF SIZE...   (offsets in a page;
 *   both buffers page-aligned before them)
 * Prints per size the median ns per call of each and the median of the
 * per-round ratios [quartiles]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include <sys/mman.h>
#include "harness.h"
typedef void *(*fn)(void *, const void *, size_t);
extern void *cw_memcpy(void*restrict,const void*restrict,size_t);
extern void *old_cw_memcpy(void*restrict,const void*restrict,size_t);
int main(int argc, char **argv) {
  int soff = atoi(argv[1]), doff = atoi(argv[2]);
  unsigned char *buf = mmap(0, 1<<22, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
  unsigned char *s = buf + 4096 + soff, *d = buf + (1<<20) + doff;
  memset(buf, 1, 1<<22);
  fn f[] = {(fn)memcpy, old_cw_memcpy, cw_memcpy}; 
  for (int a = 3; a < argc; a++) {
    size_t n = atoi(argv[a]);
    enum { R = 41 }; double t[3][R];
    volatile fn fp;
    for (int r = 0; r < R; r++) for (int i0 = 0; i0 < 3; i0++) { int i = (i0 + r) % 3;
      fp = f[i]; fn g = fp;
      double t0 = now();
      for (int k = 0; k < 100000; k++) { g(d, s, n); __asm__ volatile("" ::: "memory"); }
      t[i][r] = (now() - t0) / 100000.0;
    }
    double ro[R], rn[R], rno[R];
    for (int r = 0; r < R; r++) { ro[r] = t[0][r]/t[1][r]; rn[r] = t[0][r]/t[2][r]; rno[r] = t[1][r]/t[2][r]; }
    qsort(ro, R, 8, by_value); qsort(rn, R, 8, by_value); qsort(rno, R, 8, by_value);
    for (int i = 0; i < 3; i++) qsort(t[i], R, 8, by_value);
    printf("%4zu B %d:%d  glibc %.2f ns  old %.2f  new %.2f | x glibc: old %.3f [%.3f,%.3f] new %.3f [%.3f,%.3f] | new/old %.3f [%.3f,%.3f]\n",
      n, soff, doff, t[0][R/2], t[1][R/2], t[2][R/2], ro[R/2], ro[R/4], ro[3*R/4], rn[R/2], rn[R/4], rn[3*R/4], rno[R/2], rno[R/4], rno[3*R/4]);
  }
}
