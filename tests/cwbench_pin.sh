#!/bin/bash
# SPDX-License-Identifier: MIT
# cwbench --pin against the process's CPU set: restricted with taskset to
# one CPU it may run on, --pin naming another CPU must exit 2 with one
# "cwbench: ..." line naming the set and the usage hint, and print nothing on
# stdout; --pin naming that CPU must run.
# usage: cwbench_pin.sh TASKSET CWBENCH
set -euo pipefail
taskset=$1 cwbench=$2
. "$(dirname "$0")/emulator.sh"
# the target program: under the emulator in a cross build (CW_EMULATOR)
cwbench=(${cw_emu[@]+"${cw_emu[@]}"} "$cwbench")
# the first CPU this test may run on
cpu=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | cut -d, -f1 | cut -d- -f1)
other=$((cpu + 1))
args=(--ab cw_memcpy glibc_memcpy --quick --size 64)

rc=0
out=$("$taskset" -c "$cpu" "${cwbench[@]}" "${args[@]}" --pin "$other" 2>"${TMPDIR:-/tmp}/cwbench_pin.$$") || rc=$?
err=$(cat "${TMPDIR:-/tmp}/cwbench_pin.$$")
rm -f "${TMPDIR:-/tmp}/cwbench_pin.$$"
[ "$rc" = 2 ] || { echo "FAIL: --pin $other outside CPU set $cpu: exit $rc, want 2"; echo "$err"; exit 1; }
[ -z "$out" ] || { echo "FAIL: the refusal printed on stdout: $out"; exit 1; }
grep -qx "cwbench: --pin $other: CPU $other is not in this process's CPU set ($cpu)" <<<"$err" \
    || { echo "FAIL: unexpected message:"; echo "$err"; exit 1; }
grep -q '^usage:' <<<"$err" || { echo "FAIL: no usage hint"; echo "$err"; exit 1; }

"$taskset" -c "$cpu" "${cwbench[@]}" "${args[@]}" --pin "$cpu" >/dev/null 2>&1 \
    || { echo "FAIL: --pin $cpu inside CPU set $cpu did not run"; exit 1; }
echo "ok: --pin $other refused outside CPU set $cpu, --pin $cpu runs"
