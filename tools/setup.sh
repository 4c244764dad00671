#!/usr/bin/env bash
# Installs the Debian 12 packages ccautotune needs (only those missing),
# then configures and builds it in ./build (or $CCT_BUILD_DIR) with -j2.
# Arguments: the targets to build (default: all of them; tools/tune.sh
# builds cct_tuning, what tuning needs). Each step is timed
# (tools/phases.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/phases.sh

packages=(g++ cmake make pkg-config libhwloc-dev hwloc libboost-dev libboost-filesystem-dev
          libboost-context-dev
          libyaml-cpp-dev catch2 libcli11-dev nlohmann-json3-dev libfccp-dev libopenmpi-dev
          openmpi-bin python3)
# More for a caller that needs them: tools/test.sh passes the packages only
# the tests use.
read -ra extra <<<"${CCT_EXTRA_PACKAGES:-}"
packages+=("${extra[@]}")

install_missing() {
  local missing=() p
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  echo "setup: installing missing packages: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: installing packages needs root; run as root or: apt-get install ${missing[*]}" >&2
    return 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

source tools/compiler_cache.sh
configure_and_build() {
  local build=${CCT_BUILD_DIR:-build} targets=()
  [ $# -eq 0 ] || targets=(--target "$@")
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}" >/dev/null
  cmake --build "$build" -j2 "${targets[@]}"
}

phase packages install_missing
phase build configure_and_build "$@"
