#!/bin/bash
# ab-shared.sh BUILD_A BUILD_B [ROUNDS]: two builds of cwbench linked to the shared library
# (-DCACHEWISE_BENCH_LINK_SHARED=ON), A and B alternating by process: --ab glibc_memcpy cw_memcpy
# hot at two placements, then every size distribution and program profile with cwbench dist
A=$1; B=$2; R=${3:-3}
D=$(cd "$(dirname "$0")/../../../.." && pwd)/data
sizes="--size 8 --size 16 --size 24 --size 32 --size 48 --size 64 --size 72 --size 96 --size 112 --size 128 --size 144 --size 192 --size 256 --size 512"
echo "### $(date -u '+%F %H:%M UTC'); A=$A B=$B; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2) model $(grep -m1 '^model\s' /proc/cpuinfo | cut -d: -f2)"
echo "### 1. cwbench --ab glibc_memcpy cw_memcpy hot, HL ratio per size, one process per line"
for r in $(seq $R); do for off in 0:0 5:37; do for v in A B; do
  dir=$A; [ $v = B ] && dir=$B
  printf "%s %s " $off $v
  $dir/programs/cwbench --ab glibc_memcpy cw_memcpy $sizes --a-off $off --b-off $off --samples 15 --pin 1 2>&1 | awk '/^[0-9]+ B /{printf "%s:%s ", $1, $7} END{print ""}'
done; done; done
echo "### 2. cwbench dist FILE --routines cw_memcpy,glibc_memcpy --pin 1, HL ratio cw_memcpy/glibc per process"
for f in $D/memcpy-sizes/MemcpyGoogleA.sizes $D/memcpy-sizes/MemcpyGoogleD.sizes $D/memcpy-sizes/MemcpyGoogleW.sizes $D/memcpy-sizes/MemmoveGoogleA.sizes $D/program-profiles/sort.sizes $D/program-profiles/sqlite3.sizes $D/program-profiles/xz.sizes; do
  for v in A B; do
    dir=$A; [ $v = B ] && dir=$B
    printf "%s %s:" $(basename $f .sizes) $v
    for r in $(seq $R); do
      $dir/programs/cwbench dist $f --routines cw_memcpy,glibc_memcpy --pin 1 2>&1 | sed -n 's/^cw_memcpy .*(HL ratio \([0-9.]*\)).*/ \1/p' | tr -d '\n'
    done; echo
  done
done
