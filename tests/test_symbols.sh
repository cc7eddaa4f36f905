#!/bin/bash
# SPDX-License-Identifier: MIT
# The shared library exports only cw_* (plus its version node), every public
# function among them, and neither library ever calls memcpy/memmove/mempcpy
# or memset/bzero: under the LD_PRELOAD shim (or in a program that routes
# memset to cachewise) such a call would come straight back into cachewise.
# usage: test_symbols.sh NM libcachewise.so libcachewise.a
set -euo pipefail
nm=$1 shared=$2 static=$3
fail=0

exported=$("$nm" -D --defined-only "$shared" | awk '{print $NF}')
[ -n "$exported" ] || { echo "FAIL: no dynamic symbols in $shared"; exit 1; }
bad=$(grep -Ev '^(cw_[A-Za-z0-9_]+|CACHEWISE_[0-9_.]+)(@.*)?$' <<<"$exported" || true)
if [ -n "$bad" ]; then
    echo "FAIL: $shared exports symbols outside cw_*:"; echo "$bad"; fail=1
fi
for sym in cw_memcpy cw_memmove cw_memcpy_nt cw_memcpy_flushcache_fn cw_drain \
           cw_memcpy_persist cw_copy cw_copy_safe cw_safe_init cw_safe_handle_fault \
           cw_impl_name cw_impl_list cw_impl_select cw_get_info cw_version \
           cw_flush cw_persist cw_memset_nt cw_memset_flushcache cw_memset_persist \
           cw_copy_part cw_copy_parallel; do
    grep -Eq "^$sym(@.*)?\$" <<<"$exported" || { echo "FAIL: $shared does not export $sym"; fail=1; }
done
# Functions added after the first release carry the node of the release that
# added them (src/cachewise.map), so an older library refuses a program that
# needs them at load time; the first release's keep CACHEWISE_0.
for sym in cw_copy_part cw_copy_parallel; do
    grep -Eq "^$sym@@CACHEWISE_0\.2\$" <<<"$exported" ||
        { echo "FAIL: $sym is not in the version node CACHEWISE_0.2"; fail=1; }
done
grep -Eq '^cw_memcpy@@CACHEWISE_0$' <<<"$exported" ||
    { echo "FAIL: cw_memcpy left the version node CACHEWISE_0"; fail=1; }

forbidden='^_*(memcpy|memmove|mempcpy|memset|bzero|explicit_bzero)(_chk)?(@.*)?$'
und=$("$nm" -D --undefined-only "$shared" | awk '{print $NF}')
if grep -Eq "$forbidden" <<<"$und"; then
    echo "FAIL: $shared needs:"; grep -E "$forbidden" <<<"$und"; fail=1
fi
und=$("$nm" --undefined-only "$static" 2>/dev/null | awk 'NF >= 2 {print $NF}')
if grep -Eq "$forbidden" <<<"$und"; then
    echo "FAIL: $static objects call:"; grep -E "$forbidden" <<<"$und" | sort -u; fail=1
fi

if [ $fail -eq 0 ]; then
    echo "ok: $(wc -l <<<"$exported") exported symbols, all cw_*; no memcpy/memmove/mempcpy/memset/bzero imports"
fi
exit $fail
