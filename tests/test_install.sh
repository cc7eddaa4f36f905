#!/bin/bash
# SPDX-License-Identifier: MIT
# Install the build into a scratch prefix, then use it the ways a user does:
#   1. what is installed: header, shared library (versioned file and SONAME),
#      static library, CMake package, pkg-config file, LICENSE; the ABI
#      promise (CHANGELOG.md) as the files state it: SONAME
#      libcachewise.so.MAJOR, symbol version node CACHEWISE_MAJOR, and a
#      CMake package that accepts MAJOR.0 and refuses MAJOR+1
#   2. find_package(cachewise): C against the shared and the static target,
#      C++ when a C++ compiler is there
#   3. pkg-config: C with the warnings users turn on and -Werror (the header
#      comes in with -I here, so its warnings would show), shared; static as
#      the README says: `pkg-config --static --libs cachewise` (a static
#      program) and `pkg-config --libs cachewise-static` (the archive in a
#      dynamic program), neither needing libcachewise.so (ldd, and the
#      dynamic section); C++
#   4. relocated: the prefix moved elsewhere, found again by pkg-config and
#      by find_package; the examples built and run against it
#   5. Python ctypes: the exported cw_memcpy_flushcache_fn (the header's
#      cw_memcpy_flushcache is an inline wrapper, not a symbol)
# A cross build (tests/emulator.sh): the nested builds take its toolchain
# from CW_CROSS_CMAKE_ARGS, the programs run under CW_EMULATOR, ldd is the
# target's loader, CW_OBJDUMP the target's objdump; the C++ compiler is the
# cross one, and ctypes (a host python cannot load a target library) is
# left out, saying so.
# usage: test_install.sh CMAKE BUILD_DIR CONSUMER_SRC_DIR C_COMPILER SCRATCH_DIR
set -euo pipefail
cmake=$1 build=$2 consumer=$3 cc=$4 scratch=$5
. "$(dirname "${BASH_SOURCE[0]}")/emulator.sh"
objdump=${CW_OBJDUMP:-objdump}
examples=$(cd "$(dirname "${BASH_SOURCE[0]}")/../examples" && pwd)
ctest=$(dirname "$cmake")/ctest
prefix=$scratch/prefix
rm -rf "$scratch"
mkdir -p "$scratch"

# quiet LOG command...: run it, show its log only when it fails
quiet() {
    local log=$1
    shift
    "$@" >"$log" 2>&1 || { cat "$log"; echo "FAIL: $*"; exit 1; }
}

# The C++ compiler of the same family as CC, if any (a cross gcc's g++ by
# its prefix: aarch64-linux-gnu-gcc, aarch64-linux-gnu-g++).
case $(basename "$cc") in
*clang*) cxx_names=(clang++ c++) ;;
*) cxx_names=(g++ c++) ;;
esac
if [ ${#cw_cross_args[@]} -ne 0 ]; then
    case $cc in
    *gcc) cxx_names=("${cc%gcc}g++") ;;
    *clang) cxx_names=("${cc}++") ;;
    *) cxx_names=() ;;
    esac
fi
cxx=
for c in ${cxx_names[@]+"${cxx_names[@]}"}; do
    if command -v "$c" >/dev/null 2>&1; then cxx=$(command -v "$c"); break; fi
done
[ -n "$cxx" ] || echo "note: no C++ compiler, the C++ consumers are not built"

echo "== installed files"
quiet "$scratch/install.log" "$cmake" --install "$build" --prefix "$prefix"
[ -f "$prefix/include/cachewise.h" ] || { echo "FAIL: cachewise.h not installed"; exit 1; }
so=$(find "$prefix" -name 'libcachewise.so.*.*.*' | head -n1)
[ -n "$so" ] || { echo "FAIL: libcachewise.so.X.Y.Z not installed"; exit 1; }
libdir=$(dirname "$so")
for f in libcachewise.a pkgconfig/cachewise.pc pkgconfig/cachewise-static.pc \
         cmake/cachewise/cachewiseConfig.cmake cmake/cachewise/cachewiseConfigVersion.cmake; do
    [ -f "$libdir/$f" ] || { echo "FAIL: $libdir/$f not installed"; exit 1; }
done
[ -f "$prefix/share/doc/cachewise/LICENSE" ] || { echo "FAIL: LICENSE not installed"; exit 1; }
# the manual under share/man, the links resolved there as man resolves them
for page in man3/cachewise.3 man3/cw_memcpy.3 man3/cw_memmove.3 man3/cw_get_info.3 \
            man3/cw_check_version.3; do
    [ -f "$prefix/share/man/$page" ] || { echo "FAIL: share/man/$page not installed"; exit 1; }
done
if [ -f "$libdir/libcachewise-preload.so" ] && [ ! -f "$prefix/share/man/man7/cachewise-preload.7" ]; then
    echo "FAIL: the shim is installed without cachewise-preload(7)"; exit 1
fi
if command -v man >/dev/null 2>&1; then
    for name in cachewise cw_memmove cw_check_version; do
        out=$(MANWIDTH=80 MANPAGER=cat man --warnings -M "$prefix/share/man" 3 "$name" 2>&1 >/dev/null)
        [ -z "$out" ] || { echo "FAIL: man $name from the installed tree:"; echo "$out"; exit 1; }
    done
fi

version=$(sed -n 's/^Version: *//p' "$libdir/pkgconfig/cachewise.pc")
major=${version%%.*}
# one version: the installed header's CW_VERSION_* are the package's
hdr_version=$(sed -nE 's/^#define CW_VERSION_(MAJOR|MINOR|PATCH) +([0-9]+) *$/\2/p' \
              "$prefix/include/cachewise.h" | paste -sd.)
[ "$hdr_version" = "$version" ] ||
    { echo "FAIL: the installed header says $hdr_version, the package $version"; exit 1; }
[ "$(basename "$so")" = "libcachewise.so.$version" ] \
    || { echo "FAIL: $(basename "$so") does not carry the package version $version"; exit 1; }
soname=$("$objdump" -p "$libdir/libcachewise.so" | awk '$1 == "SONAME" {print $2}')
[ "$soname" = "libcachewise.so.$major" ] \
    || { echo "FAIL: SONAME '$soname', want libcachewise.so.$major (the major version)"; exit 1; }
# (not "objdump | grep -q": grep may exit before objdump has written all,
# and under pipefail objdump's SIGPIPE would fail the check)
grep -Eq "CACHEWISE_${major}[[:space:]]+cw_memcpy$" <<<"$("$objdump" -T "$so")" \
    || { echo "FAIL: cw_memcpy is not in the symbol version node CACHEWISE_$major"; exit 1; }

echo "== find_package(cachewise $major.0)"
# pkg_dir LIBDIR: under a cross toolchain, whose find_package looks in its
# sysroot only (CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY), the package's
# directory is named as well, as a cross user would name it
pkg_dir() {
    [ ${#cw_cross_args[@]} -eq 0 ] || echo "-Dcachewise_DIR=$1/cmake/cachewise"
}
read -r -a pkg <<<"$(pkg_dir "$libdir")"
cxx_arg=()
[ -n "$cxx" ] && cxx_arg=(-DCMAKE_CXX_COMPILER="$cxx")
quiet "$scratch/configure.log" "$cmake" ${cw_cross_args[@]+"${cw_cross_args[@]}"} -S "$consumer" -B "$scratch/cmake-build" \
    -DCMAKE_C_COMPILER="$cc" "${cxx_arg[@]}" -DCMAKE_PREFIX_PATH="$prefix" ${pkg[@]+"${pkg[@]}"} \
    -DCW_REQUIRE_VERSION="$major.0"
quiet "$scratch/build.log" "$cmake" --build "$scratch/cmake-build"
target "$scratch/cmake-build/consumer"
target "$scratch/cmake-build/consumer_static"
[ -z "$cxx" ] || target "$scratch/cmake-build/consumer_cxx"
if "$cmake" ${cw_cross_args[@]+"${cw_cross_args[@]}"} -S "$consumer" -B "$scratch/cmake-next" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_PREFIX_PATH="$prefix" ${pkg[@]+"${pkg[@]}"} -DCW_REQUIRE_VERSION="$((major + 1)).0" \
    >"$scratch/configure-next.log" 2>&1; then
    echo "FAIL: find_package(cachewise $((major + 1)).0) accepted version $version"; exit 1
fi
grep -q "$version" "$scratch/configure-next.log" \
    || { cat "$scratch/configure-next.log"; echo "FAIL: no version in the refusal"; exit 1; }

echo "== pkg-config"
export PKG_CONFIG_PATH=$libdir/pkgconfig
case $("$cc" --version 2>/dev/null | head -n1) in
*clang*) strict=(-Wcast-align) ;;
*) strict=(-Wcast-align=strict) ;;
esac
strict+=(-Wall -Wextra -pedantic -Wconversion -Werror -O2)
# shellcheck disable=SC2046
"$cc" "${strict[@]}" -o "$scratch/pc_consumer" "$consumer/consumer.c" \
    $(pkg-config --cflags --libs cachewise) -Wl,-rpath,"$libdir"
target "$scratch/pc_consumer" | tee "$scratch/pc_consumer.out"
grep -q "cachewise $version," "$scratch/pc_consumer.out" ||
    { echo "FAIL: cw_version() of the installed library is not $version"; exit 1; }
# no_libcachewise_so PROGRAM: it runs without libcachewise.so (not loaded,
# not needed)
no_libcachewise_so() {
    local deps
    deps=$(target_ldd "$1" 2>&1 || true)
    if grep -q 'libcachewise\.so' <<<"$deps" ||
       "${CW_READELF:-readelf}" -d "$1" | grep -q 'NEEDED.*libcachewise'; then
        echo "FAIL: $(basename "$1") needs libcachewise.so:"; echo "$deps"; exit 1
    fi
}
# shellcheck disable=SC2046
"$cc" "${strict[@]}" -o "$scratch/pc_consumer_static" "$consumer/consumer.c" \
    $(pkg-config --static --cflags --libs cachewise)
target "$scratch/pc_consumer_static"
no_libcachewise_so "$scratch/pc_consumer_static"
# shellcheck disable=SC2046
"$cc" "${strict[@]}" -o "$scratch/pc_consumer_static_dyn" "$consumer/consumer.c" \
    $(pkg-config --cflags --libs cachewise-static)
target "$scratch/pc_consumer_static_dyn"
no_libcachewise_so "$scratch/pc_consumer_static_dyn"
"${CW_READELF:-readelf}" -d "$scratch/pc_consumer_static_dyn" | grep -q 'NEEDED.*libc\.so' ||
    { echo "FAIL: the cachewise-static consumer is not a dynamic program"; exit 1; }
[ "$(pkg-config --modversion cachewise-static)" = "$version" ] ||
    { echo "FAIL: cachewise-static.pc is not version $version"; exit 1; }
if [ -n "$cxx" ]; then
    # shellcheck disable=SC2046
    "$cxx" "${strict[@]}" -o "$scratch/pc_consumer_cxx" "$consumer/consumer.cpp" \
        $(pkg-config --cflags --libs cachewise) -Wl,-rpath,"$libdir"
    target "$scratch/pc_consumer_cxx"
fi

echo "== relocated prefix"
moved=$scratch/moved/usr
mkdir -p "$(dirname "$moved")"
mv "$prefix" "$moved"
mlibdir=$moved/${libdir#"$prefix"/}
read -r -a mpkg <<<"$(pkg_dir "$mlibdir")"
export PKG_CONFIG_PATH=$mlibdir/pkgconfig
inc=$(pkg-config --variable=includedir cachewise)
[ "$(cd "$inc" && pwd -P)" = "$(cd "$moved/include" && pwd -P)" ] \
    || { echo "FAIL: the moved .pc file points at $inc, not into $moved"; exit 1; }
# shellcheck disable=SC2046
"$cc" -o "$scratch/pc_consumer_moved" "$consumer/consumer.c" \
    $(pkg-config --cflags --libs cachewise) -Wl,-rpath,"$mlibdir"
target "$scratch/pc_consumer_moved"
quiet "$scratch/configure-moved.log" "$cmake" ${cw_cross_args[@]+"${cw_cross_args[@]}"} -S "$consumer" -B "$scratch/cmake-moved" \
    -DCMAKE_C_COMPILER="$cc" "${cxx_arg[@]}" -DCMAKE_PREFIX_PATH="$moved" ${mpkg[@]+"${mpkg[@]}"} \
    -DCW_REQUIRE_VERSION="$major.0"
quiet "$scratch/build-moved.log" "$cmake" --build "$scratch/cmake-moved"
target "$scratch/cmake-moved/consumer"
# the library the loader resolved, compared by real path (a path spelled
# differently, through a link, is still the moved library)
used=$(target_ldd "$scratch/cmake-moved/consumer" | awk '$1 ~ /^libcachewise\.so/ {print $3}')
if [ -z "$used" ] || [ "$(realpath "$used")" != "$(realpath "$mlibdir/libcachewise.so.$major")" ]; then
    echo "FAIL: the relocated find_package consumer did not use $mlibdir"
    target_ldd "$scratch/cmake-moved/consumer"
    exit 1
fi
[ -z "$cxx" ] || target "$scratch/cmake-moved/consumer_cxx"

echo "== examples against the installed package"
quiet "$scratch/configure-examples.log" "$cmake" ${cw_cross_args[@]+"${cw_cross_args[@]}"} -S "$examples" -B "$scratch/examples" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$moved" ${mpkg[@]+"${mpkg[@]}"}
quiet "$scratch/build-examples.log" "$cmake" --build "$scratch/examples" -j2
quiet "$scratch/ctest-examples.log" "$ctest" --test-dir "$scratch/examples" --output-on-failure
grep -E 'tests passed' "$scratch/ctest-examples.log"

echo "== Python ctypes"
if [ ${#cw_emu[@]} -ne 0 ]; then
    echo "note: cross build, ctypes not checked (the host's python3 cannot load a target library)"
elif command -v python3 >/dev/null 2>&1; then
    python3 - "$mlibdir/libcachewise.so.$major" <<'EOF'
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.cw_version.restype = ctypes.c_char_p
# the exported flushcache copy; cw_memcpy_flushcache is the header's inline
lib.cw_memcpy_flushcache_fn.restype = ctypes.c_void_p
lib.cw_memcpy_flushcache_fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
src = ctypes.create_string_buffer(bytes(range(256)) * 16)
dst = ctypes.create_string_buffer(len(src))
lib.cw_memcpy_flushcache_fn(dst, src, len(src))
lib.cw_drain()
assert dst.raw == src.raw, "cw_memcpy_flushcache_fn copied wrong bytes"
assert not hasattr(lib, "cw_memcpy_flushcache"), "the inline wrapper is exported"
print("ctypes: cachewise", lib.cw_version().decode(), "cw_memcpy_flushcache_fn works")
EOF
else
    echo "note: no python3, ctypes not checked"
fi
if [ ${#cw_emu[@]} -ne 0 ]; then
    echo "ok: installed package works with find_package, pkg-config, C++, relocated (under ${cw_emu[0]##*/}; ctypes not checked)"
else
    echo "ok: installed package works with find_package, pkg-config, C++, relocated, and from ctypes"
fi
