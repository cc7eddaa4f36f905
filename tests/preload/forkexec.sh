#!/bin/bash
# SPDX-License-Identifier: MIT
# forkexec.sh SHIM PROGRAM WORKDIR: runs forkexec.c under the shim with a
# per-process profile path and checks each process's profile.
set -eu
shim=$1 prog=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../emulator.sh"
rm -rf "$work" && mkdir -p "$work"
target LD_PRELOAD="$shim" CACHEWISE_PROFILE="$work/prof.%p" "$prog" > "$work/expect"
n=$(ls "$work" | grep -c '^prof\.[0-9]*$' || true)
[ "$n" = 3 ] || { echo "expected 3 profiles (parent, fork child, exec child), got $n"; ls "$work"; exit 1; }
while read -r what pid size count; do
  f="$work/prof.$pid"
  [ -f "$f" ] || { echo "no profile for pid $pid"; exit 1; }
  if [ "$what" = expect ]; then
    python3 "$here/check_profile.py" "$f" --has "$size:$count" >/dev/null
  else
    python3 "$here/check_profile.py" "$f" --absent "$size" >/dev/null
  fi
done < "$work/expect"
[ "$(grep -c . "$work/expect")" = 8 ] || { echo "missing expectation lines"; exit 1; }
ls "$work" | grep -q '\.tmp$' && { echo "temporary file left behind"; exit 1; }
echo "fork/exec profiles ok"
