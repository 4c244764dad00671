#!/usr/bin/env bash
# Quick start, command 2: set up, build, and run the whole test suite; then
# the suite again under ASan+UBSan (tools/sanitize.sh) and each fuzzer for
# $CCT_FUZZ_SECONDS (default 30) seconds (tools/fuzz.sh); see
# docs/reliability.md. CCT_SANITIZERS=0 runs the normal suite only. Extra
# arguments go to the normal suite's ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
# chromium renders the HTML report in its test (skipped without it); clang
# and its runtime libraries (libFuzzer) build the fuzzers; iproute2 makes
# the emulated hosts of tests/cluster (ip, tc).
CCT_EXTRA_PACKAGES="chromium clang libclang-rt-14-dev iproute2" tools/setup.sh
build=${CCT_BUILD_DIR:-build}
status=0
(cd "$build" && ctest --output-on-failure --timeout 600 "$@") || status=$?
# ctest shows a skipped test's name only; its reason is in the log.
grep -h '^SKIP: ' "$build"/Testing/Temporary/LastTest*.log 2>/dev/null | sort -u || true
[ "$status" -eq 0 ] || exit "$status"
if [ "${CCT_SANITIZERS:-1}" != 0 ]; then
  tools/sanitize.sh
  tools/fuzz.sh "${CCT_FUZZ_SECONDS:-30}"
fi
