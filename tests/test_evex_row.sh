#!/bin/bash
# SPDX-License-Identifier: MIT
# The avx512-evex row (src/x86/avx512_evex.c) keeps every vector in
# zmm16-31 and ends without vzeroupper: it may leave no dirty upper state in
# zmm0-15 behind, which the SSE and VEX code after it would pay for. The
# compiler flags promise it (-ffixed-xmm0..15, src/CMakeLists.txt); this
# checks the object's code: no xmm/ymm/zmm 0-15, no vzeroupper, and the
# kernels really there (many zmm16-31 instructions, the row's copies).
# usage: test_evex_row.sh OBJDUMP OBJECT...  (the library's objects; the
# one compiled from x86/avx512_evex.c is checked)
set -euo pipefail
objdump=$1
shift
command -v "$objdump" >/dev/null 2>&1 || { echo "SKIP: no objdump"; exit 77; }
obj=
for o in "$@"; do
    case $o in */avx512_evex.c.o | */avx512_evex.c.obj) obj=$o ;; esac
done
[ -n "$obj" ] || { echo "FAIL: no avx512_evex object among the library's objects"; exit 1; }
code=$("$objdump" -d --no-show-raw-insn "$obj")
insns=$(grep -E '^ +[0-9a-f]+:' <<<"$code")
fail=0
low='%[xyz]mm([0-9]|1[0-5])\b'
if grep -Eq "$low|vzeroupper" <<<"$insns"; then
    echo "FAIL: the avx512-evex row uses zmm0-15 or vzeroupper:"
    grep -E "$low|vzeroupper" <<<"$insns" | head
    fail=1
fi
high=$(grep -cE '%[xyz]mm(1[6-9]|2[0-9]|3[01])\b' <<<"$insns" || true)
[ "$high" -gt 200 ] || { echo "FAIL: only $high instructions on zmm16-31"; fail=1; }
for k in cwl_k_copy cwl_k_memcpy_small cwl_k_memcpy_large cwl_k_copy_nt cwl_k_move; do
    grep -qE "^[0-9a-f]+ <$k>:$" <<<"$code" || { echo "FAIL: no $k in $obj"; fail=1; }
done
[ $fail = 0 ] && echo "avx512-evex row: $(wc -l <<<"$insns") instructions, $high on zmm16-31, none on zmm0-15, no vzeroupper"
exit $fail
