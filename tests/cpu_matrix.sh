#!/bin/bash
# SPDX-License-Identifier: MIT
# The x86-64 CPU matrix: the correctness tests of an x86-64 build run under
# qemu-x86_64 -cpu MODEL, one model per row of the table below, so that
# every row of the policy table (src/profiles.c: the CPUs the profiles are
# chosen for, and the generic rows) and every ISA step qemu can execute
# (SSE2 only, AVX without AVX2, AVX2) is seen by the library's detection,
# dispatch and kernels, whatever CPU the host has.
#
#   tests/cpu_matrix.sh BUILD_DIR [LOG_DIR]
#
# BUILD_DIR is a native x86-64 build with the tests (stage 1's); LOG_DIR
# (default BUILD_DIR/cpu-matrix) gets one log per model. Environment:
# CW_JOBS (models run at once, default 1), CW_MATRIX_MAX_SIZE (largest
# copy of the differential tests, default 1M), CW_MATRIX_MODELS (labels to
# run, default all), CW_QEMU_X86 (the emulator, default qemu-x86_64).
#
# Per model: cpu_matrix_probe's report must match the row (vendor, display
# family and model, the profile chosen from them, the implementations
# runnable, best first, cw_memcpy's IFUNC entry, the cache sizes detected)
# and its own checks must pass (features against CPUID/XGETBV, the list
# against the features, every entry point under every runnable
# implementation, cw_impl_select refusing the others with ENOTSUP). Then
# CACHEWISE_IMPL=<each name the library knows>: taken where runnable,
# otherwise ignored and recorded, and the copies still run (no SIGILL);
# test_env_now (the IFUNC resolver reading the environment before libc is
# set up; on "full" rows test_env too, the resolver at the first call) with
# the children on the same model. On "full" rows, every runnable
# implementation forced in turn runs test_copy, test_memmove, test_memset
# (--quick, sizes up to CW_MATRIX_MAX_SIZE), test_hostile, cpu_matrix_safe
# (safe_faults' positions and two-sided faults) and safe_holes; every other
# one must be refused by test_copy and cpu_matrix_safe (exit 77 after
# checking the refusal); and test_flush plus test_copy with a 4 KiB
# streaming threshold run once. On "info" rows (the cache-leaf corners, and
# models whose profile and ISA a "full" row already runs) only the best
# implementation's test_copy. safe_faults itself and safe_addresses cannot
# run here: qemu-user 7.2 reports the general-protection fault of a
# non-canonical access as SEGV_MAPERR with no address, where Linux says
# SI_KERNEL, so cw_copy_safe rightly leaves it alone and the process dies.
#
# Prints one line per model and, last, "cpu matrix: N passed, M failed";
# exit 0 only without failures, 2 on bad usage.
set -euo pipefail

# What qemu 7.2 does with these models (found with its -cpu help and by
# reading CPUID under it; the "v1"-style names are versioned models, whose
# CPUID does not change between qemu releases, "max" may):
#  - TCG executes SSE*, AVX and AVX2 but not AVX-512: it withdraws every
#    AVX-512 bit from CPUID (with a "TCG doesn't support requested feature"
#    warning) and XCR0 never enables the ZMM state, so no model can run the
#    avx512 row; each must refuse it. The rows with AVX2 in CPUID but no
#    usable AVX state (-xsave: XCR0 = 0) are the check that the library
#    believes XGETBV over CPUID.
#  - TCG also withdraws TOPOEXT, so AMD models report their caches through
#    the legacy leaves 0x80000005/0x80000006 (leaf 0x8000001D goes unread);
#    Intel models through leaf 4 (qemu's generic 32K/4M/16M).
#  - qemu's Icelake-Server reports model 0x86 (a Snow Ridge number), which
#    the policy table rightly does not know as an Ice Lake-SP; with model=106
#    it is one. qemu 7.2 has no Genoa or Sapphire Rapids model: Milan and
#    Skylake-SP with their model numbers stand in for them, and Milan with
#    Zen 5's family and models for Turin and a mobile Zen 5.
# The "TCG doesn't support" warnings would land on the stderr of test_env's
# children, which must stay empty: each model runs with those features
# switched off explicitly (the same CPUID, no warning).
#
# label: the row's name. cpu: the -cpu argument. family, model: CPUID display
# values. impls: cw_impl_list(), best first. entry: cw_get_info()->
# memcpy_entry. l1d l2 l3: detected sizes ("-": not checked, where they come
# from sysconf over glibc's reading of CPUID rather than from the library's).
# suite: "full" or "info" (above).
MATRIX=$(cat <<'EOF'
# label         cpu                               vendor        family model profile        impls              entry    l1d  l2    l3   suite
# SSE2 only
westmere        Westmere-v1                       GenuineIntel  0x6    0x2c  generic-intel  sse2,generic       baseline 32K  4M    16M  full
# AVX without AVX2
opteron-g5      Opteron_G5-v1                     AuthenticAMD  0x15   0x2   generic-amd    sse2,generic       baseline 64K  512K  16M  full
# AVX2 in CPUID, AVX state not enabled (XCR0 = 0): not runnable
haswell-noxsave Haswell-v4,-xsave                 GenuineIntel  0x6    0x3c  generic-intel  sse2,generic       baseline 32K  4M    16M  info
# AVX2, no AVX-512
haswell         Haswell-v4                        GenuineIntel  0x6    0x3c  generic-intel  avx2,sse2,generic  avx2     32K  4M    16M  full
epyc-rome       EPYC-Rome-v1                      AuthenticAMD  0x17   0x31  generic-amd    avx2,sse2,generic  avx2     32K  512K  16M  full
epyc-milan      EPYC-Milan-v1                     AuthenticAMD  0x19   0x1   amd-zen3       avx2,sse2,generic  avx2     32K  512K  32M  full
genoa-model     EPYC-Milan-v1,model=17            AuthenticAMD  0x19   0x11  amd-zen4       avx2,sse2,generic  avx2     32K  512K  32M  info
# Zen 5 (qemu 7.2 has none): Turin's family and model, and a mobile part's
turin-model     EPYC-Milan-v1,family=26,model=2   AuthenticAMD  0x1a   0x2   amd-zen5       avx2,sse2,generic  avx2     32K  512K  32M  full
strix-model     EPYC-Milan-v1,family=26,model=36  AuthenticAMD  0x1a   0x24  generic-amd    avx2,sse2,generic  avx2     32K  512K  32M  info
hygon-dhyana    Dhyana-v1                         HygonGenuine  0x18   0     generic-amd    avx2,sse2,generic  avx2     32K  512K  8M   info
# AVX-512 in the real CPU, withdrawn by TCG
skylake-sp      Skylake-Server-v1                 GenuineIntel  0x6    0x55  intel-server   avx2,sse2,generic  avx2     32K  4M    16M  full
icelake-qemu    Icelake-Server-v1                 GenuineIntel  0x6    0x86  generic-intel  avx2,sse2,generic  avx2     32K  4M    16M  info
icelake-sp      Icelake-Server-v1,model=106       GenuineIntel  0x6    0x6a  intel-server   avx2,sse2,generic  avx2     32K  4M    16M  full
sapphire-model  Skylake-Server-v1,model=143       GenuineIntel  0x6    0x8f  intel-server   avx2,sse2,generic  avx2     32K  4M    16M  info
# everything TCG has, on qemu's own AMD family 15 model
max             max                               AuthenticAMD  0xf    0x6b  generic-amd    avx2,sse2,generic  avx2     -    -     -    full
# a vendor the table does not know
centaur         max,vendor=CentaurHauls           CentaurHauls  0xf    0x6b  generic        avx2,sse2,generic  avx2     -    -     -    info
# cache-leaf corners: no leaf 4 (nor 7: no AVX2 seen), no 0x80000005/6
# (nothing reports a cache), no brand string
intel-level2    Skylake-Server-v1,level=2         GenuineIntel  0x6    0x55  intel-server   sse2,generic       baseline -    -     -    info
amd-noext6      EPYC-Milan-v1,xlevel=0x80000004   AuthenticAMD  0x19   0x1   amd-zen3       avx2,sse2,generic  avx2     -    -     -    info
intel-nobrand   Westmere-v1,xlevel=0x80000000     GenuineIntel  0x6    0x2c  generic-intel  sse2,generic       baseline 32K  4M    16M  info
EOF
)

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 BUILD_DIR [LOG_DIR]" >&2
    exit 2
fi
BUILD=$(cd "$1" && pwd)
BIN=$BUILD/tests
LOGDIR=${2:-$BUILD/cpu-matrix}
JOBS=${CW_JOBS:-1}
MAX_SIZE=${CW_MATRIX_MAX_SIZE:-1M}
QEMU=${CW_QEMU_X86:-qemu-x86_64}
ONLY=${CW_MATRIX_MODELS:-}
# every name the library knows on x86-64 (tests/CMakeLists.txt, CW_TEST_IMPLS)
KNOWN="avx512 avx512-evex avx2 sse2 generic"
# one command's limit: a hang must not hold the stage
LIMIT=300

for t in cpu_matrix_probe cpu_matrix_safe safe_holes test_copy test_memmove test_memset \
    test_flush test_hostile test_env test_env_now; do
    [ -x "$BIN/$t" ] || { echo "cpu matrix: $BIN/$t not built" >&2; exit 2; }
done
command -v "$QEMU" >/dev/null 2>&1 || { echo "cpu matrix: $QEMU not found" >&2; exit 2; }
mkdir -p "$LOGDIR"
LOGDIR=$(cd "$LOGDIR" && pwd)

# The library reads CACHEWISE_* at load, the tests CW_TEST_* and
# CW_EMULATOR: none of the caller's may leak into a run. No core files:
# test_hostile and test_flush abort children on purpose, and qemu would
# write each one's core into the working directory.
while IFS= read -r v; do unset "$v"; done < <(compgen -e | grep -E '^(CACHEWISE_|CW_TEST_|CW_EMULATOR$|QEMU_)' || true)
ulimit -c 0

# "32K" -> 32768 ("-" stays)
bytes() {
    case $1 in
    *K) echo $((${1%K} << 10)) ;;
    *M) echo $((${1%M} << 20)) ;;
    *) echo "$1" ;;
    esac
}

# field FILE KEY: the value of the first "KEY=value" line
field() { sed -n "s/^$2=//p" "$1" | head -n1; }

# run_model LABEL CPU VENDOR FAMILY MODEL PROFILE IMPLS ENTRY L1D L2 L3 SUITE
# Writes LOGDIR/LABEL.log (every command and its output) and LOGDIR/LABEL.result
# ("PASSED FAILED SECONDS" then the model's summary line, then its failures).
run_model() {
    local label=$1 cpu=$2 vendor=$3 family=$4 model=$5 profile=$6 impls=$7 entry=$8
    local l1d=$9 l2=${10} l3=${11} suite=${12}
    local log=$LOGDIR/$label.log work=$LOGDIR/$label.work t0=$SECONDS
    local pass=0 fail=0 fails=() out rc spec drops best
    : >"$log"
    rm -rf "$work"
    mkdir -p "$work"
    out=$work/out

    ok() { pass=$((pass + 1)); echo "PASS $1" >>"$log"; }
    bad() {
        fail=$((fail + 1))
        fails+=("$1")
        echo "FAIL $1" >>"$log"
    }
    # run NAME WANT_RC [ENV=VALUE...] -- COMMAND...: one check
    run() {
        local name=$1 want=$2 envs=()
        shift 2
        while [ "$1" != "--" ]; do envs+=("$1"); shift; done
        shift
        echo "== $name: ${envs[*]} $*" >>"$log"
        rc=0
        local t=$SECONDS
        (cd "$work" && env ${envs[@]+"${envs[@]}"} timeout "$LIMIT" "$@") >"$out" 2>&1 || rc=$?
        cat "$out" >>"$log"
        echo "== exit $rc after $((SECONDS - t))s" >>"$log"
        if [ "$rc" = "$want" ]; then
            ok "$name"
            return 0
        fi
        if [ "$rc" = 124 ]; then
            bad "$name: timed out after ${LIMIT}s"
        else
            bad "$name: exit $rc, want $want"
        fi
        return 1
    }
    # expect NAME GOT WANT ("-" = not checked)
    expect() {
        [ "$3" = "-" ] && return 0
        if [ "$2" = "$3" ]; then ok "$1 = $2"; else bad "$1: got '$2', want '$3'"; fi
    }

    # The warnings qemu prints for the model name the features TCG
    # withdraws; turning them off gives the same CPUID without a warning.
    rc=0
    "$QEMU" -cpu "$cpu" "$BIN/cpu_matrix_probe" >/dev/null 2>"$out" || rc=$?
    # ("CPUID.07H:EBX.avx512f [bit 16]", "MSR(10AH).mds-no [bit 5]")
    drops=$(sed -n "s/.*TCG doesn't support requested feature: \(CPUID\.[^:]*:[A-Z]*\|MSR([^)]*)\)\.\([^ ]*\) \[bit.*/\2/p" \
        "$out" | tr '\n' ' ')
    spec=$cpu
    for f in $drops; do spec+=",-$f"; done
    echo "== qemu withdraws: ${drops:-nothing}" >>"$log"
    local q=("$QEMU" -cpu "$spec")

    # What the library found and chose, against the row.
    local info=$work/info
    if run "probe" 0 -- "${q[@]}" "$BIN/cpu_matrix_probe"; then
        cp "$out" "$info"
        expect "vendor" "$(field "$info" vendor)" "$vendor"
        expect "family" "$(field "$info" family)" "$family"
        expect "model" "$(field "$info" model)" "$model"
        expect "profile" "$(field "$info" profile)" "$profile"
        expect "tuning_source" "$(field "$info" tuning_source)" cpu
        expect "impls" "$(field "$info" impls)" "$impls"
        expect "impl" "$(field "$info" impl)" "${impls%%,*}"
        expect "impl_source" "$(field "$info" impl_source)" cpu
        expect "memcpy_entry" "$(field "$info" memcpy_entry)" "$entry"
        expect "l1d" "$(field "$info" l1d)" "$(bytes "$l1d")"
        expect "l2" "$(field "$info" l2)" "$(bytes "$l2")"
        expect "l3" "$(field "$info" l3)" "$(bytes "$l3")"
        expect "n_errors" "$(field "$info" n_errors)" 0
    else
        : >"$info"
    fi
    best=${impls%%,*}

    # CACHEWISE_IMPL=each known name
    local i want_entry
    for i in $KNOWN; do
        case $i in sse2 | generic) want_entry=baseline ;; *) want_entry=$entry ;; esac
        run "CACHEWISE_IMPL=$i probe" 0 CACHEWISE_IMPL="$i" -- "${q[@]}" "$BIN/cpu_matrix_probe" ||
            continue
        if [[ ",$impls," == *",$i,"* ]]; then
            expect "CACHEWISE_IMPL=$i impl" "$(field "$out" impl)/$(field "$out" impl_source)" "$i/env"
        else
            expect "CACHEWISE_IMPL=$i impl" "$(field "$out" impl)/$(field "$out" impl_source)" "$best/cpu"
            if grep -q "^error=.*CACHEWISE_IMPL.*$i" "$out"; then
                ok "CACHEWISE_IMPL=$i refusal recorded"
            else
                bad "CACHEWISE_IMPL=$i: refused without a recorded error"
            fi
        fi
        expect "CACHEWISE_IMPL=$i memcpy_entry" "$(field "$out" memcpy_entry)" "$want_entry"
    done
    # the resolver before libc is set up (-z now: /proc/self/environ) and,
    # on full rows, at the first call (lazy binding: environ)
    run "test_env_now" 0 CW_EMULATOR="${q[*]}" -- "${q[@]}" "$BIN/test_env_now" || true
    if [ "$suite" = full ]; then
        run "test_env" 0 CW_EMULATOR="${q[*]}" -- "${q[@]}" "$BIN/test_env" || true
    fi

    # The differential and fault tests, every implementation forced in turn.
    local sz=(--quick --max-size "$MAX_SIZE")
    for i in $KNOWN; do
        local e=CACHEWISE_IMPL=$i
        if [[ ",$impls," != *",$i,"* ]]; then
            # refused, and the refusal checked (test_util.h, safe_util.h)
            if [ "$suite" = full ]; then
                run "$e test_copy refused" 77 "$e" -- "${q[@]}" "$BIN/test_copy" "${sz[@]}" || true
                run "$e cpu_matrix_safe refused" 77 "$e" -- "${q[@]}" "$BIN/cpu_matrix_safe" "$i" || true
            fi
            continue
        fi
        [ "$suite" = full ] || [ "$i" = "$best" ] || continue
        run "$e test_copy" 0 "$e" -- "${q[@]}" "$BIN/test_copy" "${sz[@]}" || true
        [ "$suite" = full ] || continue
        run "$e test_memmove" 0 "$e" -- "${q[@]}" "$BIN/test_memmove" "${sz[@]}" || true
        run "$e test_memset" 0 "$e" -- "${q[@]}" "$BIN/test_memset" "${sz[@]}" || true
        run "$e test_hostile" 0 "$e" -- "${q[@]}" "$BIN/test_hostile" || true
        run "$e cpu_matrix_safe" 0 "$e" -- "${q[@]}" "$BIN/cpu_matrix_safe" "$i" 100 || true
        run "$e safe_holes" 0 "$e" -- "${q[@]}" "$BIN/safe_holes" "$i" || true
    done
    if [ "$suite" = full ]; then
        # the write-back instruction is the CPU's, not the implementation's
        run "test_flush" 0 -- "${q[@]}" "$BIN/test_flush" || true
        # cw_memcpy/cw_memmove/cw_copy(auto) through the streaming kernels
        run "test_copy, 4 KiB threshold" 0 CACHEWISE_NT_THRESHOLD=4K -- "${q[@]}" \
            "$BIN/test_copy" --funcs auto --expect-nt 4096 "${sz[@]}" || true
    fi

    local withdrawn=""
    [[ " $drops " == *" avx512f "* ]] && withdrawn=" (TCG withdrew AVX-512)"
    {
        echo "$pass $fail $((SECONDS - t0))"
        printf '%-15s %-31s %-13s %-8s %-8s l1d %-6s l2 %-7s l3 %-9s %3d passed %2d failed %4ds%s\n' \
            "$label" "$cpu" "$(field "$info" profile)" "$(field "$info" impl)" \
            "$(field "$info" memcpy_entry)" "$(field "$info" l1d)" "$(field "$info" l2)" \
            "$(field "$info" l3)" "$pass" "$fail" "$((SECONDS - t0))" "$withdrawn"
        for f in ${fails[@]+"${fails[@]}"}; do echo "    FAIL $f (see $log)"; done
    } >"$LOGDIR/$label.result"
    rm -rf "$work"
}

# The rows, in table order.
labels=()
declare -A row
while read -r label rest; do
    case $label in '' | '#'*) continue ;; esac
    if [ -n "$ONLY" ] && [[ " $ONLY " != *" $label "* ]]; then continue; fi
    labels+=("$label")
    row[$label]=$rest
done <<<"$MATRIX"
[ ${#labels[@]} -gt 0 ] || { echo "cpu matrix: no model selected by CW_MATRIX_MODELS=$ONLY" >&2; exit 2; }

t0=$SECONDS
echo "cpu matrix: $("$QEMU" --version | head -n1), build $BUILD, ${#labels[@]} models, $JOBS at a time"
echo "  (model, -cpu, profile, implementation, cw_memcpy entry, caches in bytes; logs in $LOGDIR)"
for label in "${labels[@]}"; do
    rm -f "$LOGDIR/$label.result"
    # shellcheck disable=SC2086
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
    # shellcheck disable=SC2086
    run_model "$label" ${row[$label]} &
done
wait

total_pass=0 total_fail=0
for label in "${labels[@]}"; do
    res=$LOGDIR/$label.result
    if [ ! -s "$res" ]; then
        echo "  $label: no result (the model's run died; see $LOGDIR/$label.log)"
        total_fail=$((total_fail + 1))
        continue
    fi
    read -r p f _ <"$res"
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
    tail -n +2 "$res" | sed 's/^/  /'
done
echo "cpu matrix: $total_pass passed, $total_fail failed ($((SECONDS - t0))s)"
[ "$total_fail" -eq 0 ]
