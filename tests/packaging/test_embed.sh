#!/bin/bash
# SPDX-License-Identifier: MIT
# Embeds the source tree in a parent project (embed/CMakeLists.txt) the two
# ways users do, and checks that it builds the library only and leaves the
# parent alone:
#   1. add_subdirectory, no build type: configure, build, run the parent's
#      programs (shared and static); nothing but the libraries is built, no
#      test is registered, nothing is installed, CMAKE_BUILD_TYPE stays empty
#      (configure-time checks in embed/CMakeLists.txt)
#   2. FetchContent, CMAKE_BUILD_TYPE=Debug, the shim asked for with
#      -DCACHEWISE_BUILD_PRELOAD=ON: configure only; Debug stays Debug, the
#      shim is defined and nothing else is
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

echo "== add_subdirectory, no build type"
b=$scratch/subdir
run "$scratch/configure1.log" "$cmake" -S "$parent" -B "$b" ${cw_cross_args[@]+"${cw_cross_args[@]}"} -DCMAKE_C_COMPILER="$cc" \
    -DEMBED_WITH=add_subdirectory -DCACHEWISE_SOURCE="$source"
grep -q 'embed checks passed' "$scratch/configure1.log"
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
    -DCMAKE_BUILD_TYPE=Debug -DCACHEWISE_BUILD_PRELOAD=ON -DEXPECT_TARGETS=cachewise_preload
grep -q "embed checks passed (fetchcontent, build type 'Debug')" "$scratch/configure2.log"
echo "ok: embedded, only the libraries are built and the parent's settings are untouched"
