#!/bin/bash
# SPDX-License-Identifier: MIT
# Compiles header_use.c (C99, C11, C17) or header_use.cpp (C++11, 14, 17, 20)
# against a copy of include/cachewise.h laid out as installed and found with
# -I, as pkg-config and plain makefiles pass it (CMake's imported targets use
# -isystem, which hides a header's warnings from its users, not from this
# test), with the warnings users turn on and -Werror: at -O0 and -O2 (the
# inline fast path only expands when optimising), with and without
# CW_NO_INLINE. gcc's -Wcast-align says nothing on x86 unless =strict, so gcc
# gets that form. C++ adds what C++ projects turn on against C idioms:
# -Wold-style-cast, -Wzero-as-null-pointer-constant and (g++ only)
# -Wuseless-cast. Exits 77 (skipped) when the compiler is not installed.
# FLAG...: given to every compilation (a cross build: --target=TRIPLE).
# usage: header_flags.sh COMPILER HEADER SRC_DIR SCRATCH_DIR [FLAG...]
set -euo pipefail
compiler=$1 header=$2 src=$3 scratch=$4
shift 4
extra=("$@")
if ! command -v "$compiler" >/dev/null 2>&1; then
    echo "skipped: $compiler not installed"
    exit 77
fi
rm -rf "$scratch"
mkdir -p "$scratch/include"
cp "$header" "$scratch/include/cachewise.h"

case $("$compiler" --version 2>/dev/null | head -n1) in
*clang*) align=-Wcast-align cxx_only=() ;;
*) align=-Wcast-align=strict cxx_only=(-Wuseless-cast) ;;
esac
flags=(${extra[@]+"${extra[@]}"} -Wall -Wextra -pedantic -pedantic-errors "$align" -Wconversion
       -Wsign-conversion -Wshadow -Wundef -Werror -I"$scratch/include")
case $compiler in
*++*) file=$src/header_use.cpp stds=(c++11 c++14 c++17 c++20)
     flags+=(-Wold-style-cast -Wzero-as-null-pointer-constant ${cxx_only[@]+"${cxx_only[@]}"}) ;;
*) file=$src/header_use.c stds=(c99 c11 c17)
   flags+=(-Wstrict-prototypes -Wmissing-prototypes) ;;
esac

fail=0 n=0
for std in "${stds[@]}"; do
    # an older compiler may lack a standard: skip that one, say so
    if ! "$compiler" ${extra[@]+"${extra[@]}"} -std="$std" -fsyntax-only -x "$([[ $compiler == *++* ]] && echo c++ || echo c)" \
        /dev/null 2>/dev/null; then
        echo "note: $compiler has no -std=$std, not checked"
        continue
    fi
    for opt in -O0 -O2; do
        for def in "" -DCW_NO_INLINE; do
            n=$((n + 1))
            cmd=("$compiler" -std="$std" "$opt" ${def:+"$def"} "${flags[@]}" -c "$file"
                 -o "$scratch/out.o")
            if ! "${cmd[@]}" >"$scratch/log" 2>&1; then
                echo "FAIL: ${cmd[*]}"
                sed 's/^/    /' "$scratch/log"
                fail=1
            fi
        done
    done
done
[ $fail -eq 0 ] && echo "ok: cachewise.h clean in $n $compiler${extra[*]+ ${extra[*]}} builds (${stds[*]}; -O0/-O2; with and without CW_NO_INLINE)"
exit $fail
