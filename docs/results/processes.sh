#!/usr/bin/env bash
# One `cwbench --ab` comparison in N separate processes, and per size what
# they agree on. On some CPUs (AMD EPYC family 26 model 2:
# docs/results/amd-26-2/README.md, "Timed from eight call sites") copies of a few nanoseconds move by 10-40% from one
# process to the next (code and buffers land elsewhere), more than a
# single run's confidence interval admits; a difference is real only where
# every process finds it.
#   bash docs/results/processes.sh [-b BUILD_DIR] [-k] N --ab A B [cwbench options...]
# Runs BUILD_DIR/programs/cwbench (default ./build) N times (2..50) with the
# given arguments, pinned as they say, and prints per size the N HL ratios
# B/A, their median and range, and how many processes found B significantly
# faster or slower; then each process's geomean of the HL ratios, where the
# run has several sizes. -k also prints each process's full output (to
# stderr).
# Exit status: 0, 2 on a usage error, 1 when a process failed.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$ROOT/build
KEEP=0
usage() {
    echo "processes.sh: $1" >&2
    echo "usage: bash docs/results/processes.sh [-b BUILD_DIR] [-k] N --ab A B [cwbench options...]" >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
    -b) [ $# -ge 2 ] || usage "-b needs a build directory"; BUILD=$2; shift 2 ;;
    -k) KEEP=1; shift ;;
    *) break ;;
    esac
done
[ $# -ge 1 ] || usage "the number of processes is missing"
N=$1
shift
case $N in '' | *[!0-9]*) usage "N must be a whole number from 2 to 50, not '$N'" ;; esac
[ "$N" -ge 2 ] && [ "$N" -le 50 ] || usage "N must be from 2 to 50, not $N"
[ "${1:-}" = "--ab" ] || usage "the cwbench arguments must start with --ab"
CWB=$BUILD/programs/cwbench
[ -x "$CWB" ] || usage "no $CWB: build first"

rows=$(mktemp) || exit 1
trap 'rm -f "$rows"' EXIT
echo "### $(date -u '+%Y-%m-%d %H:%M:%S UTC')  load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "### $("$CWB" info | sed -n 's/^cpu: //p')"
echo "\$ cwbench $*   # in $N processes"
for p in $(seq 1 "$N"); do
    out=$("$CWB" "$@" 2>&1)
    rc=$?
    [ "$KEEP" = 1 ] && printf '%s\n' "$out" >&2
    if [ $rc -ne 0 ]; then
        printf '%s\n' "$out" | tail -3 >&2
        echo "processes.sh: process $p exited with $rc" >&2
        exit 1
    fi
    # a size row: "<n> <unit> A-cell B-cell HL [lo, hi] verdict"
    printf '%s\n' "$out" | awk -v p="$p" '
        $1 ~ /^[0-9]+$/ && $2 ~ /^(B|KiB|MiB|GiB)$/ && $0 ~ /HL ratio/ {
            match($0, /[0-9]+\.[0-9]+ +\[/); hl = substr($0, RSTART, RLENGTH);
            sub(/ +\[$/, "", hl);
            v = "noise";
            if ($0 ~ /significant/) v = ($0 ~ /faster by/) ? "faster" : ($0 ~ /slower by/) ? "slower" : "noise";
            print p, $1 " " $2, hl, v }
        $1 == "geomean" { print p, "geomean", $2, "-" }' >>"$rows"
done
awk -v N="$N" '
    $2 == "geomean" { g = g " " $3; next }
    { key = $2 " " $3; if (!(key in seen)) { seen[key] = 1; order[++n] = key }
      r[key] = r[key] " " $4; c[key]++; if ($5 == "faster") f[key]++; if ($5 == "slower") s[key]++ }
    END {
        printf "%-10s %-8s %-17s %-13s %s\n", "size", "median", "range", "significant", "HL ratio B/A per process"
        for (i = 1; i <= n; i++) {
            k = order[i]; m = split(substr(r[k], 2), x, " ")
            for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (x[b] < x[a]) { t = x[a]; x[a] = x[b]; x[b] = t }
            med = (m % 2) ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
            verdict = (f[k] + 0 == N) ? "faster in all" : (s[k] + 0 == N) ? "slower in all" : \
                      sprintf("+%d -%d of %d", f[k] + 0, s[k] + 0, N)
            printf "%-10s %-8.3f [%.3f, %.3f]  %-13s%s\n", k, med, x[1], x[m], verdict, r[k]
        }
        if (n == 0) print "no size rows in the output (is it an --ab run?)"
        if (g != "") print "geomean of the HL ratios, one per process:" g
    }' "$rows"
