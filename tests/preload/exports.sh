#!/bin/bash
# SPDX-License-Identifier: MIT
# exports.sh SHIM: the shim exports exactly the six copy functions, and none
# of its code calls memcpy/memmove/mempcpy through the PLT (that would
# recurse into the shim, before initialisation even deadlock).
set -eu
shim=$1
got=$(nm -D --defined-only "$shim" | awk '{print $3}' | sort | tr '\n' ' ')
want="__memcpy_chk __memmove_chk __mempcpy_chk memcpy memmove mempcpy "
[ "$got" = "$want" ] || { echo "exports: '$got', expected '$want'"; exit 1; }
if objdump -d "$shim" | grep -E '(call|jmp).*<(memcpy|memmove|mempcpy|__mem[a-z]*_chk)(@plt)?>'; then
  echo "the shim's code calls a copy function it interposes"; exit 1
fi
if readelf -r "$shim" | grep -E 'JUMP_SLO.* (memcpy|memmove|mempcpy)'; then
  echo "PLT slot for an interposed function"; exit 1
fi
echo "exports ok: $got"
