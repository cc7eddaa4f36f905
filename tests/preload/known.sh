#!/bin/bash
# SPDX-License-Identifier: MIT
# known.sh SHIM PROGRAM WORKDIR [signal]: known_calls.c under the shim; the
# profile must hold exactly the calls it reports. With "signal", the
# profile flushed on SIGUSR2 must hold exactly the calls made before it.
set -eu
shim=$1 prog=$2 work=$3 mode=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../emulator.sh"
rm -rf "$work" && mkdir -p "$work"
prof=$work/prof
if [ "$mode" = signal ]; then
  target LD_PRELOAD="$shim" CACHEWISE_PROFILE="$prof" CACHEWISE_PROFILE_SIGNAL=1 \
    "$prog" --signal "$prof" > "$work/calls"
  grep -v '^call memcpy 7 1$' "$work/calls" > "$work/calls.signal"
  python3 "$here/check_profile.py" "$prof.signal" --expect "$work/calls.signal" --absent 7
else
  target LD_PRELOAD="$shim" CACHEWISE_PROFILE="$prof" "$prog" --expect-shim > "$work/calls"
fi
python3 "$here/check_profile.py" "$prof" --expect "$work/calls"
