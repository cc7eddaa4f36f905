#!/bin/bash
# pol.sh ROUNDS "NAME=ENV"...: cwbench pollution --size 64M --routines cw_copy_nta,cw_memcpy_nt, settings alternating by process;
# prints the quarter-L2 victim's line for each routine (evicted, same wait, HL over the same wait) and the copy time
R=$1; shift
for r in $(seq $R); do for ne in "$@"; do
  n=${ne%%=*}; e=${ne#*=}
  out=$(env $e /work/main/build/programs/cwbench pollution --size 64M --routines cw_copy_nta,cw_memcpy_nt --pin 1 2>&1)
  echo "$out" | awk -v n=$n '/^victim L2/{v=1} /^victim L3/{v=0} v && /^  (cw_copy_nta|cw_memcpy_nt) / {for(i=1;i<=NF;i++) if($i ~ /^[+-]0\./) hl=$i; printf "%-8s %-13s evicted %s same %s ms %s HL %s\n", n, $1, $2, $7, $10, hl}'
done; done
