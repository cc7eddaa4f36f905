#!/bin/bash
# SPDX-License-Identifier: MIT
# real.sh PROGRAM SHIM WORKDIR [PYTHON]: runs a real Debian program with and
# without the shim and compares the output byte for byte; every process
# under the shim writes a profile, which must be well formed and non-empty
# (proof that the program's copies went through the shim). The policy
# (CACHEWISE_NT_THRESHOLD, ...) comes from the test's environment.
set -eu
prog=$1 shim=$2 work=$3 python=${4:-python3}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../emulator.sh"
# The programs are the host's: an x86-64 gzip cannot load an aarch64 shim,
# and the cross sysroot has no target build of them.
cw_skip_emulated "$prog is a host program and cannot load the target's shim $(basename "$shim")"
rm -rf "$work" && mkdir -p "$work" && cd "$work"
export LC_ALL=C
shimmed() { LD_PRELOAD=$shim CACHEWISE_PROFILE="$work/prof.%p" "$@"; }

case $prog in
gzip)
  "$python" "$here/gendata.py" text 6000000 data
  gzip -6 -c data > ref.gz
  shimmed gzip -6 -c data > shim.gz
  cmp ref.gz shim.gz
  shimmed gzip -d -c shim.gz > shim.out
  cmp data shim.out ;;
xz)
  "$python" "$here/gendata.py" text 2000000 data
  xz -3 -T1 -c data > ref.xz
  shimmed xz -3 -T1 -c data > shim.xz
  cmp ref.xz shim.xz
  shimmed xz -d -c shim.xz > shim.out
  cmp data shim.out ;;
sort)
  # A small buffer forces temporary files and a merge; two threads.
  "$python" "$here/gendata.py" lines 5000000 data
  sort -S 2M --parallel=2 -T "$work" -k2,2n -k1,1 data > ref.out
  shimmed sort -S 2M --parallel=2 -T "$work" -k2,2n -k1,1 data > shim.out
  cmp ref.out shim.out
  sort -u data | md5sum > ref.u
  shimmed sort -u data | md5sum > shim.u
  cmp ref.u shim.u ;;
python)
  "$python" "$here/pyload.py" > ref.out
  shimmed "$python" "$here/pyload.py" > shim.out
  cmp ref.out shim.out ;;
*) echo "unknown program $prog"; exit 2 ;;
esac

calls=0
for f in prof.*; do
  [ -f "$f" ] || { echo "no profile written"; exit 1; }
  "$python" "$here/check_profile.py" "$f" >/dev/null
  c=$(sed -n 's/^# calls: \([0-9]*\).*/\1/p' "$f")
  calls=$((calls + c))
done
[ "$calls" -gt 0 ] || { echo "no copy went through the shim"; exit 1; }
echo "$prog: output identical with and without the shim; $calls calls profiled"
