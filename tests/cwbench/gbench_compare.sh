#!/bin/sh
# SPDX-License-Identifier: MIT
# Google Benchmark's tools/compare.py (Debian: libbenchmark-tools) on two
# cwbench --quick runs: cwbench --json writes that tool's schema. Then
# cwbench compare on the same two files. Exit 77 (skipped) when the tool
# or a python3 with the scipy it imports is not installed.
# usage: gbench_compare.sh CWBENCH WORKDIR
# In a cross build cwbench runs under $CW_EMULATOR (tests/CMakeLists.txt).
set -u
cwbench=$1
work=$2
emu=${CW_EMULATOR:-}
tool=${CWB_GBENCH_COMPARE:-/usr/share/benchmark/compare.py}
if [ ! -f "$tool" ]; then
    echo "skipped: $tool not installed (Debian: apt-get install libbenchmark-tools)"
    exit 77
fi
py=
for p in /usr/bin/python3 python3; do
    if "$p" -c 'import scipy, numpy' 2>/dev/null; then
        py=$p
        break
    fi
done
if [ -z "$py" ]; then
    echo "skipped: compare.py needs python3 with scipy (Debian: apt-get install python3-scipy)"
    exit 77
fi
mkdir -p "$work" || exit 1
rm -f "$work/a.json" "$work/b.json"
for run in a b; do
    seed=1
    [ "$run" = b ] && seed=2
    # shellcheck disable=SC2086
    if ! $emu "$cwbench" --quick --quiet --seed "$seed" --json "$work/$run.json" >"$work/$run.txt" 2>&1
    then
        echo "cwbench --quick failed:"
        cat "$work/$run.txt"
        exit 1
    fi
done
out=$("$py" "$tool" benchmarks "$work/a.json" "$work/b.json" 2>&1)
rc=$?
echo "$out"
if [ "$rc" -ne 0 ]; then
    echo "compare.py exited with $rc"
    exit 1
fi
for want in "Comparing $work/a.json to $work/b.json" "throughput/cw_memcpy/hot/4096 " \
            "throughput/glibc_memcpy/hot/65536_median" "OVERALL_GEOMEAN"; do
    case $out in
    *"$want"*) ;;
    *) echo "compare.py output lacks \"$want\""; exit 1 ;;
    esac
done
# shellcheck disable=SC2086
out=$($emu "$cwbench" compare "$work/a.json" "$work/b.json" 2>&1) || {
    echo "$out"
    echo "cwbench compare failed on the same files"
    exit 1
}
case $out in
*"geometric mean"*"overall:"*) ;;
*) echo "$out"; echo "cwbench compare output lacks the geometric mean"; exit 1 ;;
esac
echo "compare.py and cwbench compare read both files"
