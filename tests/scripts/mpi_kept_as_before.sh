#!/usr/bin/env bash
# The interposer (libcct_mpi.so) under osu_style_bench's loop (one call
# repeated, nothing else) on 2 ranks, with rules that keep the library's
# own call for small sizes only (so that each call's size is looked at):
# the first call is converted and decided, and every later call with the
# same arguments is kept as that one was, without converting anything
# again (interposer/calls.cpp, KeptCall). Counted by CCT_STATS, not timed:
# one collective of each path (blocks of a datatype; a reduction; the
# counts of allgatherv and reduce_scatter; a rooted one), each checked
# inline by its MPI_* symbol (wrappers.cpp, kept_at_once). Under
# CCT_LOG=debug, which logs each call's decision, nothing is remembered.
# usage: mpi_kept_as_before.sh <osu_style_bench> <libcct_mpi.so>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench=$1
interposer=$2
calls=50
run() {  # run <collective> <rule> [mpirun -x options...]
  stats_loop "$bench" "$interposer" "$calls" "$@"
}
kept_line() {  # kept_line <collective> <as before>
  echo "  $1: $calls call(s): the profile keeps the MPI library's own call for their size ($2 as the same call before, not converted again)"
}
for pair in allgather:ring allreduce:ring allgatherv:ring reduce_scatter:ring bcast:binomial gather:linear; do
  c=${pair%%:*} alg=${pair#*:}
  rule="$c:0-64:mpi;$c:64-max:$alg"
  run "$c" "$rule"
  grep -qxF "$(kept_line "$c" $((calls - 1)))" "$err" ||
    fail "$c: not $((calls - 1)) of $calls calls kept as the call before" "$err"
  run "$c" "$rule" -x CCT_LOG=debug
  grep -qxF "$(kept_line "$c" 0)" "$err" ||
    fail "$c, CCT_LOG=debug: calls were kept without their decision logged" "$err"
done
echo "PASS: a call kept on the library for its size is decided once; the same call again is" \
  "kept without converting anything (allgather, allreduce, allgatherv, reduce_scatter, bcast,"\
  "gather; not under CCT_LOG=debug)"
