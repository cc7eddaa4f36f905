#!/bin/bash
# Install the build into a scratch prefix, then build and run two tiny
# consumers against it: one with find_package(cachewise) (shared and static
# targets), one with pkg-config.
# usage: test_install.sh CMAKE BUILD_DIR CONSUMER_SRC_DIR C_COMPILER SCRATCH_DIR
set -euo pipefail
cmake=$1 build=$2 consumer=$3 cc=$4 scratch=$5
prefix=$scratch/prefix
rm -rf "$scratch"
mkdir -p "$scratch"

"$cmake" --install "$build" --prefix "$prefix" >"$scratch/install.log"
[ -f "$prefix/include/cachewise.h" ] || { echo "FAIL: cachewise.h not installed"; exit 1; }
so=$(find "$prefix" -name 'libcachewise.so.*.*.*' | head -n1)
[ -n "$so" ] || { echo "FAIL: libcachewise.so.X.Y.Z not installed"; exit 1; }
libdir=$(dirname "$so")
for f in libcachewise.a pkgconfig/cachewise.pc cmake/cachewise/cachewiseConfig.cmake \
         cmake/cachewise/cachewiseConfigVersion.cmake; do
    [ -f "$libdir/$f" ] || { echo "FAIL: $libdir/$f not installed"; exit 1; }
done
soname=$(objdump -p "$libdir"/libcachewise.so | awk '$1 == "SONAME" {print $2}')
[[ $soname =~ ^libcachewise\.so\.[0-9]+$ ]] \
    || { echo "FAIL: SONAME '$soname' is not versioned"; exit 1; }

echo "== find_package(cachewise)"
"$cmake" -S "$consumer" -B "$scratch/cmake-build" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_PREFIX_PATH="$prefix" >"$scratch/configure.log" 2>&1 \
    || { cat "$scratch/configure.log"; echo "FAIL: consumer configure"; exit 1; }
"$cmake" --build "$scratch/cmake-build" >"$scratch/build.log" 2>&1 \
    || { cat "$scratch/build.log"; echo "FAIL: consumer build"; exit 1; }
"$scratch/cmake-build/consumer"
"$scratch/cmake-build/consumer_static"

echo "== pkg-config"
export PKG_CONFIG_PATH=$libdir/pkgconfig
# shellcheck disable=SC2046
"$cc" -o "$scratch/pc_consumer" "$consumer/consumer.c" $(pkg-config --cflags --libs cachewise) \
    -Wl,-rpath,"$libdir"
"$scratch/pc_consumer"
# shellcheck disable=SC2046
"$cc" -static-libgcc -o "$scratch/pc_consumer_static" "$consumer/consumer.c" \
    $(pkg-config --cflags cachewise) "$libdir/libcachewise.a" $(pkg-config --static --libs-only-l cachewise | sed 's/-lcachewise//')
"$scratch/pc_consumer_static"
ldd "$scratch/pc_consumer_static" | grep -q libcachewise \
    && { echo "FAIL: static consumer linked the shared library"; exit 1; }
echo "ok: installed package works with find_package and pkg-config"
