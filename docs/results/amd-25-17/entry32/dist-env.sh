#!/bin/bash
# dist-env.sh ROUNDS "NAME=ENV"...: cwbench dist per file, settings (environment) alternating by process, one build
R=$1; shift
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." 2>/dev/null && pwd)
[ -x "$ROOT/build/programs/cwbench" ] || ROOT=/work/main
B=${BUILD:-$ROOT/build}
for r in $(seq $R); do for d in $ROOT/data/memcpy-sizes/*.sizes $ROOT/data/program-profiles/*.sizes; do for ne in "$@"; do
  n=${ne%%=*}; e=${ne#*=}
  out=$(env $e $B/programs/cwbench dist "$d" --routines cw_memcpy,glibc_memcpy --pin 1 2>/dev/null)
  echo "$(basename $d .sizes) $n $(echo "$out" | sed -n 's/^cw_memcpy .*HL ratio \([0-9.]*\).*/\1/p')"
done; done; done
