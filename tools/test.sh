#!/usr/bin/env bash
# Quick start, command 2: set up, build, and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
# chromium renders the HTML report in its test (skipped without it).
CCT_EXTRA_PACKAGES=chromium tools/setup.sh
cd "${CCT_BUILD_DIR:-build}"
ctest --output-on-failure --timeout 600 "$@"
