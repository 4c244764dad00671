#!/usr/bin/env bash
# The interposer (libcct_mpi.so) preloaded under tests/mpi/fortran_check.F90,
# built once per Fortran binding of MPI (mpif.h, use mpi, use mpi_f08), on
# 1 to 4 ranks (oversubscribed from 3), and on 2 ranks started with
# MPI_Init_thread: every check of the program passes, and the CCT_STATS
# tables show that the runtime took its calls through the Fortran entry
# points (rows for allreduce, bcast, alltoallv and reduce_scatter), with
# rank 0 accounting for the calls passed to the MPI library.
# usage: mpi_fortran.sh <libcct_mpi.so> <program_mpifh> <program_use_mpi> <program_f08>
# A program named `none` was not built for want of a Fortran compiler, one
# named `unsupported` for want of that binding in the MPI library; such a
# binding is left out, and with none left the test is skipped (77).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
[ $# -eq 4 ] ||
  fail "usage: mpi_fortran.sh <libcct_mpi.so> <program_mpifh> <program_use_mpi> <program_f08>"
interposer=$1
shift
bindings=("mpif.h" "use mpi" "use mpi_f08")
programs=("$@")
join() {  # join <separator> <item>...: the items with the separator between
  local separator=$1
  shift
  printf '%s' "$1"
  shift
  printf "$separator%s" "$@"
}
# The bindings to test, and the reason each other one is left out.
tested=()
skipped=()
for i in 0 1 2; do
  case ${programs[$i]} in
    none) skipped+=("${bindings[$i]}: no Fortran compiler (gfortran) found by CMake") ;;
    unsupported) skipped+=("${bindings[$i]}: the MPI library has no such Fortran binding") ;;
    *)
      if [ -x "${programs[$i]}" ]; then
        tested+=("$i")
      else
        skipped+=("${bindings[$i]}: ${programs[$i]} was not built")
      fi
      ;;
  esac
done
if [ ${#tested[@]} -eq 0 ]; then
  if [ "${programs[*]}" = "none none none" ]; then
    echo "SKIP: no Fortran compiler (gfortran) found by CMake"
  else
    echo "SKIP: no Fortran program to run ($(join '; ' "${skipped[@]}"))"
  fi
  exit 77
fi
[ -e "$interposer" ] || fail "no interposer at $interposer"

# CCT_STATS rows: communicators (world, self, size=N), count, collective, algorithm, ...
row='^[a-z0-9=]+ +[0-9]+ +'
run() {  # run <binding index> <np> [program argument]
  local binding=${bindings[$1]} program=${programs[$1]} np=$2 label c
  shift 2
  label="$binding, np $np${1:+, $1}"
  mpirun --allow-run-as-root --oversubscribe -np "$np" -x LD_PRELOAD="$interposer" \
    -x CCT_STATS=1 "$program" "$@" >"$out" 2>"$err" || fail "$label: exit status $?"
  # The summary line, literal but for the counts ("mpif.h" has a dot).
  local summary="^fortran_check(${binding//./\\.}): $np ranks, [1-9][0-9]* checks, 0 failures"
  grep -q "$summary on all ranks$" "$out" || fail "$label: no clean summary line"
  ! grep -q 'FAILED' "$err" || fail "$label: a check failed"
  # The runtime ran the calls the program made through each binding: they
  # reached the interposer Fortran entry points, not Open MPI alone.
  for c in allreduce bcast alltoallv reduce_scatter; do
    grep -Eq "${row}$c +[a-z_]+" "$err" || fail "$label: no runtime stats row for $c"
  done
  grep -Eq '^cct: (calls passed|no collective call was passed) to the MPI library \(rank 0\)$' \
    "$err" || fail "$label: no account of the calls passed to the MPI library on rank 0"
}
names=()
for i in "${tested[@]}"; do
  for np in 1 2 3 4; do
    run "$i" "$np"
  done
  run "$i" 2 thread
  names+=("${bindings[$i]}")
done
note=""
if [ ${#skipped[@]} -gt 0 ]; then note=" (left out: $(join '; ' "${skipped[@]}"))"; fi
echo "PASS: fortran_check through $(join ', ' "${names[@]}") on 1 to 4" \
  "ranks and with MPI_Init_thread, its calls on the runtime$note"
