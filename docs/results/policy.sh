#!/usr/bin/env bash
# The per-CPU policy's targets (docs/RESULTS.md, each CPU's section): every
# command and its full output go to docs/results/<cpu>/policy-<topic>.txt,
# <cpu> named from CPUID (e.g. intel-6-207, amd-25-1).
#   bash docs/results/policy.sh [BUILD_DIR] [topic...]
# Topics: report hot l1edge large cold64 small nt srcnoreuse pollution flush
# persist fill dist tunegap genericrow exec workloads amdrules before tune (default: all but
# amdrules and before; amdrules needs BASE_BUILD, a build of commit db78e40;
# before needs BASE_BUILD, a build of the commit to compare with). Each --ab run interleaves its two routines
# sample by sample in one process; ratios are B/A with their 95% CI.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${1:-$ROOT/build}
shift || true
CWB=$BUILD/programs/cwbench
[ -x "$CWB" ] || { echo "no $CWB: build first" >&2; exit 2; }
cpu=$("$CWB" info | sed -n 's/^cpu: .*(\([A-Za-z]*\) family \([0-9]*\) model \([0-9]*\)\( stepping [0-9]*\)\{0,1\})$/\1-\2-\3/p' |
      sed 's/GenuineIntel/intel/; s/AuthenticAMD/amd/')
OUT=$ROOT/docs/results/${cpu:-unknown}
mkdir -p "$OUT"
TOPICS=${*:-report hot l1edge large cold64 small nt srcnoreuse pollution flush persist fill dist tunegap genericrow exec workloads tune}
commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)

run() { # run TOPIC cmd...
    local topic=$1; shift
    {
        echo "=================================================================="
        echo "### $(date -u '+%Y-%m-%d %H:%M:%S UTC')  commit $commit  load: $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "### $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') ($cpu)"
        echo "\$ ${PREFIX:-}cwbench ${*}"
    } >>"$OUT/policy-$topic.txt"
    "$CWB" "$@" >>"$OUT/policy-$topic.txt" 2>&1
    echo "### exit $?" >>"$OUT/policy-$topic.txt"
}
sizes() { for s in "$@"; do printf -- '--size %s ' "$s"; done; }

for t in $TOPICS; do
    : >"$OUT/policy-$t.txt"
    case $t in
    report) run report ;;
    hot) # every power-of-two class 256 B..1 MiB, hot, against glibc
        for seed in 1 2 3; do
            run hot --ab glibc_memcpy cw_memcpy $(sizes 256 512 1K 2K 4K 8K 16K 32K 64K 128K 256K 512K 1M) \
                --samples 15 --seed $seed --pin 1
        done ;;
    l1edge) # the L1 edge, where rep movsb wins
        run l1edge --ab glibc_memcpy cw_memcpy $(sizes 20K 22K 24K 26K) --samples 15 --pin 1
        run l1edge --ab glibc_memcpy cw_memcpy $(sizes 20K 22K 24K 26K) --a-off 5:37 --b-off 5:37 \
            --samples 15 --pin 1 ;;
    large) # hot 2-16 MiB against each of glibc, rep movsb, cw_memcpy_nt
        for a in glibc_memcpy rep_movsb cw_memcpy_nt; do
            run large --ab $a cw_memcpy $(sizes 2M 4M 8M 16M) --samples 15 --pin 1
        done ;;
    cold64) # 64 MiB cold against every routine that streams or copies fast there
        for a in glibc_memcpy rep_movsb stream_avx512 stream_avx2 pmem_memcpy_nt cw_memcpy_nt; do
            run cold64 --ab $a cw_memcpy --size 64M --state cold --samples 15 --pin 1
        done ;;
    small) # fixed sizes 1-512 B, hot and at random offsets
        run small --ab glibc_memcpy cw_memcpy $(sizes 1 2 4 8 16 24 32 48 64 80 96 112 128 160 192 224 256 320 384 448 512) \
            --samples 15 --pin 1
        run small --ab glibc_memcpy cw_memcpy $(sizes 8 16 32 64 96 128 192 256 384 512) --state random \
            --samples 15 --pin 1 ;;
    nt) # cw_memcpy_nt against the plain streaming loops
        for a in stream_avx512 stream_avx2; do
            run nt --ab $a cw_memcpy_nt $(sizes 1M 4M 16M 64M) --state cold --samples 15 --pin 1
        done ;;
    srcnoreuse) # CW_SRC_NOREUSE speed against the plain streaming loop
        run srcnoreuse --ab stream_avx512 cw_copy_nta $(sizes 1M 4M 16M 64M) --state cold --samples 15 --pin 1 ;;
    pollution) # what the copies evict from an L2-resident victim, 4 and 16 MiB
        for s in 4M 16M; do
            run pollution pollution --size $s --routines cw_copy_nta,cw_memcpy_nt,stream_avx512,glibc_memcpy
        done ;;
    flush) # flushcache against libpmem's default path and its AVX-512 path
        for env in "" "PMEM_AVX512F=1"; do
            [ -z "$env" ] || export $env
            PREFIX="$env " run flush --ab pmem_memcpy_nt cw_memcpy_flushcache \
                $(sizes 4 8 16 32 64 128 256 1K 4K 64K 1M 16M 64M) --samples 15 --pin 1
        done
        unset PMEM_AVX512F ;;
    persist)
        for env in "" "PMEM_AVX512F=1"; do
            [ -z "$env" ] || export $env
            PREFIX="$env " run persist --ab pmem_memcpy_persist cw_memcpy_persist \
                $(sizes 4 8 16 32 64 128 256 1K 4K 64K 1M 16M 64M) --samples 15 --pin 1
        done
        unset PMEM_AVX512F ;;
    fill) # the streaming fill against glibc memset and the plain fill loops; persisted fills
        run fill --ab glibc_memset cw_memset_nt $(sizes 1536K 2M 4M 16M 64M) --samples 15 --pin 1
        run fill --ab glibc_memset cw_memset_nt $(sizes 1536K 2M 4M 16M 64M) --state cold --samples 15 --pin 1
        run fill --ab fill_stream_avx512 cw_memset_nt --size 64M --samples 15 --pin 1
        run fill --ab pmem_memset_persist cw_memset_persist $(sizes 8 64 100 256 4K 64K 1M 64M) --samples 15 --pin 1
        run fill --ab pmem_persist cw_persist $(sizes 64 256 4K 64K 1M 64M) --samples 15 --pin 1
        run fill pollution --size 16M --routines glibc_memset,cw_memset_nt ;;
    dist) # the fleet distributions, and the sequence-length convergence on one of them
        for f in "$ROOT"/data/memcpy-sizes/*.sizes; do
            run dist dist "$f" --routines cw_memcpy,glibc_memcpy --samples 15 --pin 1
        done
        for f in "$ROOT"/data/program-profiles/*.sizes; do
            run dist dist "$f" --routines cw_memcpy,glibc_memcpy --samples 15 --pin 1
        done
        for c in 4K 16K 64K 256K; do
            run dist dist "$ROOT/data/memcpy-sizes/MemcpyGoogleA.sizes" --routines cw_memcpy,glibc_memcpy \
                --calls $c --samples 15 --pin 1
        done ;;
    tunegap) # the hand-made profile against the tuner's file started from generic, default report
        CACHEWISE_TUNING=generic PREFIX="CACHEWISE_TUNING=generic " run tunegap tune --quiet \
            --output "$OUT/tunegap.conf"
        run tunegap --quiet --json "$OUT/tunegap-profile.json"
        CACHEWISE_TUNING="$OUT/tunegap.conf" PREFIX="CACHEWISE_TUNING=tunegap.conf " run tunegap \
            --quiet --json "$OUT/tunegap-tuned.json"
        run tunegap compare "$OUT/tunegap-profile.json" "$OUT/tunegap-tuned.json" ;;
    amdrules) # the amd-zen3 profile against the build before the policy table (commit db78e40), same CPU
        [ -n "${BASE_BUILD:-}" ] || { echo "amdrules: set BASE_BUILD to a build of db78e40" >&2; exit 2; }
        CWB_SAVE=$CWB
        CWB=$BASE_BUILD/programs/cwbench PREFIX="(db78e40) " run amdrules --json "$OUT/amdrules-base.json"
        CACHEWISE_TUNING=amd-zen3 PREFIX="CACHEWISE_TUNING=amd-zen3 " run amdrules --quiet --json "$OUT/amdrules-new.json"
        CWB=$CWB_SAVE
        run amdrules compare "$OUT/amdrules-base.json" "$OUT/amdrules-new.json" ;;
    genericrow) # the vendor's generic row against the tuner's file, default report
        row=$(case $cpu in intel-*) echo generic-intel ;; amd-*) echo generic-amd ;; *) echo generic ;; esac)
        run genericrow tune --quiet --output "$OUT/genericrow-tuned.conf"
        CACHEWISE_TUNING="$OUT/genericrow-tuned.conf" PREFIX="CACHEWISE_TUNING=genericrow-tuned.conf " \
            run genericrow --quiet --json "$OUT/genericrow-tuned.json"
        CACHEWISE_TUNING=$row PREFIX="CACHEWISE_TUNING=$row " run genericrow --quiet \
            --json "$OUT/genericrow-generic.json"
        run genericrow compare "$OUT/genericrow-tuned.json" "$OUT/genericrow-generic.json" ;;
    before) # the default report of an earlier build (BASE_BUILD) against this one, same CPU
        [ -n "${BASE_BUILD:-}" ] || { echo "before: set BASE_BUILD to a build of the commit to compare with" >&2; exit 2; }
        CWB_SAVE=$CWB
        CWB=$BASE_BUILD/programs/cwbench PREFIX="(BASE_BUILD) " run before --quiet --json "$OUT/before-base.json"
        CWB=$CWB_SAVE
        run before --quiet --json "$OUT/before-new.json"
        run before compare "$OUT/before-base.json" "$OUT/before-new.json" ;;
    exec) # real programs with and without the shim (inputs as data/program-profiles/README.md)
        tmp=$(mktemp -d)
        tar -cf "$tmp/in.tar" -C "$ROOT" src programs docs data tests
        seq 1 400000 | awk 'BEGIN { srand(1) } { print int(rand() * 1e9) " line " $1 }' >"$tmp/lines.txt"
        PREFIX="(in.tar: this tree, 'tar -cf in.tar src programs docs data tests') " \
            run exec exec --runs 20 -- taskset -c 1 xz -6 -k -c "$tmp/in.tar"
        PREFIX="(lines.txt: 400000 random keys) " run exec exec --runs 20 -- taskset -c 1 sort -k1,1n "$tmp/lines.txt"
        rm -rf "$tmp" ;;
    workloads) # the three seed experiments (docs/WORKLOADS.md), default settings
        for w in writeback pmemlog cachedread; do
            run workloads workload $w
        done ;;
    tune)
        run tune tune --output "$OUT/tuned.conf"
        CACHEWISE_TUNING=generic PREFIX="CACHEWISE_TUNING=generic " run tune tune --output "$OUT/tuned-from-generic.conf" ;;
    *) echo "unknown topic $t" >&2; exit 2 ;;
    esac
done
echo "outputs in $OUT"
