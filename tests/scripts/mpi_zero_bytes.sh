#!/usr/bin/env bash
# The interposer (libcct_mpi.so) under tests/mpi/zero_bytes_check on 1 to
# 5 ranks (oversubscribed from 3): calls of every collective that move no
# byte succeed and leave every buffer as it was. Those whose emptiness
# every rank knows (all but gatherv, scatterv and alltoallv, where a rank
# cannot know the others' counts) return at once: CCT_STATS counts each of
# their calls there, and the runtime ran none of them. Then every
# collective kept on the library for every size (CCT_FORCE ...:0-max:mpi):
# each call is handed over untouched, before any conversion, so none of
# them is even seen to move nothing, and none is decided by size.
# usage: mpi_zero_bytes.sh <zero_bytes_check> <libcct_mpi.so>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
program=$1
interposer=$2
at_once="bcast gather scatter allgather alltoall allgatherv reduce allreduce reduce_scatter_block
  reduce_scatter scan exscan"
run() {  # run <np> <label> [mpirun -x options...]
  local np=$1 label=$2
  shift 2
  mpirun --allow-run-as-root --oversubscribe -np "$np" -x LD_PRELOAD="$interposer" \
    -x CCT_STATS=1 "$@" "$program" >"$out" 2>"$err" || fail "$label: exit status $?" "$err"
  grep -q "^zero_bytes_check: $np ranks, .* 0 failures on all ranks$" "$out" ||
    fail "$label: no clean summary line" "$out"
}
# CCT_STATS rows: communicators (world, self, size=N), count, collective, algorithm, ...
row='^[a-z0-9=]+ +[0-9]+ +'
for np in 1 2 3 4 5; do
  run "$np" "np $np"
  grep -q "^cct: calls that move no byte, returned at once as the library does (rank 0)$" "$err" ||
    fail "np $np: no calls counted as returned at once" "$err"
  for c in $at_once; do
    grep -q "^  $c: 6 call(s)$" "$err" || fail "np $np: $c: not 6 calls returned at once" "$err"
    calls=0
    if [ "$c" = allreduce ]; then calls=1; fi  # the program's own tally of failures
    ran=$(awk -v c="$c" '$1 ~ /^(world|self|size=[0-9]+)$/ && $3 == c {s += $5} END {print s + 0}' "$err")
    [ "$ran" -eq "$calls" ] || fail "np $np: the runtime ran $ran $c calls, not $calls" "$err"
  done
  for c in gatherv scatterv alltoallv; do
    grep -Eq "${row}$c +[a-z_]+" "$err" || fail "np $np: no runtime stats row for $c" "$err"
  done
done
all_mpi=""
for c in barrier $at_once gatherv scatterv alltoallv; do all_mpi+="$c:0-max:mpi;"; done
run 3 "all kept" -x CCT_FORCE="$all_mpi"
for c in barrier $at_once gatherv scatterv alltoallv; do
  case $c in
    barrier) n=1 ;;
    allreduce) n=7 ;;  # and the program's own tally of failures
    *) n=6 ;;
  esac
  grep -q "^  $c: $n call(s): the profile keeps the MPI library's own call for every size, or has no rule for it: handed over untouched$" \
    "$err" || fail "all kept: $c: not $n calls handed over untouched" "$err"
done
if grep -Eq "for their size$|^cct: calls that move no byte" "$err"; then
  fail "all kept: calls were converted before they were handed over" "$err"
fi
if grep -Eq "${row}[a-z_]+ +[a-z_]+" "$err"; then fail "all kept: the runtime ran calls" "$err"; fi
echo "PASS: zero-byte calls of every collective correct on 1 to 5 ranks, those every rank knows" \
  "empty returned at once; calls kept on the library for every size handed over untouched"
