#!/usr/bin/env bash
# A rank killed mid-job on one of 2 emulated hosts of 2 ranks
# (tests/cluster/hosts.sh), under the interposer: tests/mpi/timeout_check
# calls allreduce once on every rank, then rank K kills itself (SIGKILL)
# while the others call it again. The job must end soon with a nonzero
# status and a message naming rank K and its host; no rank's second call
# returns; nothing of the job is left in /dev/shm (the runtime's segments,
# named after their creators' pids, nor Open MPI's, named after the host)
# nor any process on the hosts. K is 3 (a rank that leads nothing) and 2
# (the rank that leads host 2's shared memory). Skipped (77) with the
# reason where the hosts cannot be made.
# usage: cluster_rank_killed.sh <hosts.sh> <timeout_check> <libcct_mpi.so>
set -euo pipefail
hosts=$1
program=$2
interposer=$3
source "$(dirname "$hosts")/fixture.sh"

# What the job left: the runtime's segments of its ranks' pids, Open MPI's
# segments of these hosts, processes in the hosts' namespaces.
leftovers() {
  local tag=${dir##*/cct-hosts-} pid f
  for pid in $(sed -n 's/^timeout_check: rank [0-9]*: pid \([0-9]*\)$/\1/p' "$out"); do
    for f in /dev/shm/cct-*-"$pid"-*; do [ -e "$f" ] && echo "$f"; done
  done
  for f in /dev/shm/vader_segment."$tag"-*; do [ -e "$f" ] && echo "$f"; done
  while read -r ns; do
    for pid in $(ip netns pids "$ns"); do echo "process $pid in $ns"; done
  done <"$dir/netns"
}

hosts_up 2 2
for killed in 3 2; do
  label="rank $killed killed"
  start=$SECONDS
  status=0
  timeout 120 "$hosts" mpirun "$dir" -np 4 -x LD_PRELOAD="$interposer" \
    "$program" allreduce "$killed" kill >"$out" 2>"$err" || status=$?
  took=$((SECONDS - start))
  [ "$status" -ne 124 ] || fail "$label: the job hung (killed after 120 s)"
  [ "$status" -ne 0 ] || fail "$label: the job ended with status 0"
  [ "$took" -lt 60 ] || fail "$label: the job took $took s to end"
  [ "$(grep -c '^timeout_check: rank [0-9]*: pid' "$out")" -eq 4 ] ||
    fail "$label: not every rank started"
  ! grep -q 'returned' "$out" || fail "$label: a call returned although rank $killed was dead"
  grep -Eq "process rank $killed with PID [0-9]+ on node 10\.213\.0\.2 exited on signal 9" "$err" ||
    fail "$label: no message naming rank $killed and its host 10.213.0.2"
  # The daemons take a moment to leave after mpirun.
  for _ in $(seq 50); do
    [ -n "$(leftovers)" ] || break
    sleep 0.1
  done
  left=$(leftovers)
  [ -z "$left" ] || fail "$label: left behind: $left"
  echo "PASS: $label: the job ended in $took s naming it and its host; nothing left"
done
hosts_down
