#!/usr/bin/env bash
# The interposer (libcct_mpi.so) preloaded under tests/mpi/collectives_check
# (the collectives after the first eight) on 1 to 5 ranks (oversubscribed
# from 3): every check passes, each of its collectives ran on the runtime
# (a CCT_STATS row), and the only calls passed to the MPI library are the
# scans with a user operator (one per communicator), with their reason.
# Then every one of them forced to the library's own call (`mpi`); rules
# by size for gatherv, scatterv and alltoallv, whose size the ranks must
# agree on; two virtual nodes, where the communicators that span both
# run on the mpi transport; and the multinode reduce-scatters and
# allgatherv forced on three.
# usage: mpi_collectives.sh <collectives_check> <libcct_mpi.so>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
program=$1
interposer=$2
collectives="reduce_scatter_block reduce_scatter allgatherv scan exscan gatherv scatterv alltoallv"
run() {  # run <np> <label> [mpirun -x options...]
  local np=$1 label=$2
  shift 2
  mpirun --allow-run-as-root --oversubscribe -np "$np" -x LD_PRELOAD="$interposer" \
    -x CCT_STATS=1 "$@" "$program" >"$out" 2>"$err" || fail "$label: exit status $?"
  grep -q "^collectives_check: $np ranks, .* 0 failures on all ranks$" "$out" ||
    fail "$label: no clean summary line"
}
# CCT_STATS rows: communicators (world, self, size=N), count, collective, algorithm, ...
row='^[a-z0-9=]+ +[0-9]+ +'
for np in 1 2 3 4 5; do
  run "$np" "np $np"
  for c in $collectives; do
    grep -Eq "${row}$c +[a-z_]+" "$err" || fail "np $np: no runtime stats row for $c"
  done
  grep -q "^  scan: 3 call(s): an operator the runtime does not take" "$err" ||
    fail "np $np: the user-operator scan is not counted as passed through"
  [ "$(grep -c '^  [a-z_]*: [0-9]* call(s): ' "$err")" -eq 1 ] || fail "np $np: other calls passed through"
done
all_mpi=""
for c in $collectives; do all_mpi+="$c:0-max:mpi;"; done
run 3 "all mpi" -x CCT_FORCE="$all_mpi"
for c in $collectives; do
  grep -Eq "^  $c: [0-9]+ call\(s\): the profile keeps the MPI library's own call" "$err" ||
    fail "all mpi: $c was not kept on the library"
done
# Rules that choose by size, for the collectives whose size no rank knows
# alone: the ranks agree on it, and each size goes where its rule says, to
# the runtime or to the library, on every rank alike.
by_size="alltoallv:0-64:linear;alltoallv:64-max:pairwise;gatherv:0-64:linear;gatherv:64-max:mpi;"
by_size+="scatterv:0-64:mpi;scatterv:64-max:linear"
run 4 "rules by size" -x CCT_FORCE="$by_size"
for rule in "alltoallv +linear" "alltoallv +pairwise" "gatherv +linear" "scatterv +linear"; do
  grep -Eq "${row}$rule " "$err" || fail "rules by size: no runtime stats row for $rule"
done
for c in gatherv scatterv; do
  grep -Eq "^  $c: [0-9]+ call\(s\): the profile keeps the MPI library's own call" "$err" ||
    fail "rules by size: no $c kept on the library"
done
run 4 "two virtual nodes" -x CCT_VIRTUAL_NODES=2
for c in $collectives; do
  grep -Eq "${row}$c +[a-z_]+" "$err" || fail "two virtual nodes: no runtime stats row for $c"
done
# The multinode forms forced on 3 virtual nodes of 2, 2 and 1 ranks (groups
# of unequal size): MPI_COMM_WORLD's rows show them dispatched.
multinode="reduce_scatter_block:0-max:multinode;reduce_scatter:0-max:multinode(inner=1,outer=1);"
multinode+="allgatherv:0-max:multinode(inner=1,outer=1)"
run 5 "multinode on three virtual nodes" -x CCT_VIRTUAL_NODES=3 -x CCT_FORCE="$multinode"
for c in reduce_scatter_block reduce_scatter allgatherv; do
  grep -Eq "^world +[0-9]+ +$c +multinode" "$err" || fail "three virtual nodes: $c did not run multinode"
done
echo "PASS: $collectives under the interposer on 1 to 5 ranks, kept on the library, on two virtual" \
  "nodes, and multinode on three"
