#!/usr/bin/env bash
# The interposer leaves the program's heap as the library alone does
# (tests/mpi/heap_check.c): after MPI_Init and after the first collectives
# the runtime runs, a 2 MiB malloc is still a mapping of its own, with the
# built-in defaults and with every collective forced to the library.
# usage: mpi_heap_untouched.sh <heap_check> <libcct_mpi.so>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
program=$1
interposer=$2
run() {  # run <label> [mpirun -x options...]
  local label=$1
  shift
  mpirun --allow-run-as-root --oversubscribe -np 2 "$@" "$program" >"$out" 2>"$err" ||
    fail "$label: exit status $?" "$err"
  grep -q "^heap_check: 0 failures on all ranks$" "$out" || fail "$label: no clean summary" "$out"
}
run "the library alone"
run "the built-in defaults" -x LD_PRELOAD="$interposer" -x CCT_PROFILE=none
run "every call kept" -x LD_PRELOAD="$interposer" -x CCT_PROFILE=none \
  -x "CCT_FORCE=bcast:0-max:mpi;allreduce:0-max:mpi;allgather:0-max:mpi"
echo "mpi_heap_untouched: ok"
