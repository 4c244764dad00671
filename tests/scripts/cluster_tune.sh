#!/usr/bin/env bash
# ccautotune --launcher mpirun --hostfile across 2 emulated hosts of 2
# ranks (tests/cluster/hosts.sh), ccautotune itself started in host 1: the
# job finds the 2 nodes by their hostnames (no CCT_VIRTUAL_NODES), measures
# the multinode algorithms and the MPI library's own call on the mpi
# transport, and the profile records 2 nodes of 2 ranks and rules for
# 2 nodes. Then the unmodified MPI program interposer_check runs under the
# interposer on that profile across the same hosts: its results match the
# reference, and MPI_COMM_WORLD's calls go where the profile's rules for
# 4 ranks on 2 nodes send them. First, on 2 hosts of 1 rank: hosts on one
# machine share its PUs, so the tuner pins their ranks (which mpirun left
# unbound) to PUs 0 and 1, not both to PU 0 of its "own" host. Nothing of
# the hosts is left; skipped (77) with the reason where they cannot be
# made. One job each (--single-job): the second job is ccautotune_cluster's.
# usage: cluster_tune.sh <hosts.sh> <ccautotune> <interposer_check> <libcct_mpi.so>
set -euo pipefail
hosts=$1
tuner=$2
program=$3
interposer=$4
source "$(dirname "$hosts")/fixture.sh"

hosts_up 1 1
timeout 300 "$hosts" run "$hostdir" "$tuner" --launcher mpirun --hostfile "$hostdir/hostfile" \
  --mpirun-args "-np 2 --bind-to none" --collectives barrier --max-bytes 1 --quick --budget 0.02 \
  --single-job --out "$work/one" >"$out" 2>&1 || fail "ccautotune on 2 hosts of 1 rank exited $?" "$out"
if [ "$(nproc)" -ge 2 ]; then
  grep -qF "mpi on 2 node(s) x 1 rank(s), each pinned to a PU of its own (mpirun bound none): PUs 0,1" \
    "$out" || fail "the ranks of 2 hosts on one machine were not pinned to PUs 0 and 1" "$out"
fi
hosts_down

hosts_up 2 2
timeout 300 "$hosts" run "$hostdir" "$tuner" --launcher mpirun --hostfile "$hostdir/hostfile" \
  --mpirun-args "-np 4 --bind-to none" --collectives barrier,bcast,allreduce --max-bytes 4k \
  --quick --budget 0.02 --single-job --out "$work/p" >"$out" 2>&1 || fail "ccautotune exited $?" "$out"
grep -q "^ccautotune: 4 ranks on 2 node(s)" "$out" || fail "no layout line of 2 nodes" "$out"
csv=$(ls "$work"/p/*.csv)
yaml=$(ls "$work"/p/*.yaml)
for c in barrier bcast allreduce; do
  grep -q "^$c,mpi,2,4,[0-9]*,multinode," "$csv" || fail "$c: multinode not measured at 2 x 2" "$csv"
  grep -q "^$c,mpi,2,4,[0-9]*,mpi," "$csv" || fail "$c: the MPI library not measured at 2 x 2" "$csv"
done
! grep -q ',shm,' "$csv" || fail "shm measured across hosts" "$csv"
grep -q '^  nodes: 2$' "$yaml" || fail "the machine does not record 2 nodes" "$yaml"
grep -q '^  ranks_per_node: 2$' "$yaml" || fail "the machine does not record 2 ranks per node" "$yaml"

timeout 240 "$hosts" mpirun "$hostdir" -np 4 -x LD_PRELOAD="$interposer" -x CCT_STATS=1 \
  -x CCT_PROFILE="$yaml" -x CCT_LOG=info "$program" >"$out" 2>"$err" || fail "interposer_check exited $?"
grep -q "^interposer_check: 4 ranks, .* 0 failures on all ranks$" "$out" ||
  fail "interposer_check on the profile: checks failed"
grep -qF "cct: profile $yaml (" "$err" || fail "the runtime did not say it read the profile"
ran=""
for c in barrier bcast allreduce; do
  # The profile's choices for 4 ranks on 2 nodes (every range's algorithm
  # and fallbacks): what MPI_COMM_WORLD's calls ran is among them, and each
  # call ran on the runtime or was kept on the library (a call moving no
  # byte returns at once, and shows in neither).
  choices=$(awk -v c="  $c:" '$0 == c {in_c = 1; next} in_c && /^  [a-z_]+:$/ {exit}
            in_c && /np: \[4, max\]/ {np = 1; nodes = 0; next} np && /- np:/ {np = 0}
            np && /nodes: 2/ {nodes = 1} np && nodes' "$yaml" |
    grep -o "algorithm: [a-z_0-9]*" | awk '{print $2}' | sort -u)
  [ -n "$choices" ] || fail "no $c rule for 4 ranks on 2 nodes" "$yaml"
  world=$(awk -v c="$c" '$1 == "world" && $3 == c {sub(/\(.*/, "", $4); print $4}' "$err")
  for alg in $world; do
    echo "$choices" | grep -qx "$alg" ||
      fail "$c ran $alg, not one of the profile's choices ($(echo $choices))"
  done
  if [ -z "$world" ]; then
    echo "$choices" | grep -qx mpi || fail "$c ran nowhere, and the profile never keeps the library"
    grep -Eq "^  $c: [0-9]+ call\(s\): the profile keeps the MPI library's own call" "$err" ||
      fail "$c was not kept on the library as the profile says"
  fi
  ran+=" $c:$(echo ${world:-mpi} | tr ' ' ',')"
done
hosts_down
echo "PASS: ccautotune across 2 emulated hosts recorded 2 nodes and measured multinode;" \
  "interposer_check on its profile across them ran the profile's choices ($ran)"
