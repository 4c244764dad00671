#!/usr/bin/env bash
# Installs the Debian 12 packages ccautotune needs, and those named as
# arguments, where they are missing; downloads nothing else. Needs root
# only when something is missing (it says what, otherwise).
set -euo pipefail
packages=(g++ cmake make pkg-config libhwloc-dev hwloc libboost-dev libboost-filesystem-dev
          libboost-context-dev
          libyaml-cpp-dev catch2 libcli11-dev nlohmann-json3-dev libfccp-dev libeigen3-dev libopenmpi-dev
          openmpi-bin python3)
# More for a caller that needs them: the packages only the tests or the
# fuzzers use.
packages+=("$@")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0
echo "packages: installing the missing ones: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "packages: installing needs root; run as root or: apt-get install ${missing[*]}" >&2
  exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
