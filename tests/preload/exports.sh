#!/bin/bash
# SPDX-License-Identifier: MIT
# exports.sh SHIM: the shim exports exactly the six copy functions, and none
# of its code calls memcpy/memmove/mempcpy through the PLT (that would
# recurse into the shim, before initialisation even deadlock). A cross
# build names its binutils in CW_NM, CW_OBJDUMP, CW_READELF (the host's
# objdump cannot disassemble another architecture); x86-64 calls are
# call/jmp, aarch64 ones bl/b.
set -eu
shim=$1
nm=${CW_NM:-nm} objdump=${CW_OBJDUMP:-objdump} readelf=${CW_READELF:-readelf}
got=$("$nm" -D --defined-only "$shim" | awk '{print $3}' | sort | tr '\n' ' ')
want="__memcpy_chk __memmove_chk __mempcpy_chk memcpy memmove mempcpy "
[ "$got" = "$want" ] || { echo "exports: '$got', expected '$want'"; exit 1; }
dis=$("$objdump" -d "$shim") || { echo "$objdump cannot disassemble $shim"; exit 1; }
grep -q '<memcpy>:$' <<<"$dis" || { echo "no memcpy in the disassembly of $shim"; exit 1; }
if grep -E '(call|jmp|[[:space:]]b(l|\.[a-z]+)?[[:space:]]).*<(memcpy|memmove|mempcpy|__mem[a-z]*_chk)(@plt)?>' <<<"$dis"; then
  echo "the shim's code calls a copy function it interposes"; exit 1
fi
# readelf cuts the type: R_X86_64_JUMP_SLO, R_AARCH64_JUMP_SL
if "$readelf" -r "$shim" | grep -E 'JUMP_SL.* (memcpy|memmove|mempcpy)'; then
  echo "PLT slot for an interposed function"; exit 1
fi
echo "exports ok: $got"
