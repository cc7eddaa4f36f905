#!/usr/bin/env bash
# A size profile split by size class, each class replayed on its own: which
# sizes of a program's mix make cw_memcpy's calls/s differ from glibc's.
#   bash docs/results/profile-classes.sh [-b BUILD_DIR] PROFILE SEEDS [cwbench dist options...]
# PROFILE is a `cwbench dist` file (data/program-profiles/*.sizes); each class
# (0-8, 9-32, 33-64, 65-256, 257-1024, 1025 B and up) keeps its sizes with
# their probabilities (cwbench dist normalises them); classes the profile
# lacks are skipped. For each class and each seed 1..SEEDS the script runs
# `cwbench dist CLASS --routines cw_memcpy,glibc_memcpy --samples 15 --pin 1
# --seed K` plus the given options, and prints the class's share of the calls
# and the HL ratio of calls/s (cw_memcpy / glibc) of every seed, with the
# verdict's word. Exit status: 0, 2 on a usage error, 1 when a run failed.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$ROOT/build
usage() {
    echo "profile-classes.sh: $1" >&2
    echo "usage: bash docs/results/profile-classes.sh [-b BUILD_DIR] PROFILE SEEDS [cwbench dist options...]" >&2
    exit 2
}
if [ "${1:-}" = "-b" ]; then
    [ $# -ge 2 ] || usage "-b needs a build directory"
    BUILD=$2
    shift 2
fi
[ $# -ge 2 ] || usage "PROFILE and SEEDS are required"
PROFILE=$1 SEEDS=$2
shift 2
[ -r "$PROFILE" ] || usage "cannot read the profile '$PROFILE'"
case $SEEDS in '' | *[!0-9]*) usage "SEEDS must be a whole number from 1 to 20, not '$SEEDS'" ;; esac
[ "$SEEDS" -ge 1 ] && [ "$SEEDS" -le 20 ] || usage "SEEDS must be from 1 to 20, not $SEEDS"
CWB=$BUILD/programs/cwbench
[ -x "$CWB" ] || usage "no $CWB: build first"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# one file per class, and its share of the calls
awk -v dir="$tmp" '
    /^#/ || NF < 2 { next }
    {
        s = $1 + 0; p = $2 + 0
        c = s <= 8 ? "0-8" : s <= 32 ? "9-32" : s <= 64 ? "33-64" : s <= 256 ? "65-256" : s <= 1024 ? "257-1024" : "1025-"
        print s, p > (dir "/" c ".sizes")
        share[c] += p; total += p
    }
    END { for (c in share) printf "%s %.4f\n", c, share[c] / total > (dir "/shares") }' "$PROFILE"

echo "\$ cwbench dist CLASS --routines cw_memcpy,glibc_memcpy --samples 15 --pin 1 --seed 1..$SEEDS $*"
echo "# profile $PROFILE; HL ratio of calls/s, cw_memcpy / glibc, per seed (verdict)"
printf '%-10s %6s  %s\n' class share ratios
rc=0
for c in 0-8 9-32 33-64 65-256 257-1024 1025-; do
    [ -s "$tmp/$c.sizes" ] || continue
    share=$(awk -v c="$c" '$1 == c { print $2 }' "$tmp/shares")
    line=""
    for seed in $(seq 1 "$SEEDS"); do
        out=$("$CWB" dist "$tmp/$c.sizes" --routines cw_memcpy,glibc_memcpy --samples 15 --pin 1 \
            --seed "$seed" "$@" 2>&1) || { echo "$out" >&2; rc=1; continue; }
        row=$(grep -m1 -E '^cw_memcpy ' <<<"$out")
        r=$(grep -oE 'HL ratio [0-9.]+' <<<"$row" | head -n1 | cut -d' ' -f3)
        v=$(grep -oE 'significant|within noise|inconsistent' <<<"$row" | head -n1)
        case $v in significant) v=sig ;; "within noise") v=noise ;; inconsistent) v=incons ;; esac
        line="$line ${r:-?}(${v:-?})"
    done
    printf '%-10s %6s %s\n' "$c B" "$share" "$line"
done
exit $rc
