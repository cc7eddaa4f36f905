#!/bin/bash
# SPDX-License-Identifier: MIT
# impl.sh SHIM IMPL PROGRAM [ARGS]: runs PROGRAM under the shim with
# CACHEWISE_IMPL=IMPL. Exit 77 (skipped) when this CPU cannot run IMPL.
shim=$1 impl=$2 prog=$3
shift 3
. "$(dirname "$0")/../emulator.sh"
target LD_PRELOAD="$shim" CACHEWISE_IMPL="$impl" CACHEWISE_VERBOSE=1 "$prog" "$@" 2> "${TMPDIR:-/tmp}/cwp-impl.$$"
rc=$?
err=$(cat "${TMPDIR:-/tmp}/cwp-impl.$$"); rm -f "${TMPDIR:-/tmp}/cwp-impl.$$"
echo "$err"
case $err in
  *"impl=$impl (env)"*) exit $rc ;;
  *"not supported by this CPU"*) echo "$impl: not supported by this CPU, skipped"; exit 77 ;;
esac
echo "the shim did not report implementation $impl"
exit 1
