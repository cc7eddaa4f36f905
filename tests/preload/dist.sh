#!/bin/bash
# SPDX-License-Identifier: MIT
# dist.sh SHIM PROGRAM CWBENCH WORKDIR: profile known_calls.c under the
# shim, then `cwbench dist` must accept the profile and benchmark it.
set -eu
shim=$1 prog=$2 cwbench=$3 work=$4
. "$(dirname "$0")/../emulator.sh"
rm -rf "$work" && mkdir -p "$work"
target LD_PRELOAD="$shim" CACHEWISE_PROFILE="$work/prof" "$prog" > /dev/null
target "$cwbench" dist "$work/prof" --quick
