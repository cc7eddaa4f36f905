#!/bin/bash
# SPDX-License-Identifier: MIT
# early.sh SHIM PROGRAM WORKDIR: early.c's copies before any constructor ran
# must be right, must be the ones that initialise the shim, and the
# settings must be read although libc has not set environ yet.
set -eu
shim=$1 prog=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../emulator.sh"
rm -rf "$work" && mkdir -p "$work"
for env in "" "CACHEWISE_SRC_NOREUSE_THRESHOLD=1K CACHEWISE_NT_THRESHOLD=4K"; do
  # shellcheck disable=SC2086
  err=$(target $env LD_PRELOAD="$shim" CACHEWISE_VERBOSE=1 CACHEWISE_PROFILE="$work/prof" "$prog" 2>&1)
  echo "$err"
  case $err in "preinit start"*"cachewise: impl="*"copies ok") ;;
    *) echo "expected: preinit start, then the shim's initialisation, then copies ok"; exit 1 ;;
  esac
  if [ -n "$env" ]; then
    case $err in *"nt_threshold=4096 (env)"*) ;;
      *) echo "CACHEWISE_NT_THRESHOLD was not read before libc set environ"; exit 1 ;;
    esac
  fi
  # preinit and main each make 22 copies
  python3 "$here/check_profile.py" "$work/prof" --calls 44
done
