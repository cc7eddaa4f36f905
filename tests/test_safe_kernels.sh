#!/bin/bash
# SPDX-License-Identifier: MIT
# cw_copy_safe's fast path relies on the code in section cw_safe_text
# (src/CMakeLists.txt, src/safe.c): a fault may stop it at any instruction
# and the handler resumes the caller with the callee-saved registers as they
# are then, finding the copy in xmm14/xmm15. So that code must never touch
# rbx, rbp, r12-r15, xmm14 or xmm15 (nor their ymm/zmm forms), and must
# call nothing (a callee would run outside the section and owes nothing to
# those registers). The compiler flags promise it; this checks the result.
# usage: test_safe_kernels.sh OBJDUMP libcachewise.so
set -euo pipefail
objdump=$1 lib=$2
command -v "$objdump" >/dev/null 2>&1 || { echo "SKIP: no objdump"; exit 77; }
code=$("$objdump" -d --no-show-raw-insn -j cw_safe_text "$lib")
fail=0
kernels=$(grep -cE '^[0-9a-f]+ <cwi_[a-z0-9]+_copy_safe>:$' <<<"$code" || true)
want=${CW_SAFE_KERNELS_EXPECTED:-4}
if [ "$kernels" -ne "$want" ]; then
    echo "FAIL: $kernels safe kernels in cw_safe_text, expected $want"; fail=1
fi
insns=$(grep -E '^ +[0-9a-f]+:' <<<"$code")
count=$(wc -l <<<"$insns")
[ "$count" -gt 100 ] || { echo "FAIL: only $count instructions in cw_safe_text"; fail=1; }
reg='%(r(bx|bp|1[2-5])[dwb]?|e(bx|bp)|bx|bp|bl|bpl|[xyz]mm1[45])\b'
if grep -Eq "$reg" <<<"$insns"; then
    echo "FAIL: cw_safe_text touches a reserved register:"; grep -E "$reg" <<<"$insns" | head; fail=1
fi
calls=$(grep -E '\s(call|syscall|int)\s' <<<"$insns" || true)
jumps=$(grep -E '\sj[a-z]+\s' <<<"$insns" |
        grep -vE '<cwi_[a-z0-9]+_copy_safe(\+0x[0-9a-f]+)?>$' || true)
if [ -n "$calls$jumps" ]; then
    echo "FAIL: cw_safe_text leaves the section:"; printf '%s\n%s\n' "$calls" "$jumps" | head; fail=1
fi
[ $fail -eq 0 ] && echo "ok: $kernels safe kernels, $count instructions, no reserved register, no call"
exit $fail
