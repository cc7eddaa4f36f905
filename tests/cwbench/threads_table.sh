#!/bin/sh
# SPDX-License-Identifier: MIT
# `cwbench threads --quick`: the structure of what it prints, never its
# figures (timings are no assertion). The scaling table has one row per
# thread count 1..N in order, N the CPUs this process may run on (nproc
# reads the affinity mask) or --threads; every row's figures are numbers
# (no NaN or inf); the exit status is 0. With --victim the pollution table
# has its seven rows and the target line.
#   threads_table.sh CWBENCH [ARGS...]       as the test runs
#   threads_table.sh --one-cpu CWBENCH       under taskset on one CPU: N = 1,
#                                            --threads 2 refused (exit 2),
#                                            and tune skips the thread count
# Exit 77 (skipped) when --one-cpu finds no taskset. In a cross build
# cwbench runs under $CW_EMULATOR (tests/CMakeLists.txt).
set -u
one_cpu=0
if [ "$1" = "--one-cpu" ]; then
    one_cpu=1
    shift
fi
cwbench=$1
shift
emu=${CW_EMULATOR:-}
fail() {
    echo "FAIL: $*"
    exit 1
}
run=""
if [ $one_cpu -eq 1 ]; then
    command -v taskset >/dev/null 2>&1 || { echo "skipped: no taskset"; exit 77; }
    first=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/self/status)
    run="taskset -c ${first:-0}"
fi
want=$($run env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
prev=""
for a in "$@"; do
    [ "$prev" = "--threads" ] && want=$a
    prev=$a
done
[ "$want" -gt 64 ] && want=64

# shellcheck disable=SC2086
out=$($run $emu "$cwbench" threads --quick --quiet "$@" 2>&1)
rc=$?
[ $rc -eq 0 ] || fail "exit status $rc, want 0; output:
$out"
echo "$out" | grep -qiw -e nan -e inf && fail "NaN or inf in the output:
$out"
check=$(echo "$out" | awk -v want="$want" '
    /^threads +pool +cw_copy_parallel +ceiling +glibc split/ { tables++; row = 0; inside = 1; next }
    inside && /^[0-9]/ {
        row++
        if ($1 != row) { print "row " row " is numbered " $1; bad = 1 }
        if ($2 > $1 || $2 < 1) { print "row " row ": pool threads " $2 }
        # the three GB/s medians
        if ($3 !~ /^[0-9]+\.[0-9]+$/ || $5 !~ /^[0-9]+\.[0-9]+$/ || $7 !~ /^[0-9]+\.[0-9]+$/)
            { print "row " row ": not three medians: " $0; bad = 1 }
        next
    }
    inside { if (row != want) { print "table " tables ": " row " rows, want " want; bad = 1 }
             inside = 0 }
    /^target \(k parts evict at most one streaming call/ { target = 1 }
    /^(cw_memcpy_nt|cw_copy_part|cw_copy_parallel|background)/ { victim_rows++ }
    END {
        if (inside && row != want) { print "last table: " row " rows, want " want; bad = 1 }
        if (tables == 0) { print "no scaling table"; bad = 1 }
        printf "tables=%d victim_rows=%d target=%d bad=%d\n", tables, victim_rows, target, bad
    }')
echo "$check"
case $check in
*"bad=1"*) fail "the table is malformed:
$out" ;;
esac
case " $* " in
*" --victim "*)
    case $check in
    *"victim_rows=7 target=1"*) ;;
    *) fail "the pollution table lacks its 7 rows or its target line:
$out" ;;
    esac ;;
esac

if [ $one_cpu -eq 1 ]; then
    # shellcheck disable=SC2086
    err=$($run $emu "$cwbench" threads --threads 2 2>&1 >/dev/null)
    rc=$?
    [ $rc -eq 2 ] || fail "--threads 2 on one CPU: exit $rc, want 2"
    case $err in
    *"cwbench: --threads 2: this process may run on 1 CPU"*"usage:"*) ;;
    *) fail "--threads 2 on one CPU: $err" ;;
    esac
    # shellcheck disable=SC2086
    tune=$($run $emu "$cwbench" tune --quick --quiet 2>&1)
    rc=$?
    [ $rc -eq 0 ] || fail "tune --quick on one CPU: exit $rc:
$tune"
    case $tune in
    *"parallel threads: not measured: this process may run on 1 CPU"*) ;;
    *) fail "tune on one CPU does not skip the thread count:
$tune" ;;
    esac
fi
echo "the threads table is well formed"
