#!/bin/sh
# SPDX-License-Identifier: MIT
# The aarch64 library holds the instructions its row is built on: STNP for
# the streaming copies and fills, DC CVAP (emitted by its SYS encoding, which
# a wrong operand would silently turn into another system instruction) and
# DC CVAC for the write-backs, DSB SY for cw_drain, PRFM PLDL1STRM for
# CW_SRC_NOREUSE; and no SVE instruction (the row is selected with
# HWCAP_ASIMD alone).
#   test_aarch64_insns.sh OBJDUMP LIBRARY
set -eu
objdump=$1 lib=$2
if ! "$objdump" --version >/dev/null 2>&1; then
    echo "SKIP: $objdump cannot run"
    exit 77
fi
dis=$(mktemp)
trap 'rm -f "$dis"' EXIT
"$objdump" -d --no-show-raw-insn "$lib" >"$dis"
fail=0
for pat in 'dc[[:space:]]+cvap,' 'dc[[:space:]]+cvac,' 'stnp[[:space:]]+q' 'dsb[[:space:]]+sy' \
    'prfm[[:space:]]+pldl1strm'; do
    n=$(grep -cE "$pat" "$dis" || true)
    echo "$pat: $n"
    [ "$n" -gt 0 ] || { echo "FAIL: no instruction matching '$pat' in $lib"; fail=1; }
done
# SVE instructions name z or p registers
if grep -E '^[[:space:]]+[0-9a-f]+:[[:space:]]+[a-z0-9.]+[[:space:]].*\b(z[0-9]+\.[bhsdq]|p[0-9]+/[zm])' "$dis" | head -3 | grep -q .; then
    echo "FAIL: SVE instructions in $lib"
    fail=1
fi
[ $fail -eq 0 ] && echo "test_aarch64_insns: ok"
exit $fail
