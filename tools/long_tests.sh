#!/usr/bin/env bash
# The long tier: the tests that tools/test.sh leaves out to keep within its
# 15 minutes (ctest label "long": stress runs, tests/CMakeLists.txt), on
# the build tools/test.sh made. .ci/run runs it after tools/test.sh. Extra
# arguments go to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/phases.sh
build=${CCT_BUILD_DIR:-build}
long() { (cd "$build" && ctest --output-on-failure --timeout 600 -L long "$@"); }
phase long long "$@"
