#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sched.h>
#include "internal.h"
typedef void *(*fn_t)(void *, const void *, size_t);
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static fn_t volatile f_glibc = memcpy, f_cw = cw_memcpy;
int main(int argc, char **argv){
  size_t n = argc>1? strtoul(argv[1],0,0):256;
  cpu_set_t s; CPU_ZERO(&s); CPU_SET(1,&s); sched_setaffinity(0,sizeof s,&s);
  unsigned char *buf = aligned_alloc(4096, 1<<20); memset(buf,1,1<<20);
  unsigned char *src=buf, *dst=buf+2048+65536;
  fn_t kern = (fn_t)cwi_active()->copy;
  fn_t fs[3]={f_glibc,f_cw,kern}; const char*nm[3]={"glibc","cw_memcpy","kernel"};
  double best[3]={1e9,1e9,1e9};
  for(int r=0;r<200;r++) for(int k=0;k<3;k++){ fn_t f=fs[(k+r)%3]; int i=(k+r)%3;
     double t0=now(); for(int j=0;j<20000;j++){ f(dst,src,n); __asm__ volatile(""::"r"(dst):"memory");} double t=(now()-t0)/20000*1e9; if(t<best[i])best[i]=t;}
  for(int i=0;i<3;i++) printf("%-10s n=%zu %.3f ns\n",nm[i],n,best[i]);
}
