/* SPDX-License-Identifier: MIT */
/* Where a 320 B-2 KiB cw_memcpy spends its time: glibc's memcpy, cw_memcpy,
 * the avx512 row's copy kernel (cwi_impl_avx512.copy, reached from the
 * static library's internal symbol) and bare copies of the kernel's loop
 * shape with 64-byte ("loop64") and 32-byte ("loop32") vectors, each
 * called through a function pointer, in one process; medians of 31
 * rounds of 20000 calls, in ns a call. Arguments: the source and
 * destination offsets, then the sizes (the destination sits 2 KiB into
 * its page, so no size here is 4K-aliased). Build and run (docs/results/amd-26-2/README.md,
 * "The rep window's size test first"):
 *   gcc -O2 -Iinclude -Isrc docs/results/amd-26-2/entry/kernel-path.c build/src/libcachewise.a \
 *       -lpthread -o kernel-path
 *   taskset -c 1 ./kernel-path 0 0 320 576 768 2048 */
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cachewise.h"
#include "internal.h"
#include "harness.h"
#define T __attribute__((noinline,target("avx512f,avx512bw,avx512vl")))
T void *f64(void*dst,const void*src,size_t n){char*d=dst;const char*s=src;
 __m512i h=_mm512_loadu_si512(s),t0=_mm512_loadu_si512(s+n-256),t1=_mm512_loadu_si512(s+n-192),t2=_mm512_loadu_si512(s+n-128),t3=_mm512_loadu_si512(s+n-64);
 size_t skip=64-((uintptr_t)d&63); char*dp=d+skip,*dl=d+n-256; const char*sp=s+skip;
 for(;dp<dl;dp+=256,sp+=256){__m512i a=_mm512_loadu_si512(sp),b=_mm512_loadu_si512(sp+64),c=_mm512_loadu_si512(sp+128),e=_mm512_loadu_si512(sp+192);
  _mm512_store_si512(dp,a);_mm512_store_si512(dp+64,b);_mm512_store_si512(dp+128,c);_mm512_store_si512(dp+192,e);}
 _mm512_storeu_si512(dl,t0);_mm512_storeu_si512(dl+64,t1);_mm512_storeu_si512(dl+128,t2);_mm512_storeu_si512(dl+192,t3);_mm512_storeu_si512(d,h);return dst;}
T void *f32(void*dst,const void*src,size_t n){char*d=dst;const char*s=src;
 __m256i h=_mm256_loadu_si256((const void*)s),t0=_mm256_loadu_si256((const void*)(s+n-128)),t1=_mm256_loadu_si256((const void*)(s+n-96)),t2=_mm256_loadu_si256((const void*)(s+n-64)),t3=_mm256_loadu_si256((const void*)(s+n-32));
 size_t skip=32-((uintptr_t)d&31); char*dp=d+skip,*dl=d+n-128; const char*sp=s+skip;
 for(;dp<dl;dp+=128,sp+=128){__m256i a=_mm256_loadu_si256((const void*)sp),b=_mm256_loadu_si256((const void*)(sp+32)),c=_mm256_loadu_si256((const void*)(sp+64)),e=_mm256_loadu_si256((const void*)(sp+96));
  _mm256_store_si256((void*)dp,a);_mm256_store_si256((void*)(dp+32),b);_mm256_store_si256((void*)(dp+64),c);_mm256_store_si256((void*)(dp+96),e);}
 _mm256_storeu_si256((void*)dl,t0);_mm256_storeu_si256((void*)(dl+32),t1);_mm256_storeu_si256((void*)(dl+64),t2);_mm256_storeu_si256((void*)(dl+96),t3);_mm256_storeu_si256((void*)d,h);return dst;}
static void *(*volatile gl)(void*,const void*,size_t)=memcpy;
static void *(*volatile cw)(void*,const void*,size_t)=(cw_memcpy);
static void *(*volatile p64)(void*,const void*,size_t)=f64;
static void *(*volatile p32)(void*,const void*,size_t)=f32;
static void *(*volatile rowcopy)(void*,const void*,size_t);
int main(int argc,char**argv){int so=atoi(argv[1]),dof=atoi(argv[2]);
 char*s=aligned_alloc(4096,65536),*d=aligned_alloc(4096,65536);memset(s,1,65536);memset(d,2,65536);
 rowcopy=cwi_impl_avx512.copy;void *(*fs[5])(void*,const void*,size_t)={gl,cw,p64,p32,rowcopy};const char*nm[5]={"glibc","cw","loop64","loop32","rowcopy"};
 for(int a=3;a<argc;a++){size_t n=atoi(argv[a]); double t[5][31];
  for(int r=0;r<31;r++)for(int f=0;f<5;f++){void*(*fn)(void*,const void*,size_t)=fs[f];double t0=now();for(int i=0;i<20000;i++){fn(d+2048+dof,s+so,n);__asm__ volatile(""::"r"(d):"memory");}t[f][r]=(now()-t0)/20000;}
  printf("%5zu B %d:%d",n,so,dof);for(int f=0;f<5;f++){qsort(t[f],31,sizeof(double),by_value);printf("  %s %.2f",nm[f],t[f][15]);}printf("  ns/call\n");}
 return 0;}
