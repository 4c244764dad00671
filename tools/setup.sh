#!/usr/bin/env bash
# Installs the Debian 12 packages ccautotune needs (only those missing:
# tools/packages.sh, with $CCT_EXTRA_PACKAGES), then configures and builds
# it in ./build (or $CCT_BUILD_DIR) with -j2.
# Arguments: the targets to build (default: all of them; tools/tune.sh
# builds cct_tuning, what tuning needs). Each step is timed
# (tools/phases.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/phases.sh
source tools/compiler_cache.sh

configure_and_build() {
  local build=${CCT_BUILD_DIR:-build} targets=()
  [ $# -eq 0 ] || targets=(--target "$@")
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}" >/dev/null &&
    cmake --build "$build" -j2 "${targets[@]}"
}

read -ra extra <<<"${CCT_EXTRA_PACKAGES:-}"
phase packages tools/packages.sh "${extra[@]}"
phase build configure_and_build "$@"
