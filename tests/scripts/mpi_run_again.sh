#!/usr/bin/env bash
# The interposer (libcct_mpi.so) under osu_style_bench's loop (one call
# repeated, nothing else) on 2 ranks, with a rule that runs an algorithm
# of the project for every size: the first call is converted and decided,
# and every later call with the same arguments is run again without
# deciding again whether the profile keeps it on the library
# (interposer/kept_calls.hpp, last_run_calls). Counted by CCT_STATS, not
# timed: a collective of blocks of a datatype, a rooted one and a
# reduction (interposer/calls.cpp: settled, reduction). Under
# CCT_LOG=debug, which logs each call's decision, nothing is remembered;
# the results of the calls are checked by the suite's differential tests.
# usage: mpi_run_again.sh <osu_style_bench> <libcct_mpi.so>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench=$1
interposer=$2
calls=50
run() {  # run <collective> <rule> [mpirun -x options...]
  stats_loop "$bench" "$interposer" "$calls" "$@"
}
for pair in allgather:ring bcast:binomial gather:linear allreduce:ring; do
  c=${pair%%:*} alg=${pair#*:}
  run "$c" "$c:0-max:$alg"
  grep -Eq "^world +1 +$c +$alg +$calls " "$err" || fail "$c: $calls calls not run by $alg" "$err"
  grep -qxF "  $c: $((calls - 1)) call(s)" "$err" ||
    fail "$c: not $((calls - 1)) of $calls calls run again without a decision" "$err"
  run "$c" "$c:0-max:$alg" -x CCT_LOG=debug
  grep -q "^cct: calls run again" "$err" &&
    fail "$c, CCT_LOG=debug: calls were run again without their decision logged" "$err"
done
echo "PASS: a call the runtime runs is decided once; the same call again is run without deciding" \
  "again (allgather, bcast, gather, allreduce; not under CCT_LOG=debug)"
