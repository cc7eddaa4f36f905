#!/bin/bash
# SPDX-License-Identifier: MIT
# The top-level build's options, configure only:
#   - by default (top-level) tests, cwbench, the shim and the examples are
#     built, and an empty build type becomes Release;
#   - a build type given is kept;
#   - the options' earlier names (-DCW_BUILD_TESTS=OFF -DCW_BUILD_PROGRAMS=OFF
#     -DCW_BUILD_PRELOAD=OFF, as tests/run-all.sh passes them) set the new
#     ones and leave the cache, so a later -DCACHEWISE_BUILD_TESTS=ON wins.
# A cross build's toolchain comes from CW_CROSS_CMAKE_ARGS (tests/emulator.sh).
# usage: test_options.sh CMAKE SOURCE_DIR C_COMPILER SCRATCH_DIR
set -euo pipefail
cmake=$1 source=$2 cc=$3 scratch=$4
. "$(dirname "${BASH_SOURCE[0]}")/../emulator.sh"
rm -rf "$scratch"
mkdir -p "$scratch"

configure() { # BUILD_DIR args...
    local b=$1
    shift
    "$cmake" -S "$source" -B "$b" ${cw_cross_args[@]+"${cw_cross_args[@]}"} -DCMAKE_C_COMPILER="$cc" \
        "$@" >"$b.log" 2>&1 \
        || { cat "$b.log"; echo "FAIL: configure $*"; exit 1; }
}
want() { # BUILD_DIR VAR VALUE: the cache holds VAR=VALUE ("<none>": no entry)
    local got
    got=$(sed -n "s/^$2:[A-Z]*=//p" "$1/CMakeCache.txt")
    [ "${got:-<none>}" = "$3" ] || { echo "FAIL: $1: $2 is '${got:-<none>}', want '$3'"; exit 1; }
}

configure "$scratch/default"
want "$scratch/default" CMAKE_BUILD_TYPE Release
for o in TESTS BENCHMARKS PRELOAD EXAMPLES; do want "$scratch/default" CACHEWISE_BUILD_$o ON; done
want "$scratch/default" CACHEWISE_INSTALL ON

configure "$scratch/debug" -DCMAKE_BUILD_TYPE=Debug -DCACHEWISE_BUILD_TESTS=OFF
want "$scratch/debug" CMAKE_BUILD_TYPE Debug
want "$scratch/debug" CACHEWISE_BUILD_TESTS OFF
[ ! -e "$scratch/debug/tests" ] || { echo "FAIL: CACHEWISE_BUILD_TESTS=OFF configured tests/"; exit 1; }

b=$scratch/old-names
configure "$b" -DCW_BUILD_TESTS=OFF -DCW_BUILD_PROGRAMS=OFF -DCW_BUILD_PRELOAD=OFF
for o in TESTS BENCHMARKS PRELOAD; do want "$b" CACHEWISE_BUILD_$o OFF; done
for o in TESTS PROGRAMS PRELOAD; do want "$b" CW_BUILD_$o "<none>"; done
configure "$b" -DCACHEWISE_BUILD_TESTS=ON
want "$b" CACHEWISE_BUILD_TESTS ON
want "$b" CACHEWISE_BUILD_BENCHMARKS OFF
echo "ok: defaults, a given build type, and the earlier option names"
