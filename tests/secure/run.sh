#!/bin/bash
# SPDX-License-Identifier: MIT
# Secure mode and planted symlinks. Usage: run.sh PROBE [IMPL]
#
# 1. Planted symlinks (any user): the shim's profile is written through a
#    temporary file in the profile's directory. A symlink planted at the
#    old, predictable temporary name PATH.PID.tmp, and one planted at PATH
#    itself, must not be followed: their targets keep their bytes, the
#    planted temporary link stays where it is, PATH becomes a regular file.
# 2. Secure mode (root only, else skipped with the reason): a setuid-root
#    copy of PROBE run as `nobody` with CACHEWISE_IMPL, CACHEWISE_NT_THRESHOLD,
#    CACHEWISE_VERBOSE, CACHEWISE_PROFILE and CACHEWISE_STATS set must write no file, print
#    nothing on stderr, and keep the CPU's defaults (the values a run
#    without any setting shows), with "secure mode" recorded. The same
#    settings in a plain (not setuid) run as `nobody` must take effect: the
#    control that shows the test can fail. IMPL (default sse2) is the
#    implementation the settings force: one this CPU runs that is not its
#    default. There cw_settings_apply() is refused (EPERM) and changes
#    nothing; in the control it takes effect.
# In a cross build (CW_EMULATOR, tests/emulator.sh) the probe runs under
# qemu-user, and a setuid probe would give qemu no privilege at all: there
# the setuid-root program is a copy of the emulator itself. The kernel gives
# qemu AT_SECURE and qemu hands it to the target (its auxiliary vector),
# whose loader and libc then run in secure mode exactly as on hardware. A
# setuid-root emulator runs any program as root, so only root and one
# fresh group that no account or process has may execute it, and the
# secure run alone is given that group.
set -u
probe=$1 impl=${2:-sse2}
. "$(dirname "$0")/../emulator.sh"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
field() { sed -n "s/^$1 //p" <<<"$2" | head -n1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/cw-secure.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"

# ---- 1. planted symlinks --------------------------------------------------
mkdir "$work/own"
echo "victim bytes" >"$work/victim-tmp"
echo "victim bytes" >"$work/victim-final"
prof=$work/own/prof
ln -s "$work/victim-final" "$prof"
# exec keeps the shell's pid: $$ is the probe's pid, so the old name is known
CACHEWISE_PROFILE=$prof bash -c 'ln -s "$1" "$2.$$.tmp" && shift 2 && exec "$@" >/dev/null' _ \
    "$work/victim-tmp" "$prof" ${cw_emu[@]+"${cw_emu[@]}"} "$probe" ||
    bad "probe failed in the symlink run"
for v in victim-tmp victim-final; do
    [ "$(cat "$work/$v")" = "victim bytes" ] || bad "$v was written through a planted symlink"
done
[ -f "$prof" ] && [ ! -L "$prof" ] || bad "the profile did not replace the planted symlink at PATH"
grep -q '^# cachewise' "$prof" 2>/dev/null || grep -q 'probability' "$prof" 2>/dev/null ||
    bad "the profile at PATH is not a profile"
n_tmp=$(find "$work/own" -name 'prof.*.tmp' -type l | wc -l)
[ "$n_tmp" = 1 ] || bad "the planted temporary symlink was removed or another one left ($n_tmp)"
[ -z "$(find "$work/own" -name 'prof.*.tmp' -type f)" ] || bad "a temporary file was left behind"
mode=$(stat -c %a "$prof")
[ "$mode" = 600 ] || bad "profile mode $mode, want 600"
[ $fail = 0 ] && echo "planted symlinks: not followed, not removed; profile replaced PATH (mode 600)"

# ---- 2. secure mode --------------------------------------------------------
if [ "$(id -u)" != 0 ]; then
    echo "secure mode: SKIPPED (needs root to make a setuid-root program; CI runs as root)"
    [ $fail = 0 ] || exit 1
    exit 77
fi
user=nobody
id "$user" >/dev/null 2>&1 || { echo "secure mode: SKIPPED (no user $user)"; exit 77; }
command -v setpriv >/dev/null || { echo "secure mode: SKIPPED (no setpriv)"; exit 77; }
asuser=(setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups)

cp "$probe" "$work/probe-plain" && chmod 755 "$work/probe-plain"
if [ ${#cw_emu[@]} -eq 0 ]; then
    cp "$probe" "$work/probe-suid" && chown root:root "$work/probe-suid" &&
        chmod 4755 "$work/probe-suid"
    suid=("$work/probe-suid")
    suid_as=("${asuser[@]}")
    plain=("$work/probe-plain")
else
    # only root and a group of our own (no account has it, no process
    # runs with it) may run this setuid-root emulator
    gid=
    for try in 1 2 3 4 5 6 7 8; do
        g=$((1000000000 + RANDOM * 32768 + RANDOM))
        if ! getent group "$g" >/dev/null 2>&1 && ! ps -eo rgid=,egid= | grep -qw "$g"; then
            gid=$g
            break
        fi
    done
    [ -n "$gid" ] || { echo "secure mode: SKIPPED (no unused group id found)"; exit 77; }
    cp "$(command -v "${cw_emu[0]}")" "$work/emulator-suid" &&
        chown "root:$gid" "$work/emulator-suid" && chmod 4750 "$work/emulator-suid"
    suid_as=(setpriv --reuid="$user" --regid="$gid" --clear-groups)
    suid=("$work/emulator-suid" "${cw_emu[@]:1}" "$work/probe-plain")
    plain=("${cw_emu[@]}" "$work/probe-plain")
fi
mkdir -m 755 "$work/rootonly"         # only root may write here
mkdir -m 777 "$work/anyone"
# CACHEWISE_TUNING=generic: read by cw_memcpy's IFUNC resolver too (a
# built-in profile's name), so the entry must stay the CPU's as well
settings=("CACHEWISE_IMPL=$impl" CACHEWISE_NT_THRESHOLD=4K CACHEWISE_VERBOSE=1
          CACHEWISE_PROFILE_SIGNAL=1 CACHEWISE_TUNING=generic)

ref=$(env -u CACHEWISE_IMPL -u CACHEWISE_NT_THRESHOLD "${asuser[@]}" "${plain[@]}") ||
    bad "reference run failed"
out=$(env "${settings[@]}" CACHEWISE_PROFILE="$work/rootonly/owned" \
    CACHEWISE_STATS="$work/rootonly/stats" \
    "${suid_as[@]}" "${suid[@]}" 2>"$work/stderr") || bad "setuid run failed"
if [ "$(field secure "$out")" != 1 ]; then
    echo "secure mode: SKIPPED (the setuid probe did not run with AT_SECURE: nosuid mount?)"
    [ $fail = 0 ] || exit 1
    exit 77
fi
for k in impl impl_source nt_threshold memcpy_entry; do
    [ "$(field "$k" "$out")" = "$(field "$k" "$ref")" ] ||
        bad "secure mode: $k is '$(field "$k" "$out")', the CPU's default is '$(field "$k" "$ref")'"
done
# the CPU's default: the best runnable row, or its profile's choice
case $(field impl_source "$out") in
cpu | profile) ;;
*) bad "secure mode: impl_source $(field impl_source "$out")" ;;
esac
[ "$(field nt_threshold_source "$out")" = cpu ] ||
    bad "secure mode: nt_threshold_source $(field nt_threshold_source "$out")"
grep -q '^error .*secure mode' <<<"$out" || bad "secure mode: not recorded in cw_get_info()->errors"
[ "$(field apply "$out")" = "-1 EPERM" ] ||
    bad "secure mode: cw_settings_apply gave '$(field apply "$out")', want '-1 EPERM'"
[ "$(field applied_nt_threshold "$out")" = "$(field nt_threshold "$ref")" ] ||
    bad "secure mode: cw_settings_apply changed nt_threshold to $(field applied_nt_threshold "$out")"
[ ! -s "$work/stderr" ] || bad "secure mode: printed on stderr: $(head -c 300 "$work/stderr")"
[ -z "$(ls -A "$work/rootonly")" ] || bad "secure mode: wrote $(ls -A "$work/rootonly")"

# the control: the same settings, no privilege, take effect
ctl=$(env "${settings[@]}" CACHEWISE_PROFILE="$work/anyone/ctl" \
    CACHEWISE_STATS="$work/anyone/stats" \
    "${asuser[@]}" "${plain[@]}" 2>"$work/stderr-ctl") || bad "control run failed"
[ "$(field impl "$ctl")" = "$impl" ] || [ "$(field impl "$ref")" = generic ] ||
    bad "control: CACHEWISE_IMPL=$impl not in force ($(field impl "$ctl"))"
[ "$(field nt_threshold "$ctl")" = 4096 ] || bad "control: CACHEWISE_NT_THRESHOLD not in force"
[ "$(field apply "$ctl")" = "0 ok" ] && [ "$(field applied_nt_threshold "$ctl")" = 8192 ] ||
    bad "control: cw_settings_apply gave '$(field apply "$ctl")', nt_threshold $(field applied_nt_threshold "$ctl")"
[ -s "$work/stderr-ctl" ] || bad "control: CACHEWISE_VERBOSE=1 printed nothing"
[ -f "$work/anyone/ctl" ] || bad "control: no profile written"
[ -f "$work/anyone/stats" ] || bad "control: no statistics written"

[ $fail = 0 ] || exit 1
echo "secure mode: settings ignored, cw_settings_apply refused, nothing written or printed;" \
    "the control run obeyed them"
exit 0
