#!/usr/bin/env bash
# ccautotune beyond one node, on one machine: two virtual nodes of 2 ranks
# (CCT_VIRTUAL_NODES=2) under mpirun tune the shapes 2 x 1 and 2 x 2 over the
# mpi transport with shm inside each node. The MPI library's own call (the
# `mpi` algorithm) is measured at every shape. The results rows and the
# profile's buckets carry the 2 nodes, the hierarchical multinode
# algorithms are measured where a node holds 2 ranks (and refused where it
# holds 1), and the profile's machine records 2 nodes x 2 ranks. The same
# through --launcher=mpirun (its flags as --flag=value stay out of the ranks'
# command line); a shape the job does not have, --np under
# mpirun, launcher flags without --launcher, the shapes across nodes on a
# run without mpirun and --predict-nodes 1 are refused with status 2.
# Node counts not measured get rules predicted by the cost model (4 nodes
# x 2 ranks from 2 x 2), which serve a job of 4 virtual nodes, saying so.
# Ranks that mpirun left unbound (--bind-to none) are pinned one per PU
# while a shape that fits the machine's PUs measures, and the run says so.
# Then the unmodified MPI program interposer_check runs on that profile
# under the interposer on the same 2 virtual nodes: its results match the
# reference, and MPI_COMM_WORLD's calls go to the profile's choices.
# usage: ccautotune_cluster.sh <ccautotune> <interposer_check> <libcct_mpi.so>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
tuner=$1
program=$2
interposer=$3
tune() {
  local outdir=$1
  shift
  mpirun --allow-run-as-root --oversubscribe --bind-to none -np 4 -x CCT_VIRTUAL_NODES=2 "$tuner" \
    --collectives barrier,bcast,allreduce --max-bytes 1k --quick --budget 0.02 --out "$outdir" "$@"
}

tune "$dir/a" >"$dir/a.log" 2>&1 || fail "the run under mpirun exited $?" "$dir/a.log"
grep -q "ccautotune: 4 ranks on 2 node(s)" "$dir/a.log" || fail "no layout line" "$dir/a.log"
pinned=", each pinned to a PU of its own (mpirun bound none)"
grep -qF "mpi on 2 node(s) x 1 rank(s)$pinned: PUs 0,1" "$dir/a.log" ||
  fail "the 2 ranks of 2 x 1 were not pinned to PUs 0 and 1" "$dir/a.log"
if [ "$(nproc)" -lt 4 ]; then
  grep -qF "mpi on 2 node(s) x 2 rank(s)$pinned" "$dir/a.log" &&
    fail "4 ranks pinned on $(nproc) PUs" "$dir/a.log"
fi
csv=$(ls "$dir"/a/*.csv)
yaml=$(ls "$dir"/a/*.yaml)
grep -q '^collective,transport,nodes,np,' "$csv" || fail "no nodes column" "$csv"
grep -q '^allreduce,mpi,2,4,[0-9]*,multinode,' "$csv" || fail "no multinode row at 2 x 2" "$csv"
grep -q '^bcast,mpi,2,2,[0-9]*,binomial,' "$csv" || fail "no flat row at 2 x 1" "$csv"
# The MPI library's own call is a candidate at every shape under mpirun.
grep -q '^allreduce,mpi,2,4,[0-9]*,mpi,' "$csv" || fail "the MPI library not measured at 2 x 2" "$csv"
grep -q '^bcast,mpi,2,2,[0-9]*,mpi,' "$csv" || fail "the MPI library not measured at 2 x 1" "$csv"
! grep -q '^[a-z]*,mpi,2,2,[0-9]*,multinode,' "$csv" || fail "multinode ran with 1 rank per node" "$csv"
! grep -q ',shm,' "$csv" || fail "shm measured across nodes" "$csv"
grep -q '^skip at np=2, cannot run here .* allreduce/multinode' "$dir/a.log" || fail "multinode not reported as skipped at 2 x 1" "$dir/a.log"
grep -q '^  nodes: 2$' "$yaml" || fail "the machine does not record 2 nodes" "$yaml"
grep -q '^  ranks_per_node: 2$' "$yaml" || fail "the machine does not record 2 ranks per node" "$yaml"
grep -q '^      - nodes: 2$\|^        nodes: 2$' "$yaml" || fail "no bucket of 2 nodes" "$yaml"
# Node counts not measured are predicted from the 2 measured, for each
# number of ranks on a node (4 x 2 from 2 x 2), and the run says so.
grep -q '^        predicted: {np: 8, from_np: 4, from_nodes: 2' "$yaml" ||
  fail "no bucket of 4 nodes x 2 predicted from 2 x 2" "$yaml"
grep -q '^predicted (mpi, 2 ranks on each node): nodes 4 8 16 32,' "$dir/a.log" ||
  fail "the run does not say which node counts it predicted" "$dir/a.log"
# ccprofile check takes the points of one node count.
"$(dirname "$tuner")/ccprofile" check "$yaml" "$csv" --nodes 2 >"$dir/check.txt" ||
  fail "ccprofile check --nodes 2 exited $?" "$dir/check.txt"
grep -q "^measured points on 2 node(s): [1-9][0-9]* sizes" "$dir/check.txt" ||
  fail "ccprofile check --nodes 2 took no point of 2 nodes" "$dir/check.txt"
"$(dirname "$tuner")/ccprofile" check "$yaml" "$csv" --nodes 4 | grep -q "^measured points on 4 node(s): none measured$" ||
  fail "ccprofile check --nodes 4 took points of another node count" "$csv"

mpirun --allow-run-as-root --oversubscribe -np 4 -x LD_PRELOAD="$interposer" -x CCT_STATS=1 \
  -x CCT_VIRTUAL_NODES=2 -x CCT_PROFILE="$yaml" "$program" >"$dir/app.out" 2>"$dir/app.err" ||
  fail "interposer_check on the profile exited $?" "$dir/app.err"
grep -q "^interposer_check: 4 ranks, .* 0 failures on all ranks$" "$dir/app.out" ||
  fail "interposer_check on the profile: checks failed" "$dir/app.out"
awk '$1 == "world" {sub(/\(.*/, "", $4); print $3, $4}' "$dir/app.err" >"$dir/world.txt"
for c in barrier bcast allreduce; do
  # The profile's choices for 4 ranks on 2 nodes: every range's algorithm
  # and fallbacks, in every bucket of that shape (a bcast at a root other
  # than 0 takes the rules of such roots where there are some). What
  # MPI_COMM_WORLD's calls ran is among them, and each call ran on the
  # runtime or was kept on the library (a call moving no byte returns at
  # once, and shows in neither).
  choices=$(awk -v c="  $c:" '$0 == c {in_c = 1; next} in_c && /^  [a-z_]+:$/ {exit}
            in_c && /- np:/ {np = /np: \[4, max\]/; next} in_c && np' "$yaml" |
    grep -o "algorithm: [a-z_0-9]*" | awk '{print $2}' | sort -u)
  [ -n "$choices" ] || fail "no $c rule for 4 ranks on 2 nodes" "$yaml"
  ran=$(awk -v c="$c" '$1 == c {print $2}' "$dir/world.txt")
  for alg in $ran; do
    echo "$choices" | grep -qx "$alg" ||
      fail "$c ran $alg, not one of the profile's choices ($(echo $choices))" "$dir/world.txt"
  done
  if [ -z "$ran" ]; then
    echo "$choices" | grep -qx mpi || fail "$c ran nowhere, and the profile never keeps the library" "$yaml"
    grep -Eq "^  $c: [0-9]+ call\(s\): the profile keeps the MPI library's own call" \
      "$dir/app.err" || fail "$c was not kept on the library as the profile says" "$dir/app.err"
  fi
done

# On 4 nodes of 1 rank, the predicted rules serve, and the runtime says
# where they come from.
mpirun --allow-run-as-root --oversubscribe -np 4 -x LD_PRELOAD="$interposer" \
  -x CCT_VIRTUAL_NODES=4 -x CCT_PROFILE="$yaml" "$program" >"$dir/app4.out" 2>"$dir/app4.err" ||
  fail "interposer_check on 4 nodes exited $?" "$dir/app4.err"
grep -q "^interposer_check: 4 ranks, .* 0 failures on all ranks$" "$dir/app4.out" ||
  fail "interposer_check on 4 nodes: checks failed" "$dir/app4.out"
grep -qF "profile rules predicted by the cost model for 4 nodes x 1 rank from those measured at 2 nodes x 1 rank used for 4 ranks on mpi" \
  "$dir/app4.err" || fail "no word of the predicted rules on 4 nodes" "$dir/app4.err"

CCT_VIRTUAL_NODES=2 "$tuner" --launcher=mpirun --mpirun-args="-np 4 --oversubscribe" \
  --collectives barrier --quick --budget 0.02 --out "$dir/b" >"$dir/b.log" 2>&1 ||
  fail "--launcher mpirun exited $?" "$dir/b.log"
grep -q '^barrier,mpi,2,4,0,multinode,' "$dir"/b/*.csv || fail "no multinode barrier row" "$dir/b.log"
# --launcher mpirun starts the job a second time, which confirms the
# first one's picks again in fresh processes (reconfirm rows).
grep -q "^ccautotune: a second job times each size's picks again" "$dir/b.log" ||
  fail "--launcher mpirun started no second job" "$dir/b.log"
grep -q ',reconfirm,' "$dir"/b/*.csv || fail "no reconfirm rows from the second job" "$dir/b.log"
# The outside check times one machine's communicators only: said, not run.
grep -q "^ccautotune: no outside check across nodes" "$dir/b.log" ||
  fail "no word of the outside check left out across nodes" "$dir/b.log"

status=0
tune "$dir/c" --nodes 3 >"$dir/c.log" 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q -- '--nodes: 3 nodes, and the job has 2' "$dir/c.log" ||
  fail "--nodes 3 on 2 nodes: status $status" "$dir/c.log"
status=0
tune "$dir/d" --np 4 >"$dir/d.log" 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q -- '--np: under mpirun' "$dir/d.log" ||
  fail "--np under mpirun: status $status" "$dir/d.log"
status=0
"$tuner" --hostfile /nonexistent >"$dir/e.log" 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q -- '--hostfile and --mpirun-args go with --launcher mpirun' \
  "$dir/e.log" || fail "--hostfile alone: status $status" "$dir/e.log"
status=0
"$tuner" --nodes 2 --collectives barrier --quick --out "$dir/f" >"$dir/f.log" 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q -- '--nodes, --ranks-per-node and --predict-nodes shape a run across nodes' \
  "$dir/f.log" || fail "--nodes without mpirun: status $status" "$dir/f.log"
status=0
tune "$dir/g" --predict-nodes 1,8 >"$dir/g.log" 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q -- '--predict-nodes: node counts start at 2' "$dir/g.log" ||
  fail "--predict-nodes 1: status $status" "$dir/g.log"
echo "PASS: ccautotune tunes 2 virtual nodes x 1 and 2 ranks over mpi + shm"
