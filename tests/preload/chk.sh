#!/bin/bash
# SPDX-License-Identifier: MIT
# chk.sh SHIM PROGRAM WHICH: an overflowing __*_chk call through the shim
# must abort with glibc's message.
shim=$1 prog=$2 which=$3
. "$(dirname "$0")/../emulator.sh"
err=$(target LD_PRELOAD="$shim" "$prog" "$which" shim 2>&1 >/dev/null)
rc=$?
echo "$err"
[ $rc = 134 ] || { echo "exit status $rc, expected 134 (SIGABRT)"; exit 1; }
case $err in *"buffer overflow detected"*) ;; *) echo "no fortify message"; exit 1 ;; esac
echo "aborted as expected"
