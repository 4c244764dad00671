#!/usr/bin/env bash
# Quick start, command 1: set up, build, and tune this machine.
# Arguments are passed on to ccautotune (see ccautotune --help).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
exec "${CCT_BUILD_DIR:-build}/bin/ccautotune" "$@"
