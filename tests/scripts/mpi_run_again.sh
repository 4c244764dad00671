#!/usr/bin/env bash
# The interposer (libcct_mpi.so) under osu_style_bench's loop (one call
# repeated, nothing else) on 2 ranks, with a rule that runs an algorithm
# of the project for every size: the first call is converted and decided,
# and every later call with the same arguments is run again as the call
# it became, without converting it again (interposer/run_again.hpp).
# Counted by CCT_STATS, not timed: collectives of blocks of a datatype,
# rooted ones, reductions and the barrier. Under CCT_LOG=debug, which logs
# each call's decision, nothing is remembered; the results of calls run
# again with new buffers are checked by mpi_differential (--repeat).
# usage: mpi_run_again.sh <osu_style_bench> <libcct_mpi.so>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench=$1
interposer=$2
calls=50
run() {  # run <collective> <rule> [mpirun -x options...]
  stats_loop "$bench" "$interposer" "$calls" "$@"
}
for pair in allgather:ring alltoall:pairwise bcast:binomial gather:linear scatter:linear \
  reduce:binomial allreduce:ring scan:recursive_doubling barrier:dissemination; do
  c=${pair%%:*} alg=${pair#*:}
  run "$c" "$c:0-max:$alg"
  grep -Eq "^world +1 +$c +$alg +$calls " "$err" || fail "$c: $calls calls not run by $alg" "$err"
  grep -qxF "  $c: $((calls - 1)) call(s)" "$err" ||
    fail "$c: not $((calls - 1)) of $calls calls run again without converting them" "$err"
  run "$c" "$c:0-max:$alg" -x CCT_LOG=debug
  grep -q "^cct: calls run again" "$err" &&
    fail "$c, CCT_LOG=debug: calls were run again without their decision logged" "$err"
done
echo "PASS: a call the runtime runs is converted once; the same call again is run as the call it" \
  "became (9 collectives; not under CCT_LOG=debug)"
