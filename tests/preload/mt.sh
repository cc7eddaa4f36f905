#!/bin/bash
# SPDX-License-Identifier: MIT
# mt.sh SHIM PROGRAM WORKDIR: mt.c under the shim; the merged per-thread
# profile must count exactly the calls and bytes the threads made.
set -eu
shim=$1 prog=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../emulator.sh"
rm -rf "$work" && mkdir -p "$work"
target LD_PRELOAD="$shim" CACHEWISE_PROFILE="$work/prof" "$prog" > "$work/out"
calls=$(sed -n 's/^calls //p' "$work/out")
bytes=$(sed -n 's/^bytes //p' "$work/out")
python3 "$here/check_profile.py" "$work/prof" --calls "$calls" --bytes "$bytes"
