#!/bin/bash
# SPDX-License-Identifier: MIT
# stats.sh SHIM PROGRAM WORKDIR: CACHEWISE_STATS with known_calls.c, whose
# calls are known: written to a file (%p expanded, the name the verbose
# line gives) and to the stderr the program started with; each report must
# count exactly those calls per size class and per path, under a policy set
# so that every path but streaming rep movsb (first run) and streaming
# stores (second) is taken where the implementation has it.
set -eu
shim=$1 prog=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../emulator.sh"
rm -rf "$work" && mkdir -p "$work"
policy=(CACHEWISE_REP_MOVSB=align-dst CACHEWISE_REP_MOVSB_MIN=4097 CACHEWISE_REP_MOVSB_MAX=8192
        CACHEWISE_NT_THRESHOLD=1M CACHEWISE_SRC_NOREUSE_THRESHOLD=3M)

target "${policy[@]}" CACHEWISE_STREAM_METHOD=nt-stores LD_PRELOAD="$shim" \
  CACHEWISE_STATS="$work/stats.%p" CACHEWISE_VERBOSE=1 "$prog" --expect-shim \
  > "$work/calls" 2> "$work/verbose"
name=$(sed -n 's/^cachewise-preload: loaded .* stats=\([^ ]*\)$/\1/p' "$work/verbose")
if [ -z "$name" ] || [ ! -f "$name" ]; then
  echo "FAIL: verbose line names '$name', no such file"; cat "$work/verbose"; exit 1
fi
python3 "$here/check_stats.py" "$name" --expect "$work/calls"
[ "$(stat -c %a "$name")" = 600 ] || { echo "FAIL: statistics file mode $(stat -c %a "$name")"; exit 1; }

target "${policy[@]}" CACHEWISE_STREAM_METHOD=rep-movsb CACHEWISE_STREAM_REP_MIN=1M \
  LD_PRELOAD="$shim" CACHEWISE_STATS=1 "$prog" > "$work/calls2" 2> "$work/stderr"
python3 "$here/check_stats.py" "$work/stderr" --expect "$work/calls2"

# CACHEWISE_STATS=0 and unset: no report
target LD_PRELOAD="$shim" CACHEWISE_STATS=0 "$prog" > /dev/null 2> "$work/stderr0"
! grep -q 'cachewise-preload stats' "$work/stderr0" || { echo "FAIL: CACHEWISE_STATS=0 reported"; exit 1; }
echo "stats: file and stderr reports exact"
