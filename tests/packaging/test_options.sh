#!/bin/bash
# SPDX-License-Identifier: MIT
# The top-level build's options, configure only:
#   - by default (top-level) tests, cwbench, the shim and the examples are
#     built, and an empty build type becomes Release;
#   - a build type given is kept;
#   - every option is CACHEWISE_*;
#   - the options' earlier names (-DCW_BUILD_TESTS=OFF -DCW_BUILD_PROGRAMS=OFF
#     -DCW_BUILD_PRELOAD=OFF, -DCW_WERROR, -DCW_SANITIZE, -DCW_BUILD_FUZZ,
#     -DCW_WITH_LIBPMEM, -DCWB_LINK_SHARED, as tests/run-all.sh passes some)
#     set the new ones, each with a deprecation message naming the new name,
#     and leave the cache, so a later -DCACHEWISE_BUILD_TESTS=ON wins.
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
want "$scratch/default" CACHEWISE_WERROR OFF
want "$scratch/default" CACHEWISE_BUILD_FUZZ OFF
want "$scratch/default" CACHEWISE_WITH_LIBPMEM ON
want "$scratch/default" CACHEWISE_BENCH_LINK_SHARED OFF
want "$scratch/default" CACHEWISE_TEST_QUICK_POLICY OFF
# the project's own options (the ones its files declare) are all CACHEWISE_*
others=$(grep -E '^(CW|CWB)_[A-Z_]*:(BOOL|STRING)=' "$scratch/default/CMakeCache.txt" |
         grep -vE '^(CW_HAVE_|CW_DC_CVAP_|CWB_PMEM|CW_QEMU_CPU|CW_CROSS_)' || true)
[ -z "$others" ] || { echo "FAIL: options outside CACHEWISE_*:"; echo "$others"; exit 1; }

configure "$scratch/debug" -DCMAKE_BUILD_TYPE=Debug -DCACHEWISE_BUILD_TESTS=OFF
want "$scratch/debug" CMAKE_BUILD_TYPE Debug
want "$scratch/debug" CACHEWISE_BUILD_TESTS OFF
[ ! -e "$scratch/debug/tests" ] || { echo "FAIL: CACHEWISE_BUILD_TESTS=OFF configured tests/"; exit 1; }

# deprecated LOG OLD NEW: the configure log says OLD is deprecated for NEW
deprecated() {
    grep -q "Deprecation Warning" "$1" && grep -q "$2 is deprecated, use $3" "$1" ||
        { cat "$1"; echo "FAIL: no deprecation message for $2 -> $3"; exit 1; }
}

b=$scratch/old-names
configure "$b" -DCW_BUILD_TESTS=OFF -DCW_BUILD_PROGRAMS=OFF -DCW_BUILD_PRELOAD=OFF
for o in TESTS BENCHMARKS PRELOAD; do want "$b" CACHEWISE_BUILD_$o OFF; done
for o in TESTS PROGRAMS PRELOAD; do want "$b" CW_BUILD_$o "<none>"; done
deprecated "$b.log" CW_BUILD_TESTS CACHEWISE_BUILD_TESTS
deprecated "$b.log" CW_BUILD_PROGRAMS CACHEWISE_BUILD_BENCHMARKS
deprecated "$b.log" CW_BUILD_PRELOAD CACHEWISE_BUILD_PRELOAD
configure "$b" -DCACHEWISE_BUILD_TESTS=ON
want "$b" CACHEWISE_BUILD_TESTS ON
want "$b" CACHEWISE_BUILD_BENCHMARKS OFF
! grep -q "is deprecated" "$b.log" || { cat "$b.log"; echo "FAIL: deprecation message with new names only"; exit 1; }

# the rest of the earlier names (-DCW_SANITIZE=undefined: a sanitizer build
# is configured, not built); cwbench's two take effect where cwbench is built
b=$scratch/old-names2
configure "$b" -DCW_WERROR=ON -DCW_SANITIZE=undefined -DCW_BUILD_FUZZ=OFF -DCW_WITH_LIBPMEM=OFF \
    -DCWB_LINK_SHARED=ON -DCACHEWISE_BUILD_TESTS=OFF
for m in CW_WERROR:WERROR:ON CW_SANITIZE:SANITIZE:undefined CW_BUILD_FUZZ:BUILD_FUZZ:OFF \
         CW_WITH_LIBPMEM:WITH_LIBPMEM:OFF CWB_LINK_SHARED:BENCH_LINK_SHARED:ON; do
    IFS=: read -r old new value <<<"$m"
    want "$b" "CACHEWISE_$new" "$value"
    want "$b" "$old" "<none>"
    deprecated "$b.log" "$old" "CACHEWISE_$new"
done
grep -q "libpmem" "$b.log" && { echo "FAIL: -DCW_WITH_LIBPMEM=OFF still looked for libpmem"; exit 1; }
echo "ok: defaults, a given build type, every option CACHEWISE_*, and the earlier option names with deprecation messages"
