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

# The exported set, exactly: the functions include/cachewise.h declares
# (its CW_API lines), no more (a cw_ helper leaking out would become ABI) and
# no fewer, each in its version node. The first release's functions (the
# list below, which never changes) stay in CACHEWISE_<major>; every later one
# carries the node of a later release, CACHEWISE_<major>.N with N from 2 up to
# the header's CW_VERSION_MINOR, never the first node, in which an older
# library would seem to have it. Every node the library defines holds a
# function.
header=$(dirname "${BASH_SOURCE[0]}")/../include/cachewise.h
major=$(sed -nE 's/^#define CW_VERSION_MAJOR +([0-9]+) *$/\1/p' "$header")
minor=$(sed -nE 's/^#define CW_VERSION_MINOR +([0-9]+) *$/\1/p' "$header")
first_release="cw_memcpy cw_memmove cw_memcpy_nt cw_memcpy_flushcache_fn cw_drain
  cw_memcpy_persist cw_copy cw_copy_safe cw_safe_init cw_safe_handle_fault cw_impl_name
  cw_impl_list cw_impl_select cw_get_info cw_version cw_flush cw_persist cw_memset_nt
  cw_memset_flushcache cw_memset_persist"
declared=$(sed -nE 's/^CW_API [^(]*\b(cw_[a-z0-9_]+)\(.*/\1/p' "$header" | sort -u)
functions=$(grep -E '^cw_' <<<"$exported" | sed 's/@.*//' | sort -u)
if [ "$declared" != "$functions" ]; then
    echo "FAIL: the exported functions are not the header's (< header only, > exported only):"
    diff <(echo "$declared") <(echo "$functions") | grep '^[<>]'
    fail=1
fi
used_nodes=
while read -r sym; do
    node=$(grep -E "^$sym@" <<<"$exported" | sed -E 's/^[^@]*@@?//')
    used_nodes+="$node"$'\n'
    if grep -qw -- "$sym" <<<"$first_release"; then
        [ "$node" = "CACHEWISE_$major" ] ||
            { echo "FAIL: $sym (first release) is in node '$node', not CACHEWISE_$major"; fail=1; }
    elif [[ ! $node =~ ^CACHEWISE_$major\.([0-9]+)$ ]] || [ "${BASH_REMATCH[1]}" -lt 2 ] ||
         [ "${BASH_REMATCH[1]}" -gt "$minor" ]; then
        echo "FAIL: $sym (added after the first release) is in node '$node', not" \
             "CACHEWISE_$major.2 .. CACHEWISE_$major.$minor"
        fail=1
    fi
done <<<"$functions"
for sym in cw_check_version cw_info_size cw_settings_apply cw_settings_restore; do # new in 0.2.0
    grep -Eq "^$sym@@CACHEWISE_0\.2\$" <<<"$exported" ||
        { echo "FAIL: $sym is not in the version node CACHEWISE_0.2"; fail=1; }
done
defined_nodes=$(grep -E '^CACHEWISE_' <<<"$exported" | sed 's/@.*//' | sort -u)
used_nodes=$(sort -u <<<"$used_nodes" | sed '/^$/d')
if [ "$defined_nodes" != "$used_nodes" ]; then
    echo "FAIL: version nodes defined: $(echo $defined_nodes); used: $(echo $used_nodes)"
    fail=1
fi

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
    echo "ok: $(wc -l <<<"$exported") exported symbols, the header's $(wc -l <<<"$functions")" \
         "functions in nodes $(echo $defined_nodes); no memcpy/memmove/mempcpy/memset/bzero imports"
fi
exit $fail
