#!/usr/bin/env bash
# A rank lost mid-job on one of 2 emulated hosts of 2 ranks
# (tests/cluster/hosts.sh), under the interposer: tests/mpi/timeout_check
# calls allreduce once on every rank, then rank K kills (SIGKILL) or stops
# (SIGSTOP) itself while the others call it again. The job must end soon
# with a nonzero status and a message naming the lost rank and its host:
# Open MPI's for a killed rank (K 3, a rank that leads nothing, and 2, the
# rank that leads host 2's shared memory); for a stopped one, which MPI
# cannot see, the runtime's under CCT_TIMEOUT (the mpi transport names the
# peer it waited for and the peer's host). No rank's second call returns;
# nothing of the job is left in /dev/shm (the runtime's segments, named
# after their creators' pids, nor Open MPI's, named after the host) nor any
# process on the hosts. A run in which mpirun itself crashed, in a race of
# Open MPI 4.1's (see run), is repeated, twice at most, and said so.
# Skipped (77) with the reason where the hosts cannot be made.
# usage: cluster_rank_lost.sh <hosts.sh> <timeout_check> <libcct_mpi.so>
set -euo pipefail
hosts=$1
program=$2
interposer=$3
source "$(dirname "$hosts")/fixture.sh"

# What the job left: the runtime's segments of its ranks' pids, Open MPI's
# segments of these hosts, processes in the hosts' namespaces.
leftovers() {
  local tag=${hostdir##*/cct-hosts-} pid f
  for pid in $(sed -n 's/^timeout_check: rank [0-9]*: pid \([0-9]*\)$/\1/p' "$out"); do
    for f in /dev/shm/cct-*-"$pid"-*; do [ -e "$f" ] && echo "$f"; done
  done
  for f in /dev/shm/vader_segment."$tag"-*; do [ -e "$f" ] && echo "$f"; done
  while read -r ns; do
    for pid in $(ip netns pids "$ns"); do echo "process $pid in $ns"; done
  done <"$hostdir/netns"
}

# run <label> <rank> kill|stop [mpirun args...]: sets $status and $took.
run() {
  local attempt
  for attempt in 1 2 3; do
    run_once "$@"
    mpirun_crashed || return 0
    # Open MPI 4.1's mpirun can crash while the job aborts: a rank on its
    # own host sends it a help message (the TCP btl's, on losing its peer)
    # through PMIx_Log, and mpirun's pmix_server_log_fn sends that on the
    # RML from the PMIx server's thread, racing its event loop. The crash
    # is Open MPI's and rare (once in CI, never in dozens of runs here):
    # the run is repeated, twice at most. mpirun was what removes its
    # host's vader segments; the runtime's of that job must be gone all
    # the same.
    echo "NOTE: $1: mpirun crashed in pmix_server_log_fn (an Open MPI 4.1 race), attempt $attempt of 3"
    local tag=${hostdir##*/cct-hosts-}
    rm -f /dev/shm/vader_segment."$tag"-h1.*
    check_nothing_left "$1"
  done
  fail "$1: mpirun crashed in every attempt"
}

# Whether the last run's mpirun died of SIGSEGV in pmix_server_log_fn.
mpirun_crashed() {
  [ "$status" -eq 139 ] && grep -q 'pmix_server_log_fn' "$err"
}

run_once() {
  local label=$1 rank=$2 how=$3
  shift 3
  local start=$SECONDS
  status=0
  timeout 120 "$hosts" mpirun "$hostdir" -np 4 -x LD_PRELOAD="$interposer" "$@" \
    "$program" allreduce "$rank" "$how" >"$out" 2>"$err" || status=$?
  took=$((SECONDS - start))
  [ "$status" -ne 124 ] || fail "$label: the job hung (killed after 120 s)"
  [ "$status" -ne 0 ] || fail "$label: the job ended with status 0"
  [ "$took" -lt 60 ] || fail "$label: the job took $took s to end"
  [ "$(grep -c '^timeout_check: rank [0-9]*: pid' "$out")" -eq 4 ] ||
    fail "$label: not every rank started"
  ! grep -q 'returned' "$out" || fail "$label: a call returned although rank $rank was lost"
  mpirun_crashed || check_nothing_left "$label"
}

check_nothing_left() {
  # The daemons take a moment to leave after mpirun.
  for _ in $(seq 50); do
    [ -n "$(leftovers)" ] || break
    sleep 0.1
  done
  local left
  left=$(leftovers)
  [ -z "$left" ] || fail "$1: left behind: $left"
}

hosts_up 2 2
host2=${hostdir##*/cct-hosts-}-h2
for killed in 3 2; do
  label="rank $killed killed"
  run "$label" "$killed" kill
  grep -Eq "process rank $killed with PID [0-9]+ on node 10\.213\.0\.2 exited on signal 9" "$err" ||
    fail "$label: no message naming rank $killed and its host 10.213.0.2"
  echo "PASS: $label: the job ended in $took s naming it and its host; nothing left"
done
# Rank 2 stopped: ranks on host 1 wait for it (or for rank 3, which waits
# for it) over the mpi transport.
label="rank 2 stopped"
run "$label" 2 stop -x CCT_TIMEOUT=2
grep -Eq "^cct: rank [0-9]: allreduce .* timed out \(CCT_TIMEOUT=2 s\): .*waiting for rank ([23]|[0-9] \(world rank [23]\)) on $host2 \((send|receive)\)" \
  "$err" || fail "$label: no message naming a rank on host 2 and its host $host2"
echo "PASS: $label: the job ended in $took s naming the rank waited for and its host; nothing left"
hosts_down
