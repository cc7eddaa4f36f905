#!/bin/bash
# SPDX-License-Identifier: MIT
# The header's inline cw_memcpy/cw_memmove, read in the code a compiler makes
# of inline_copy.c at -O2 (-S):
#   - a constant 8-byte cw_memcpy (and 1, 32 bytes, an 8-byte load into a
#     local, cw_memmove of 8 and 31 bytes) contains no call and no jump to
#     any function: not cw_memcpy, not memcpy;
#   - 33 bytes (past the inline range) and a variable size still call
#     cw_memcpy/cw_memmove;
#   - with -DCW_NO_INLINE the 8-byte copy calls cw_memcpy (which also shows
#     that this script sees a call where there is one).
# Exits 77 (skipped) when the compiler is not installed.
# FLAG...: given to every compilation (a cross build: --target=TRIPLE).
# usage: inline_copy.sh COMPILER HEADER_DIR SRC_DIR SCRATCH_DIR [FLAG...]
set -euo pipefail
compiler=$1 incdir=$2 src=$3 scratch=$4
shift 4
extra=("$@")
if ! command -v "$compiler" >/dev/null 2>&1; then
    echo "skipped: $compiler not installed"
    exit 77
fi
rm -rf "$scratch"
mkdir -p "$scratch"

# calls FILE.s FUNCTION: the functions FUNCTION calls or tail-jumps to, one a
# line (x86-64: call/jmp; aarch64: bl/b), local labels (.L*) left out
calls() {
    awk -v fn="$2" '
        $0 ~ "^" fn ":" { inside = 1; next }
        inside && (/^[ \t]*\.size/ || /^[ \t]*\.cfi_endproc/) { exit }
        inside && $1 ~ /^(call|callq|jmp|jmpq|bl|b)$/ && $2 !~ /^\./ {
            sub(/@.*/, "", $2); print $2
        }' "$1"
}

fail=0
asm() { # OUT.s FLAG...: compile inline_copy.c at -O2 to assembly
    local out=$1
    shift
    "$compiler" ${extra[@]+"${extra[@]}"} -std=c11 -O2 -fno-asynchronous-unwind-tables "$@" \
        -I"$incdir" -S -o "$out" "$src/inline_copy.c"
}
asm "$scratch/inline.s"
asm "$scratch/no_inline.s" -DCW_NO_INLINE
for fn in copy8 copy1 copy32 load8 move8 move31; do
    c=$(calls "$scratch/inline.s" "$fn")
    if [ -n "$c" ]; then
        echo "FAIL: $fn calls $(echo $c): a constant-size copy must be inline"
        sed -n "/^$fn:/,/\.size/p" "$scratch/inline.s" | sed 's/^/    /'
        fail=1
    fi
done
want_call() { # FILE FUNCTION SYMBOL
    calls "$1" "$2" | grep -qx "$3" ||
        { echo "FAIL: $2 does not call $3 ($(basename "$1"))"; fail=1; }
}
want_call "$scratch/inline.s" copy33 cw_memcpy
want_call "$scratch/inline.s" move33 cw_memmove
want_call "$scratch/inline.s" copy_n cw_memcpy
want_call "$scratch/no_inline.s" copy8 cw_memcpy
[ $fail -eq 0 ] && echo "ok: $compiler${extra[*]+ ${extra[*]}} -O2: constant cw_memcpy/cw_memmove of 1-32 bytes inline, 33 bytes and variable sizes call the library"
exit $fail
