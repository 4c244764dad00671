#!/usr/bin/env bash
# Quick start, command 2: set up, build, and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
cd "${CCT_BUILD_DIR:-build}"
ctest --output-on-failure --timeout 600 "$@"
