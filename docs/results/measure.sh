#!/usr/bin/env bash
# Reproduce the measurements of docs/results/amd-25-1/ on the CPU at hand.
# Each topic's commands and their full output (with date and load) go to
# docs/results/<cpu>/<topic>.txt, <cpu> named from CPUID (amd-25-1, intel-6-207).
#   bash docs/results/measure.sh [BUILD_DIR] [topic...]
# BUILD_DIR defaults to ./build (cmake -S . -B build && cmake --build build).
# Topics: default glibc-ab t1 t2 t3 t4 t5 t6 t8 safe (default: all). t3 reads the
# fleet distributions shipped in data/memcpy-sizes.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${1:-$ROOT/build}
shift || true
CWB=$BUILD/programs/cwbench
cpu=$("$CWB" info | sed -n 's/^cpu: .*(\([A-Za-z]*\) family \([0-9]*\) model \([0-9]*\)\( stepping [0-9]*\)\{0,1\})$/\1-\2-\3/p' |
      sed 's/GenuineIntel/intel/; s/AuthenticAMD/amd/')
OUT=$ROOT/docs/results/${cpu:-unknown}
mkdir -p "$OUT"
TOPICS=${*:-default glibc-ab t1 t2 t3 t4 t5 t6 t8 safe}
[ -x "$CWB" ] || { echo "no $CWB: build first" >&2; exit 2; }

run() { # run TOPIC cmd...
    local topic=$1; shift
    {
        echo "=================================================================="
        echo "### $(date -u '+%Y-%m-%d %H:%M:%S UTC')  load: $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "\$ cwbench ${*}"
    } >>"$OUT/$topic.txt"
    "$CWB" "$@" >>"$OUT/$topic.txt" 2>&1
    echo "### exit $?" >>"$OUT/$topic.txt"
}

for t in $TOPICS; do
    : >"$OUT/$t.txt"
    case $t in
    default) run default ;;
    glibc-ab) run glibc-ab --ab glibc_memcpy cw_memcpy --size 4K --size 64M --samples 20 --pin 1 ;;
    t1)
        for seed in 1 2 3; do
            run t1 sweep --routines cw_memcpy,glibc_memcpy,rep_movsb,stream_avx2,pmem_memcpy_nt,cw_memcpy_nt \
                --sizes 64M,256M --states cold --samples 10 --seed $seed --pin 1
        done ;;
    t2)
        # ten processes: hot small sizes vary with the host from minute to minute
        for seed in 1 2 3 4 5 6 7 8 9 10; do
            run t2 --ab glibc_memcpy cw_memcpy --size 256 --size 512 --size 1K --size 2K --size 4K \
                --size 8K --size 16K --size 32K --size 64K --size 128K --size 256K --size 512K --size 1M \
                --samples 20 --seed $seed --pin 1
        done ;;
    t3)
        # fixed sizes in ten processes: 32-64 B move by +-25% with the host's
        # minute for both routines, so one process proves little
        for seed in 1 2 3 4 5 6 7 8 9 10; do
            run t3 --ab glibc_memcpy cw_memcpy --size 8 --size 16 --size 32 --size 40 --size 48 \
                --size 64 --size 96 --size 128 --size 256 --state random --samples 20 --seed $seed --pin 1
        done
        for f in "$ROOT"/data/memcpy-sizes/*.sizes; do
            [ -f "$f" ] && run t3 dist "$f" --samples 20 --pin 1
        done ;;
    t4)
        run t4 sweep --routines cw_memcpy,glibc_memcpy --sizes 4K,64K,1M --align 0:0,0:1-63 \
            --states hot --samples 10 --pin 1
        for off in 0:1 0:3 0:31 0:33 0:63 1:0 7:33 63:1; do
            run t4 --ab cw_memcpy cw_memcpy --a-off 0:0 --b-off $off --size 4K --size 64K --size 1M \
                --samples 15 --pin 1
        done ;;
    t5) run t5 pollution --pin 1 ;;
    t6)
        run t6 --ab cw_memcpy_flushcache cw_memcpy_flushcache_const --size 4 --size 8 --size 16 \
            --samples 20 --pin 1
        run t6 --ab pmem_memcpy_nt cw_memcpy_flushcache --size 64 --size 256 --size 1K --size 4K \
            --size 16K --size 64K --size 256K --size 1M --size 4M --size 16M --size 64M --samples 15 --pin 1
        run t6 --ab pmem_memcpy_nt cw_memcpy_flushcache --size 8 --size 16 --size 32 --size 64 \
            --size 96 --size 128 --size 256 --size 1K --size 4K --state random --samples 15 --pin 1 ;;
    t8)
        # The first landed build (acedd40, 2026-11-29) against this
        # one, same sweep, in the order base, final, final, base (ABBA: a drift
        # of the host over the four runs favours the later run in the first
        # pair and the earlier one in the second), plus the same-build control
        # (base vs base): a cell counts as a regression only when it is
        # significantly slower in both pairs; the control shows how many cells
        # drift alone flags. (Until 2026-11-30 the order was base, final, base,
        # final, and cells that drift with the host, the streaming stores'
        # hot cells, were flagged in both pairs.)
        base=$(mktemp -d)
        git -C "$ROOT" worktree add -f "$base/src" acedd40 >/dev/null 2>&1 &&
            cmake -S "$base/src" -B "$base/build" -DCW_BUILD_TESTS=OFF >/dev/null &&
            cmake --build "$base/build" -j2 --target cwbench >/dev/null || { echo "base build failed" >>"$OUT/t8.txt"; continue; }
        args=(sweep --routines cw_memcpy,cw_memcpy_nt,cw_memcpy_flushcache,cw_memmove
              --sizes 64,256,1K,4K,16K,64K,256K,1M,4M,16M,64M --states hot,random --samples 10 --pin 1)
        CWB_SAVE=$CWB
        CWB=$base/build/programs/cwbench run t8 "${args[@]}" --json "$base/first1.json"
        CWB=$CWB_SAVE run t8 "${args[@]}" --json "$base/final1.json"
        CWB=$CWB_SAVE run t8 "${args[@]}" --json "$base/final2.json"
        CWB=$base/build/programs/cwbench run t8 "${args[@]}" --json "$base/first2.json"
        for r in 1 2; do run t8 compare "$base/first$r.json" "$base/final$r.json"; done
        run t8 compare "$base/first1.json" "$base/first2.json"
        {
            echo "=================================================================="
            echo "### cells significantly slower in both alternated pairs (regressions):"
            sed -n '/^\$ cwbench compare .*first1.json .*final1.json/,/^### exit/p' "$OUT/t8.txt" |
                grep -E '^  sweep .*: slower' | sed 's/: slower.*//' | sort >"$base/s1"
            sed -n '/^\$ cwbench compare .*first2.json .*final2.json/,/^### exit/p' "$OUT/t8.txt" |
                grep -E '^  sweep .*: slower' | sed 's/: slower.*//' | sort >"$base/s2"
            comm -12 "$base/s1" "$base/s2"
            echo "### ($(wc -l <"$base/s1") and $(wc -l <"$base/s2") in each pair," \
                "$(sed -n '/^\$ cwbench compare .*first1.json .*first2.json/,/^### exit/p' "$OUT/t8.txt" |
                grep -cE '^  sweep .*: slower') in the same-build control)"
        } >>"$OUT/t8.txt"
        cp "$base/first2.json" "$OUT/t8-first.json"; cp "$base/final2.json" "$OUT/t8-final.json"
        git -C "$ROOT" worktree remove --force "$base/src" >/dev/null 2>&1
        rm -rf "$base" ;;
    safe)
        # cw_copy_safe's cost: three runs, the host drifts between them
        for seed in 1 2 3; do
            run safe --ab cw_memcpy cw_copy_safe --size 16 --size 256 --size 4K --size 16K \
                --size 64K --size 1M --samples 20 --seed $seed --pin 1
        done ;;
    *) echo "unknown topic $t" >&2 ;;
    esac
done
