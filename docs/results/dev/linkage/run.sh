#!/usr/bin/env bash
# cw_memcpy against glibc's memcpy with cachewise linked three ways, the
# builds' processes alternating round by round:
#   S  static library (cwbench's default: a static program calls cw_memcpy directly)
#   N  shared library, cw_memcpy an IFUNC (what -lcachewise links)
#   O  shared library built with -DCWI_NO_IFUNC=1 (cw_memcpy a plain function, as before log 16)
# In N and O cwbench calls cw_memcpy through the resolved address, as it calls
# glibc's memcpy: the cost of a call through the PLT for both.
# Usage (repository root): bash docs/results/dev/linkage/run.sh [REPS_AB] [REPS_DIST]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)
W=${CW_LINKAGE_DIR:-/tmp/cw-linkage}
AB=${1:-6}
DI=${2:-4}
declare -A CFG=([S]="" [N]="-DCWB_LINK_SHARED=ON"
                [O]="-DCWB_LINK_SHARED=ON -DCMAKE_C_FLAGS=-DCWI_NO_IFUNC=1")
for v in S N O; do
    # shellcheck disable=SC2086
    cmake -S "$ROOT" -B "$W/$v" -DCMAKE_BUILD_TYPE=Release ${CFG[$v]} >/dev/null
    cmake --build "$W/$v" -j2 --target cwbench >/dev/null
done
echo "### $(date -u '+%Y-%m-%d %H:%M UTC')  load $(cut -d' ' -f1-3 /proc/loadavg)  $(git -C "$ROOT" rev-parse --short HEAD)"
for v in S N O; do "$W/$v/programs/cwbench" --quick --ab cw_memcpy glibc_memcpy --size 64 >/dev/null; done

echo "## cwbench --ab glibc_memcpy cw_memcpy --state random --size 16 ... --size 256 --samples 20 --seed R --pin 1"
echo "## per process: variant seed size B/A"
raw=$(mktemp)
for r in $(seq 1 "$AB"); do
    for v in S N O; do
        "$W/$v/programs/cwbench" --ab glibc_memcpy cw_memcpy --state random --size 16 --size 40 \
            --size 48 --size 64 --size 96 --size 128 --size 256 --samples 20 --seed "$r" --pin 1 |
            awk -v v=$v -v r=$r '/^[0-9]+ B /{print v, r, $1, $7}' | tee -a "$raw"
    done
done
echo "## medians over the processes (B/A = cw_memcpy / glibc throughput)"
python3 - "$raw" <<'PY'
import sys, statistics as st, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    v, r, size, ratio = line.split()
    d[(int(size), v)].append(float(ratio))
for size in sorted({k[0] for k in d}):
    print('%4d B' % size, '  '.join('%s %.3f [%.3f, %.3f]' % (v, st.median(d[(size, v)]),
          min(d[(size, v)]), max(d[(size, v)])) for v in 'SNO'))
PY
: >"$raw"

echo "## cwbench dist FILE --routines cw_memcpy,glibc_memcpy --samples 15 --seed R --pin 1"
echo "## per process: variant seed file cw_memcpy-vs-glibc calls/s"
for f in "$ROOT"/../shared/data/memcpy-sizes/*.sizes; do
    [ -f "$f" ] || continue
    for r in $(seq 1 "$DI"); do
        for v in S N O; do
            "$W/$v/programs/cwbench" dist "$f" --routines cw_memcpy,glibc_memcpy --samples 15 \
                --seed "$r" --pin 1 |
                awk -v v=$v -v r=$r -v f="$(basename "$f" .sizes)" '/^cw_memcpy /{
                    for (i = 1; i <= NF; i++) if ($i == "by") { x = $(i + 1); if ($(i - 1) == "slower") x = "-" x }
                    if ($0 ~ /unchanged/) x = "0%"; sub(/%/, "", x); print v, r, f, x }' | tee -a "$raw"
        done
    done
done
echo "## medians over the processes (% more calls/s than glibc)"
python3 - "$raw" <<'PY'
import sys, statistics as st, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    v, r, f, pct = line.split()
    d[(f, v)].append(float(pct))
for f in sorted({k[0] for k in d}):
    print('%-15s' % f, '  '.join('%s %+.1f%% [%+.1f, %+.1f]' % (v, st.median(d[(f, v)]),
          min(d[(f, v)]), max(d[(f, v)])) for v in 'SNO'))
PY
rm -f "$raw"
