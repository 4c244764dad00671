#!/usr/bin/env bash
# Quick start, command 1: set up, build, and look at this machine.
# Until the tuner lands this runs ccinfo; arguments are passed on.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
exec "${CCT_BUILD_DIR:-build}/bin/ccinfo" "$@"
