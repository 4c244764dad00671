#!/usr/bin/env bash
# The test suite under AddressSanitizer and UndefinedBehaviorSanitizer:
# configures and builds ./build-asan (or $CCT_ASAN_BUILD_DIR) with
# -DCCT_ASAN_UBSAN=ON (-j2) and runs ctest there. Extra arguments go to
# ctest. See docs/reliability.md.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${CCT_ASAN_BUILD_DIR:-build-asan}

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCCT_ASAN_UBSAN=ON >/dev/null
cmake --build "$build" -j2

# Leak checking is on (tests/CMakeLists.txt turns it off for the tests
# that start MPI programs). Those tests LD_PRELOAD the interposer into
# instrumented programs, which puts it ahead of libasan in the load order;
# harmless, as it defines none of the functions ASan intercepts, hence
# verify_asan_link_order=0.
export ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0
export UBSAN_OPTIONS=print_stacktrace=1
# The tests left out under ASan, and why:
# - "switch algorithms refuse a root outside the communicator": the refusal
#   is thrown on a RapidIO simulator fiber (Boost.Context, which Debian
#   builds without ASan's fiber-switch annotations), so ASan loses track of
#   the stack and reports a stack-use-after-scope in Plan::run that is not
#   there;
# - "barrier multilevel: 100000 barriers never let a rank leave early": 4
#   ranks through 100000 barriers on 2 cores take minutes under ASan, for a
#   check of the barrier's logic that the normal build makes;
# - mpi_transport (every p2p algorithm over the mpi transport, 1 to 4
#   ranks) runs past its 300 s limit under ASan; the interposer stays
#   covered by the other MPI tests.
excluded='^(switch algorithms refuse a root outside the communicator|barrier multilevel: 100000 barriers never let a rank leave early|mpi_transport)$'
cd "$build"
ctest --output-on-failure --timeout 600 -j2 -E "$excluded" "$@"
