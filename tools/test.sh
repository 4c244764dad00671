#!/usr/bin/env bash
# Quick start, command 2: set up, build, and run the normal test suite,
# two tests at a time (ctest -j2; the tests that cannot share the machine
# run alone: tests/CMakeLists.txt), then say how long each phase took
# (tools/phases.sh; the README says how long on a fresh machine). Extra
# arguments go to ctest. The long tier (ctest label "long": stress runs)
# is left to tools/long_tests.sh. .ci/run runs this, then the long tier,
# the sanitizers' share of the suite and the fuzzers (docs/reliability.md).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/phases.sh
# chromium renders the HTML report in its test (skipped without it);
# iproute2 makes the emulated hosts of tests/cluster (ip, tc); gfortran
# builds the Fortran programs the interposer is tested under, and
# python3-mpi4py runs a Python one (each test skips with the reason
# without them).
CCT_EXTRA_PACKAGES="chromium iproute2 gfortran python3-mpi4py ${CCT_EXTRA_PACKAGES:-}" \
  tools/setup.sh
build=${CCT_BUILD_DIR:-build}
suite() {
  local status=0
  (cd "$build" && ctest --output-on-failure --timeout 600 -j2 -LE long "$@") || status=$?
  # ctest shows a skipped test's name only; its reason is in the log.
  grep -h '^SKIP: ' "$build"/Testing/Temporary/LastTest*.log 2>/dev/null | sort -u || true
  return "$status"
}
phase suite suite "$@"
