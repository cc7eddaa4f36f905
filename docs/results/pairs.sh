#!/usr/bin/env bash
# Two configurations of cachewise compared in N pairs of processes, A then
# B, alternating: per row of cwbench's output that carries an HL ratio (a
# size of `cwbench --ab`, a routine of `cwbench dist`), the median and range
# of A's and of B's ratios and the median and range of the paired quotient
# B/A, with how many pairs found B's ratio higher. A configuration is a
# command prefix: an environment and a cwbench binary, e.g.
# "CACHEWISE_IMPL=avx512 build/programs/cwbench". One binary under two
# settings runs its code at the same addresses, and pairs that alternate
# spread the host's drift over both configurations alike (docs/results/amd-26-2/README.md,
# "The avx512-evex row").
#   bash docs/results/pairs.sh N "PREFIX_A" "PREFIX_B" cwbench-arguments...
# Exit status: 0, 2 on a usage error, 1 when a process failed.
set -uo pipefail
usage() {
    echo "pairs.sh: $1" >&2
    echo "usage: bash docs/results/pairs.sh N \"PREFIX_A\" \"PREFIX_B\" cwbench-arguments..." >&2
    exit 2
}
[ $# -ge 4 ] || usage "N, two command prefixes and cwbench's arguments are needed"
N=$1 A=$2 B=$3
shift 3
case $N in '' | *[!0-9]*) usage "N must be a whole number from 2 to 50, not '$N'" ;; esac
[ "$N" -ge 2 ] && [ "$N" -le 50 ] || usage "N must be from 2 to 50, not $N"
command -v python3 >/dev/null 2>&1 || usage "python3 is needed for the summary"
rows=$(mktemp) || exit 1
trap 'rm -f "$rows"' EXIT
echo "### $(date -u '+%Y-%m-%d %H:%M:%S UTC')  load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "### A: $A   B: $B   arguments: $*   ($N pairs)"
for i in $(seq 1 "$N"); do
    for w in A B; do
        [ $w = A ] && prefix=$A || prefix=$B
        # shellcheck disable=SC2086
        out=$(env $prefix "$@" 2>&1) || {
            printf '%s\n' "$out" | tail -3 >&2
            echo "pairs.sh: process $w$i failed" >&2
            exit 1
        }
        printf '%s\n' "$out" | awk -v i="$i" -v w=$w '
            $1 ~ /^[0-9]+$/ && $2 ~ /^(B|KiB|MiB|GiB)$/ && /HL ratio/ {
                match($0, /[0-9]+\.[0-9]+ +\[/); hl = substr($0, RSTART, RLENGTH)
                sub(/ +\[$/, "", hl); print i, w, $1 " " $2 "|" hl; next }
            $1 !~ /^(overall|geomean)/ && match($0, /\(HL ratio [0-9]+\.[0-9]+/) {
                print i, w, $1 "|" substr($0, RSTART + 10, RLENGTH - 10) }' >>"$rows"
    done
done
python3 - "$rows" <<'PY'
import collections, statistics, sys
seen, order = collections.defaultdict(dict), []
for line in open(sys.argv[1]):
    i, w, rest = line.rstrip("\n").split(" ", 2)
    key, hl = rest.rsplit("|", 1)
    if key not in order:
        order.append(key)
    seen[key][(int(i), w)] = float(hl)
print(f"{'row':14s} {'A median [range]':24s} {'B median [range]':24s} {'B/A paired median [range]':28s} B/A > 1")
for key in order:
    d = seen[key]
    a = [v for (i, w), v in d.items() if w == "A"]
    b = [v for (i, w), v in d.items() if w == "B"]
    q = [d[(i, "B")] / d[(i, "A")] for (i, w) in d if w == "A" and (i, "B") in d]
    if not a or not b or not q:
        continue
    fmt = lambda x: f"{statistics.median(x):.3f} [{min(x):.3f}, {max(x):.3f}]"
    print(f"{key:14s} {fmt(a):24s} {fmt(b):24s} {fmt(q):28s} {sum(x > 1 for x in q)}/{len(q)}")
PY
