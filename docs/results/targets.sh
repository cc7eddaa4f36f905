#!/usr/bin/env bash
# The out-of-the-box targets of a CPU (docs/RESULTS.md, a CPU's "Where the
# targets stand at ..."; the earlier runs on AMD EPYC family 26 model 2 in
# docs/results/amd-26-2/README.md): hot 16 B-1 KiB at four offset pairs, random offsets, the
# hot power-of-two classes 256 B-1 MiB, a misaligned destination, hot
# 2-16 MiB and cold 64 MiB against the best routines, a destination a few bytes
# past the source modulo 4 KiB (not a target: rep movsb's short distance), the size distributions
# and the programs' profiles, and the pollution of a quarter-L2 victim. Every
# --ab cell runs in four processes (processes.sh; the classes in five, and a hot
# 16 B-1 KiB cell below 0.97x glibc again in 24), each
# distribution in four;
# the host probe (glibc's hot 64 B, GB/s) is printed before and after, since
# on some hosts small-copy ratios move with the host's slow episodes.
#   bash docs/results/targets.sh [-b BUILD_DIR] > targets-COMMIT.txt
# Exit status: 0, 2 on a usage error, 1 when a run failed.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$ROOT/build
if [ "${1:-}" = "-b" ]; then
    [ $# -ge 2 ] || { echo "targets.sh: -b needs a build directory" >&2; exit 2; }
    BUILD=$2
    shift 2
fi
[ $# -eq 0 ] || { echo "targets.sh: unexpected argument '$1'" >&2
    echo "usage: bash docs/results/targets.sh [-b BUILD_DIR]" >&2; exit 2; }
CWB=$BUILD/programs/cwbench
[ -x "$CWB" ] || { echo "targets.sh: no $CWB: build first" >&2; exit 2; }
P="bash $ROOT/docs/results/processes.sh -b $BUILD"
fail=0
probe() {
    echo "### probe $(date -u '+%H:%M:%S UTC'): glibc hot 64 B $("$CWB" --ab glibc_memcpy rep_movsb \
        --size 64 --pin 1 2>/dev/null | awk '/^64 B/ {print $3}') GB/s"
}
run() { "$@" || fail=1; }

echo "### $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null);" \
    "$("$CWB" info | sed -n 's/^cpu: //p')"
probe
# multiples of 64 and sizes between them: 257 B-1 KiB copies that are not
# multiples of 64 have read 0.1x below their neighbours (docs/results/amd-26-2/README.md,
# "Six stores for 257-384 B")
sizes="--size 16 --size 32 --size 40 --size 48 --size 64 --size 72 --size 96 --size 100 --size 128"
sizes="$sizes --size 144 --size 192 --size 256 --size 304 --size 320 --size 384 --size 400"
sizes="$sizes --size 464 --size 512 --size 576 --size 640 --size 736 --size 768 --size 800"
sizes="$sizes --size 880 --size 1000 --size 1024"
recheck=()
for off in 0:0 0:1 5:0 3:13; do
    echo
    echo "##### hot, offsets $off"
    # shellcheck disable=SC2086
    out=$($P 4 --ab glibc_memcpy cw_memcpy $sizes --a-off "$off" --b-off "$off" --pin 1) || fail=1
    echo "$out"
    for s in $(echo "$out" | awk '/^[0-9]+ (B|KiB) / && $3 + 0 < 0.97 {print $1 ($2 == "KiB" ? "K" : "")}'); do
        recheck+=("$off $s")
    done
done
# A cell whose ratio is 1.00 can read 0.95 by the median of four processes
# where glibc's own speed is two-mode (144 B on AMD EPYC family 25 model 17:
# docs/results/amd-25-17/README.md, "The tail stored downward for 129-256 B"):
# each cell below 0.97 is measured again in 24 processes.
echo
echo "##### the hot cells above that read below 0.97x glibc by the median of four processes, again in 24 processes each"
[ ${#recheck[@]} -eq 0 ] && echo "(none)"
for c in "${recheck[@]}"; do
    off=${c% *}
    run $P 24 --ab glibc_memcpy cw_memcpy --size "${c#* }" --a-off "$off" --b-off "$off" --pin 1
done
echo
echo "##### random offsets"
run $P 4 --ab glibc_memcpy cw_memcpy --size 8 --size 16 --size 32 --size 64 --size 128 \
    --size 256 --size 512 --state random --pin 1
echo
echo "##### hot power-of-two classes 256 B-1 MiB, the default placement, five processes"
run $P 5 --ab glibc_memcpy cw_memcpy --size 256 --size 512 --size 1K --size 2K --size 4K \
    --size 8K --size 16K --size 32K --size 64K --size 128K --size 256K --size 512K --size 1M \
    --samples 15 --pin 1
echo
echo "##### misaligned destination (0:1, not 4K-aliased) against aligned (0:0), then against glibc"
run $P 4 --ab cw_memcpy cw_memcpy --size 4K --size 64K --size 1M --a-off 0:0 --b-off 0:1 --pin 1
run $P 4 --ab glibc_memcpy cw_memcpy --size 4K --size 64K --size 1M --a-off 0:1 --b-off 0:1 --pin 1
echo
echo "##### the destination 1 byte past the source modulo 4 KiB (where rep movsb falls to 3.5 GB/s" \
    "on AMD EPYC family 25 model 17) against 64 bytes past it, then against glibc"
run $P 4 --ab cw_memcpy cw_memcpy --size 16K --size 64K --size 1M --a-off 2048:64 --b-off 2048:1 \
    --pin 1
run $P 4 --ab glibc_memcpy cw_memcpy --size 16K --size 64K --size 1M --a-off 2048:1 --b-off 2048:1 \
    --pin 1
for r in rep_movsb cw_memcpy_nt glibc_memcpy; do
    echo
    echo "##### hot 2-16 MiB against $r"
    run $P 4 --ab "$r" cw_memcpy --size 2M --size 4M --size 8M --size 16M --pin 1
done
echo
echo "##### cold 64 MiB"
# the widest plain streaming loop this CPU runs (stream_avx512 needs AVX-512)
stream=stream_avx2
"$CWB" --list-routines | grep -q '^stream_avx512 ' && stream=stream_avx512
for r in glibc_memcpy rep_movsb cw_memcpy_nt "$stream"; do
    run $P 4 --ab "$r" cw_memcpy --size 64M --state cold --pin 1
done
echo
echo "##### distributions: cwbench dist FILE --routines cw_memcpy,glibc_memcpy --pin 1," \
    "four processes per file, the HL ratio of each"
for d in "$ROOT"/data/memcpy-sizes/*.sizes "$ROOT"/data/program-profiles/*.sizes; do
    line="$(basename "$d" .sizes):"
    for _ in 1 2 3 4; do
        out=$("$CWB" dist "$d" --routines cw_memcpy,glibc_memcpy --pin 1 2>/dev/null) || fail=1
        line="$line $(echo "$out" | sed -n 's/^cw_memcpy .*HL ratio \([0-9.]*\).*/\1/p')"
    done
    echo "$line"
done
echo
echo "##### pollution: cwbench pollution --size 16M --size 64M" \
    "--routines cw_memcpy_nt,cw_copy_nta,rep_movsb,glibc_memcpy --pin 1"
run "$CWB" pollution --size 16M --size 64M --routines cw_memcpy_nt,cw_copy_nta,rep_movsb,glibc_memcpy \
    --pin 1 2>/dev/null
echo
probe
exit $fail
