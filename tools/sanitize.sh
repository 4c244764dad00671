#!/usr/bin/env bash
# The test suite under AddressSanitizer and UndefinedBehaviorSanitizer:
# configures and builds ./build-asan (or $CCT_ASAN_BUILD_DIR) with
# -DCCT_ASAN_UBSAN=ON (-j2) and runs there the share of the suite that
# tools/sanitizer_share.py chooses, with its reasons (every unit test, the
# interposer's and the fault tests, and a third of the rest, by commit;
# CCT_SANITIZER_GROUP=all runs every test). Extra arguments go to ctest.
# See docs/reliability.md.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/phases.sh
source tools/sanitizer_build.sh
build=${CCT_ASAN_BUILD_DIR:-build-asan}

# Without the CUDA toolkit, where one is installed: CI then proves that the
# project builds and passes as on a machine without one (ccinfo_cuda_devices
# checks what ccinfo says there), while the normal build uses it.
phase build sanitizer_build "$build" "-DCCT_ASAN_UBSAN=ON -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON"

# Leak checking is on (tests/CMakeLists.txt turns it off for the tests
# that start MPI programs). Those tests LD_PRELOAD the interposer into
# instrumented programs, which puts it ahead of libasan in the load order;
# harmless, as it defines none of the functions ASan intercepts, hence
# verify_asan_link_order=0.
export ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0
export UBSAN_OPTIONS=print_stacktrace=1
share=$(tools/sanitizer_share.py "$build")
suite() { (cd "$build" && ctest --output-on-failure --timeout 600 -j2 -I "$share" "$@"); }
phase suite suite "$@"
