/* SPDX-License-Identifier: MIT */
/* What one taken branch costs a 129-512 B copy: glibc's memcpy and four
 * copies of the avx512 row's head/tail blocks (cwl_ht2 for 129-256 B,
 * cwl_ht4 for 257-512 B) that differ only in the order of their stores,
 * called through a function pointer in one process, medians of 31 rounds
 * of 20000 calls. GCC 12 -O2 compiles "asc" and "tailfirst" with their
 * 129-256 B path ending in a jump back to a shared tail (objdump -d), "desc"
 * and "inter" without: the store order costs nothing where neither jumps
 * (257-512 B), the jump about a cycle. docs/results/amd-26-2/README.md, "cw_memcpy's copy
 * past the small entry". Build and run:
 *   gcc -O2 docs/results/amd-26-2/entry/taken-branch.c -o taken-branch
 *   objdump -d --no-show-raw-insn taken-branch | awk '/<asc>:/,/^$/'
 *   for o in "0 0" "0 2048" "5 0" "3 13" "0 1"; do
 *       taskset -c 1 ./taken-branch $o 160 192 256 320 384 512; done */
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e9+t.tv_nsec;}
static int cmpd(const void*a,const void*b){double x=*(const double*)a,y=*(const double*)b;return x<y?-1:x>y;}
#define T __attribute__((noinline,target("avx512f,avx512bw,avx512vl")))
#define L(p) _mm512_loadu_si512((const void*)(p))
#define S(p,v) _mm512_storeu_si512((void*)(p),(v))
#define B() __asm__ volatile("":::"memory")
/* n in [128,256] : ht2 ; [256,512]: ht4 */
T void *asc(void*dst,const void*src,size_t n){char*d=dst;const char*s=src;
 if(n<=256){__m512i h0=L(s),h1=L(s+64),t0=L(s+n-128),t1=L(s+n-64);S(d,h0);S(d+64,h1);S(d+n-128,t0);S(d+n-64,t1);return dst;}
 __m512i h0=L(s),h1=L(s+64),h2=L(s+128),h3=L(s+192),t0=L(s+n-256),t1=L(s+n-192),t2=L(s+n-128),t3=L(s+n-64);
 S(d,h0);S(d+64,h1);S(d+128,h2);S(d+192,h3);S(d+n-256,t0);S(d+n-192,t1);S(d+n-128,t2);S(d+n-64,t3);return dst;}
T void *desc(void*dst,const void*src,size_t n){char*d=dst;const char*s=src;
 if(n<=256){__m512i h0=L(s),h1=L(s+64),t0=L(s+n-128),t1=L(s+n-64);S(d,h0);S(d+64,h1);S(d+n-64,t1);S(d+n-128,t0);return dst;}
 __m512i h0=L(s),h1=L(s+64),h2=L(s+128),h3=L(s+192),t0=L(s+n-256),t1=L(s+n-192),t2=L(s+n-128),t3=L(s+n-64);
 S(d,h0);S(d+64,h1);S(d+128,h2);S(d+192,h3);S(d+n-64,t3);S(d+n-128,t2);S(d+n-192,t1);S(d+n-256,t0);return dst;}
T void *tailfirst(void*dst,const void*src,size_t n){char*d=dst;const char*s=src;
 if(n<=256){__m512i h0=L(s),h1=L(s+64),t0=L(s+n-128),t1=L(s+n-64);S(d+n-128,t0);S(d+n-64,t1);S(d,h0);S(d+64,h1);return dst;}
 __m512i h0=L(s),h1=L(s+64),h2=L(s+128),h3=L(s+192),t0=L(s+n-256),t1=L(s+n-192),t2=L(s+n-128),t3=L(s+n-64);
 S(d+n-256,t0);S(d+n-192,t1);S(d+n-128,t2);S(d+n-64,t3);S(d,h0);S(d+64,h1);S(d+128,h2);S(d+192,h3);return dst;}
/* loads in store order: load h, store h, ... (not memmove safe) */
T void *inter(void*dst,const void*src,size_t n){char*d=dst;const char*s=src;
 if(n<=256){__m512i h0=L(s),h1=L(s+64),t0=L(s+n-128),t1=L(s+n-64);S(d,h0);S(d+n-64,t1);S(d+64,h1);S(d+n-128,t0);return dst;}
 __m512i h0=L(s),h1=L(s+64),h2=L(s+128),h3=L(s+192),t0=L(s+n-256),t1=L(s+n-192),t2=L(s+n-128),t3=L(s+n-64);
 S(d,h0);S(d+n-64,t3);S(d+64,h1);S(d+n-128,t2);S(d+128,h2);S(d+n-192,t1);S(d+192,h3);S(d+n-256,t0);return dst;}
typedef void*(*fn_t)(void*,const void*,size_t);
static fn_t volatile fs[5];
int main(int argc,char**argv){int so=atoi(argv[1]),dof=atoi(argv[2]);
 char*s=aligned_alloc(4096,65536),*d=aligned_alloc(4096,65536);memset(s,1,65536);memset(d,2,65536);
 fs[0]=memcpy;fs[1]=asc;fs[2]=desc;fs[3]=tailfirst;fs[4]=inter;const char*nm[]={"glibc","asc","desc","tailfirst","inter"};
 for(int a=3;a<argc;a++){size_t n=atoi(argv[a]);double t[5][31];
  for(int r=0;r<31;r++)for(int f=0;f<5;f++){fn_t fn=fs[f];double t0=now();for(int i=0;i<20000;i++){fn(d+dof,s+so,n);__asm__ volatile(""::"r"(d):"memory");}t[f][r]=(now()-t0)/20000;}
  /* check */
  for(int f=1;f<5;f++){memset(d,0,8192);fs[f](d+dof,s+so,n);if(memcmp(d+dof,s+so,n))printf("BAD %s\n",nm[f]);}
  printf("%5zu B %d:%d",n,so,dof);for(int f=0;f<5;f++){qsort(t[f],31,sizeof(double),cmpd);printf("  %s %.2f",nm[f],t[f][15]);}printf("\n");}
 return 0;}
