#!/bin/bash
# SPDX-License-Identifier: MIT
# Embeds the source tree in a parent project (embed/CMakeLists.txt) the two
# ways users do, and checks that it builds the library only and leaves the
# parent alone:
#   1. add_subdirectory, no build type: configure, build, run the parent's
#      programs (shared and static); nothing but the libraries is built, no
#      test is registered, nothing is installed, CMAKE_BUILD_TYPE stays empty
#      (configure-time checks in embed/CMakeLists.txt), libpmem (cwbench's)
#      is not looked for; every cachewise source is compiled with -O2
#      (compile_commands.json), the parent's app.c with no -O, as it asked
#   2. FetchContent, CMAKE_BUILD_TYPE=Debug, the shim asked for with
#      -DCACHEWISE_BUILD_PRELOAD=ON: configure only; Debug stays Debug (no
#      -O2 added), the shim is defined and nothing else is
#   3. add_subdirectory, no build type, the shim asked for by the option's
#      earlier name -DCW_BUILD_PRELOAD=ON: configure only; accepted with a
#      deprecation message, and the shim's sources get -O2 too
#   4. add_subdirectory, no build type, CMAKE_C_FLAGS=-O1: configure only;
#      the parent's level is the one used, no -O2 added
# A cross build's toolchain comes from CW_CROSS_CMAKE_ARGS and the programs
# run under CW_EMULATOR (tests/emulator.sh).
# usage: test_embed.sh CMAKE SOURCE_DIR C_COMPILER SCRATCH_DIR
set -euo pipefail
cmake=$1 source=$2 cc=$3 scratch=$4
parent=$(cd "$(dirname "${BASH_SOURCE[0]}")/embed" && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/../emulator.sh"
ctest=$(dirname "$cmake")/ctest
rm -rf "$scratch"
mkdir -p "$scratch"

run() { # LOG command...: run quietly, show the log on failure
    local log=$1
    shift
    "$@" >"$log" 2>&1 || { cat "$log"; echo "FAIL: $*"; exit 1; }
}

# commands BUILD_DIR: "FILE<tab>COMMAND" for every entry of the build's
# compile_commands.json (CMake writes each entry's command line before its
# file line)
commands() {
    awk '/^ *"command":/ { c = $0 }
         /^ *"file":/ { f = $0; sub(/^ *"file": *"/, "", f); sub(/".*$/, "", f); print f "\t" c }' \
        "$1/compile_commands.json"
}
# want_opt BUILD_DIR WANT: every cachewise C source (under $source/src) is
# compiled with the option WANT ("-O2"), or without -O2 when WANT is "!-O2";
# the parent's own sources never get an -O2 the parent did not give
want_opt() {
    local b=$1 want=$2 file cmd n=0
    while IFS=$'\t' read -r file cmd; do
        case $file in
        "$source"/src/*.c)
            n=$((n + 1))
            if [ "$want" = "!-O2" ]; then
                [[ " $cmd " != *" -O2 "* ]] ||
                    { echo "FAIL: $file compiled with -O2 the build did not ask for: $cmd"; exit 1; }
            else
                [[ " $cmd " == *" $want "* ]] ||
                    { echo "FAIL: $file compiled without $want: $cmd"; exit 1; }
            fi ;;
        "$parent"/*)
            [[ " $cmd " != *" -O2 "* ]] ||
                { echo "FAIL: the parent's $file got -O2: $cmd"; exit 1; } ;;
        esac
    done < <(commands "$b")
    [ "$n" -gt 0 ] || { echo "FAIL: no cachewise C source in $b/compile_commands.json"; exit 1; }
    echo "  $n cachewise C sources compiled with $want"
}

echo "== add_subdirectory, no build type"
b=$scratch/subdir
run "$scratch/configure1.log" "$cmake" -S "$parent" -B "$b" ${cw_cross_args[@]+"${cw_cross_args[@]}"} -DCMAKE_C_COMPILER="$cc" \
    -DEMBED_WITH=add_subdirectory -DCACHEWISE_SOURCE="$source" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
grep -q 'embed checks passed' "$scratch/configure1.log"
if grep -qi pmem "$scratch/configure1.log" "$b/CMakeCache.txt"; then
    echo "FAIL: a build without cwbench looked for libpmem (or has its option):"
    grep -i pmem "$scratch/configure1.log" "$b/CMakeCache.txt"
    exit 1
fi
want_opt "$b" -O2
run "$scratch/build1.log" "$cmake" --build "$b" -j2
target "$b/app_shared"
target "$b/app_static"
type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$b/CMakeCache.txt")
[ -z "$type" ] || { echo "FAIL: the parent's build type became '$type'"; exit 1; }
extra=$(find "$b" -type f \( -name cwbench -o -name 'libcachewise-preload*' -o -name 'test_*' \
        -o -name 'example_*' -o -name 'safe_*' \) -perm -u+x)
[ -z "$extra" ] || { echo "FAIL: built what the parent did not ask for:"; echo "$extra"; exit 1; }
tests=$(cd "$b" && "$ctest" -N | sed -n 's/^Total Tests: //p')
[ "${tests:-0}" = 0 ] || { echo "FAIL: $tests tests registered in the parent"; exit 1; }
run "$scratch/install1.log" "$cmake" --install "$b" --prefix "$scratch/inst"
if [ -d "$scratch/inst" ] && [ -n "$(find "$scratch/inst" -type f)" ]; then
    echo "FAIL: installing the parent installed cachewise's files:"; find "$scratch/inst" -type f
    exit 1
fi

echo "== FetchContent, Debug, the shim asked for"
run "$scratch/configure2.log" "$cmake" -S "$parent" -B "$scratch/fetch" \
    ${cw_cross_args[@]+"${cw_cross_args[@]}"} -DCMAKE_C_COMPILER="$cc" \
    -DEMBED_WITH=fetchcontent -DFETCHCONTENT_SOURCE_DIR_CACHEWISE="$source" \
    -DCMAKE_BUILD_TYPE=Debug -DCACHEWISE_BUILD_PRELOAD=ON -DEXPECT_TARGETS=cachewise_preload \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
grep -q "embed checks passed (fetchcontent, build type 'Debug')" "$scratch/configure2.log"
want_opt "$scratch/fetch" "!-O2"

echo "== add_subdirectory, no build type, the shim asked for by its earlier option name"
b=$scratch/oldname
run "$scratch/configure3.log" "$cmake" -S "$parent" -B "$b" ${cw_cross_args[@]+"${cw_cross_args[@]}"} -DCMAKE_C_COMPILER="$cc" \
    -DEMBED_WITH=add_subdirectory -DCACHEWISE_SOURCE="$source" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    -DCW_BUILD_PRELOAD=ON -DEXPECT_TARGETS=cachewise_preload
grep -q "embed checks passed (add_subdirectory, build type '')" "$scratch/configure3.log"
grep -q 'CW_BUILD_PRELOAD is deprecated, use CACHEWISE_BUILD_PRELOAD' "$scratch/configure3.log" ||
    { cat "$scratch/configure3.log"; echo "FAIL: no deprecation message for CW_BUILD_PRELOAD"; exit 1; }
grep -q "$source/src/preload/preload.c" "$b/compile_commands.json" ||
    { echo "FAIL: the shim is not built"; exit 1; }
want_opt "$b" -O2

echo "== add_subdirectory, no build type, CMAKE_C_FLAGS=-O1"
b=$scratch/cflags
run "$scratch/configure4.log" "$cmake" -S "$parent" -B "$b" ${cw_cross_args[@]+"${cw_cross_args[@]}"} -DCMAKE_C_COMPILER="$cc" \
    -DEMBED_WITH=add_subdirectory -DCACHEWISE_SOURCE="$source" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    -DCMAKE_C_FLAGS=-O1
want_opt "$b" -O1
want_opt "$b" "!-O2"
echo "ok: embedded, only the libraries are built (optimised where the parent set no build type) and the parent's settings are untouched"
