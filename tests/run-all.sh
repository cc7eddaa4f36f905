#!/bin/bash
# SPDX-License-Identifier: MIT
# cachewise: the project's single test command (README, .ci/run).
#
#   tests/run-all.sh            # every stage, from any directory
#
# Stages (each in its own build directory under $CW_BUILD_ROOT, default
# <repo>/build-ci; full logs in $CW_BUILD_ROOT/logs):
#   1 gcc   Release, -Werror, every CTest test
#   2 clang Release, -Werror, every CTest test but those no build changes
#     (format, manpages, packaging.header.*, packaging.inline.*: stage 1
#     runs them), the profile and policy tests with sampled misalignments
#     (CACHEWISE_TEST_QUICK_POLICY: stage 1 sweeps them in full, the core tests
#     here do)
#   3 ASan+UBSan (gcc: clang cannot link the shared library with
#     -Wl,--no-undefined and a sanitizer runtime), the tests of stage 2,
#     copy sizes capped at $CW_SAN_MAX_SIZE (16M)
#   4 TSan (gcc), the tests labelled tsan
#   5 valgrind memcheck on the core differential tests (stage 1 binaries)
#     and cw_copy_safe's fault tests (their verdict, not valgrind's count),
#     implementation $CW_VALGRIND_IMPL (avx2 where the CPU has it: valgrind
#     cannot run AVX-512), reduced sizes
#   6 libFuzzer (clang, ASan+UBSan) on fuzz_copy for $CW_FUZZ_SECONDS (20) s,
#     starting from a scratch copy of tests/fuzz/corpus
#   7 aarch64 under qemu-user: a cross build (cmake/aarch64-linux-gnu.cmake,
#     gcc Release, -Werror) in $CW_BUILD_ROOT/aarch64, every CTest test but
#     format and manpages run by qemu-aarch64 -cpu max, then the copy,
#     persistence and fault tests (labels copy, persist, safe; not
#     core.copy_static.*, whose entry has no write-back) again under
#     $CW_QEMU_CPU_NODPB (default cortex-a57: ARMv8.0, no DC CVAP) so that
#     the DC CVAC path runs; copy sizes capped at $CW_QEMU_MAX_SIZE (16M)
#     (docs/AARCH64.md)
#   8 x86-64 CPU matrix under qemu-user (tests/cpu_matrix.sh): stage 1's
#     build (built here if stage 1 did not run) under qemu-x86_64 -cpu MODEL
#     for one model per row of the policy table and per ISA step qemu can
#     execute (SSE2 only, AVX, AVX2; it cannot execute AVX-512): the profile,
#     implementations, cw_memcpy entry and caches detected against the
#     script's table, CACHEWISE_IMPL and cw_impl_select for every
#     implementation, and the copy, move, fill, flush, hostile-argument and
#     cw_copy_safe fault tests with each runnable implementation forced, copy
#     sizes capped at $CW_MATRIX_MAX_SIZE (1M); per-model logs in
#     $CW_BUILD_ROOT/logs/stage8
# Environment: CW_BUILD_ROOT, CW_STAGES (e.g. "1 5"), CW_JOBS, CW_FUZZ_SECONDS,
# CW_VALGRIND_IMPL, CW_SAN_MAX_SIZE, CW_QEMU_MAX_SIZE, CW_QEMU_CPU_NODPB,
# CW_MATRIX_MAX_SIZE.
# Exit status 0 only if every stage that ran passed; a stage whose tool is
# missing (valgrind, clang; for stage 7 gcc-aarch64-linux-gnu,
# libc6-dev-arm64-cross or qemu-user; for stage 8 qemu-user or an x86-64
# host) is reported as SKIPPED. The last line on success
# is "N passed, 0 failed", N counting CTest tests plus the valgrind and
# fuzzer runs and the CPU matrix's checks.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_ROOT=${CW_BUILD_ROOT:-$ROOT/build-ci}
mkdir -p "$BUILD_ROOT/logs"
BUILD_ROOT=$(cd "$BUILD_ROOT" && pwd)
LOGS=$BUILD_ROOT/logs
STAGES=${CW_STAGES:-1 2 3 4 5 6 7 8}
JOBS=${CW_JOBS:-$(nproc 2>/dev/null || echo 2)}
FUZZ_SECONDS=${CW_FUZZ_SECONDS:-20}
SAN_MAX_SIZE=${CW_SAN_MAX_SIZE:-16M}
QEMU_MAX_SIZE=${CW_QEMU_MAX_SIZE:-16M}
GEN=()
command -v ninja >/dev/null 2>&1 && GEN=(-G Ninja)

# Tests whose outcome no compiler, sanitizer or target changes run in stage
# 1 only: the source format and the man pages (text), and the packaging
# tests that compile the installed header with each native compiler
# whatever the build's own (a cross build's packaging.* use its cross
# compilers, so stage 7 keeps them). No glob characters: the pattern
# travels through an unquoted word.
SAME_ON_EVERY_ARCH='^(format|manpages)$'
SAME_IN_EVERY_BUILD="$SAME_ON_EVERY_ARCH|^packaging\.(header|inline)\."
# The avx512-evex row is src/x86/avx512.c compiled again with other
# registers: the sanitizers judge that source through the avx512 row's
# tests, and stage 1 runs the evex row's own (clang does not build it).
SAME_SOURCE_AS_AVX512='\.avx512-evex$'

total_pass=0 total_fail=0
summary=()

now() { date +%s; }

# record NAME STATUS PASSED FAILED SECONDS DETAIL
record() {
    summary+=("$(printf '%-34s %-7s %4s passed %3s failed %5ss  %s' "$1" "$2" "$3" "$4" "$5" "$6")")
    total_pass=$((total_pass + $3))
    total_fail=$((total_fail + $4))
}

# configure_build DIR LOG cmake-args... [-- build-args...]
configure_build() {
    local dir=$1 log=$2
    shift 2
    local cfg=() bld=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do cfg+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    bld=("$@")
    cmake -S "$ROOT" -B "$dir" "${GEN[@]}" "${cfg[@]}" >>"$log" 2>&1 &&
        cmake --build "$dir" -j "$JOBS" "${bld[@]}" >>"$log" 2>&1
}

show_failure() {
    echo "    --- last lines of $1 ---"
    tail -n 40 "$1" | sed 's/^/    /'
}

# ctest_stage NAME DIR LOG [ctest args...]: run CTest, count results
ctest_stage() {
    local name=$1 dir=$2 log=$3 t0=$4
    shift 4
    local rc=0
    (cd "$dir" && ctest -j "$JOBS" --timeout 900 --output-on-failure "$@") >>"$log" 2>&1 || rc=$?
    local line total failed skipped
    line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n1 || true)
    if [ -z "$line" ]; then
        echo "  FAIL: no CTest summary"
        show_failure "$log"
        record "$name" FAIL 0 1 $(($(now) - t0)) "ctest did not run"
        return
    fi
    total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")
    failed=$(sed -E 's/.*, ([0-9]+) tests? failed.*/\1/' <<<"$line")
    skipped=$(grep -cE '^[[:space:]]*[0-9]+ - .*\(Skipped\)$' "$log" || true)
    local passed=$((total - failed - skipped)) status=PASS
    if [ "$rc" -ne 0 ] || [ "$failed" -ne 0 ]; then
        status=FAIL
        [ "$failed" -eq 0 ] && failed=1
        echo "  FAIL: $failed test(s):"
        sed -n '/The following tests FAILED:/,/^Errors while running/p' "$log" | sed 's/^/    /'
    fi
    echo "  $passed passed, $failed failed, $skipped skipped"
    record "$name" "$status" "$passed" "$failed" $(($(now) - t0)) "$skipped skipped"
}

stage_build_and_test() { # NUM NAME DIR ctest-args-string -- cmake args...
    local num=$1 name=$2 dir=$3 ctest_args=$4
    shift 4
    local log=$LOGS/stage$num.log t0
    t0=$(now)
    : >"$log"
    echo "== [$num] $name  (log: $log)"
    if ! configure_build "$dir" "$log" "$@"; then
        echo "  FAIL: configure/build"
        show_failure "$log"
        record "[$num] $name" FAIL 0 1 $(($(now) - t0)) "build failed"
        return
    fi
    # shellcheck disable=SC2086
    ctest_stage "[$num] $name" "$dir" "$log" "$t0" $ctest_args
}

stage_valgrind() {
    local log=$LOGS/stage5.log t0 impl
    t0=$(now)
    : >"$log"
    echo "== [5] valgrind memcheck  (log: $log)"
    if ! command -v valgrind >/dev/null 2>&1; then
        echo "  SKIPPED: valgrind not installed"
        record "[5] valgrind" SKIPPED 0 0 0 "valgrind not installed"
        return
    fi
    local bin=$BUILD_ROOT/gcc/tests
    if [ ! -x "$bin/test_copy" ]; then
        if ! configure_build "$BUILD_ROOT/gcc" "$log" -DCW_WERROR=ON; then
            show_failure "$log"
            record "[5] valgrind" FAIL 0 1 $(($(now) - t0)) "build failed"
            return
        fi
    fi
    impl=${CW_VALGRIND_IMPL:-}
    if [ -z "$impl" ]; then
        case $(uname -m) in
        x86_64) grep -qw avx2 /proc/cpuinfo 2>/dev/null && impl=avx2 || impl=sse2 ;;
        *) impl=generic ;;
        esac
    fi
    local pass=0 fail=0 corpus t cmd
    # the corpus minus the cw_copy_safe inputs, whose faults valgrind would
    # count as errors; safe_faults covers cw_copy_safe instead, judged by its
    # own verdict (its faults are invalid accesses on purpose; the library
    # must notice valgrind and keep its fast path off, docs/SAFE.md)
    corpus=$(find "$ROOT/tests/fuzz/corpus" -type f ! -name 'safe_*' | sort | tr '\n' ' ')
    # each item: "E command": E=1 counts valgrind's errors as a failure
    for t in "1 test_copy --quick --max-size 1M" "1 test_memmove --quick --max-size 2M" \
        "1 fuzz_copy_regress $corpus" "0 safe_faults $impl"; do
        cmd=${t#* }
        local vg=(valgrind -q --track-origins=no)
        [ "${t%% *}" = 1 ] && vg+=(--error-exitcode=1)
        echo "  valgrind CACHEWISE_IMPL=$impl ${cmd%% /*}" | tee -a "$log"
        # shellcheck disable=SC2086
        if CACHEWISE_IMPL=$impl "${vg[@]}" "$bin"/$cmd >>"$log" 2>&1; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1))
            echo "  FAIL: valgrind ${cmd%% /*}"
        fi
    done
    [ $fail -ne 0 ] && show_failure "$log"
    record "[5] valgrind ($impl)" "$([ $fail -eq 0 ] && echo PASS || echo FAIL)" $pass $fail \
        $(($(now) - t0)) ""
}

stage_fuzz() {
    local log=$LOGS/stage6.log t0 dir=$BUILD_ROOT/fuzz
    t0=$(now)
    : >"$log"
    echo "== [6] libFuzzer fuzz_copy, ${FUZZ_SECONDS}s  (log: $log)"
    if ! command -v clang >/dev/null 2>&1; then
        echo "  SKIPPED: clang not installed"
        record "[6] fuzz" SKIPPED 0 0 0 "clang not installed"
        return
    fi
    # Only the static library and the fuzzer: sanitized shared objects
    # would need the clang sanitizer runtime at link time.
    if ! configure_build "$dir" "$log" -DCMAKE_C_COMPILER=clang -DCW_WERROR=ON \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCW_BUILD_FUZZ=ON -DCW_SANITIZE=address,undefined \
        -DCW_BUILD_TESTS=OFF -DCW_BUILD_PROGRAMS=OFF -DCW_BUILD_PRELOAD=OFF -- --target fuzz_copy; then
        echo "  FAIL: configure/build"
        show_failure "$log"
        record "[6] fuzz" FAIL 0 1 $(($(now) - t0)) "build failed"
        return
    fi
    rm -rf "$BUILD_ROOT/fuzz-corpus"
    mkdir -p "$BUILD_ROOT/fuzz-corpus" "$BUILD_ROOT/fuzz-artifacts"
    cp "$ROOT"/tests/fuzz/corpus/* "$BUILD_ROOT/fuzz-corpus/"
    if "$dir/tests/fuzz/fuzz_copy" -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=4096 \
        -print_final_stats=1 -artifact_prefix="$BUILD_ROOT/fuzz-artifacts/" \
        "$BUILD_ROOT/fuzz-corpus" >>"$log" 2>&1; then
        local runs
        runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo "?")
        echo "  $runs inputs, no failure"
        record "[6] fuzz" PASS 1 0 $(($(now) - t0)) "$runs inputs"
    else
        echo "  FAIL: the fuzzer found a failing input (saved in $BUILD_ROOT/fuzz-artifacts;"
        echo "        copy it into tests/fuzz/corpus to keep it as a regression test)"
        show_failure "$log"
        record "[6] fuzz" FAIL 0 1 $(($(now) - t0)) "see $BUILD_ROOT/fuzz-artifacts"
    fi
}

stage_qemu() {
    local dir=$BUILD_ROOT/aarch64 log=$LOGS/stage7.log t0 missing=() cpu2 c
    t0=$(now)
    command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || missing+=(gcc-aarch64-linux-gnu)
    [ -e /usr/aarch64-linux-gnu/include/stdio.h ] || missing+=(libc6-dev-arm64-cross)
    command -v qemu-aarch64 >/dev/null 2>&1 || missing+=(qemu-user)
    if [ ${#missing[@]} -ne 0 ]; then
        echo "== [7] aarch64 under qemu: SKIPPED (${missing[*]} not installed)"
        record "[7] aarch64 qemu" SKIPPED 0 0 0 "${missing[*]} not installed"
        return
    fi
    : >"$log"
    echo "== [7] aarch64 under qemu-aarch64 -cpu max  (log: $log)"
    # -DCW_QEMU_CPU=max: the second run below leaves the cache at its model
    if ! configure_build "$dir" "$log" -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/aarch64-linux-gnu.cmake" \
        -DCMAKE_BUILD_TYPE=Release -DCW_WERROR=ON -DCW_QEMU_CPU=max; then
        echo "  FAIL: configure/build"
        show_failure "$log"
        record "[7] aarch64 qemu -cpu max" FAIL 0 1 $(($(now) - t0)) "build failed"
        return
    fi
    CW_TEST_MAX_SIZE=$QEMU_MAX_SIZE ctest_stage "[7] aarch64 qemu -cpu max" "$dir" "$log" "$t0" \
        -E "$SAME_ON_EVERY_ARCH"

    # an ARMv8.0 core: no FEAT_DPB, so every write-back is DC CVAC
    cpu2=${CW_QEMU_CPU_NODPB:-}
    if [ -z "$cpu2" ]; then
        local models
        models=$(qemu-aarch64 -cpu help 2>/dev/null || true)
        for c in cortex-a57 cortex-a72 cortex-a53; do
            if grep -qw -- "$c" <<<"$models"; then
                cpu2=$c
                break
            fi
        done
    fi
    if [ -z "$cpu2" ]; then
        echo "== [7] aarch64 qemu without DC CVAP: SKIPPED (qemu-aarch64 has no ARMv8.0 model)"
        record "[7] aarch64 qemu, no DC CVAP" SKIPPED 0 0 0 "no cortex-a57/a72/a53 model"
        return
    fi
    log=$LOGS/stage7-$cpu2.log
    t0=$(now)
    : >"$log"
    echo "== [7] aarch64 under qemu-aarch64 -cpu $cpu2, labels copy|persist|safe  (log: $log)"
    if ! configure_build "$dir" "$log" -DCW_QEMU_CPU="$cpu2"; then
        echo "  FAIL: configure/build"
        show_failure "$log"
        record "[7] aarch64 qemu -cpu $cpu2" FAIL 0 1 $(($(now) - t0)) "configure failed"
        return
    fi
    # (not core.copy_static.*: the static library's entry is the same code
    # with or without DC CVAP, and core.copy.* runs the write-backs here)
    CW_TEST_MAX_SIZE=$QEMU_MAX_SIZE ctest_stage "[7] aarch64 qemu -cpu $cpu2" "$dir" "$log" \
        "$t0" -L 'copy|persist|safe' -E '^core\.copy_static\.'
    # the build directory as the first run left it (ctest there: -cpu max)
    cmake -S "$ROOT" -B "$dir" -DCW_QEMU_CPU=max >>"$log" 2>&1 || true
}

# The x86-64 CPU matrix: stage 1's build (the same configuration: the
# binaries it tested natively) under qemu-x86_64, one emulated CPU per row
# of tests/cpu_matrix.sh's table.
stage_cpu_matrix() {
    local dir=$BUILD_ROOT/gcc log=$LOGS/stage8.log t0 rc=0 line
    t0=$(now)
    if [ "$(uname -m)" != x86_64 ]; then
        echo "== [8] x86-64 CPU matrix: SKIPPED (not an x86-64 host)"
        record "[8] x86-64 CPU matrix" SKIPPED 0 0 0 "not an x86-64 host"
        return
    fi
    if ! command -v qemu-x86_64 >/dev/null 2>&1; then
        echo "== [8] x86-64 CPU matrix: SKIPPED (qemu-user not installed)"
        record "[8] x86-64 CPU matrix" SKIPPED 0 0 0 "qemu-user not installed"
        return
    fi
    : >"$log"
    echo "== [8] x86-64 CPU matrix under qemu-x86_64  (log: $log)"
    # Configured again even when stage 1 built it: a build directory made
    # before tests/cpu_matrix.cmake existed has no helper targets yet.
    if ! configure_build "$dir" "$log" -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=Release \
        -DCW_WERROR=ON -- --target cpu_matrix_probe cpu_matrix_safe safe_holes test_copy \
        test_memmove test_memset test_flush test_hostile test_env test_env_now; then
        echo "  FAIL: configure/build"
        show_failure "$log"
        record "[8] x86-64 CPU matrix" FAIL 0 1 $(($(now) - t0)) "build failed"
        return
    fi
    local out=$LOGS/stage8.matrix
    CW_JOBS=$JOBS CW_MATRIX_MAX_SIZE=${CW_MATRIX_MAX_SIZE:-1M} \
        bash "$ROOT/tests/cpu_matrix.sh" "$dir" "$LOGS/stage8" >"$out" 2>&1 || rc=$?
    cat "$out" >>"$log"
    # the per-model lines and failures, then the totals
    sed -n '/^  /p' "$out"
    line=$(grep -E '^cpu matrix: [0-9]+ passed, [0-9]+ failed' "$out" | tail -n1 || true)
    if [ -z "$line" ]; then
        echo "  FAIL: the matrix did not run (exit $rc)"
        show_failure "$log"
        record "[8] x86-64 CPU matrix" FAIL 0 1 $(($(now) - t0)) "did not run"
        return
    fi
    local passed failed
    passed=$(sed -E 's/^cpu matrix: ([0-9]+) passed.*/\1/' <<<"$line")
    failed=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
    [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
    echo "  $passed passed, $failed failed"
    record "[8] x86-64 CPU matrix" "$([ "$failed" -eq 0 ] && echo PASS || echo FAIL)" \
        "$passed" "$failed" $(($(now) - t0)) "qemu-x86_64, see $LOGS/stage8"
}

start=$(now)
echo "cachewise tests: $ROOT -> $BUILD_ROOT (stages: $STAGES, jobs: $JOBS)"
for s in $STAGES; do
    case $s in
    1) stage_build_and_test 1 "gcc Release -Werror" "$BUILD_ROOT/gcc" "" \
        -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=Release -DCW_WERROR=ON ;;
    2) if command -v clang >/dev/null 2>&1; then
        stage_build_and_test 2 "clang Release -Werror" "$BUILD_ROOT/clang" "-E $SAME_IN_EVERY_BUILD" \
            -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Release -DCW_WERROR=ON \
            -DCACHEWISE_TEST_QUICK_POLICY=ON
    else
        echo "== [2] clang: SKIPPED (clang not installed)"
        record "[2] clang" SKIPPED 0 0 0 "clang not installed"
    fi ;;
    3) CW_TEST_MAX_SIZE=$SAN_MAX_SIZE ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
        UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
        stage_build_and_test 3 "ASan+UBSan (gcc)" "$BUILD_ROOT/asan" \
        "-E $SAME_IN_EVERY_BUILD|$SAME_SOURCE_AS_AVX512" \
        -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCW_SANITIZE=address,undefined -DCACHEWISE_TEST_QUICK_POLICY=ON ;;
    4) TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1} \
        stage_build_and_test 4 "TSan (gcc), label tsan" "$BUILD_ROOT/tsan" "-L tsan" \
        -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCW_SANITIZE=thread ;;
    5) stage_valgrind ;;
    6) stage_fuzz ;;
    7) stage_qemu ;;
    8) stage_cpu_matrix ;;
    *) echo "unknown stage '$s' in CW_STAGES" >&2; exit 2 ;;
    esac
done

echo
echo "== summary ($(($(now) - start))s, logs in $LOGS)"
for line in "${summary[@]}"; do echo "  $line"; done
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
