#!/usr/bin/env bash
# Two builds of cwbench against glibc, alternated cell group by cell group
# (one process each, A's group then B's, then the next group), ROUNDS times:
# the host's slow and quiet spells then fall on both builds alike, where
# whole targets.sh runs one after the other caught them on one build only.
# The groups: hot 16 B-1 KiB at the offset pairs 0:0, 0:1, 5:0, 3:13, hot
# 1-15 B, random offsets 8 B-2 KiB, the hot classes 256 B-64 KiB and every
# size distribution of data/. Output: OUT_DIR/a.txt and OUT_DIR/b.txt, each
# round headed by the time and the host probe (glibc's hot 64 B, GB/s);
# summarise with ab-builds-summary.py OUT_DIR. Give each build a directory
# of its own source (git worktree): a build tree configured on the working
# tree compiles whatever the tree holds when it is built.
#   bash docs/results/ab-builds.sh BUILD_A BUILD_B ROUNDS OUT_DIR
set -uo pipefail
[ $# -eq 4 ] || { echo "usage: bash docs/results/ab-builds.sh BUILD_A BUILD_B ROUNDS OUT_DIR" >&2; exit 2; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
A=$1 B=$2 ROUNDS=$3 OUT=$4
for d in "$A" "$B"; do
    [ -x "$d/programs/cwbench" ] || { echo "ab-builds.sh: no $d/programs/cwbench" >&2; exit 2; }
done
mkdir -p "$OUT" || exit 1
sizes="--size 16 --size 32 --size 40 --size 48 --size 64 --size 72 --size 96 --size 100"
sizes="$sizes --size 128 --size 144 --size 192 --size 256 --size 304 --size 320 --size 384"
sizes="$sizes --size 400 --size 464 --size 512 --size 576 --size 640 --size 736 --size 768"
sizes="$sizes --size 800 --size 880 --size 1000 --size 1024"
for r in $(seq 1 "$ROUNDS"); do
    for side in a b; do
        d=$A
        [ "$side" = b ] && d=$B
        cwb="$d/programs/cwbench"
        f="$OUT/$side.txt"
        echo "### round $r $(date -u +%H:%M:%S) probe $("$cwb" --ab glibc_memcpy rep_movsb --size 64 \
            --pin 1 2>/dev/null | awk '/^64 B/ {print $3}')" >> "$f"
        for off in 0:0 0:1 5:0 3:13; do
            echo "##### hot $off" >> "$f"
            # shellcheck disable=SC2086
            "$cwb" --ab glibc_memcpy cw_memcpy $sizes --a-off "$off" --b-off "$off" --pin 1 >> "$f" 2>&1
        done
        echo "##### tiny 0:0" >> "$f"
        "$cwb" --ab glibc_memcpy cw_memcpy --size 1 --size 2 --size 3 --size 4 --size 6 --size 8 \
            --size 12 --size 15 --pin 1 >> "$f" 2>&1
        echo "##### random" >> "$f"
        "$cwb" --ab glibc_memcpy cw_memcpy --size 8 --size 16 --size 32 --size 64 --size 128 \
            --size 256 --size 512 --size 1K --size 2K --state random --pin 1 >> "$f" 2>&1
        echo "##### classes" >> "$f"
        "$cwb" --ab glibc_memcpy cw_memcpy --size 256 --size 512 --size 1K --size 2K --size 4K \
            --size 8K --size 16K --size 64K --samples 15 --pin 1 >> "$f" 2>&1
        for dist in "$ROOT"/data/memcpy-sizes/*.sizes "$ROOT"/data/program-profiles/*.sizes; do
            echo "##### dist $(basename "$dist" .sizes)" >> "$f"
            "$cwb" dist "$dist" --routines cw_memcpy,glibc_memcpy --pin 1 >> "$f" 2>&1
        done
    done
done
