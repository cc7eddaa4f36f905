# shellcheck shell=bash disable=SC2034
# SPDX-License-Identifier: MIT
# Sourced by the test scripts (bash) that run a target program themselves.
# In a cross build tests/CMakeLists.txt gives every test CW_EMULATOR, the
# words of CMAKE_CROSSCOMPILING_EMULATOR joined by spaces (e.g.
# "/usr/bin/qemu-aarch64 -L /usr/aarch64-linux-gnu -cpu max"), and
# CW_CROSS_CMAKE_ARGS, the -D arguments a nested CMake build needs (the
# toolchain file); natively both are empty and every helper here runs the
# program as it is.
#
#   cw_emu                 array: the emulator's words (empty natively)
#   cw_cross_args          array: the nested builds' extra CMake arguments
#   target [VAR=value...] PROGRAM ARGS...
#                          runs a target program with VAR=value in its
#                          environment. Under a qemu-* emulator LD_PRELOAD
#                          and LD_LIBRARY_PATH go to the target with -E (the
#                          host loader starting qemu must not see them);
#                          everything else through the environment.
#   target_ldd PROGRAM     ldd PROGRAM; under the emulator the target's own
#                          loader lists what it loads (--list), found under
#                          the emulator's -L prefix
#   cw_skip_emulated WHAT  exits 77 (skipped) with WHAT as the reason when
#                          the tests run under an emulator
read -r -a cw_emu <<<"${CW_EMULATOR:-}"
read -r -a cw_cross_args <<<"${CW_CROSS_CMAKE_ARGS:-}"

target() {
    local vars=() qvars=() v
    while [ $# -gt 0 ] && [[ $1 =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do
        vars+=("$1")
        shift
    done
    if [ ${#cw_emu[@]} -eq 0 ]; then
        env ${vars[@]+"${vars[@]}"} "$@"
        return
    fi
    if [[ $(basename "${cw_emu[0]}") == qemu-* ]]; then
        local rest=()
        for v in ${vars[@]+"${vars[@]}"}; do
            case $v in
            LD_PRELOAD=* | LD_LIBRARY_PATH=*) qvars+=(-E "$v") ;;
            *) rest+=("$v") ;;
            esac
        done
        vars=(${rest[@]+"${rest[@]}"})
    fi
    env ${vars[@]+"${vars[@]}"} "${cw_emu[@]}" ${qvars[@]+"${qvars[@]}"} "$@"
}

target_ldd() {
    if [ ${#cw_emu[@]} -eq 0 ]; then
        ldd "$@"
        return
    fi
    local interp prefix='' i
    for ((i = 1; i < ${#cw_emu[@]}; i++)); do
        [ "${cw_emu[i - 1]}" = -L ] && prefix=${cw_emu[i]}
    done
    interp=$("${CW_READELF:-readelf}" -l "$1" | sed -n 's/.*program interpreter: \(.*\)\]$/\1/p')
    if [ -z "$interp" ]; then
        echo "	not a dynamic executable"
        return 1
    fi
    [ -n "$prefix" ] && [ -e "$prefix$interp" ] && interp=$prefix$interp
    "${cw_emu[@]}" "$interp" --list "$1"
}

cw_skip_emulated() {
    if [ ${#cw_emu[@]} -ne 0 ]; then
        echo "skipped (cross build, run under ${cw_emu[0]##*/}): $*"
        exit 77
    fi
}
