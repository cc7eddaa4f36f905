#!/bin/bash
# abn.sh ROUNDS "OFFS" "SIZES" NAME=BUILD...: cwbench --ab glibc_memcpy cw_memcpy per build, builds alternating by process
R=$1; OFFS=$2; SIZES=$3; shift 3
sz=""; for s in $SIZES; do sz="$sz --size $s"; done
for r in $(seq $R); do for off in $OFFS; do for nb in "$@"; do
  n=${nb%%=*}; b=${nb#*=}
  if [ "$off" = random ]; then extra="--state random"; else extra="--a-off $off --b-off $off"; fi
  printf "%-6s %-5s " $off $n
  $b/programs/cwbench --ab glibc_memcpy cw_memcpy $sz $extra --samples 15 --pin 1 2>&1 | awk '/^[0-9]+ (B|KiB) /{match($0,/HL ratio [0-9.]+/); printf "%s:%s ", $1, substr($0,RSTART+9,RLENGTH-9)} END{print ""}'
done; done; done
