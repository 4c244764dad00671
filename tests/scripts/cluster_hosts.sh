#!/usr/bin/env bash
# Open MPI across emulated hosts (tests/cluster/hosts.sh: a network and a
# UTS namespace per host, TCP between them over a bridge of their own):
# interposer_check and collectives_check under the interposer on 2 hosts
# of 2 ranks and on 3 hosts of 2, 2 and 1 ranks, with the default rules
# and with the multinode algorithms forced. The runtime finds the hosts by
# itself (no CCT_VIRTUAL_NODES): MPI_COMM_WORLD's calls run on the mpi
# transport, and the forced multinode algorithms run. Nothing of the
# fixture is left afterwards, also when a check fails. Where namespaces
# cannot be made here, the test says why and is skipped (status 77).
# usage: cluster_hosts.sh <hosts.sh> <interposer_check> <collectives_check> <libcct_mpi.so>
set -euo pipefail
hosts=$1
interposer_check=$2
collectives_check=$3
interposer=$4
source "$(dirname "$hosts")/fixture.sh"

run() {  # run <np> <program> <label> [mpirun args...]
  local np=$1 program=$2 label=$3
  shift 3
  timeout 240 "$hosts" mpirun "$hostdir" -np "$np" -x LD_PRELOAD="$interposer" -x CCT_STATS=1 \
    "$@" "$program" >"$out" 2>"$err" || fail "$label: exit status $?"
  grep -q "^$(basename "$program" | sed 's/^cct_//'): $np ranks, .* 0 failures on all ranks$" \
    "$out" || fail "$label: no clean summary line"
}

multinode="barrier:0-max:multinode;bcast:0-max:multinode;reduce:0-max:multinode;"
multinode+="allreduce:0-max:multinode;allgather:0-max:multinode;"
multinode+="reduce_scatter_block:0-max:multinode;allgatherv:0-max:multinode(inner=1,outer=1)"
for shape in "2 2" "2 2 1"; do
  hosts_up $shape
  label="hosts of $shape ranks"
  run "$np" "$interposer_check" "$label: interposer_check"
  # World spans the hosts: the runtime found them and runs it on mpi.
  grep -Eq "^world +[0-9]+ +allreduce +[a-z_]+" "$err" ||
    fail "$label: MPI_COMM_WORLD's allreduce did not run on the runtime"
  run "$np" "$collectives_check" "$label: collectives_check"
  run "$np" "$interposer_check" "$label: interposer_check, multinode forced" -x CCT_FORCE="$multinode"
  # allgather's multinode form needs nodes of equal size.
  equal=allgather
  [ "$shape" = "2 2" ] || equal=""
  for c in barrier bcast reduce allreduce $equal; do
    grep -Eq "^world +[0-9]+ +$c +multinode" "$err" || fail "$label: $c did not run multinode"
  done
  run "$np" "$collectives_check" "$label: collectives_check, multinode forced" -x CCT_FORCE="$multinode"
  for c in reduce_scatter_block allgatherv; do
    grep -Eq "^world +[0-9]+ +$c +multinode" "$err" || fail "$label: $c did not run multinode"
  done
  hosts_down
done
echo "PASS: interposer_check and collectives_check across 2 hosts of 2 ranks and 3 hosts of" \
  "2, 2 and 1, flat and multinode, and nothing left"
