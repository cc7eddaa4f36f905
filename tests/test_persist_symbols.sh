#!/bin/bash
# SPDX-License-Identifier: MIT
# The persistence and fill entry points are exported, and neither library
# ever calls memset (nor bzero): the fills are the library's own, and under
# the LD_PRELOAD shim, or in a program that routes memset to cachewise, such
# a call would come straight back into it. (test_symbols.sh does the same
# for memcpy/memmove/mempcpy.)
# usage: test_persist_symbols.sh NM libcachewise.so libcachewise.a
set -euo pipefail
nm=$1 shared=$2 static=$3
fail=0

exported=$("$nm" -D --defined-only "$shared" | awk '{print $NF}')
for sym in cw_flush cw_persist cw_memset_nt cw_memset_flushcache cw_memset_persist; do
    grep -Eq "^$sym(@.*)?\$" <<<"$exported" || { echo "FAIL: $shared does not export $sym"; fail=1; }
done

forbidden='^_*(memset|bzero|explicit_bzero)(_chk)?(@.*)?$'
und=$("$nm" -D --undefined-only "$shared" | awk '{print $NF}')
if grep -Eq "$forbidden" <<<"$und"; then
    echo "FAIL: $shared needs:"; grep -E "$forbidden" <<<"$und"; fail=1
fi
und=$("$nm" --undefined-only "$static" 2>/dev/null | awk 'NF >= 2 {print $NF}')
if grep -Eq "$forbidden" <<<"$und"; then
    echo "FAIL: $static objects call:"; grep -E "$forbidden" <<<"$und" | sort -u; fail=1
fi

if [ $fail -eq 0 ]; then
    echo "ok: cw_flush, cw_persist, cw_memset_{nt,flushcache,persist} exported; no memset/bzero imports"
fi
exit $fail
