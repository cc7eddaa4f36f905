/* SPDX-License-Identifier: MIT */
/* A bare rep movsb of N bytes between two buffers on huge pages (HUGE=1:
 * MADV_HUGEPAGE), at the source and destination page offsets given in
 * pairs; the best of 30 runs of 20 copies, GB/s:
 *   gcc -O2 rep.c -o rep
 *   HUGE=1 taskset -c 1 ./rep 65536 0 0 0 1 0 8 0 40 2111 64
 * prints the destination's distance past the source modulo 4 KiB beside
 * each figure. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static void rep(void*d,const void*s,size_t n){__asm__ volatile("rep movsb":"+D"(d),"+S"(s),"+c"(n)::"memory");}
int main(int argc,char**argv){
  size_t n=atoi(argv[1]);
  size_t L=4<<20; char*a=aligned_alloc(2<<20,L),*b=aligned_alloc(2<<20,L); if(getenv("HUGE")){madvise(a,L,MADV_HUGEPAGE);madvise(b,L,MADV_HUGEPAGE);} if(getenv("BOFF")) b+=atoi(getenv("BOFF"));
  memset(a,1,L/2);memset(b,2,L/2);
  for(int i=2;i+1<argc;i+=2){
    int so=atoi(argv[i]),dof=atoi(argv[i+1]);
    double best=1e9;
    for(int r=0;r<30;r++){double t=now();for(int k=0;k<20;k++)rep(b+dof,a+so,n);t=now()-t;if(t<best)best=t;}
    printf("src+%d dst+%d (dst-src mod 4096 = %d): %.1f GB/s\n",so,dof,(int)(((dof-so)%4096+4096)%4096),n*20/best/1e9);
  }
}
