#!/usr/bin/env bash
# The interposer (libcct_mpi.so) preloaded under tests/mpi/interposer_check
# on 1 to 4 ranks (oversubscribed from 3): every check of the program passes,
# the runtime's CCT_STATS tables show dispatched calls, and the calls passed
# to the MPI library on rank 0 are exactly the three reductions the program
# makes with operators the runtime does not have, with their reasons; its
# contiguous datatypes are never packed. With CCT_VIRTUAL_NODES=2 the
# communicators that span the virtual nodes run on the mpi transport, and
# the multinode algorithms forced there (2 and 3 virtual nodes) compute the
# program's results. A profile's allreduce rules for doubles serve the
# program's MPI_DOUBLE sums, and only those; its bcast rules for roots
# other than 0 its bcasts from rank 1, and only those.
# usage: mpi_interposer.sh <interposer_check> <libcct_mpi.so>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
program=$1
interposer=$2
# Under the interposer each process prints one CCT_STATS table whose rows
# are: communicators (world, self, size=N), count, collective, algorithm, ...
row='^[a-z0-9=]+ +[0-9]+ +'
for np in 1 2 3 4; do
  mpirun --allow-run-as-root --oversubscribe -np "$np" -x LD_PRELOAD="$interposer" \
    -x CCT_STATS=1 "$program" >"$out" 2>"$err" || fail "np $np: exit status $?"
  grep -q "^interposer_check: $np ranks, .* 0 failures on all ranks$" "$out" ||
    fail "np $np: no clean summary line"
  grep -q "^  allreduce: 1 call(s): a datatype the runtime cannot reduce" "$err" ||
    fail "np $np: the MAXLOC allreduce on MPI_2INT is not counted as passed through"
  grep -q "^  allreduce: 2 call(s): an operator the runtime does not take" "$err" ||
    fail "np $np: the user-operator and MPI_BAND allreduces are not counted as passed through"
  [ "$(grep -c '^  [a-z]*: [0-9]* call(s): ' "$err")" -eq 2 ] || fail "np $np: other calls passed through"
  grep -Eq "${row}alltoall +[a-z_]+" "$err" || fail "np $np: no runtime stats row for alltoall"
  # Its datatypes are all contiguous (MPI_INT, a contiguous type of them):
  # taken as they are, never packed.
  ! grep -q '^cct: calls run on packed copies' "$err" || fail "np $np: contiguous data was packed"
done
# Every collective forced to the MPI library's own call (the `mpi`
# algorithm): the program's checks pass (its 8-bit sums, which Open MPI
# saturates, are refused by `mpi` and go to the default), and the
# interposer hands each call it keeps on the library to the library as the
# program made it, and counts it so.
all_mpi=""
for c in barrier bcast gather scatter reduce allreduce allgather alltoall; do
  all_mpi+="$c:0-max:mpi;"
done
mpirun --allow-run-as-root --oversubscribe -np 3 -x LD_PRELOAD="$interposer" -x CCT_STATS=1 \
  -x CCT_FORCE="$all_mpi" "$program" >"$out" 2>"$err" || fail "all mpi: exit status $?"
grep -q "^interposer_check: 3 ranks, .* 0 failures on all ranks$" "$out" ||
  fail "all mpi: no clean summary line"
# The communicators of 3 ranks, as "collective algorithm" lines.
awk '$1 == "world" || $1 == "size=3" {print $3, $4}' "$err" >"$out.world"
for c in barrier bcast gather scatter reduce allreduce allgather alltoall; do
  grep -Eq "^  $c: [0-9]+ call\(s\): the profile keeps the MPI library's own call" "$err" ||
    fail "all mpi: $c was not kept on the library"
done
grep -Eq '^allreduce +[a-z_]+' <(grep -v '^allreduce +mpi ' "$out.world") ||
  fail "all mpi: the 8-bit allreduce did not leave the library"
rm -f "$out.world"
# A profile whose allreduce rules for doubles differ from the others: the
# program's MPI_DOUBLE sums take them, its MPI_INT and MPI_INT8_T ones
# the untyped rules, and CCT_LOG says which (profile_read.cpp, datatypes).
# The same for its bcast rules of roots other than 0 (roots: nonzero).
cat >"$dir/typed.yaml" <<'YAML'
schema: 2
tool_version: 0.1.0
date: 2026-11-29T00:00:00Z
machine: {fingerprint: 0123456789abcdef, summary: pack:1 core:2 pu:2, nodes: 1, ranks_per_node: 2,
  packages: 1, numa_nodes: 1, cores: 2, pus: 2, caches: L2 1M x2}
tuning: {}
rules:
  allreduce:
    shm:
      - np: [1, max]
        sizes: [{range: [0, max], algorithm: ring}]
      - np: [1, max]
        datatypes: [double]
        sizes: [{range: [0, max], algorithm: recursive_doubling}]
  bcast:
    shm:
      - np: [1, max]
        sizes: [{range: [0, max], algorithm: binomial}]
      - np: [1, max]
        roots: nonzero
        sizes: [{range: [0, max], algorithm: knomial, params: {radix: 2}}]
YAML
mpirun --allow-run-as-root --oversubscribe -np 2 -x LD_PRELOAD="$interposer" \
  -x CCT_PROFILE="$dir/typed.yaml" -x CCT_LOG=info "$program" >"$out" 2>"$err" ||
  fail "typed rules: exit status $?"
grep -q "^interposer_check: 2 ranks, .* 0 failures on all ranks$" "$out" ||
  fail "typed rules: no clean summary line"
grep -q '^cct: rank 0: allreduce [0-9]* B -> recursive_doubling (profile, its rules for double)$' \
  "$err" || fail "typed rules: no double allreduce took them" "$err"
grep -q '^cct: rank 0: allreduce [0-9]* B -> ring (profile)$' "$err" ||
  fail "typed rules: no other allreduce took the untyped ones" "$err"
grep -q '^cct: rank 0: bcast [0-9]* B -> knomial(radix=2) (profile, its rules for roots other than 0)$' \
  "$err" || fail "rules of roots other than 0: no bcast from rank 1 took them" "$err"
grep -q '^cct: rank 0: bcast [0-9]* B -> binomial (profile)$' "$err" ||
  fail "rules of roots other than 0: no bcast from rank 0 took the others" "$err"
# Two virtual nodes of 2 ranks: every communicator of the program but
# MPI_COMM_SELF spans both, so it runs on the mpi transport, and no
# algorithm that needs shared memory may show in the runtime's tables.
mpirun --allow-run-as-root --oversubscribe -np 4 -x LD_PRELOAD="$interposer" -x CCT_STATS=1 \
  -x CCT_VIRTUAL_NODES=2 "$program" >"$out" 2>"$err" || fail "virtual nodes: exit status $?"
grep -q "^interposer_check: 4 ranks, .* 0 failures on all ranks$" "$out" ||
  fail "virtual nodes: no clean summary line"
grep -Eq "${row}barrier +dissemination" "$err" || fail "virtual nodes: no p2p barrier ran"
! grep -Eq "${row}[a-z]+ +(central_counter|multilevel|dual_queue|two_level|numa|pdbp)" "$err" ||
  fail "virtual nodes: a shared-memory algorithm ran across virtual nodes"
# The hierarchical algorithms under the program: every collective that has
# one forced to multinode (shm inside each virtual node, mpi between them),
# on 2 nodes of 2 ranks with the default parameters and on 3 nodes of 2, 2
# and 1 ranks with others. MPI_COMM_WORLD's table shows them dispatched;
# allgather, which needs nodes of equal size, falls back on the 3 unequal
# nodes.
multinode() {  # <np> <nodes> <params per collective: barrier bcast reduce allreduce allgather>
  local np=$1 nodes=$2 force=""
  shift 2
  for c in barrier bcast reduce allreduce allgather; do
    force+="$c:0-max:multinode$1;"
    shift
  done
  mpirun --allow-run-as-root --oversubscribe -np "$np" -x LD_PRELOAD="$interposer" -x CCT_STATS=1 \
    -x CCT_VIRTUAL_NODES="$nodes" -x CCT_FORCE="$force" "$program" >"$out" 2>"$err" ||
    fail "multinode on $nodes nodes: exit status $?"
  grep -q "^interposer_check: $np ranks, .* 0 failures on all ranks$" "$out" ||
    fail "multinode on $nodes nodes: no clean summary line"
  awk '$1 == "world" {print $3, $4}' "$err" >"$out.world"
}
multinode 4 2 "" "" "" "" ""
for c in barrier bcast reduce allreduce allgather; do
  grep -Eq "^$c +multinode\(split=0,inner=0,outer=0\)" "$out.world" ||
    fail "2 virtual nodes: $c did not run multinode"
done
multinode 5 3 "(inner=1,outer=1)" "(inner=1,outer=2)" "(inner=2,outer=1)" "(inner=1,outer=2)" \
  "(inner=2,outer=1)"
grep -Eq '^barrier +multinode\(split=0,inner=1,outer=1\)' "$out.world" &&
  grep -Eq '^bcast +multinode\(split=0,inner=1,outer=2\)' "$out.world" &&
  grep -Eq '^reduce +multinode\(split=0,inner=2,outer=1\)' "$out.world" &&
  grep -Eq '^allreduce +multinode\(split=0,inner=1,outer=2\)' "$out.world" ||
  fail "3 virtual nodes: a forced multinode did not run"
grep -Eq '^allgather +ring' "$out.world" || fail "3 unequal nodes: allgather did not fall back"
rm -f "$out.world"
echo "PASS: the interposer under interposer_check on 1 to 4 ranks, on 2 virtual nodes, and" \
  "with the multinode algorithms on 2 and 3"
