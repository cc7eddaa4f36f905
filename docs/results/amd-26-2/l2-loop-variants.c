/* SPDX-License-Identifier: MIT */
/* Temporal copy loops against rep movsb at 4-32 KiB, where the bytes are in
 * the L2 (random offsets in regions of 4x the size, at least 64 KiB per
 * buffer) or in the L1 ("hot": the same source and destination every call).
 * The loops are the AVX-512 forward loop of the copy ladder (destination
 * aligned, 4 vectors an iteration) without prefetch ("vec"), with prefetchw
 * of the destination 256 B-2 KiB ahead ("pw*"), prefetcht0 of the source
 * 1 KiB ahead ("pr1k"), both ("pwr1k"), or the whole destination
 * prefetched for writing first ("pwall"). Medians of 21 rounds, every
 * variant on a fresh offset sequence each round; ratios to glibc's memcpy.
 * Build and run (docs/results/amd-26-2/README.md, "The rep movsb window from 8 KiB"):
 *   gcc -O2 -Iinclude docs/results/amd-26-2/l2-loop-variants.c build/src/libcachewise.a \
 *       -lpthread -o l2-loop-variants
 *   taskset -c 1 ./l2-loop-variants 8192; taskset -c 1 ./l2-loop-variants 8192 hot */
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cachewise.h"
typedef void *(*fn_t)(void *, const void *, size_t);
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
#define T __attribute__((noinline,target("avx512f,avx512bw,avx512vl,prfchw")))
static inline __attribute__((always_inline)) void rep(char*d,const char*s,size_t n){__asm__ volatile("rep movsb":"+D"(d),"+S"(s),"+c"(n)::"memory");}
T void *k_rep(void*dst,const void*src,size_t n){char*d=dst;const char*s=src;size_t skip=(-(uintptr_t)d)&63;
  _mm512_storeu_si512(d,_mm512_loadu_si512(s)); rep(d+skip,s+skip,n-skip); return dst;}
#define LOOP(NAME, PFW, PFR) T void *NAME(void*dst,const void*src,size_t n){char*d=dst;const char*s=src; \
  __m512i head=_mm512_loadu_si512(s),t0=_mm512_loadu_si512(s+n-256),t1=_mm512_loadu_si512(s+n-192),t2=_mm512_loadu_si512(s+n-128),t3=_mm512_loadu_si512(s+n-64); \
  size_t skip=64-((uintptr_t)d&63); char*dp=d+skip,*dl=d+n-256; const char*sp=s+skip; \
  for(;dp<dl;dp+=256,sp+=256){ if(PFW && dp+PFW < dl){_mm_prefetch(dp+PFW,_MM_HINT_ET0);_mm_prefetch(dp+PFW+64,_MM_HINT_ET0);_mm_prefetch(dp+PFW+128,_MM_HINT_ET0);_mm_prefetch(dp+PFW+192,_MM_HINT_ET0);} \
    if(PFR && sp+PFR < s+n-256){_mm_prefetch(sp+PFR,_MM_HINT_T0);_mm_prefetch(sp+PFR+64,_MM_HINT_T0);_mm_prefetch(sp+PFR+128,_MM_HINT_T0);_mm_prefetch(sp+PFR+192,_MM_HINT_T0);} \
    __m512i a=_mm512_loadu_si512(sp),b=_mm512_loadu_si512(sp+64),c=_mm512_loadu_si512(sp+128),e=_mm512_loadu_si512(sp+192); \
    _mm512_store_si512(dp,a);_mm512_store_si512(dp+64,b);_mm512_store_si512(dp+128,c);_mm512_store_si512(dp+192,e);} \
  _mm512_storeu_si512(dl,t0);_mm512_storeu_si512(dl+64,t1);_mm512_storeu_si512(dl+128,t2);_mm512_storeu_si512(dl+192,t3);_mm512_storeu_si512(d,head);return dst;}
LOOP(k_vec,0,0)
LOOP(k_pw256,256,0)
LOOP(k_pw512,512,0)
LOOP(k_pw1k,1024,0)
LOOP(k_pw2k,2048,0)
LOOP(k_pr1k,0,1024)
LOOP(k_pwr1k,1024,1024)
/* prefetchw the whole destination first, then copy */
T void *k_pwall(void*dst,const void*src,size_t n){char*d=dst; for(size_t i=0;i<n;i+=64)_mm_prefetch(d+i,_MM_HINT_ET0); return k_vec(dst,src,n);}
static void *(*volatile gl)(void*,const void*,size_t)=memcpy;
static void *r_gl(void*d,const void*s,size_t n){return gl(d,s,n);}
static void *r_cw(void*d,const void*s,size_t n){return cw_memcpy(d,s,n);}
struct call{uint32_t so,dof;};
__attribute__((noinline)) static void replay(fn_t f, char*db,const char*sb,const struct call*c,size_t nc,size_t n){
  for(size_t i=0;i<nc;i++) f(db+c[i].dof,sb+c[i].so,n);
  __asm__ volatile(""::: "memory");}
static int cmpd(const void*a,const void*b){double x=*(const double*)a,y=*(const double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  size_t n=atoi(argv[1]); int hot=argc>2&&argv[2][0]=='h';
  size_t win=4*n<65536?65536:4*n;
  char*sb=aligned_alloc(4096,win+n+4096),*db=aligned_alloc(4096,win+n+4096); memset(sb,1,win+n);memset(db,2,win+n);
  size_t nc=hot?20000:4096; struct call*c=malloc(nc*sizeof*c); uint64_t x=88172645463325252ull;
  fn_t fs[]={r_gl,r_cw,k_rep,k_vec,k_pw256,k_pw512,k_pw1k,k_pw2k,k_pr1k,k_pwr1k,k_pwall};
  const char*nm[]={"glibc","cw_memcpy","rep_movsb","vec","pw256","pw512","pw1k","pw2k","pr1k","pwr1k","pwall"};
  enum{NF=sizeof fs/sizeof fs[0],R=21}; double t[NF][R];
  for(int r=0;r<R;r++) for(int k=0;k<NF;k++){
    for(size_t i=0;i<nc;i++){ if(hot){c[i].so=0;c[i].dof=2048;} else {x^=x<<13;x^=x>>7;x^=x<<17;c[i].so=x%win;x^=x<<13;x^=x>>7;x^=x<<17;c[i].dof=x%win;}}
    replay(fs[k],db,sb,c,64,n);
    double t0=now();replay(fs[k],db,sb,c,nc,n);t[k][r]=now()-t0;}
  double g; for(int k=0;k<NF;k++){qsort(t[k],R,sizeof(double),cmpd); double med=t[k][R/2]; if(k==0)g=med;
    printf("%-10s %7.1f GB/s  x glibc %.3f\n",nm[k],(double)n*nc/med/1e9,g/med);}
}
