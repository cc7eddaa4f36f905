#!/bin/bash
# ab2.sh BUILD_A BUILD_B ROUNDS "OFFSET_PAIRS" SIZES...: cwbench --ab glibc_memcpy cw_memcpy
# in one process per build, A and B alternating, ROUNDS times per offset pair; prints the
# HL ratio cw_memcpy/glibc per size, one process per line (the raw files beside it)
A=$1; B=$2; R=$3; OFFS=$4; shift 4
sz=""; for s in "$@"; do sz="$sz --size $s"; done
echo "### $(date -u '+%F %H:%M UTC'); A=$A B=$B; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) (family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | xargs) model $(grep -m1 '^model\s' /proc/cpuinfo | cut -d: -f2 | xargs))"
echo "### cwbench --ab glibc_memcpy cw_memcpy$sz --a-off P --b-off P --samples 15 --pin 1: HL ratio cw_memcpy/glibc per size, one process per line, A and B alternating"
for r in $(seq $R); do for off in $OFFS; do for v in A B; do
  dir=$A; [ $v = B ] && dir=$B
  printf "%-5s %s " $off $v
  $dir/programs/cwbench --ab glibc_memcpy cw_memcpy $sz --a-off $off --b-off $off --samples 15 --pin 1 2>&1 | awk '/^[0-9]+ (B|KiB) /{printf "%s%s:%s ", $1, ($2=="KiB"?"K":""), $7} END{print ""}'
done; done; done
