#!/bin/bash
# SPDX-License-Identifier: MIT
# stderr.sh SHIM PROGRAM WORKDIR: the shim's two messages about the profile
# (PROGRAM is closes_stderr.c):
#   1. CACHEWISE_VERBOSE=1 names the file this process writes, %p expanded
#      to its pid: the file that then appears, and no "%p" left;
#   2. a profile that cannot be written is reported at exit although the
#      program closed fd 2 before it: on the stderr the program started
#      with (the shim's own duplicate of it);
#   3. the same when a file the program opened took fd 2: the message goes
#      to the real stderr, never into that file;
#   4. a real program that closes its stderr at exit (coreutils' echo; the
#      host's, so not in a cross build).
set -eu
shim=$1 prog=$2 work=$3
. "$(dirname "$0")/../emulator.sh"
rm -rf "$work" && mkdir -p "$work"
fail=0

# 1
target LD_PRELOAD="$shim" CACHEWISE_VERBOSE=1 CACHEWISE_PROFILE="$work/prof.%p.sizes" "$prog" \
    >/dev/null 2>"$work/verbose.err"
line=$(grep '^cachewise-preload: loaded' "$work/verbose.err" || true)
written=$(cd "$work" && ls prof.*.sizes 2>/dev/null || true)
if [ -z "$line" ] || [ "$(wc -w <<<"$written")" != 1 ]; then
    echo "FAIL: no verbose line, or not one profile written ($written)"; cat "$work/verbose.err"
    fail=1
elif [[ $line == *%p* ]] || [[ $line != *"profile=$work/$written "* && $line != *"profile=$work/$written" ]]; then
    echo "FAIL: the verbose line does not name the profile written, $work/$written:"
    echo "  $line"
    fail=1
else
    echo "ok: the verbose line names $work/$written"
fi

# 2, 3
missing=$work/no-such-dir/prof
want="cachewise-preload: cannot write profile $missing: No such file or directory"
rc=0
target LD_PRELOAD="$shim" CACHEWISE_PROFILE="$missing" "$prog" >/dev/null 2>"$work/closed.err" ||
    rc=$?
if [ $rc -ne 0 ] || ! grep -qF "$want" "$work/closed.err"; then
    echo "FAIL: fd 2 closed (exit $rc): the failure was not reported; stderr:"; cat "$work/closed.err"
    fail=1
else
    echo "ok: reported with fd 2 closed: $(head -n1 "$work/closed.err")"
fi
rc=0
target LD_PRELOAD="$shim" CACHEWISE_PROFILE="$missing" "$prog" "$work/data" >/dev/null \
    2>"$work/reused.err" || rc=$?
if [ $rc -ne 0 ] || ! grep -qF "$want" "$work/reused.err"; then
    echo "FAIL: fd 2 reused (exit $rc): the failure was not reported; stderr:"; cat "$work/reused.err"
    fail=1
elif [ "$(cat "$work/data")" != data ]; then
    echo "FAIL: the shim wrote into the file that took fd 2:"; cat "$work/data"
    fail=1
else
    echo "ok: reported with fd 2 reused by a file, which holds only its own data"
fi

# 4
echo_bin=
for e in /bin/echo /usr/bin/echo; do [ -x "$e" ] && { echo_bin=$e; break; }; done
if [ ${#cw_emu[@]} -ne 0 ]; then
    echo "note: cross build, the host's echo cannot load the target's shim: not checked"
elif [ -z "$echo_bin" ]; then
    echo "note: no /bin/echo, the real program is not checked"
else
    rc=0
    LD_PRELOAD="$shim" CACHEWISE_PROFILE="$missing" "$echo_bin" hello >/dev/null 2>"$work/echo.err" ||
        rc=$?
    if [ $rc -ne 0 ] || ! grep -qF "$want" "$work/echo.err"; then
        echo "FAIL: $echo_bin (closes stderr at exit, exit $rc): not reported; stderr:"
        cat "$work/echo.err"
        fail=1
    else
        echo "ok: reported under $echo_bin, which closes its stderr at exit"
    fi
fi
exit $fail
