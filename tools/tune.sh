#!/usr/bin/env bash
# Quick start, command 1: set up, build what tuning needs (the cct_tuning
# target: no test suite), and tune this machine, then say how long set-up
# and tuning took (tools/phases.sh). Arguments are passed on to ccautotune
# (see ccautotune --help).
#
# With Open MPI (setup.sh installs it) the tuner runs as an MPI job (one
# rank per core), so the MPI library's own collectives are measured beside
# the algorithms (the `mpi` algorithm) and the profile keeps the library
# wherever it wins; the written profile is then timed from outside
# (osu_style_bench alone and under the interposer) and the sizes it loses
# go back to the library. An explicit --launcher, and the options only the local
# launcher takes (--np, --fabric, --plan), keep ccautotune's own launcher.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/phases.sh
tools/setup.sh cct_tuning
launcher=(--launcher mpirun)
command -v mpirun >/dev/null || launcher=()
for arg in "$@"; do
  case $arg in
    --launcher | --launcher=* | --np | --np=* | --fabric | --fabric=* | --plan | --help | -h) launcher=() ;;
  esac
done
phase tuning "${CCT_BUILD_DIR:-build}/bin/ccautotune" "${launcher[@]}" "$@"
