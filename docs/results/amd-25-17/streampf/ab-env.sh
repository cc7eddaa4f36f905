#!/bin/bash
# ab-env.sh BUILD ROUNDS "ENV_B" "REF:ROUTINE:STATE:SIZES" ...: cwbench --ab REF ROUTINE in one
# process per variant, A (no extra environment) and B (ENV_B, e.g. "CACHEWISE_STREAM_PREFETCH=4K
# CACHEWISE_STREAM_PREFETCH_HINT=nta") alternating, ROUNDS times; prints the HL ratio
# ROUTINE/REF per size, one process per line. SIZES comma-separated.
B=$1; R=$2; ENVB=$3; shift 3
echo "### $(date -u '+%F %H:%M UTC'); commit $(git -C "$(dirname "$0")" rev-parse --short HEAD); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs) (family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | xargs) model $(grep -m1 '^model\s' /proc/cpuinfo | cut -d: -f2 | xargs))"
echo "### B: $ENVB; cwbench --ab REF ROUTINE --state STATE --size ... --samples 15 --pin 1: HL ratio ROUTINE/REF per size"
for r in $(seq "$R"); do for cell in "$@"; do for v in A B; do
  IFS=: read -r ref rt st sizes <<<"$cell"
  sz=""; for s in ${sizes//,/ }; do sz="$sz --size $s"; done
  printf "%-44s %s " "$rt/$ref $st" $v
  if [ $v = B ]; then e=$ENVB; else e=; fi
  env $e "$B"/programs/cwbench --ab "$ref" "$rt" $sz --state "$st" --samples 15 --pin 1 2>&1 |
    awk '/^[0-9]+ (B|KiB|MiB) /{printf "%s%s:%s ", $1, ($2=="KiB"?"K":($2=="MiB"?"M":"")), $7} END{print ""}'
done; done; done
