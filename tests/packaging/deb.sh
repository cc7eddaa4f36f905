#!/bin/bash
# SPDX-License-Identifier: MIT
# The Debian packages (cmake/cpack.cmake): `cpack -G DEB` from this build,
# into a scratch directory, then
#   1. exactly three packages, libcachewise<MAJOR>, libcachewise-dev and
#      cachewise-tools, each with its section and the runtime of the same
#      version in the Depends of the other two (dpkg-deb -I);
#   2. each holds its files and none of another's (dpkg-deb -c): the
#      versioned library and its SONAME link in the runtime, the .so link,
#      header, archive, CMake package, .pc files and section 3 in -dev,
#      cwbench, the shim and sections 1 and 7 in -tools;
#   3. unpacked (dpkg-deb -x) into an empty root, a program is built with
#      that root's pkg-config file and run with that root's library.
# Skipped (77) without dpkg-deb or cpack.
# usage: deb.sh CPACK BUILD_DIR C_COMPILER SCRATCH_DIR
set -euo pipefail
cpack=$1 build=$2 cc=$3 scratch=$4
command -v dpkg-deb >/dev/null 2>&1 || { echo "SKIP: no dpkg-deb"; exit 77; }
[ -x "$cpack" ] || cpack=$(command -v cpack 2>/dev/null) || { echo "SKIP: no cpack"; exit 77; }
rm -rf "$scratch"
mkdir -p "$scratch/out" "$scratch/root"

fail() { echo "FAIL: $*"; exit 1; }

# The build's own configuration; its output and CPack's staging tree go to
# the scratch directory, so the build tree is left as it was. (cpack first
# makes the "preinstall" target, which finds the build up to date: ctest
# runs after the build.)
"$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$scratch/out" >"$scratch/cpack.log" 2>&1 \
    || { cat "$scratch/cpack.log"; fail "cpack -G DEB"; }

shopt -s nullglob
debs=("$scratch"/out/*.deb)
[ ${#debs[@]} -eq 3 ] || { ls "$scratch/out"; fail "${#debs[@]} packages, want 3"; }
runtime=("$scratch"/out/libcachewise[0-9]*_*.deb)
dev=("$scratch"/out/libcachewise-dev_*.deb)
tools=("$scratch"/out/cachewise-tools_*.deb)
if [ ${#runtime[@]} -ne 1 ] || [ ${#dev[@]} -ne 1 ] || [ ${#tools[@]} -ne 1 ]; then
    ls "$scratch/out"
    fail "want libcachewise<N>, libcachewise-dev, cachewise-tools"
fi
rt_deb=${runtime[0]} dev_deb=${dev[0]} tools_deb=${tools[0]}

echo "== metadata"
field() { dpkg-deb -f "$1" "$2"; }
rt_name=$(field "$rt_deb" Package)
version=$(field "$rt_deb" Version)
for d in "${debs[@]}"; do
    dpkg-deb -I "$d" >/dev/null || fail "dpkg-deb -I $d"
    [ "$(field "$d" Version)" = "$version" ] || fail "$d: version $(field "$d" Version), want $version"
    [ -n "$(field "$d" Maintainer)" ] || fail "$d: no Maintainer"
    [ -n "$(field "$d" Description)" ] || fail "$d: no Description"
done
[ "$(field "$rt_deb" Section)" = libs ] || fail "runtime: section $(field "$rt_deb" Section)"
[ "$(field "$dev_deb" Section)" = libdevel ] || fail "-dev: section $(field "$dev_deb" Section)"
[ "$(field "$tools_deb" Section)" = utils ] || fail "-tools: section $(field "$tools_deb" Section)"
for d in "$dev_deb" "$tools_deb"; do
    case ", $(field "$d" Depends)," in
    *", $rt_name (= $version),"*) ;;
    *) fail "$(field "$d" Package): Depends '$(field "$d" Depends)' lacks $rt_name (= $version)" ;;
    esac
done

echo "== contents"
# has DEB PATTERN...: each extended regex matches a path dpkg-deb -c lists
# (links as "path -> target")
has() {
    local deb=$1 list
    shift
    list=$(dpkg-deb -c "$deb" | sed 's/^.* \.\//\//')
    for re in "$@"; do
        grep -Eq "^$re( |$)" <<<"$list" || { echo "$list"; fail "$(basename "$deb") has no $re"; }
    done
}
lacks() {
    local deb=$1 list
    shift
    list=$(dpkg-deb -c "$deb" | sed 's/^.* \.\//\//')
    for re in "$@"; do
        ! grep -Eq "^$re( |$)" <<<"$list" || fail "$(basename "$deb") holds $re"
    done
}
lib='/usr/lib(/[^/]+)?'
has "$rt_deb" "$lib/libcachewise\.so\.[0-9]+ -> libcachewise\.so\.[0-9.]+" \
    "$lib/libcachewise\.so\.[0-9]+\.[0-9]+\.[0-9]+" /usr/share/doc/cachewise/LICENSE
lacks "$rt_deb" "$lib/libcachewise\.so" "$lib/libcachewise\.a" "/usr/include/.*" "/usr/share/man/.*"
has "$dev_deb" /usr/include/cachewise.h "$lib/libcachewise\.a" "$lib/libcachewise\.so -> .*" \
    "$lib/cmake/cachewise/cachewiseConfig\.cmake" "$lib/cmake/cachewise/cachewiseConfigVersion\.cmake" \
    "$lib/cmake/cachewise/cachewiseTargets\.cmake" \
    "$lib/pkgconfig/cachewise\.pc" "$lib/pkgconfig/cachewise-static\.pc" \
    /usr/share/man/man3/cachewise\.3 /usr/share/man/man3/cw_memcpy\.3
lacks "$dev_deb" "$lib/libcachewise\.so\.[0-9.]+" "/usr/bin/.*" "/usr/share/man/man[17]/.*"
has "$tools_deb" /usr/bin/cwbench "$lib/libcachewise-preload\.so" /usr/share/man/man1/cwbench\.1 \
    /usr/share/man/man7/cachewise-preload\.7
lacks "$tools_deb" "$lib/libcachewise\.so.*" "/usr/include/.*" "/usr/share/man/man3/.*"

echo "== unpacked into $scratch/root"
root=$scratch/root
for d in "${debs[@]}"; do dpkg-deb -x "$d" "$root"; done
pc=$(find "$root" -name cachewise.pc | head -n1)
libdir=$(dirname "$(dirname "$pc")")
cat >"$scratch/consumer.c" <<'EOF'
#include <cachewise.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
    char src[100], dst[100];
    memset(src, 'x', sizeof src);
    cw_memcpy(dst, src, sizeof dst);
    if (memcmp(dst, src, sizeof dst) != 0) return 1;
    printf("cachewise %s\n", cw_version());
    return 0;
}
EOF
# The .pc files find their prefix from their own directory, so only the
# search path points into the root (PKG_CONFIG_LIBDIR: nothing of the host's
# is read); a sysroot as well would put the root in front of the paths twice.
if command -v pkg-config >/dev/null 2>&1; then
    flags=$(PKG_CONFIG_LIBDIR=$(dirname "$pc") pkg-config --cflags --libs cachewise)
    # (as ${pcfiledir}/../../.. and so on: compared as directories)
    inc=$(sed -n 's/.*-I\([^ ]*\).*/\1/p' <<<"$flags")
    ldir=$(sed -n 's/.*-L\([^ ]*\).*/\1/p' <<<"$flags")
    if [ "$(cd "$inc" && pwd -P)" != "$(cd "$root/usr/include" && pwd -P)" ] \
        || [ "$(cd "$ldir" && pwd -P)" != "$(cd "$libdir" && pwd -P)" ]; then
        fail "pkg-config from the root: '$flags'"
    fi
else
    echo "note: no pkg-config, the root's paths are given by hand"
    flags="-I$root/usr/include -L$libdir -lcachewise"
fi
# shellcheck disable=SC2086 # the flags are words
"$cc" -o "$scratch/consumer" "$scratch/consumer.c" $flags || fail "build against the root"
out=$(LD_LIBRARY_PATH=$libdir "$scratch/consumer") || fail "consumer run"
echo "$out"
ver=${version%-*}
[ "$out" = "cachewise $ver" ] || fail "consumer says '$out', want 'cachewise $ver'"
deps=$(LD_LIBRARY_PATH=$libdir ldd "$scratch/consumer")
grep -q "=> $libdir/libcachewise\.so\.[0-9]" <<<"$deps" \
    || { echo "$deps"; fail "the consumer does not load the root's libcachewise"; }
echo "PASS"
