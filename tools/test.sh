#!/usr/bin/env bash
# Quick start, command 2: set up, build, and run the whole test suite; then
# the suite again under ASan+UBSan and each fuzzer for
# $CCT_FUZZ_SECONDS (default 60) seconds (docs/reliability.md). Extra
# arguments go to the first ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
# chromium renders the HTML report in its test (skipped without it); clang
# and its runtime libraries (libFuzzer) build the fuzzers.
CCT_EXTRA_PACKAGES="chromium clang libclang-rt-14-dev" tools/setup.sh
(cd "${CCT_BUILD_DIR:-build}" && ctest --output-on-failure --timeout 600 "$@")
tools/sanitize.sh
tools/fuzz.sh "${CCT_FUZZ_SECONDS:-60}"
