#!/bin/bash
# dist.sh ROUNDS NAME=BUILD...: cwbench dist per file, builds alternating by process
R=$1; shift
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)
for r in $(seq $R); do for d in $ROOT/data/memcpy-sizes/*.sizes $ROOT/data/program-profiles/*.sizes; do for nb in "$@"; do
  n=${nb%%=*}; b=${nb#*=}
  out=$($b/programs/cwbench dist "$d" --routines cw_memcpy,glibc_memcpy --pin 1 2>/dev/null)
  echo "$(basename $d .sizes) $n $(echo "$out" | sed -n 's/^cw_memcpy .*HL ratio \([0-9.]*\).*/\1/p')"
done; done; done
