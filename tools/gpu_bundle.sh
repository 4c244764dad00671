#!/usr/bin/env bash
# What the tests that need a GPU take to the project's GPU machine, which
# has none of Debian's packages (the `device` tool; no compiler, no
# hwloc, no yaml-cpp): the test program, the device benchmark and the
# plugins of ./build,
# without their debug sections, and every shared library they load but
# the C library's own, in build/gpu-bundle with the build tree's layout
# (bin/, lib/, lib/cct/: the registry finds the plugins beside libcct).
# There, from the repository root:
#   build/gpu-bundle/bin/cct_tests "[gpu]"
#   build/gpu-bundle/bin/ccbench_device --np 2,4 --max-bytes 64M
# (their rpath finds build/gpu-bundle/lib). Build first (tools/test.sh or
# cmake --build build); the bundle is about 30 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
out=$build/gpu-bundle
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib/cct"
strip_into() { objcopy --strip-debug "$1" "$2/$(basename "$1")"; }
for program in cct_tests ccbench_device; do strip_into "$build/bin/$program" "$out/bin"; done
for lib in "$build"/lib/libcct.so*; do
  if [ -L "$lib" ]; then cp -P "$lib" "$out/lib/"; else strip_into "$lib" "$out/lib"; fi
done
for plugin in "$build"/lib/cct/*.so; do strip_into "$plugin" "$out/lib/cct"; done
# The libraries they load, but those every Linux has (the C library's).
for file in "$build/bin/cct_tests" "$build/bin/ccbench_device" "$build"/lib/cct/*.so; do
  ldd "$file" | awk '$3 ~ /^\// {print $3}'
done | sort -u | while read -r dep; do
  case $(basename "$dep") in
    libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) ;;
    libcct.so*) ;;
    *) cp -L "$dep" "$out/lib/" ;;
  esac
done
du -sh "$out"
