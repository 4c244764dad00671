#!/usr/bin/env bash
# MPI_THREAD_MULTIPLE under the interposer:
# - threads_check at 2-4 ranks with 2-4 threads each, every thread running
#   collectives at once on communicators of its own, made and freed as it
#   goes: every result right, the runtime's CCT_STATS tables showing it took
#   the calls (rows of the threads' communicators), and no communicator
#   refused;
# - mpi4py_check, through Debian's python3-mpi4py (which initialises MPI at
#   MPI_THREAD_MULTIPLE), at 1-3 ranks: the same; skipped with the reason
#   where mpi4py is not installed, the rest still run.
# usage: mpi_threads.sh <threads_check> <libcct_mpi.so> <mpi4py_check.py>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
program=$1
interposer=$2
python_check=$3
row='^[a-z0-9=]+ +[0-9]+ +'

served() {  # <label>: the runtime ran calls and refused no communicator
  grep -Eq "${row}allreduce +[a-z_]+" "$err" || fail "$1: no runtime row for allreduce"
  ! grep -q "its collectives go to the MPI library" "$err" || fail "$1: a communicator was refused"
  grep -q "^cct: no collective call was passed to the MPI library (rank 0)$" "$err" ||
    fail "$1: calls were passed to the MPI library"
}

for np in 2 3 4; do
  for threads in 2 4; do
    label="threads_check np $np x $threads threads"
    timeout 240 mpirun --allow-run-as-root --oversubscribe -np "$np" -x LD_PRELOAD="$interposer" \
      -x CCT_STATS=1 "$program" "$threads" 8 >"$out" 2>"$err" || fail "$label: exit status $?"
    grep -q "^threads_check: $np ranks x $threads threads, .* 0 failures on all ranks$" "$out" ||
      fail "$label: no clean summary line"
    served "$label"
    # Each thread's round communicators: one table row sums them by size.
    grep -Eq "^size=$np +[0-9]+ +alltoall +[a-z_]+" "$err" ||
      fail "$label: the threads' communicators did not run on the runtime"
  done
done

if ! /usr/bin/python3 -c 'import mpi4py' 2>/dev/null; then
  echo "mpi4py_check skipped: python3-mpi4py is not installed (tools/packages.sh installs it)"
else
  for np in 1 2 3; do
    label="mpi4py_check np $np"
    timeout 120 mpirun --allow-run-as-root --oversubscribe -np "$np" -x LD_PRELOAD="$interposer" \
      -x CCT_STATS=1 /usr/bin/python3 "$python_check" >"$out" 2>"$err" || fail "$label: exit $?"
    grep -q "^mpi4py_check: $np ranks, thread level multiple, .* 0 failures on all ranks$" "$out" ||
      fail "$label: no clean summary line"
    served "$label"
  done
fi
echo "PASS: threads_check at 2-4 ranks x 2 and 4 threads and mpi4py at 1-3 ranks, all calls" \
  "on the runtime under MPI_THREAD_MULTIPLE"
